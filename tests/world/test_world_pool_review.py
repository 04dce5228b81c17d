"""Review of the world pool: where a pooled world behaves unlike a fresh clone.

Each test runs the same calls on a fresh clone and on a pooled one (a savepoint inside
one outer transaction) and asserts they agree. Each failed before the pool was made exact.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime

import pytest

from statebox.world import World, WorldPool, WorldTemplate

NOW = datetime(2025, 1, 1, tzinfo=UTC)


def _worlds(template: WorldTemplate) -> list[tuple[str, World]]:
    return [("fresh", template.clone(NOW)), ("pooled", template.clone(NOW, pool=WorldPool()))]


def test_a_deferred_foreign_key_refuses_a_pooled_call_as_a_fresh_one() -> None:
    template = WorldTemplate.build(
        "CREATE TABLE parent (id TEXT PRIMARY KEY);"
        "CREATE TABLE child (id TEXT PRIMARY KEY, parent_id TEXT "
        "REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);",
        {"parent": [{"id": "P1"}]},
    )
    refused = {}
    for label, world in _worlds(template):
        try:
            with world.transaction() as tx:
                tx.execute("INSERT INTO child VALUES ('C1', 'no-such-parent')")
            refused[label] = False
        except sqlite3.IntegrityError:
            refused[label] = True
        world.close()
    assert refused == {"fresh": True, "pooled": True}


def test_a_statements_or_rollback_undoes_only_its_call_in_a_pooled_world() -> None:
    template = WorldTemplate.build(
        "CREATE TABLE t (id TEXT PRIMARY KEY, v INTEGER);", {"t": [{"id": "A", "v": 0}]}
    )
    finals = {}
    for label, world in _worlds(template):
        with world.transaction() as tx:
            tx.execute("UPDATE t SET v = 1 WHERE id = 'A'")
        with pytest.raises(sqlite3.IntegrityError), world.transaction() as tx:
            tx.execute("INSERT OR ROLLBACK INTO t VALUES ('A', 9)")
        finals[label] = world.conn.execute("SELECT id, v FROM t").fetchall()
        world.close()
    assert finals == {"fresh": [("A", 1)], "pooled": [("A", 1)]}


def test_a_pragma_set_in_one_pooled_trial_does_not_reach_the_next() -> None:
    template = WorldTemplate.build(
        "CREATE TABLE t (id TEXT PRIMARY KEY, v INTEGER);", {"t": [{"id": "A", "v": 0}]}
    )
    pool = WorldPool()
    world = template.clone(NOW, pool=pool)
    world.query("PRAGMA recursive_triggers = OFF")  # e.g. a task's SQL invariant
    world.close()
    again = template.clone(NOW, pool=pool)
    try:
        assert again.conn.execute("PRAGMA recursive_triggers").fetchone()[0] == 1
    finally:
        again.close()


def test_a_schema_read_pragma_keeps_the_connection_pooled() -> None:
    # The kit reads a table's columns with PRAGMA table_info: that must not cost the pool.
    template = WorldTemplate.build(
        "CREATE TABLE t (id TEXT PRIMARY KEY, v INTEGER);", {"t": [{"id": "A", "v": 0}]}
    )
    pool = WorldPool()
    world = template.clone(NOW, pool=pool)
    conn = world.conn
    with world.transaction() as tx:
        assert [r["name"] for r in tx.query('PRAGMA table_info("t")')] == ["id", "v"]
    world.close()
    again = template.clone(NOW, pool=pool)
    assert again.conn is conn
    again.close()
