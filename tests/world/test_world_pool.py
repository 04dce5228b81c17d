"""Pooled worlds: a closed world's connection, rolled back, serves the next clone.

A reused connection must hold exactly its template's database (rows, order, hash, no
change notes left), whatever the previous trial wrote or had refused; a closed world
must not reach the connection it gave back; and a call that fails rolls back only
itself, as in a world of its own.
"""

from __future__ import annotations

import math
import sqlite3
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from statebox.world import WorldPool, WorldTemplate, canonical_value
from statebox.world._canonical import canonical_row

NOW = datetime(2025, 1, 1, tzinfo=UTC)
SCHEMA = """
CREATE TABLE p (id TEXT PRIMARY KEY, n INTEGER, tag TEXT UNIQUE);
CREATE TABLE c (id INTEGER PRIMARY KEY, p TEXT REFERENCES p(id) ON UPDATE CASCADE
                ON DELETE CASCADE, v REAL);
CREATE TABLE w (k TEXT PRIMARY KEY, v INTEGER) WITHOUT ROWID;
"""
SEED = {
    "p": [{"id": f"p{i}", "n": i, "tag": f"t{i}"} for i in range(6)],
    "c": [{"id": i, "p": f"p{i % 6}", "v": i / 2} for i in range(1, 10)],
    "w": [{"k": f"k{i}", "v": i} for i in range(4)],
}
TEMPLATE = WorldTemplate.build(SCHEMA, SEED)
INITIAL = TEMPLATE.state()
WRITES = [
    "UPDATE p SET n = n + 1 WHERE id = 'p{0}'",
    "DELETE FROM p WHERE id = 'p{0}'",
    "INSERT INTO p (id, n, tag) VALUES ('new{0}', 0, 't{0}')",  # refused: tag is taken
    "INSERT OR IGNORE INTO c (p, v) VALUES (NULL, {0})",
    "UPDATE w SET v = v + 1 WHERE k = 'k{0}'",
]


def _whole(state: object) -> list[tuple[str, list[object]]]:
    rows = state.rows  # type: ignore[attr-defined]
    return [(t, list(rows[t].items())) for t in sorted(rows)]


@given(st.lists(st.tuples(st.integers(0, len(WRITES) - 1), st.integers(0, 9)), max_size=8))
def test_a_reused_connection_holds_the_template_exactly(ops: list[tuple[int, int]]) -> None:
    pool = WorldPool()
    world = TEMPLATE.clone(NOW, pool=pool)
    conn = world.conn
    for op, arg in ops:
        try:
            with world.transaction() as tx:
                tx.execute(WRITES[op].format(arg))
        except sqlite3.IntegrityError:
            pass
        assert world.state(INITIAL) == world.state()  # change notes work inside it too
    world.close()
    again = TEMPLATE.clone(NOW, pool=pool)
    assert again.conn is conn  # the same connection, rolled back
    whole = again.state()
    assert whole == INITIAL and whole.hash() == INITIAL.hash()
    assert _whole(whole) == _whole(INITIAL)  # same rows in the same order
    noted = conn.execute("SELECT count(*) FROM _sb_changed").fetchone()[0]
    assert noted == 0 and not conn.execute("SELECT * FROM _sb_dirty").fetchall()
    assert again.state(INITIAL).rows["p"] is INITIAL.rows["p"]  # nothing noted: shared
    again.close()


def test_a_failed_call_rolls_back_only_itself() -> None:
    world = TEMPLATE.clone(NOW, pool=WorldPool())
    with world.transaction() as tx:
        tx.execute("UPDATE p SET n = 40 WHERE id = 'p1'")
    with pytest.raises(sqlite3.IntegrityError), world.transaction() as tx:
        tx.execute("UPDATE p SET n = 41 WHERE id = 'p2'")
        tx.execute("INSERT INTO p (id, n, tag) VALUES ('x', 0, 't3')")
    rows = world.state().rows["p"]
    assert rows[("p1",)]["n"] == 40 and rows[("p2",)]["n"] == 2
    world.close()


def test_a_closed_world_cannot_reach_the_connection_it_gave_back() -> None:
    pool = WorldPool()
    old = TEMPLATE.clone(NOW, pool=pool)
    old.close()
    new = TEMPLATE.clone(NOW, pool=pool)
    with pytest.raises(sqlite3.ProgrammingError):
        old.state()
    with pytest.raises(sqlite3.ProgrammingError), old.transaction() as tx:
        tx.execute("DELETE FROM p")
    assert new.state() == INITIAL
    old.close()  # a second close is harmless and gives nothing back twice
    assert pool.take(TEMPLATE) is None
    new.close()


def test_a_fork_sees_the_writes_and_its_source_is_not_pooled_again() -> None:
    pool = WorldPool()
    world = TEMPLATE.clone(NOW, pool=pool)
    with world.transaction() as tx:
        tx.execute("UPDATE p SET n = 70 WHERE id = 'p3'")
    copy = world.fork()
    assert copy.state().rows["p"][("p3",)]["n"] == 70
    with world.transaction() as tx:  # still usable, now committing call by call
        tx.execute("UPDATE p SET n = 71 WHERE id = 'p3'")
    assert world.state().rows["p"][("p3",)]["n"] == 71
    world.close()
    copy.close()
    assert pool.take(TEMPLATE) is None  # its database is no longer the template's


