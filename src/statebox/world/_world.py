"""SQLite worlds: a template built once, cloned per trial, one transaction per tool call.

A `WorldTemplate` is a domain's schema and seed (plus, for a task, its initial-state
patch) built once into an in-memory database and serialised to bytes. `clone()`
deserialises those bytes into a fresh in-memory connection: a trial's world shares
nothing with any other (docs/design.md §4, invariant 1) and costs a memcpy, not a process.

A clone through a `WorldPool` runs its whole life inside one outer transaction (each
tool call a savepoint in it). Closing it rolls that back, which returns the database
byte for byte to the template's, and the pool hands the same connection to the next
clone of that template: it skips the deserialise, SQLite's schema parse on the first
statement (every table, index and change-capture trigger) and preparing each
statement again, which together cost more than a short trial's tool calls.

Tools see a world only through `WorldTx`, which runs inside one transaction: a call
that raises rolls back whole (invariant 2). Time comes from the world's frozen clock
and generated ids from per-name sequences stored in the world itself, so a golden
replay and an agent's run stamp the same values (invariant 3).
"""

from __future__ import annotations

import re
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import date, datetime
from functools import lru_cache
from typing import Any, NamedTuple

from statebox.world._canonical import RowKey, Scalar, Snapshot, canonical_row, canonical_value
from statebox.world._state import State

__all__ = ["TableInfo", "World", "WorldPool", "WorldTemplate", "WorldTx"]

_INTERNAL_PREFIXES = ("sqlite_", "_sb_")
_SEQUENCE_DDL = "CREATE TABLE IF NOT EXISTS _sb_sequence (name TEXT PRIMARY KEY, value INTEGER)"
# Triggers note what a trial wrote, so a snapshot re-reads only that and shares the rest
# with the initial state (a full read of a 1,400-row world costs ~13 ms). Rowid tables
# note each changed row (its rowid before and after); a table without a usable rowid
# (WITHOUT ROWID, or a column that shadows the name) notes only the table, read whole.
_DIRTY_DDL = "CREATE TABLE IF NOT EXISTS _sb_dirty (name TEXT)"
_CHANGED_DDL = "CREATE TABLE IF NOT EXISTS _sb_changed (name TEXT, rid INTEGER)"
_ROWID_NAMES = frozenset({"rowid", "oid", "_rowid_"})


# The notes are plain inserts into tables without keys, read back as sets: no conflict
# can arise (inside a foreign key's cascade SQLite applies the cascade's own conflict
# policy, not a trigger's OR IGNORE, so a keyed note would fail the write), and the
# cheapest trigger body keeps every write and the first query's schema parse cheap.
def _dirty_triggers(table: str) -> str:
    return "".join(
        f'CREATE TRIGGER "_sb_{op.lower()}_{table}" AFTER {op} ON "{table}" '
        f"BEGIN INSERT INTO _sb_dirty VALUES ('{table}'); END;"
        for op in ("INSERT", "UPDATE", "DELETE")
    )


def _row_triggers(table: str) -> str:
    body = {
        "INSERT": f"INSERT INTO _sb_changed VALUES ('{table}', NEW.rowid);",
        "UPDATE": f"INSERT INTO _sb_changed VALUES ('{table}', OLD.rowid), ('{table}', NEW.rowid);",
        "DELETE": f"INSERT INTO _sb_changed VALUES ('{table}', OLD.rowid);",
    }
    return "".join(
        f'CREATE TRIGGER "_sb_{op.lower()}_{table}" AFTER {op} ON "{table}" BEGIN {b} END;'
        for op, b in body.items()
    )


def _has_rowid(conn: sqlite3.Connection, table: TableInfo) -> bool:
    if _ROWID_NAMES & {c.lower() for c in table.columns}:
        return False
    rows = conn.execute(f'PRAGMA table_list("{table.name}")').fetchall()
    return bool(rows) and not rows[0][4]  # column 4: WITHOUT ROWID


