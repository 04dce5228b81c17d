"""Tables of a database statebox owns, and rows applied to it by primary key.

A backend's seed rows and a task's ``initial_state`` patch are applied the way
statebox's own worlds apply them (`statebox.world.WorldTemplate.patched`): each row
updates the columns it gives when its key exists and is inserted otherwise; then the
listed keys are deleted, each of which must exist. The SQL is the same on SQLite and
PostgreSQL but for the placeholder and how a value is handed to the driver.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple, Protocol

__all__ = ["Cursor", "Table", "apply_rows"]


class Table(NamedTuple):
    """One table of a database: its name in states, its SQL name, columns and key."""

    name: str
    """Name in canonical states and field policies (``orders``, or ``sales.orders``)."""
    sql: str
    """Quoted name for SQL (``"orders"``, ``"sales"."orders"``)."""
    columns: tuple[str, ...]
    """Column names, in table order."""
    primary_key: tuple[str, ...]
    """Primary-key columns, in key order."""
    types: tuple[str, ...] = ()
    """Each column's declared (SQLite) or formatted (PostgreSQL) type."""


class Cursor(Protocol):
    """The part of a DB-API cursor rows are applied through (sqlite3, psycopg)."""

    @property
    def rowcount(self) -> int:
        """Rows the last statement changed."""
        ...

    def execute(self, sql: Any, params: Any = ..., /) -> Any:
        """Run one statement."""
        ...

    def fetchone(self) -> Any:
        """The next row of the last query, or None."""
        ...


Adapt = Callable[[Table, str, Any], Any]
"""Turns a YAML value for (table, column) into what the driver should receive."""


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _upsert(cur: Cursor, table: Table, row: Mapping[str, Any], ph: str, adapt: Adapt) -> None:
    unknown = sorted(set(row) - set(table.columns))
    if unknown:
        raise ValueError(f"table {table.name!r} has no column(s) {unknown}")
    missing = [c for c in table.primary_key if c not in row]
    if missing:
        raise ValueError(f"row lacks primary-key column(s) {missing}")
    key = [adapt(table, c, row[c]) for c in table.primary_key]
    where = " AND ".join(f"{_q(c)} = {ph}" for c in table.primary_key)
    cur.execute(f"SELECT 1 FROM {table.sql} WHERE {where}", key)
    exists = cur.fetchone() is not None
    updates = [c for c in row if c not in table.primary_key]
    # Update-or-insert by hand, as statebox's worlds do: a partial row that patches an
    # existing one must not meet the NOT NULL checks of an INSERT ... ON CONFLICT.
    if exists and updates:
        sets = ", ".join(f"{_q(c)} = {ph}" for c in updates)
        cur.execute(
            f"UPDATE {table.sql} SET {sets} WHERE {where}",
            [*(adapt(table, c, row[c]) for c in updates), *key],
        )
    elif not exists:
        names = ", ".join(_q(c) for c in row)
        marks = ", ".join(ph for _ in row)
        cur.execute(
            f"INSERT INTO {table.sql} ({names}) VALUES ({marks})",
            [adapt(table, c, v) for c, v in row.items()],
        )


def apply_rows(
    cur: Cursor,
    tables: Mapping[str, Table],
    upserts: Mapping[str, Sequence[Mapping[str, Any]]],
    deletes: Mapping[str, Sequence[Mapping[str, Any]]],
    *,
    placeholder: str,
    adapt: Adapt,
    errors: tuple[type[Exception], ...],
    where: str,
) -> None:
    """Upsert rows by primary key, then delete rows by key, inside the caller's transaction.

    Args:
        cur: The cursor.
        tables: The database's tables by state name.
        upserts: table → rows (column → value).
        deletes: table → primary-key mappings.
        placeholder: The driver's parameter mark (``?``, ``%s``).
        adapt: Turns a YAML value into a driver value.
        errors: The driver's error classes (a refused row is reported, not raised).
        where: Prefix of messages (``seed``, or empty for a task patch).

    Raises:
        ValueError: Unknown table or column, a missing key column, a row the schema
            refuses, a delete of a row that does not exist; the message starts with
            ``<where><table>[<index>]``.
    """
    prefix = f"{where} " if where else ""
    for name, rows in upserts.items():
        table = tables.get(name)
        if table is None:
            raise ValueError(f"{prefix}{name}: unknown table (tables: {sorted(tables)})")
        for i, row in enumerate(rows):
            try:
                _upsert(cur, table, row, placeholder, adapt)
            except ValueError as exc:
                raise ValueError(f"{prefix}{name}[{i}]: {exc}") from exc
            except errors as exc:
                raise ValueError(f"{prefix}{name}[{i}]: {str(exc).strip()}") from exc
    for name, keys in deletes.items():
        table = tables.get(name)
        if table is None:
            raise ValueError(f"{prefix}delete.{name}: unknown table")
        pk = table.primary_key
        for i, key in enumerate(keys):
            if set(key) != set(pk):
                raise ValueError(f"{prefix}delete.{name}[{i}]: give exactly the key {list(pk)}")
            cond = " AND ".join(f"{_q(c)} = {placeholder}" for c in pk)
            try:
                cur.execute(
                    f"DELETE FROM {table.sql} WHERE {cond}", [adapt(table, c, key[c]) for c in pk]
                )
            except errors as exc:
                raise ValueError(f"{prefix}delete.{name}[{i}]: {str(exc).strip()}") from exc
            if cur.rowcount != 1:
                raise ValueError(f"{prefix}delete.{name}[{i}]: no row with key {dict(key)}")
