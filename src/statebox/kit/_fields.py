"""A domain's field policy in one call: free-text columns, and columns with reasons of their own.

Free text (a note's body, a ticket's subject) is the column most domains leave out of
state comparison, for the same reason: its wording varies trial to trial, and the facts a
task needs in it are read by that task's text checks. `FREE_TEXT` is that reason, said
once; `field_policy` lists the columns in the order given (the order is part of a
domain's fingerprint, `statebox.judge`).
"""

from __future__ import annotations

from statebox.world import ExcludedField, FieldPolicy

__all__ = ["FREE_TEXT", "field_policy"]

FREE_TEXT = (
    "free text: its wording is not compared; the facts a task needs in it (ids, amounts, "
    "dates, what happened) are read by that task's text checks"
)
"""Why a free-text column is not compared (the reason every built-in domain gives)."""


def field_policy(*columns: str | tuple[str, str]) -> FieldPolicy:
    """The columns left out of state comparison, each with its reason.

    Args:
        columns: ``"table.column"`` for free text (reason `FREE_TEXT`), or
            ``("table.column", reason)`` for a column with a reason of its own.

    Raises:
        ValueError: A column is not written ``table.column``.
    """
    excluded = []
    for entry in columns:
        name, reason = (entry, FREE_TEXT) if isinstance(entry, str) else entry
        table, dot, column = name.partition(".")
        if not (table and dot and column):
            raise ValueError(f"field policy column {name!r}: write it as 'table.column'")
        excluded.append(ExcludedField(table=table, column=column, reason=reason))
    return FieldPolicy(excluded=tuple(excluded))
