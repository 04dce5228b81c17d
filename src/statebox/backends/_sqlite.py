"""SQLite files: a template file built once per task patch, a file copy per trial.

The template is built with the backend's schema and seed, then the task's patch, and
left in rollback-journal mode so one file is the whole database; a trial's clone is a
copy of that file (a few hundred microseconds for a small database). The server
opens the clone by its path; statebox reads it through its own connection, values by
the columns' declared types (`statebox.backends._values`), inside one read
transaction so a snapshot is consistent even while the server is still running.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

from statebox.backends._database import Template, template_key
from statebox.backends._rows import Table, apply_rows
from statebox.backends._values import sqlite_type, sqlite_value
from statebox.errors import ConfigError
from statebox.tasks import StatePatch
from statebox.world import Scalar, State

__all__ = ["SqliteClone", "SqliteFiles", "SqliteWorld"]


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def read_tables(conn: sqlite3.Connection, ignored: frozenset[str]) -> dict[str, Table]:
    """The file's tables (``sqlite_*`` and ignored ones left out).

    Raises:
        ConfigError: A table has no primary key and is not ignored.
    """
    names = [
        r[0]
        for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        if not r[0].startswith("sqlite_") and r[0] not in ignored
    ]
    tables: dict[str, Table] = {}
    for name in names:
        info = conn.execute(f"PRAGMA table_info({_q(name)})").fetchall()
        pk = tuple(r[1] for r in sorted((r for r in info if r[5] > 0), key=lambda r: r[5]))
        if not pk:
            raise ConfigError(
                f"table {name!r} has no primary key: its rows cannot be compared; give it "
                "one, or list it under database.ignore_tables with a reason"
            )
        tables[name] = Table(
            name, _q(name), tuple(r[1] for r in info), pk, tuple(str(r[2]) for r in info)
        )
    return tables


def _adapt(table: Table, column: str, value: Any) -> Any:
    """A YAML value as a SQLite server of the same logical rows would store it."""
    if isinstance(value, dict | list):
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return float(value)
    return value


def snapshot(conn: sqlite3.Connection, tables: Mapping[str, Table], base: State | None) -> State:
    """The canonical state of every table, in one read transaction.

    Tables whose rows equal ``base``'s share ``base``'s objects (comparisons skip them).
    """
    rows: dict[str, dict[tuple[Scalar, ...], dict[str, Scalar]]] = {}
    conn.execute("BEGIN")
    try:
        for name, t in sorted(tables.items()):
            kinds = [sqlite_type(d) for d in t.types]
            cur = conn.execute(f"SELECT {', '.join(_q(c) for c in t.columns)} FROM {t.sql}")
            key_idx = [t.columns.index(c) for c in t.primary_key]
            table: dict[tuple[Scalar, ...], dict[str, Scalar]] = {}
            for raw in cur:
                values = [sqlite_value(v, k) for v, k in zip(raw, kinds, strict=True)]
                table[tuple(values[i] for i in key_idx)] = dict(zip(t.columns, values, strict=True))
            old = base.rows.get(name) if base is not None else None
            rows[name] = old if old is not None and old == table else table
    finally:
        conn.execute("COMMIT")
    return State(rows, {n: t.primary_key for n, t in tables.items()}, base)


class SqliteWorld:
    """The judge's view of one SQLite file (a `statebox.world.WorldView`).

    Args:
        path: The database file.
        tables: Its tables.
    """

    def __init__(self, path: Path, tables: Mapping[str, Table]) -> None:
        self.path = path
        self.tables = dict(tables)
        self._conn: sqlite3.Connection | None = None

    @classmethod
    def open(cls, path: Path, ignored: frozenset[str] = frozenset()) -> SqliteWorld:
        """A view of any SQLite file, its tables read from the file.

        Raises:
            ConfigError: A table has no primary key and is not in ``ignored``.
        """
        conn = sqlite3.connect(path)
        try:
            tables = read_tables(conn, ignored)
        finally:
            conn.close()
        return cls(path, tables)

    @property
    def conn(self) -> sqlite3.Connection:
        """The view's connection (opened on first use, autocommit)."""
        if self._conn is None:
            self._conn = sqlite3.connect(self.path, isolation_level=None, timeout=30)
        return self._conn

    def state(self, base: State | None = None) -> State:
        """The canonical snapshot (tables equal to ``base``'s are shared with it)."""
        return snapshot(self.conn, self.tables, base)

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Scalar]]:
        """A read-only query's rows (values as ``canonical_value`` gives them).

        Raises:
            sqlite3.Error: Bad SQL, or an attempt to write.
        """
        conn = self.conn
        conn.execute("PRAGMA query_only = ON")
        try:
            cur = conn.execute(sql, params)
            cols = [d[0] for d in cur.description or ()]
            return [
                {c: sqlite_value(v, "plain") for c, v in zip(cols, r, strict=True)} for r in cur
            ]
        finally:
            conn.execute("PRAGMA query_only = OFF")

    def column_values(self, table: str, column: str, limit: int) -> list[Scalar]:
        """Up to ``limit`` distinct non-null values of a column, ascending."""
        t = self.tables[table]
        kind = sqlite_type(t.types[t.columns.index(column)])
        cur = self.conn.execute(
            f"SELECT DISTINCT {_q(column)} FROM {t.sql} WHERE {_q(column)} IS NOT NULL "
            f"ORDER BY {_q(column)} LIMIT ?",
            [limit],
        )
        return [sqlite_value(r[0], kind) for r in cur]

    def set_value(self, table: str, key: Mapping[str, Scalar], column: str, value: Scalar) -> bool:
        """Set one field (mutation testing); False when the schema refuses it."""
        t = self.tables[table]
        where = " AND ".join(f"{_q(c)} = ?" for c in key)
        try:
            self.conn.execute(
                f"UPDATE {t.sql} SET {_q(column)} = ? WHERE {where}", [value, *key.values()]
            )
        except sqlite3.Error:
            return False
        return True

    def close(self) -> None:
        """Close the view's connection (the file stays)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def _unlink(path: Path) -> None:
    for suffix in ("", "-journal", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f"{path}{suffix}")


class SqliteClone:
    """One trial's copy of a template file (a `Clone`)."""

    def __init__(self, path: Path, tables: Mapping[str, Table]) -> None:
        self.path = path
        self.url = str(path)
        self._tables = tables
        self._dropped = False

    @property
    def alive(self) -> bool:
        """Whether the file has not been dropped."""
        return not self._dropped

    def world(self) -> SqliteWorld:
        """A judge view of the file."""
        return SqliteWorld(self.path, self._tables)

    def as_template(self, key: str, state: State) -> Template:
        """The file as a template (removed with its `SqliteFiles`)."""
        self._dropped = True  # `close` leaves it alone from now on
        return Template(key, str(self.path), self._tables, state)

    def close(self) -> None:
        """Delete the file (and its journal, WAL and shared-memory files)."""
        if not self._dropped:
            self._dropped = True
            _unlink(self.path)

    async def aclose(self) -> None:
        """`close` (deleting a file does not wait)."""
        self.close()