def test_a_connection_whose_transaction_ended_is_closed_not_kept() -> None:
    pool = WorldPool()
    world = TEMPLATE.clone(NOW, pool=pool)
    conn = world.conn
    conn.execute("COMMIT")  # what SQLite does itself after some errors
    world.close()
    assert pool.take(TEMPLATE) is None
    with pytest.raises(sqlite3.ProgrammingError):
        conn.execute("SELECT 1")


def test_the_pool_keeps_at_most_its_limit_and_closes_the_oldest() -> None:
    pool = WorldPool(limit=2)
    worlds = [TEMPLATE.clone(NOW, pool=pool) for _ in range(3)]
    conns = [w.conn for w in worlds]
    for w in worlds:
        w.close()
    with pytest.raises(sqlite3.ProgrammingError):
        conns[0].execute("SELECT 1")  # idle longest: closed
    kept = {id(pool.take(TEMPLATE)), id(pool.take(TEMPLATE))}
    assert kept == {id(conns[1]), id(conns[2])} and pool.take(TEMPLATE) is None


_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=5),
    st.binary(max_size=4),
)


@given(st.lists(_VALUES, max_size=6))
def test_canonical_row_is_canonical_value_per_column(values: list[object]) -> None:
    columns = [f"c{i}" for i in range(len(values))]
    row = canonical_row(columns, values)
    expected = {c: canonical_value(v) for c, v in zip(columns, values, strict=True)}
    assert row == expected
    assert [type(v) for v in row.values()] == [type(v) for v in expected.values()]
    assert list(row) == columns


def test_canonical_row_refuses_what_canonical_value_refuses() -> None:
    with pytest.raises(TypeError):
        canonical_row(["a", "b"], [1, math.inf])


def test_close_idle_closes_every_idle_connection() -> None:
    pool = WorldPool()
    world = TEMPLATE.clone(NOW, pool=pool)
    conn = world.conn
    world.close()
    pool.close_idle()
    assert pool.take(TEMPLATE) is None
    with pytest.raises(sqlite3.ProgrammingError):
        conn.execute("SELECT 1")


ROLLBACK_SCHEMA = """
CREATE TABLE r (id TEXT PRIMARY KEY, tag TEXT UNIQUE ON CONFLICT ROLLBACK);
"""


@pytest.mark.parametrize(
    "schema",
    [
        ROLLBACK_SCHEMA,
        "CREATE TABLE r (id TEXT PRIMARY KEY, tag TEXT);"
        "CREATE TRIGGER no_dup BEFORE INSERT ON r WHEN EXISTS "
        "(SELECT 1 FROM r WHERE tag = NEW.tag) BEGIN SELECT RAISE(ROLLBACK, 'dup'); END;",
    ],
    ids=["on-conflict-rollback", "raise-rollback"],
)
@pytest.mark.parametrize("pooled", [True, False], ids=["pooled", "own-world"])
def test_a_schema_that_rolls_back_a_whole_transaction_keeps_earlier_calls(
    schema: str, pooled: bool
) -> None:
    # A ROLLBACK conflict clause ends the whole transaction: inside a pooled world's outer
    # transaction it would undo the trial's earlier calls too, unlike a world of its own;
    # and in either, the tool's IntegrityError must reach the caller, not "cannot rollback".
    template = WorldTemplate.build(schema, {"r": [{"id": "a", "tag": "x"}]})
    pool = WorldPool() if pooled else None
    world = template.clone(NOW, pool=pool)
    with world.transaction() as tx:
        tx.execute("INSERT INTO r VALUES ('b', 'y')")
    with pytest.raises(sqlite3.IntegrityError), world.transaction() as tx:
        tx.execute("INSERT INTO r VALUES ('c', 'y')")
    ids = [row["id"] for row in world.query("SELECT id FROM r ORDER BY id")]
    assert ids == ["a", "b"]
    world.close()
    again = template.clone(NOW, pool=pool)
    assert [row["id"] for row in again.query("SELECT id FROM r ORDER BY id")] == ["a"]
    again.close()


def test_a_connection_whose_writes_were_committed_is_not_reused() -> None:
    # Domain code that commits the outer transaction and opens another leaves committed
    # writes a rollback cannot undo: the pool must not hand that database to a trial.
    pool = WorldPool()
    world = TEMPLATE.clone(NOW, pool=pool)
    conn = world.conn
    with world.transaction() as tx:
        tx.execute("UPDATE p SET n = 99 WHERE id = 'p1'")
    conn.execute("COMMIT")
    conn.execute("BEGIN")
    world.close()
    again = TEMPLATE.clone(NOW, pool=pool)
    assert again.conn is not conn
    assert again.state().hash() == INITIAL.hash()
    again.close()
