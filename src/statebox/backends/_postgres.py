"""PostgreSQL databases: a template database built once per task patch, one clone per trial.

Each task patch gets a template database (schema, seed, patch), built once and never
connected to afterwards; each trial gets ``CREATE DATABASE … TEMPLATE …`` of it, which
PostgreSQL copies without replaying any SQL, and it is dropped ``WITH (FORCE)`` after
judging (the server's connections with it). Names carry a random prefix per
`PostgresDatabases`, so several campaigns or Ray workers can share one server.

The state is every table of the chosen schemas (partitions read through their parent),
keyed by primary key, read in one repeatable-read, read-only transaction, each value
normalised to the canonical scalar a SQLite file of the same logical rows gives
(`statebox.backends._values`). Administrative statements (create, drop) run on one
async connection to the server's maintenance database, one at a time.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import secrets
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit, urlunsplit

from statebox.backends._database import Template, template_key
from statebox.backends._rows import Table, apply_rows
from statebox.backends._values import json_document, pg_value
from statebox.errors import BackendError, ConfigError
from statebox.tasks import StatePatch
from statebox.world import Scalar, State, WorldQueryError

if TYPE_CHECKING:
    import psycopg

__all__ = ["PostgresClone", "PostgresDatabases", "PostgresWorld", "database_url", "redact_url"]


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def database_url(url: str, dbname: str) -> str:
    """``url`` pointing at database ``dbname`` instead.

    Raises:
        ConfigError: ``url`` is not a ``postgresql://`` URL.
    """
    parts = urlsplit(url)
    if parts.scheme not in ("postgresql", "postgres") or not parts.hostname:
        raise ConfigError(
            f"{redact_url(url)}: give a PostgreSQL URL, postgresql://USER:PASSWORD@HOST:PORT/DB"
        )
    return urlunsplit(parts._replace(path="/" + dbname))


def redact_url(url: str) -> str:
    """``url`` with its password replaced by ``***`` (for messages and manifests)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


_TABLES = """
SELECT c.oid, n.nspname, c.relname FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition AND n.nspname = ANY(%s)
ORDER BY n.nspname, c.relname
"""
_COLUMNS = """
SELECT a.attrelid, a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a
WHERE a.attrelid = ANY(%s::oid[]) AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attrelid, a.attnum
"""
_KEYS = """
SELECT i.indrelid, array_agg(a.attname ORDER BY k.ord) FROM pg_index i
CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
WHERE i.indisprimary AND i.indrelid = ANY(%s::oid[])
GROUP BY i.indrelid
"""


def read_tables(
    conn: psycopg.Connection[Any], schemas: Sequence[str], ignored: frozenset[str]
) -> dict[str, Table]:
    """The tables of ``schemas`` (named bare with one schema, ``schema.table`` with more).

    Raises:
        ConfigError: A table has no primary key and is not ignored.
    """
    qualified = len(schemas) > 1
    found = conn.execute(_TABLES, [list(schemas)]).fetchall()
    oids = [r[0] for r in found]
    columns: dict[int, list[tuple[str, str]]] = {}
    for oid, name, type_ in conn.execute(_COLUMNS, [oids]):
        columns.setdefault(oid, []).append((name, type_))
    keys = {oid: tuple(cols) for oid, cols in conn.execute(_KEYS, [oids])}
    tables: dict[str, Table] = {}
    for oid, schema, rel in found:
        name = f"{schema}.{rel}" if qualified else rel
        if name in ignored:
            continue
        pk = keys.get(oid)
        if not pk:
            raise ConfigError(
                f"table {name!r} has no primary key: its rows cannot be compared; give it "
                "one, or list it under database.ignore_tables with a reason"
            )
        cols = columns.get(oid, [])
        tables[name] = Table(
            name,
            f"{_q(schema)}.{_q(rel)}",
            tuple(c for c, _ in cols),
            pk,
            tuple(t for _, t in cols),
        )
    return tables