def _take_dirty(conn: sqlite3.Connection) -> frozenset[str]:
    names = frozenset(r[0] for r in conn.execute("SELECT name FROM _sb_dirty"))
    names |= {r[0] for r in conn.execute("SELECT DISTINCT name FROM _sb_changed")}
    conn.execute("DELETE FROM _sb_dirty")
    conn.execute("DELETE FROM _sb_changed")
    return names


class TableInfo(NamedTuple):
    """A table's columns and primary key."""

    name: str
    columns: tuple[str, ...]
    primary_key: tuple[str, ...]


def _connect(data: bytes | None = None) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    if data is not None:
        conn.deserialize(data)
    conn.execute("PRAGMA foreign_keys = ON")
    # A REPLACE that deletes a conflicting row then fires the delete trigger, which
    # notes the row (SQLite skips delete triggers on REPLACE otherwise).
    conn.execute("PRAGMA recursive_triggers = ON")
    return conn


def _rolls_back_whole(conn: sqlite3.Connection) -> bool:
    """Whether the schema can end a whole transaction or defers a check to its commit.

    A ROLLBACK conflict clause or RAISE(ROLLBACK) ends the whole transaction, and a
    DEFERRABLE constraint is checked at COMMIT only: inside a pooled world's outer
    transaction the first would undo the trial's earlier calls too and the second would
    never refuse a call, unlike in a world of its own.
    """
    row = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE sql LIKE '%ROLLBACK%' OR sql LIKE '%DEFERR%' LIMIT 1"
    ).fetchone()
    return row is not None


# Pragmas that only read the schema (the kit reads a table's columns this way).
_SCHEMA_PRAGMA = re.compile(
    r'PRAGMA\s+(?:TABLE_INFO|TABLE_XINFO|INDEX_LIST|INDEX_INFO|FOREIGN_KEY_LIST)\s*\(\s*"?\w+"?\s*\)'
)


def _screen(world: World, sql: str) -> None:
    """Keep a pooled world exact for a statement the outer transaction would change.

    ``ROLLBACK`` (``INSERT OR ROLLBACK``) or ``DEFER`` (``PRAGMA defer_foreign_keys``)
    would act on the outer transaction: the world first commits what it holds and runs
    on as a world of its own (never pooled again). Any other ``PRAGMA`` may change a
    connection setting a rollback keeps: the connection is closed, not reused.
    """
    if world._pool is None:
        return
    action = _screening(sql)
    if action == "leave":
        world._leave_pool()
    elif action == "spend":
        world._spent = True


@lru_cache(maxsize=4096)
def _screening(sql: str) -> str:
    """What `_screen` does for ``sql``: ``leave`` the pool, ``spend`` the connection, or ``""``.

    A function of the statement's text alone (cached by that text).
    """
    text = sql.upper()
    if "ROLLBACK" in text or "DEFER" in text:
        return "leave"
    if "PRAGMA" in text and not _SCHEMA_PRAGMA.fullmatch(text.strip().rstrip(";")):
        return "spend"
    return ""


def _read_tables(conn: sqlite3.Connection) -> dict[str, TableInfo]:
    names = [
        r[0]
        for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        if not r[0].startswith(_INTERNAL_PREFIXES)
    ]
    tables: dict[str, TableInfo] = {}
    for name in names:
        info = conn.execute(f'PRAGMA table_info("{name}")').fetchall()
        columns = tuple(r[1] for r in info)
        pk = tuple(r[1] for r in sorted((r for r in info if r[5] > 0), key=lambda r: r[5]))
        if not pk:
            raise ValueError(f"table {name!r} has no primary key; every world table needs one")
        tables[name] = TableInfo(name, columns, pk)
    return tables


