"""Check builders the task generators share."""

from __future__ import annotations

from typing import Any

Row = dict[str, Any]


def says(table: str, column: str, where: Row, *facts: Any) -> Row:
    """A text check: the rows written in ``table`` matching ``where`` carry every fact.

    A fact given as a list is met by any one of its spellings.
    """
    return {"table": table, "column": column, "where": where, "must_contain": list(facts)}
