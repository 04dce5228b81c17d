"""Row-level change capture: a snapshot re-reads only the rows a trial wrote.

Whatever the writes (inserts, updates, deletes, a key changed in place, REPLACE,
foreign-key cascades, a WITHOUT ROWID table), the incremental snapshot must hold the
same rows in the same order as a whole read.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from statebox.world import WorldTemplate

NOW = datetime(2025, 1, 1, tzinfo=UTC)
SCHEMA = """
CREATE TABLE p (id TEXT PRIMARY KEY, n INTEGER, tag TEXT UNIQUE);
CREATE TABLE c (id INTEGER PRIMARY KEY, p TEXT REFERENCES p(id) ON UPDATE CASCADE
                ON DELETE CASCADE, v REAL);
CREATE TABLE w (k TEXT PRIMARY KEY, v INTEGER) WITHOUT ROWID;
"""
SEED = {
    "p": [{"id": f"p{i}", "n": i, "tag": f"t{i}\u2603é"} for i in range(6)],
    "c": [{"id": i, "p": f"p{i % 6}", "v": i / 2} for i in range(1, 10)],
    "w": [{"k": f"k{i}", "v": i} for i in range(4)],
}
TEMPLATE = WorldTemplate.build(SCHEMA, SEED)
INITIAL = TEMPLATE.state()

WRITES = [
    "UPDATE p SET n = n + 1 WHERE id = 'p{0}'",
    "UPDATE p SET id = 'q{0}' WHERE id = 'p{0}'",
    "DELETE FROM p WHERE id = 'p{0}'",
    "INSERT OR IGNORE INTO p (id, n, tag) VALUES ('new{0}', 0, 'x{0}')",
    "INSERT OR REPLACE INTO p (id, n, tag) VALUES ('r{0}', 9, 't{0}')",
    "UPDATE c SET v = v + 0.25 WHERE id = {0}",
    "UPDATE c SET id = id + 100 WHERE id = {0}",
    "DELETE FROM c WHERE id = {0}",
    "INSERT OR IGNORE INTO c (p, v) VALUES (NULL, {0})",
    "UPDATE w SET v = v + 1 WHERE k = 'k{0}'",
    "DELETE FROM c WHERE id = (SELECT max(id) FROM c)",
]


@given(st.lists(st.tuples(st.integers(0, len(WRITES) - 1), st.integers(0, 9)), max_size=12))
def test_incremental_snapshot_equals_a_whole_read_in_rows_and_order(
    ops: list[tuple[int, int]],
) -> None:
    world = TEMPLATE.clone(NOW)
    try:
        for op, arg in ops:
            try:
                with world.transaction() as tx:
                    tx.execute(WRITES[op].format(arg))
            except sqlite3.IntegrityError:
                pass  # a write the schema refuses rolls back whole: nothing to note
            fast, whole = world.state(INITIAL), world.state()
            assert fast == whole
            assert fast.hash() == whole.hash()
            for table, rows in whole.rows.items():
                assert list(fast.rows[table]) == list(rows), table
    finally:
        world.close()


def test_untouched_rows_stay_shared_with_the_initial_state() -> None:
    world = TEMPLATE.clone(NOW)
    with world.transaction() as tx:
        tx.execute("UPDATE p SET n = 50 WHERE id = 'p2'")
    fast = world.state(INITIAL)
    assert fast.rows["c"] is INITIAL.rows["c"]  # an unwritten table: shared whole
    assert fast.rows["p"][("p2",)]["n"] == 50
    assert fast.rows["p"][("p1",)] is INITIAL.rows["p"][("p1",)]  # an unwritten row
    world.close()


def test_a_second_cascade_into_a_noted_table_does_not_fail_the_write() -> None:
    # Inside a cascade SQLite applies the cascade's conflict policy, not the note's
    # OR IGNORE: a second note of a table (or row) used to abort the tool's write.
    world = TEMPLATE.clone(NOW)
    for old, new in (("p1", "a1"), ("p2", "a2"), ("a1", "b1")):
        with world.transaction() as tx:
            tx.execute("UPDATE p SET id = ? WHERE id = ?", [new, old])
    assert world.state(INITIAL) == world.state()
    assert world.state().rows["c"][(1,)]["p"] == "b1"
    world.close()