def _upsert(
    conn: sqlite3.Connection, table: TableInfo, row: Mapping[str, Any], *, where: str
) -> None:
    unknown = sorted(set(row) - set(table.columns))
    if unknown:
        raise ValueError(f"{where}: table {table.name!r} has no column(s) {unknown}")
    missing_key = [c for c in table.primary_key if c not in row]
    if missing_key:
        raise ValueError(f"{where}: row lacks primary-key column(s) {missing_key}")
    key = [row[c] for c in table.primary_key]
    where_key = " AND ".join(f'"{c}" = ?' for c in table.primary_key)
    cols = list(row)
    # Update-or-insert by hand: SQLite checks NOT NULL before ON CONFLICT, so a partial
    # row patching an existing one would be refused by an upsert statement.
    exists = conn.execute(f'SELECT 1 FROM "{table.name}" WHERE {where_key}', key).fetchone()
    updates = [c for c in cols if c not in table.primary_key]
    try:
        if exists and updates:
            sets = ", ".join(f'"{c}" = ?' for c in updates)
            conn.execute(
                f'UPDATE "{table.name}" SET {sets} WHERE {where_key}',
                [*(row[c] for c in updates), *key],
            )
        elif not exists:
            names = ", ".join(f'"{c}"' for c in cols)
            conn.execute(
                f'INSERT INTO "{table.name}" ({names}) VALUES ({", ".join("?" for _ in cols)})',
                [row[c] for c in cols],
            )
    except sqlite3.Error as exc:
        raise ValueError(f"{where}: {exc}") from exc


# SELECT texts `World.query` has run under ``PRAGMA query_only`` without error: a SELECT
# never writes, whatever the schema, so the pragma need not guard it again. Any other
# text runs under the pragma every time: whether it writes can depend on the schema
# (``DROP TABLE IF EXISTS t`` is a no-op where there is no ``t``; found in review).
_READ_ONLY: set[str] = set()
_READ_ONLY_MAX = 4096
_SELECT = re.compile(r"\s*SELECT\b", re.IGNORECASE)

_CLOSED = sqlite3.connect(":memory:")
_CLOSED.close()  # a closed world's connection: any use raises, as a closed one does


class WorldPool:
    """Connections of closed pooled worlds, rolled back to their template, for reuse.

    At most ``limit`` are kept, over all templates; the one idle longest is closed to
    make room. Owned by whoever clones (`statebox.tasks.WorldCache`); thread-safe.

    Args:
        limit: Idle connections kept at most.
    """

    def __init__(self, limit: int = 16) -> None:
        self._limit = limit
        self._lock = threading.Lock()
        # id(template) -> (template, its idle connections); the template is held so
        # that its id cannot be reused by another while its connections wait here.
        self._idle: dict[int, tuple[WorldTemplate, list[sqlite3.Connection]]] = {}
        self._order: OrderedDict[int, tuple[int, sqlite3.Connection]] = OrderedDict()

    def take(self, template: WorldTemplate) -> sqlite3.Connection | None:
        """An idle connection holding ``template``'s database in an open transaction."""
        with self._lock:
            entry = self._idle.get(id(template))
            if entry is None:
                return None
            conn = entry[1].pop()
            if not entry[1]:
                del self._idle[id(template)]
            del self._order[id(conn)]
            return conn

    def close_idle(self) -> None:
        """Close every idle connection."""
        with self._lock:
            idle = [conn for _, conn in self._order.values()]
            self._idle.clear()
            self._order.clear()
        for conn in idle:
            conn.close()

    def give(self, template: WorldTemplate, conn: sqlite3.Connection) -> None:
        """Take back a closed world's connection: rolled back and kept, or closed.

        One whose outer transaction has ended (a statement SQLite rolled back whole)
        no longer holds the template's state, and is closed.
        """
        try:
            if not conn.in_transaction:
                raise sqlite3.OperationalError("the outer transaction ended")
            conn.execute("ROLLBACK")
            # Change notes that survive the rollback were committed (domain code that
            # ended the outer transaction and began another): not the template's state.
            if conn.execute(
                "SELECT EXISTS (SELECT 1 FROM _sb_dirty) OR EXISTS (SELECT 1 FROM _sb_changed)"
            ).fetchone()[0]:
                raise sqlite3.OperationalError("committed writes survive the rollback")
            conn.execute("BEGIN")
        except sqlite3.Error:
            conn.close()
            return
        evicted = None
        with self._lock:
            self._idle.setdefault(id(template), (template, []))[1].append(conn)
            self._order[id(conn)] = (id(template), conn)
            if len(self._order) > self._limit:
                _, (tid, evicted) = self._order.popitem(last=False)
                idle = self._idle[tid][1]
                idle.remove(evicted)
                if not idle:
                    del self._idle[tid]
        if evicted is not None:
            evicted.close()