def canonical_json(conn: psycopg.Connection[Any]) -> None:
    """Make ``conn`` read json/jsonb as documents (`JsonDocument`), never bare scalars."""
    from psycopg.types.json import set_json_loads

    set_json_loads(json_document, conn)


def snapshot(
    conn: psycopg.Connection[Any],
    schemas: Sequence[str],
    ignored: frozenset[str],
    base: State | None,
) -> State:
    """The canonical state of every table, in one repeatable-read, read-only transaction.

    Tables whose rows equal ``base``'s share ``base``'s objects (comparisons skip them).
    """
    rows: dict[str, dict[tuple[Scalar, ...], dict[str, Scalar]]] = {}
    canonical_json(conn)
    with conn.transaction():
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        tables = read_tables(conn, schemas, ignored)
        for name, t in sorted(tables.items()):
            cur = conn.execute(f"SELECT {', '.join(_q(c) for c in t.columns)} FROM {t.sql}")
            key_idx = [t.columns.index(c) for c in t.primary_key]
            table: dict[tuple[Scalar, ...], dict[str, Scalar]] = {}
            for raw in cur:
                values = [pg_value(v) for v in raw]
                table[tuple(values[i] for i in key_idx)] = dict(zip(t.columns, values, strict=True))
            old = base.rows.get(name) if base is not None else None
            rows[name] = old if old is not None and old == table else table
    return State(rows, {n: t.primary_key for n, t in tables.items()}, base)


def _adapt(table: Table, column: str, value: Any) -> Any:
    """A YAML value as the driver should send it for ``table.column``."""
    from psycopg.types.json import Jsonb

    type_ = table.types[table.columns.index(column)] if table.types else ""
    if type_ in ("json", "jsonb"):
        return None if value is None else Jsonb(value)
    if isinstance(value, dict):
        return json.dumps(value)
    if isinstance(value, datetime | date) and type_ == "text":
        return value.isoformat()
    return value


