"""Row lookups and value helpers shared by the consulting_hr tools.

Lookups raise `ToolError("not_found")` with an agent-facing message naming the id format,
so every tool refuses an unknown id the same way. Money is rounded to cents at every write.
"""

from __future__ import annotations

from datetime import date, timedelta

from statebox.tools import ToolError
from statebox.world import Scalar, WorldTx

__all__ = [
    "Row",
    "cents",
    "in_days",
    "integer",
    "iso_date",
    "new_id",
    "number",
    "row_of",
    "stamp",
    "text",
]

Row = dict[str, Scalar]

_NOUNS = {
    "employees": ("employee", "'EMP-0012'"),
    "clients": ("client", "'CLI-03'"),
    "engagements": ("engagement", "'ENG-105'"),
    "assignments": ("assignment", "'ASG-00007'"),
    "site_access": ("site-access grant", "'SAC-00003'"),
    "expense_claims": ("expense claim", "'EXP-00012'"),
    "courses": ("course", "'CRS-104'"),
    "enrolments": ("enrolment", "'ENR-00021'"),
    "software": ("software title", "'SW-103'"),
    "licence_allocations": ("licence allocation", "'LIC-00004'"),
    "equipment": ("asset", "'AST-0012'"),
    "travel_requests": ("travel request", "'TRV-00002'"),
    "tickets": ("ticket", "'TKT-00004'"),
}


def text(value: Scalar) -> str:
    """A TEXT column's value."""
    if not isinstance(value, str):
        raise TypeError(f"expected text, got {value!r}")
    return value


def number(value: Scalar) -> float:
    """A REAL (or INTEGER) column's value."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"expected a number, got {value!r}")
    return float(value)


def integer(value: Scalar) -> int:
    """An INTEGER column's value."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected an integer, got {value!r}")
    return value


def cents(amount: float) -> float:
    """Round a dollar amount to cents."""
    return round(amount + 0.0, 2)


def stamp(tx: WorldTx) -> str:
    """The episode clock as an ISO 8601 timestamp."""
    return tx.now.isoformat()


def iso_date(value: str, what: str) -> date:
    """Parse an agent-given ISO date, or refuse with invalid_state."""
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise ToolError("invalid_state", f"{what} must be a date like '2026-03-16'") from None


def in_days(tx: WorldTx, days: int) -> str:
    """The ISO date ``days`` after the episode's today."""
    return (tx.today + timedelta(days=days)).isoformat()


def new_id(tx: WorldTx, table: str, prefix: str, width: int = 5) -> str:
    """The next id of a world sequence, numbered above every seeded id."""
    return tx.next_id(table, prefix=prefix, width=width, start=501)


def row_of(tx: WorldTx, table: str, key: str, *, column: str = "id") -> Row:
    """The row of ``table`` whose ``column`` is ``key``, or a not_found refusal."""
    row = tx.one(f'SELECT * FROM "{table}" WHERE "{column}" = ?', [key])
    if row is None:
        noun, example = _NOUNS.get(table, (table, ""))
        hint = f" (ids look like {example})" if example else ""
        raise ToolError("not_found", f"no {noun} {key!r}{hint}")
    return row