class WorldTemplate:
    """A built database, serialised once and cloned per trial.

    Args:
        data: The serialised SQLite database.
        tables: Its tables (internal ``_sb_*`` tables excluded).
    """

    __slots__ = ("_poolable", "_rowkeys", "data", "patched_tables", "tables")

    def __init__(
        self,
        data: bytes,
        tables: Mapping[str, TableInfo],
        patched_tables: frozenset[str] = frozenset(),
    ) -> None:
        self.data = data
        self.tables = dict(tables)
        self.patched_tables = patched_tables
        """Tables a `patched` call changed relative to the template it came from."""
        self._rowkeys: dict[str, tuple[dict[int, RowKey], int]] = {}
        self._poolable: bool | None = None

    def rowkeys(self, table: str) -> tuple[dict[int, RowKey], int]:
        """``table``'s rows in this template: rowid → primary key, and the top rowid.

        The largest rowid is 0 for an empty table. Read once, then cached.
        """
        cached = self._rowkeys.get(table)
        if cached is None:
            info = self.tables[table]
            cols = ", ".join(f'"{c}"' for c in info.primary_key)
            conn = _connect(self.data)
            try:
                keys = {
                    r[0]: tuple(canonical_value(v) for v in r[1:])
                    for r in conn.execute(f'SELECT rowid, {cols} FROM "{table}"')
                }
            finally:
                conn.close()
            cached = self._rowkeys[table] = (keys, max(keys, default=0))
        return cached

    @classmethod
    def build(
        cls,
        schema_sql: str,
        seed: Mapping[str, Sequence[Mapping[str, Any]]],
    ) -> WorldTemplate:
        """Build a template from DDL and seed rows.

        Args:
            schema_sql: SQL DDL creating the tables (each needs a primary key).
            seed: table → rows (column → value), inserted in the order given.

        Raises:
            ValueError: Unknown table or column, a table without primary key, or a
                row the schema rejects; the message names table and row.
        """
        conn = _connect()
        conn.executescript(schema_sql)
        conn.execute(_SEQUENCE_DDL)
        conn.execute(_DIRTY_DDL)
        conn.execute(_CHANGED_DDL)
        tables = _read_tables(conn)
        conn.executescript(
            "".join(
                _row_triggers(t) if _has_rowid(conn, info) else _dirty_triggers(t)
                for t, info in tables.items()
            )
        )
        conn.execute("BEGIN")
        for name, rows in seed.items():
            if name not in tables:
                raise ValueError(f"seed: unknown table {name!r}")
            for i, row in enumerate(rows):
                _upsert(conn, tables[name], row, where=f"seed {name}[{i}]")
        conn.execute("COMMIT")
        _take_dirty(conn)
        return cls(conn.serialize(), tables)

    def patched(
        self,
        upserts: Mapping[str, Sequence[Mapping[str, Any]]],
        deletes: Mapping[str, Sequence[Mapping[str, Any]]],
    ) -> WorldTemplate:
        """A new template: this one with rows upserted by primary key, then rows deleted.

        Args:
            upserts: table → rows; a row whose key exists updates the columns given,
                otherwise it is inserted.
            deletes: table → primary-key mappings of rows to remove.

        Raises:
            ValueError: Unknown table/column, missing key column, a constraint the
                patch breaks, or a delete naming a row that does not exist; the message
                starts with ``<table>[<index>]``.
        """
        conn = _connect(self.data)
        conn.execute("BEGIN")
        try:
            for name, rows in upserts.items():
                if name not in self.tables:
                    raise ValueError(f"{name}: unknown table")
                for i, row in enumerate(rows):
                    _upsert(conn, self.tables[name], row, where=f"{name}[{i}]")
            for name, keys in deletes.items():
                if name not in self.tables:
                    raise ValueError(f"delete.{name}: unknown table")
                pk = self.tables[name].primary_key
                for i, key in enumerate(keys):
                    if set(key) != set(pk):
                        raise ValueError(f"delete.{name}[{i}]: give exactly the key {list(pk)}")
                    where = " AND ".join(f'"{c}" = ?' for c in pk)
                    try:
                        cur = conn.execute(
                            f'DELETE FROM "{name}" WHERE {where}', [key[c] for c in pk]
                        )
                    except sqlite3.Error as exc:
                        raise ValueError(f"delete.{name}[{i}]: {exc}") from exc
                    if cur.rowcount != 1:
                        raise ValueError(f"delete.{name}[{i}]: no row with key {dict(key)}")
            conn.execute("COMMIT")
            changed = _take_dirty(conn)
            return WorldTemplate(conn.serialize(), self.tables, changed)
        finally:
            conn.close()

    def clone(self, now: datetime, *, pool: WorldPool | None = None) -> World:
        """A fresh, isolated world from this template.

        Args:
            now: The frozen clock (tz-aware) every tool call reads.
            pool: Reuse a connection this pool holds for this template (rolled back to
                it), and give the connection back when the world is closed.

        Raises:
            ValueError: When ``now`` is naive.
        """
        if pool is None or self._poolable is False:
            return World(_connect(self.data), self.tables, now, origin=self)
        conn = pool.take(self)
        if conn is None:
            conn = _connect(self.data)
            if self._poolable is None:
                # Such a schema (see `_rolls_back_whole`) is cloned afresh every time.
                self._poolable = not _rolls_back_whole(conn)
                if not self._poolable:
                    return World(conn, self.tables, now, origin=self)
            conn.execute("BEGIN")
        return World(conn, self.tables, now, origin=self, pool=pool)

    def state(self) -> State:
        """The template's canonical state (a full read)."""
        world = self.clone(datetime.fromisoformat("2000-01-01T00:00:00+00:00"))
        try:
            return world.state()
        finally:
            world.close()