class SqliteFiles:
    """Template files and their per-trial copies, in a folder of their own.

    Args:
        schema_sql: The schema script.
        seed: Seed rows by table, or a SQL script.
        ignored: Tables left out of the state.
        folder: Where the files go (None: a new temporary folder, removed by `aclose`).
    """

    kind: Literal["sqlite", "postgres"] = "sqlite"

    def __init__(
        self,
        schema_sql: str,
        seed: Mapping[str, Sequence[Mapping[str, Any]]] | str,
        *,
        ignored: frozenset[str] = frozenset(),
        folder: Path | None = None,
    ) -> None:
        self._schema = schema_sql
        self._seed = seed
        self._ignored = ignored
        self._own = folder is None
        self.folder = Path(folder or tempfile.mkdtemp(prefix="statebox-sqlite-"))
        self.folder.mkdir(parents=True, exist_ok=True)
        self._templates: dict[str, asyncio.Future[Template]] = {}
        self._seq = itertools.count(1)

    async def template(self, patch: StatePatch) -> Template:
        """The template file for ``patch`` (built once; concurrent callers share it)."""
        key = template_key(self._schema, self._seed, patch)
        future = self._templates.get(key)
        if future is None:
            future = asyncio.get_running_loop().create_future()
            self._templates[key] = future
            try:
                future.set_result(self._build(key, patch))
            except BaseException as exc:
                del self._templates[key]
                future.set_exception(exc)
                future.exception()  # retrieved: the caller gets it raised below
        return await asyncio.shield(future)

    def _build(self, key: str, patch: StatePatch) -> Template:
        path = self.folder / f"template-{key}.sqlite"
        _unlink(path)
        conn = sqlite3.connect(path, isolation_level=None)
        try:
            try:
                conn.executescript(self._schema)
            except sqlite3.Error as exc:
                raise ConfigError(f"database.schema: {exc}") from exc
            tables = read_tables(conn, self._ignored)
            conn.execute("BEGIN")
            if isinstance(self._seed, str):
                try:
                    conn.executescript(self._seed)
                except sqlite3.Error as exc:
                    raise ConfigError(f"database.seed: {exc}") from exc
                conn.execute("BEGIN")
            else:
                try:
                    self._apply(conn, tables, self._seed, {}, "seed")
                except ValueError as exc:
                    raise ConfigError(f"database.seed: {exc}") from exc
            self._apply(conn, tables, patch.upsert, patch.delete, "")
            conn.execute("COMMIT")
            conn.execute("PRAGMA journal_mode = DELETE")
            state = snapshot(conn, tables, None)
        except BaseException:
            conn.close()
            _unlink(path)
            raise
        conn.close()
        return Template(key, str(path), tables, state)

    @staticmethod
    def _apply(
        conn: sqlite3.Connection,
        tables: Mapping[str, Table],
        upserts: Mapping[str, Sequence[Mapping[str, Any]]],
        deletes: Mapping[str, Sequence[Mapping[str, Any]]],
        where: str,
    ) -> None:
        apply_rows(
            conn.cursor(),
            tables,
            upserts,
            deletes,
            placeholder="?",
            adapt=_adapt,
            errors=(sqlite3.Error,),
            where=where,
        )

    async def clone(self, template: Template) -> SqliteClone:
        """A copy of the template file for one trial."""
        path = self.folder / f"trial-{next(self._seq)}-{template.key}.sqlite"
        shutil.copyfile(template.name, path)
        return SqliteClone(path, template.tables)

    async def aclose(self) -> None:
        """Remove every file (the whole folder when it was made here)."""
        if self._own:
            shutil.rmtree(self.folder, ignore_errors=True)
            return
        for path in self.folder.glob("*.sqlite"):
            if path.name.startswith(("template-", "trial-")):
                _unlink(path)