class PostgresWorld:
    """The judge's view of one database (a `statebox.world.WorldView`).

    Args:
        url: The database's URL.
        schemas: The schemas whose tables are the state.
        ignored: Tables left out of the state.
    """

    def __init__(self, url: str, schemas: Sequence[str], ignored: frozenset[str]) -> None:
        self.url = url
        self.schemas = tuple(schemas)
        self.ignored = ignored
        self._conn: psycopg.Connection[Any] | None = None

    @property
    def conn(self) -> psycopg.Connection[Any]:
        """The view's connection (opened on first use, autocommit)."""
        if self._conn is None:
            import psycopg

            self._conn = psycopg.connect(self.url, autocommit=True)
            canonical_json(self._conn)
        return self._conn

    def state(self, base: State | None = None) -> State:
        """The canonical snapshot (tables equal to ``base``'s are shared with it)."""
        return snapshot(self.conn, self.schemas, self.ignored, base)

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Scalar]]:
        """A read-only query's rows as canonical values.

        Raises:
            WorldQueryError: Bad SQL, or an attempt to write.
        """
        import psycopg

        try:
            with self.conn.transaction(force_rollback=True):
                self.conn.execute("SET TRANSACTION READ ONLY")
                cur = self.conn.execute(sql.encode(), list(params) or None)
                cols = [d.name for d in cur.description or ()]
                return [
                    {c: pg_value(v) for c, v in zip(cols, r, strict=True)} for r in cur.fetchall()
                ]
        except psycopg.Error as exc:
            raise WorldQueryError(str(exc).strip()) from exc

    def _table(self, table: str) -> Table:
        tables = read_tables(self.conn, self.schemas, self.ignored)
        return tables[table]

    def column_values(self, table: str, column: str, limit: int) -> list[Scalar]:
        """Up to ``limit`` distinct non-null values of a column, ascending.

        Empty for a type without ordering (json).
        """
        import psycopg

        t = self._table(table)
        try:
            cur = self.conn.execute(
                f"SELECT DISTINCT {_q(column)} FROM {t.sql} WHERE {_q(column)} IS NOT NULL "
                f"ORDER BY {_q(column)} LIMIT %s",
                [limit],
            )
            return [pg_value(r[0]) for r in cur.fetchall()]
        except psycopg.Error:
            return []

    def set_value(self, table: str, key: Mapping[str, Scalar], column: str, value: Scalar) -> bool:
        """Set one field (mutation testing); False when the schema refuses it."""
        import psycopg

        t = self._table(table)
        where = " AND ".join(f"{_q(c)} = %s" for c in key)
        try:
            self.conn.execute(
                f"UPDATE {t.sql} SET {_q(column)} = %s WHERE {where}", [value, *key.values()]
            )
        except psycopg.Error:
            return False
        return True

    def close(self) -> None:
        """Close the view's connection (the database stays)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None


class PostgresClone:
    """One trial's database, created from a template (a `Clone`)."""

    def __init__(self, owner: PostgresDatabases, name: str) -> None:
        self.name = name
        self.url = database_url(owner.url, name)
        self._owner = owner
        self._dropped = False
        self._dropping: asyncio.Task[None] | None = None

    @property
    def alive(self) -> bool:
        """Whether the database has not been dropped."""
        return not self._dropped

    def world(self) -> PostgresWorld:
        """A judge view of the database."""
        return PostgresWorld(self.url, self._owner.schemas, self._owner.ignored)

    def as_template(self, key: str, state: State) -> Template:
        """The database as a template (dropped with its `PostgresDatabases`)."""
        self._dropped = True  # `close` leaves it alone from now on
        return Template(key, self.name, {}, state)

    def close(self) -> None:
        """Drop the database in the background (idempotent)."""
        if self._dropped:
            return
        self._dropped = True
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop left: `PostgresDatabases.aclose` never ran; the server goes
        self._dropping = loop.create_task(self._owner.drop(self.name))

    async def aclose(self) -> None:
        """Drop the database and wait until it is gone."""
        self.close()
        if self._dropping is not None:
            await asyncio.shield(self._dropping)