class World:
    """One live database for one trial; owned by one trial (and one thread) only.

    Args:
        conn: The connection (autocommit mode; transactions are explicit).
        tables: Table descriptions.
        now: Frozen, tz-aware clock.
        origin: The template it was cloned from (its rows' rowids let a snapshot read
            only the rows written since); None: every written table is read whole.
        pool: The pool ``conn`` came from: ``conn`` is in an open transaction holding
            ``origin``'s database, every write stays inside it, and `close` gives the
            connection back to the pool, which rolls it back.
    """

    def __init__(
        self,
        conn: sqlite3.Connection,
        tables: Mapping[str, TableInfo],
        now: datetime,
        *,
        origin: WorldTemplate | None = None,
        pool: WorldPool | None = None,
    ) -> None:
        if now.tzinfo is None:
            raise ValueError("a world's clock must be timezone-aware")
        if pool is not None and origin is None:
            raise ValueError("a pooled world needs the template it holds")
        self.conn = conn
        self.tables = dict(tables)
        self.now = now
        self.origin = origin
        self._pool = pool
        self._spent = False  # a pooled world whose connection must not be reused
        self._in_call = False  # inside `transaction` (a pooled world: its savepoint)

    def state(self, base: State | None = None, *, also: frozenset[str] = frozenset()) -> State:
        """Canonical snapshot of every table (internal tables excluded).

        Args:
            base: The state this world's template started from. When given, only
                tables written since (plus ``also``) are read; the others are shared
                with ``base`` by identity, which comparisons use to skip them.
            also: Extra tables to read, e.g. a template's ``patched_tables`` when
                ``base`` is the unpatched domain state.
        """
        whole: set[str] = set()
        changed: dict[str, list[int]] = {}
        if base is not None:
            whole = {r[0] for r in self.conn.execute("SELECT name FROM _sb_dirty")} | also
            for name, rid in self.conn.execute("SELECT DISTINCT name, rid FROM _sb_changed"):
                changed.setdefault(name, []).append(rid)
        rows: Snapshot = {}
        for name, info in sorted(self.tables.items()):
            if base is not None and name not in whole:
                if name not in changed:
                    rows[name] = base.rows[name]
                    continue
                patched = self._changed_rows(base, info, changed[name])
                if patched is not None:
                    rows[name] = patched
                    continue
            rows[name] = self._read_table(info)
        return State(rows, {n: t.primary_key for n, t in self.tables.items()}, base)

    def _read_table(self, info: TableInfo) -> dict[RowKey, dict[str, Scalar]]:
        cur = self.conn.execute(f'SELECT * FROM "{info.name}"')
        cols = [d[0] for d in cur.description]
        key_idx = [cols.index(c) for c in info.primary_key]
        table: dict[RowKey, dict[str, Scalar]] = {}
        for raw in cur:
            row = canonical_row(cols, raw)
            table[tuple(row[cols[i]] for i in key_idx)] = row
        return table

    def _changed_rows(
        self, base: State, info: TableInfo, rids: list[int]
    ) -> dict[RowKey, dict[str, Scalar]] | None:
        """``base``'s table with only the rows at ``rids`` re-read (None: read it whole).

        ``base`` is the state of the template this world came from. The result holds
        the same rows in the same order as a whole read (rowid order): an updated row
        keeps its place, a deleted one leaves, an inserted one (rowid above every
        template rowid) comes last. Anything else (a key changed in place, a rowid
        reused) is read whole.
        """
        if self.origin is None or info.name not in base.rows:
            return None
        keys, top = self.origin.rowkeys(info.name)
        marks = ",".join("?" * len(rids))
        cur = self.conn.execute(
            f'SELECT rowid, * FROM "{info.name}" WHERE rowid IN ({marks}) ORDER BY rowid', rids
        )
        cols = [d[0] for d in cur.description][1:]
        key_idx = [cols.index(c) for c in info.primary_key]
        table = dict(base.rows[info.name])
        now: dict[int, tuple[RowKey, dict[str, Scalar]]] = {}
        for raw in cur:
            row = canonical_row(cols, raw[1:])
            now[raw[0]] = (tuple(row[cols[i]] for i in key_idx), row)
        for rid in rids:  # rows of the template: updated in place, or gone
            old = keys.get(rid)
            if old is None:
                continue
            new = now.get(rid)
            if new is None:
                if table.pop(old, None) is None:
                    return None
            elif new[0] != old or old not in table:
                return None
            else:
                table[old] = new[1]
        for rid in sorted(now):  # new rows, after every template row
            if rid in keys:
                continue
            if rid <= top or now[rid][0] in table:
                return None
            table[now[rid][0]] = now[rid][1]
        return table

    @contextmanager
    def transaction(self) -> Iterator[WorldTx]:
        """Run a block in one transaction; any exception rolls it back and propagates."""
        conn = self.conn
        before = conn.total_changes
        # A pooled world is inside its outer transaction: a call is a savepoint in it.
        conn.execute("SAVEPOINT sb_call" if self._pool is not None else "BEGIN")
        self._in_call = True
        tx = WorldTx(self)
        try:
            yield tx
        except BaseException:
            # A ROLLBACK conflict clause or RAISE(ROLLBACK) has already ended the
            # transaction: rolling back again would replace the tool's error with ours.
            if conn.in_transaction:
                if self._pool is not None:  # re-read: a statement may have left the pool
                    conn.execute("ROLLBACK TO sb_call")
                    conn.execute("RELEASE sb_call")
                else:
                    conn.execute("ROLLBACK")
            raise
        else:
            if self._pool is not None:
                conn.execute("RELEASE sb_call")
            else:
                try:
                    conn.execute("COMMIT")  # a deferred constraint is checked here
                except sqlite3.Error:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
        finally:
            self._in_call = False
            tx.wrote = conn.total_changes != before

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Scalar]]:
        """Run a read-only query outside any tool (judge invariants).

        Raises:
            sqlite3.Error: Bad SQL, or an attempt to write (the connection is query-only
                for the duration).
        """
        _screen(self, sql)
        if sql in _READ_ONLY:
            return self._rows(sql, params)
        # Setting a flag pragma expires every statement the connection has prepared, so a
        # pooled world would prepare all its tools' SQL again after each check: a SELECT
        # is run under query_only once (see `_READ_ONLY`).
        self.conn.execute("PRAGMA query_only = ON")
        try:
            rows = self._rows(sql, params)
        finally:
            self.conn.execute("PRAGMA query_only = OFF")
        if _SELECT.match(sql):
            if len(_READ_ONLY) >= _READ_ONLY_MAX:
                _READ_ONLY.clear()
            _READ_ONLY.add(sql)
        return rows

    def _rows(self, sql: str, params: Sequence[Any]) -> list[dict[str, Scalar]]:
        cur = self.conn.execute(sql, params)
        cols = [d[0] for d in cur.description or ()]
        return [canonical_row(cols, r) for r in cur]

    def column_values(self, table: str, column: str, limit: int) -> list[Scalar]:
        """Up to ``limit`` distinct non-null values of a column, in ascending order."""
        rows = self.conn.execute(
            f'SELECT DISTINCT "{column}" FROM "{table}" WHERE "{column}" IS NOT NULL '
            f'ORDER BY "{column}" LIMIT ?',
            [limit],
        )
        return [canonical_value(r[0]) for r in rows]

    def set_value(self, table: str, key: Mapping[str, Scalar], column: str, value: Scalar) -> bool:
        """Set one field outside any tool (mutation testing); False when the schema refuses it."""
        where = " AND ".join(f'"{c}" = ?' for c in key)
        try:
            self.conn.execute("SAVEPOINT mutant")
            self.conn.execute(
                f'UPDATE "{table}" SET "{column}" = ? WHERE {where}', [value, *key.values()]
            )
            self.conn.execute("RELEASE mutant")
        except sqlite3.Error:
            self.conn.execute("ROLLBACK TO mutant")
            self.conn.execute("RELEASE mutant")
            return False
        return True

    def fork(self) -> World:
        """An independent copy of this world as it is now (same clock).

        A memcpy: cheaper than replaying the calls that built it. A pooled world's
        writes are first committed (a serialisation does not see an open
        transaction's), so its connection is closed, not pooled, afterwards.
        """
        self._leave_pool()
        return World(_connect(self.conn.serialize()), self.tables, self.now, origin=self.origin)

    def _leave_pool(self) -> None:
        """Commit the outer transaction and run on as a world of its own.

        Inside a call the savepoint is released first: the call's writes so far are
        committed with the rest, and the call goes on in a transaction of its own.
        """
        if self._pool is None:
            return
        conn = self.conn
        if self._in_call:
            conn.execute("RELEASE sb_call")
        if conn.in_transaction:
            conn.execute("COMMIT")
        if self._in_call:
            conn.execute("BEGIN")
        self._pool = None

    def close(self) -> None:
        """Release the database (a pooled world's connection goes back to its pool).

        Using the world afterwards raises, as a closed connection does.
        """
        conn, pool, self.conn, self._pool = self.conn, self._pool, _CLOSED, None
        if pool is not None and self.origin is not None and not self._spent:
            pool.give(self.origin, conn)
        else:
            conn.close()


