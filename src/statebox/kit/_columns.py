"""Typed column helpers, id formats and row lookups that every domain's tools share.

A world row holds canonical `Scalar` values; a tool narrows them to the Python type its
column holds with `text`, `integer`, `number` or `money`. The schema guarantees the
type, so a mismatch is a bug (a `TypeError`, recorded as a system error), never an
answer to the agent. Money is rounded to cents at every read and write so sums never
drift in the last digit. Time comes from the frozen episode clock (`stamp`, `in_days`)
and new ids from world sequences (`IdFormat`), so a golden replay and an agent's run
write the same values.

`Table` turns "no such row" into the one refusal every tool gives: ``not_found`` with
the id format, e.g. ``no order 'X' (ids look like 'ORD-10000020')``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, datetime, timedelta
from typing import Any, NamedTuple

from statebox.tools import ToolError
from statebox.world import Scalar, WorldTx

__all__ = [
    "IdFormat",
    "Row",
    "Table",
    "Tables",
    "cents",
    "days_between",
    "days_until",
    "found",
    "in_days",
    "integer",
    "iso_date",
    "money",
    "new_id",
    "number",
    "ordered",
    "stamp",
    "text",
]

Row = dict[str, Scalar]
"""A row as tools see it: column → canonical value."""


def text(value: Scalar) -> str:
    """A TEXT column's value.

    Raises:
        TypeError: The value is not a string (NULL included).
    """
    if not isinstance(value, str):
        raise TypeError(f"expected text, got {value!r}")
    return value


def integer(value: Scalar) -> int:
    """An INTEGER column's value.

    Raises:
        TypeError: The value is not an integer (a bool is not one).
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected an integer, got {value!r}")
    return value


def number(value: Scalar) -> float:
    """A REAL (or INTEGER) column's value, unrounded.

    Raises:
        TypeError: The value is not a number.
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"expected a number, got {value!r}")
    return float(value)


def money(value: Scalar) -> float:
    """A money column's value (or an amount), in dollars rounded to cents.

    Raises:
        TypeError: The value is not a number.
    """
    return cents(number(value))


def cents(amount: float) -> float:
    """Round a dollar amount to cents (``-0.0`` becomes ``0.0``)."""
    return round(amount + 0.0, 2)


def stamp(tx: WorldTx) -> str:
    """The episode clock as an ISO 8601 timestamp."""
    return tx.now.isoformat()


def in_days(tx: WorldTx, days: int) -> str:
    """The ISO date ``days`` after the episode's today."""
    return (tx.today + timedelta(days=days)).isoformat()


def days_between(earlier: Scalar, today: date) -> int:
    """Whole days from an ISO date or timestamp to ``today``."""
    return (today - datetime.fromisoformat(text(earlier)).date()).days


def days_until(tx: WorldTx, day: Scalar) -> int:
    """Whole days from the episode's today to the ISO date ``day`` (negative when past)."""
    return (date.fromisoformat(text(day)) - tx.today).days


def iso_date(value: str, what: str, *, example: str) -> date:
    """Parse an agent-given ISO date, or refuse with ``invalid_state``.

    Args:
        value: The date the agent gave.
        what: The argument's name, for the message.
        example: A date in the domain's calendar, shown in the message.

    Raises:
        ToolError: ``invalid_state`` when ``value`` is not an ISO date.
    """
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise ToolError(
            "invalid_state",
            f"{what} must be a date like {example!r}",
            error_class="invalid_arguments",
        ) from None


def new_id(tx: WorldTx, name: str, prefix: str, width: int = 5) -> str:
    """The next id of a world sequence, numbered from 501: above every seeded id."""
    return tx.next_id(name, prefix=prefix, width=width, start=501)


class IdFormat(NamedTuple):
    """How a table's new ids look: ``prefix`` + a zero-padded number from a world sequence."""

    prefix: str
    """Text before the number, e.g. ``"TCK-"``; empty for bare numbers."""
    width: int = 5
    """Zero-padding width of the number (0: none)."""
    start: int = 501
    """First number of a fresh sequence: above every seeded id (and task-patched ones)."""

    def next(self, tx: WorldTx, sequence: str) -> str:
        """Draw the next id of ``sequence`` (usually the table's name)."""
        return tx.next_id(sequence, prefix=self.prefix, width=self.width, start=self.start)


class Table(NamedTuple):
    """A table whose rows tools look up by key, refusing unknown keys the same way.

    Example:
        >>> ORDERS = Table("orders", "order", "ORD-10000020")
        >>> # ORDERS.row(tx, "ORD-1") raises not_found:
        >>> #   no order 'ORD-1' (ids look like 'ORD-10000020')
    """

    name: str
    """Table name."""
    noun: str
    """What a row is called in messages (``order``)."""
    example: str
    """An id as the agent should give it (``ORD-10000020``); empty: the refusal shows none."""
    key: str = "id"
    """The column looked up."""
    missing: str = ""
    """The ``not_found`` message, with ``{key}`` (``{key!r}`` quoted) filled in; empty:
    ``no <noun> '<key>' (ids look like '<example>')``."""

    def get(self, tx: WorldTx, key: str) -> Row | None:
        """The row whose key column is ``key``, or None."""
        return tx.one(f'SELECT * FROM "{self.name}" WHERE "{self.key}" = ?', [key])

    def row(self, tx: WorldTx, key: str) -> Row:
        """The row whose key column is ``key``.

        Raises:
            ToolError: ``not_found``, naming the id format.
        """
        row = self.get(tx, key)
        if row is None:
            if self.missing:
                raise ToolError("not_found", self.missing.format(key=key))
            hint = f" (ids look like {self.example!r})" if self.example else ""
            raise ToolError("not_found", f"no {self.noun} {key!r}{hint}")
        return row

    def update(self, tx: WorldTx, row: Row, values: Mapping[str, Any]) -> Row:
        """Write ``values`` to the row ``row`` (found by its key column); the row as it is now.

        The result is ``row`` with ``values`` merged in, in the row's column order: what a
        tool that changed a row answers.
        """
        tx.update(self.name, {self.key: row[self.key]}, values)
        return {**row, **values}


class Tables:
    """A domain's looked-up tables by name, for tools that name the table they read.

    Args:
        tables: The tables.
    """

    def __init__(self, *tables: Table) -> None:
        self._tables = {t.name: t for t in tables}

    def __getitem__(self, name: str) -> Table:
        return self._tables[name]

    def row(self, tx: WorldTx, table: str, key: str) -> Row:
        """The row of ``table`` whose key is ``key``.

        Raises:
            ToolError: ``not_found``, naming the id format.
            KeyError: ``table`` is not one of these tables (a bug in the calling tool).
        """
        return self._tables[table].row(tx, key)


def found(tx: WorldTx, sql: str, params: Sequence[Any], missing: str) -> Row:
    """The first row of a lookup query, or a ``not_found`` refusal saying ``missing``.

    For lookups a `Table` cannot say (a case-insensitive email, a join):
    ``found(tx, "SELECT * FROM staff WHERE lower(email) = lower(?)", [email],
    f"no employee with email {email!r}")``.

    Raises:
        ToolError: ``not_found`` with ``missing`` when the query gives no row.
    """
    row = tx.one(sql, params)
    if row is None:
        raise ToolError("not_found", missing)
    return row


def ordered(tx: WorldTx, table: str, row: Mapping[str, Any]) -> Row:
    """``row`` with its columns in the table's order (how ``SELECT *`` would return it)."""
    return {c: row[c] for c in tx.columns(table) if c in row}