class PostgresDatabases:
    """Template databases and their per-trial clones on one PostgreSQL server.

    Args:
        url: A ``postgresql://`` URL of the server's maintenance database (a role that
            may create databases).
        schema_sql: The schema script (PostgreSQL dialect).
        seed: Seed rows by table, or a SQL script.
        schemas: The schemas whose tables are the state.
        ignored: Tables left out of the state.
        strategy: ``CREATE DATABASE … STRATEGY`` (PostgreSQL 15+: ``wal_log`` or
            ``file_copy``); None: the server's default.

    Raises:
        ConfigError: ``url`` is not a PostgreSQL URL.
    """

    kind: Literal["sqlite", "postgres"] = "postgres"

    def __init__(
        self,
        url: str,
        schema_sql: str,
        seed: Mapping[str, Sequence[Mapping[str, Any]]] | str,
        *,
        schemas: Sequence[str] = ("public",),
        ignored: frozenset[str] = frozenset(),
        strategy: Literal["wal_log", "file_copy"] | None = None,
    ) -> None:
        database_url(url, "postgres")  # refuse a malformed URL now
        self.url = url
        self.schemas = tuple(schemas)
        self.ignored = ignored
        self.prefix = f"sb_{secrets.token_hex(4)}"
        """Every database this object makes starts with it."""
        self._schema = schema_sql
        self._seed = seed
        self._strategy = strategy
        self._admin: psycopg.AsyncConnection[Any] | None = None
        self._lock = asyncio.Lock()
        self._templates: dict[str, asyncio.Future[Template]] = {}
        self._made: set[str] = set()
        self._seq = itertools.count(1)
        self._closed = False

    async def _execute(self, sql: str) -> None:
        import psycopg

        async with self._lock:
            if self._closed:
                raise BackendError(f"the PostgreSQL databases {self.prefix}_* are closed")
            try:
                if self._admin is None or self._admin.closed:
                    self._admin = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
                await self._admin.execute(sql.encode())
            except psycopg.OperationalError as exc:
                raise BackendError(
                    f"PostgreSQL at {redact_url(self.url)}: {str(exc).strip()}"
                ) from exc

    async def template(self, patch: StatePatch) -> Template:
        """The template database for ``patch`` (built once; concurrent callers share it)."""
        key = template_key(self._schema, self._seed, patch)
        future = self._templates.get(key)
        if future is None:
            future = self._templates[key] = asyncio.ensure_future(self._build(key, patch))
            future.add_done_callback(self._forget_failed(key))
        return await asyncio.shield(future)

    def _forget_failed(self, key: str) -> Any:
        def done(future: asyncio.Future[Template]) -> None:
            if future.cancelled() or future.exception() is not None:
                self._templates.pop(key, None)

        return done

    async def _build(self, key: str, patch: StatePatch) -> Template:
        import psycopg

        name = f"{self.prefix}_t_{key}"
        await self._execute(f"DROP DATABASE IF EXISTS {_q(name)}")
        await self._execute(f"CREATE DATABASE {_q(name)}")
        self._made.add(name)
        try:
            # Once per task patch: a blocking connection keeps the snapshot code one.
            with psycopg.connect(database_url(self.url, name), autocommit=True) as conn:
                try:
                    conn.execute(self._schema.encode())
                except psycopg.Error as exc:
                    raise ConfigError(f"database.schema: {str(exc).strip()}") from exc
                tables = read_tables(conn, self.schemas, self.ignored)
                with conn.transaction():
                    if isinstance(self._seed, str):
                        try:
                            conn.execute(self._seed.encode())
                        except psycopg.Error as exc:
                            raise ConfigError(f"database.seed: {str(exc).strip()}") from exc
                    else:
                        try:
                            self._apply(conn, tables, self._seed, {}, "seed")
                        except ValueError as exc:
                            raise ConfigError(f"database.seed: {exc}") from exc
                    self._apply(conn, tables, patch.upsert, patch.delete, "")
                state = snapshot(conn, self.schemas, self.ignored, None)
        except BaseException:
            with contextlib.suppress(Exception):
                await self.drop(name)
            raise
        return Template(key, name, tables, state)

    @staticmethod
    def _apply(
        conn: psycopg.Connection[Any],
        tables: Mapping[str, Table],
        upserts: Mapping[str, Sequence[Mapping[str, Any]]],
        deletes: Mapping[str, Sequence[Mapping[str, Any]]],
        where: str,
    ) -> None:
        import psycopg

        apply_rows(
            conn.cursor(),
            tables,
            upserts,
            deletes,
            placeholder="%s",
            adapt=_adapt,
            errors=(psycopg.Error,),
            where=where,
        )

    async def clone(self, template: Template) -> PostgresClone:
        """``CREATE DATABASE … TEMPLATE`` of ``template`` for one trial."""
        name = f"{self.prefix}_c_{next(self._seq)}"
        strategy = f" STRATEGY {self._strategy}" if self._strategy else ""
        await self._execute(f"CREATE DATABASE {_q(name)} TEMPLATE {_q(template.name)}{strategy}")
        self._made.add(name)
        return PostgresClone(self, name)

    async def drop(self, name: str) -> None:
        """Drop database ``name``, ending its connections (a no-op once closed)."""
        if self._closed:
            return
        await self._execute(f"DROP DATABASE IF EXISTS {_q(name)} WITH (FORCE)")
        self._made.discard(name)

    async def aclose(self) -> None:
        """Drop every database this object made and close its connection."""
        for name in sorted(self._made):
            with contextlib.suppress(BackendError):
                await self.drop(name)
        self._closed = True
        if self._admin is not None:
            await self._admin.close()
            self._admin = None