class WorldTx:
    """A tool's view of the world inside one transaction.

    Rows come back as dicts of canonical values. Time is `now`/`today` (frozen);
    ids come from `next_id`.
    """

    def __init__(self, world: World) -> None:
        self._world = world
        self._conn = world.conn
        self.wrote = False

    @property
    def now(self) -> datetime:
        """The episode clock (frozen at the task's ``now``)."""
        return self._world.now

    @property
    def today(self) -> date:
        """The episode clock's date."""
        return self._world.now.date()

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Scalar]]:
        """All rows of a query."""
        _screen(self._world, sql)
        cur = self._conn.execute(sql, params)
        cols = [d[0] for d in cur.description or ()]
        return [canonical_row(cols, r) for r in cur]

    def one(self, sql: str, params: Sequence[Any] = ()) -> dict[str, Scalar] | None:
        """The first row of a query, or None."""
        rows = self.query(sql, params)
        return rows[0] if rows else None

    def columns(self, table: str) -> tuple[str, ...]:
        """``table``'s column names in its order (those ``SELECT *`` returns).

        Read from the statement SQLite prepares once and keeps (re-prepared when the
        schema changes), not from ``PRAGMA table_info`` at every call.
        """
        cur = self._conn.execute(f'SELECT * FROM "{table}" LIMIT 0')
        return tuple(d[0] for d in cur.description or ())

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run a write; returns the number of rows changed."""
        _screen(self._world, sql)
        return self._conn.execute(sql, params).rowcount

    def insert(self, table: str, row: Mapping[str, Any]) -> dict[str, Scalar]:
        """Insert one row and return it as stored."""
        cols = list(row)
        self._conn.execute(
            f'INSERT INTO "{table}" ({", ".join(chr(34) + c + chr(34) for c in cols)}) '
            f"VALUES ({', '.join('?' for _ in cols)})",
            [row[c] for c in cols],
        )
        return {c: canonical_value(row[c]) for c in cols}

    def update(self, table: str, key: Mapping[str, Any], values: Mapping[str, Any]) -> int:
        """Update columns of the row(s) matching ``key``; returns rows changed."""
        if not values:
            return 0
        sets = ", ".join(f'"{c}" = ?' for c in values)
        where = " AND ".join(f'"{c}" = ?' for c in key)
        return self._conn.execute(
            f'UPDATE "{table}" SET {sets} WHERE {where}', [*values.values(), *key.values()]
        ).rowcount

    def next_id(self, name: str, *, prefix: str = "", width: int = 0, start: int = 1) -> str:
        """The next id of a deterministic sequence, e.g. ``next_id("rma", prefix="RMA-", width=5)``.

        The sequence lives in the world (table ``_sb_sequence``), so every trial and the
        golden replay draw the same ids from the same state.

        Args:
            name: Sequence name (usually the table).
            prefix: Text before the number.
            width: Zero-padding width of the number.
            start: First number handed out by a fresh sequence.

        Returns:
            ``prefix`` + the zero-padded number.
        """
        row = self._conn.execute("SELECT value FROM _sb_sequence WHERE name = ?", [name]).fetchone()
        value = (row[0] + 1) if row else start
        self._conn.execute(
            "INSERT INTO _sb_sequence (name, value) VALUES (?, ?) "
            "ON CONFLICT(name) DO UPDATE SET value = excluded.value",
            [name, value],
        )
        return f"{prefix}{value:0{width}d}"
