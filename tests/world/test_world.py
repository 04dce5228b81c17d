"""Worlds: templates, isolated clones, transactions, the frozen clock, id sequences."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from statebox.domains import Domain
from statebox.errors import DomainError
from statebox.tasks import Task, WorldCache
from statebox.world import ExcludedField, FieldPolicy, World, WorldTemplate

NOW = datetime(2025, 10, 1, 13, 0, tzinfo=UTC)


def balance(w: World, account: str) -> object:
    return w.state().rows["accounts"][(account,)]["balance"]


# --- isolation (invariant 1) -----------------------------------------------------------


def test_two_clones_never_see_each_others_writes(toy_domain: Domain) -> None:
    template = toy_domain.template()
    a, b = template.clone(NOW), template.clone(NOW)
    pristine = template.state()
    with a.transaction() as tx:
        tx.update("accounts", {"id": "A1"}, {"balance": 1})
        tx.execute("DELETE FROM notes WHERE id = 'N-001'")
    with b.transaction() as tx:
        tx.update("accounts", {"id": "A1"}, {"balance": 2})
    assert balance(a, "A1") == 1
    assert balance(b, "A1") == 2
    assert ("N-001",) not in a.state().rows["notes"]
    assert ("N-001",) in b.state().rows["notes"]
    # The template is untouched, and a later clone starts clean.
    assert template.state() == pristine
    c = template.clone(NOW)
    assert c.state() == pristine
    assert balance(c, "A1") == 100
    for w in (a, b, c):
        w.close()


def test_sequences_are_per_world(toy_domain: Domain) -> None:
    template = toy_domain.template()
    a, b = template.clone(NOW), template.clone(NOW)
    with a.transaction() as tx:
        assert tx.next_id("notes", prefix="N-", width=3, start=2) == "N-002"
        assert tx.next_id("notes", prefix="N-", width=3, start=2) == "N-003"
        assert tx.next_id("transfers", prefix="T-", width=4) == "T-0001"
    with b.transaction() as tx:  # a's draws do not advance b's sequence
        assert tx.next_id("notes", prefix="N-", width=3, start=2) == "N-002"
    a.close()
    b.close()


def test_sequence_table_is_not_part_of_the_state(world: World) -> None:
    before = world.state()
    with world.transaction() as tx:
        tx.next_id("notes")
    assert "_sb_sequence" not in world.state().rows
    assert world.state() == before
    assert sorted(before.rows) == ["accounts", "notes", "transfers"]


def test_world_cache_builds_task_template_once(toy_domain: Domain, toy_tasks: list[Task]) -> None:
    cache = WorldCache()
    freeze = toy_tasks[1]
    assert cache.template(toy_domain, freeze) is cache.template(toy_domain, freeze)
    # A task without a patch shares the domain's base template.
    assert cache.template(toy_domain, toy_tasks[0]) is toy_domain.template()
    w1, w2 = cache.clone(toy_domain, freeze), cache.clone(toy_domain, freeze)
    assert w1.conn is not w2.conn
    assert w1.now == freeze.now
    w1.close()
    w2.close()


# --- transactions (invariant 2) --------------------------------------------------------


def test_transaction_rolls_back_whole_on_exception(world: World) -> None:
    before = world.state()
    with pytest.raises(RuntimeError), world.transaction() as tx:
        tx.update("accounts", {"id": "A1"}, {"balance": 0})
        tx.insert("notes", {"id": "N-9", "account_id": "A1", "body": "x", "created_at": "t"})
        raise RuntimeError("boom")
    assert world.state() == before
    # The connection is usable again afterwards.
    with world.transaction() as tx:
        assert tx.update("accounts", {"id": "A1"}, {"balance": 5}) == 1
    assert tx.wrote is True
    assert balance(world, "A1") == 5


def test_transaction_wrote_flag(world: World) -> None:
    with world.transaction() as tx:
        tx.query("SELECT * FROM accounts")
    assert tx.wrote is False
    with world.transaction() as tx:
        tx.update("accounts", {"id": "A1"}, {"status": "frozen"})
    assert tx.wrote is True


def test_tx_reads_return_canonical_rows(world: World) -> None:
    with world.transaction() as tx:
        row = tx.one("SELECT * FROM accounts WHERE id = 'A1'")
        assert row == {"id": "A1", "owner": "Ada Example", "balance": 100, "status": "active"}
        assert type(row["balance"]) is int  # type: ignore[index]
        assert tx.one("SELECT * FROM accounts WHERE id = 'nope'") is None
        assert tx.update("accounts", {"id": "A1"}, {}) == 0


def test_query_is_read_only_and_resets(world: World) -> None:
    assert world.query("SELECT balance FROM accounts WHERE id = 'A2'") == [{"balance": 25}]
    before = world.state()
    with pytest.raises(sqlite3.Error):
        world.query("UPDATE accounts SET balance = 0")
    assert world.state() == before
    with world.transaction() as tx:  # query_only was switched back off
        tx.update("accounts", {"id": "A2"}, {"balance": 1})
    assert balance(world, "A2") == 1


def test_a_repeated_query_sets_no_pragma(world: World) -> None:
    # A flag pragma expires every statement the connection has prepared: a check run on
    # every trial must not make a pooled world prepare all its tools' SQL again.
    sql = "SELECT owner FROM accounts WHERE id = ?"
    assert world.query(sql, ["A1"]) == [{"owner": "Ada Example"}]
    ran: list[str] = []
    world.conn.set_trace_callback(ran.append)
    try:
        assert world.query(sql, ["A2"]) == [{"owner": "Bo Example"}]
    finally:
        world.conn.set_trace_callback(None)
    assert ran == ["SELECT owner FROM accounts WHERE id = 'A2'"]


def test_a_write_is_refused_every_time_even_one_that_changes_no_row(world: World) -> None:
    before = world.state()
    for sql in (
        "UPDATE accounts SET balance = 0 WHERE id = 'nope'",
        "UPDATE accounts SET balance = 0",
    ):
        for _ in range(2):  # never remembered as read-only
            with pytest.raises(sqlite3.Error, match="readonly"):
                world.query(sql)
    assert world.state() == before
    with world.transaction() as tx:
        tx.update("accounts", {"id": "A2"}, {"balance": 1})
    assert balance(world, "A2") == 1


def test_a_write_that_changes_nothing_in_one_world_is_refused_in_another(
    world: World,
) -> None:
    # Found in review: the read-only cache took any text that once ran without error
    # under query_only; DROP TABLE IF EXISTS is such a text in a world without the table,
    # and dropped it in one with it. Only a SELECT is remembered.
    other = WorldTemplate.build("CREATE TABLE t (id TEXT PRIMARY KEY);", {}).clone(
        datetime.fromisoformat("2025-01-01T00:00:00+00:00")
    )
    try:
        texts = ("DROP TABLE IF EXISTS notes", "CREATE TABLE IF NOT EXISTS t (x)")
        for sql in texts:
            assert other.query(sql) == []  # a no-op there: nothing to drop, already there
        for sql in texts:  # writes here
            with pytest.raises(sqlite3.Error, match="readonly"):
                world.query(sql)
        assert "notes" in world.state().rows
    finally:
        other.close()


def test_foreign_keys_are_enforced(world: World) -> None:
    with pytest.raises(sqlite3.IntegrityError), world.transaction() as tx:
        tx.insert("notes", {"id": "N-9", "account_id": "ZZ", "body": "x", "created_at": "t"})


# --- clock (invariant 3) ---------------------------------------------------------------


def test_clock_is_frozen_and_timezone_aware(toy_domain: Domain) -> None:
    template = toy_domain.template()
    with pytest.raises(ValueError, match="timezone"):
        template.clone(datetime(2025, 10, 1, 13, 0))  # noqa: DTZ001 - naive on purpose
    w = template.clone(NOW)
    with w.transaction() as tx:
        assert tx.now == NOW
        assert tx.today.isoformat() == "2025-10-01"
    with w.transaction() as tx:
        assert tx.now == NOW  # not moved by the number of transactions
    w.close()


# --- templates -------------------------------------------------------------------------

SCHEMA = "CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER NOT NULL, s TEXT);"


def test_template_build_errors_name_table_and_row() -> None:
    with pytest.raises(ValueError, match="unknown table 'nope'"):
        WorldTemplate.build(SCHEMA, {"nope": [{"id": "a"}]})
    with pytest.raises(ValueError, match=r"seed t\[1\].*no column\(s\) \['zz'\]"):
        WorldTemplate.build(SCHEMA, {"t": [{"id": "a", "n": 1}, {"id": "b", "n": 1, "zz": 1}]})
    with pytest.raises(ValueError, match="no primary key"):
        WorldTemplate.build("CREATE TABLE k (a TEXT);", {})
    with pytest.raises(ValueError, match=r"seed t\[0\]"):
        WorldTemplate.build(SCHEMA, {"t": [{"id": "a"}]})  # n NOT NULL


def test_patched_upserts_deletes_and_leaves_the_original() -> None:
    base = WorldTemplate.build(SCHEMA, {"t": [{"id": "a", "n": 1, "s": "x"}, {"id": "b", "n": 2}]})
    patched = base.patched(
        {"t": [{"id": "a", "s": "y"}, {"id": "c", "n": 3}]}, {"t": [{"id": "b"}]}
    )
    rows = patched.state().rows["t"]
    assert rows == {
        ("a",): {"id": "a", "n": 1, "s": "y"},  # partial row: only s changes
        ("c",): {"id": "c", "n": 3, "s": None},
    }
    assert sorted(base.state().rows["t"]) == [("a",), ("b",)]
    assert base.state().rows["t"][("a",)]["s"] == "x"


@pytest.mark.parametrize(
    ("upserts", "deletes", "message"),
    [
        ({"zz": [{"id": "a"}]}, {}, "zz: unknown table"),
        ({"t": [{"n": 1}]}, {}, r"t\[0\]: row lacks primary-key"),
        ({}, {"t": [{"id": "nope"}]}, r"delete.t\[0\]: no row with key"),
        ({}, {"t": [{"n": 1}]}, r"delete.t\[0\]: give exactly the key"),
        ({}, {"zz": [{"id": "a"}]}, "delete.zz: unknown table"),
    ],
)
def test_patched_errors(upserts: dict, deletes: dict, message: str) -> None:
    base = WorldTemplate.build(SCHEMA, {"t": [{"id": "a", "n": 1}]})
    with pytest.raises(ValueError, match=message):
        base.patched(upserts, deletes)


def test_domain_field_policy_must_name_real_non_key_columns() -> None:
    def domain(excluded: ExcludedField) -> Domain:
        return Domain(
            name="bad",
            schema_sql=SCHEMA,
            seed={},
            tools=[],
            policy="",
            field_policy=FieldPolicy(excluded=(excluded,)),
        )

    with pytest.raises(DomainError, match=r"unknown column t\.zz"):
        domain(ExcludedField(table="t", column="zz", reason="r")).template()
    with pytest.raises(DomainError, match=r"cannot exclude key t\.id"):
        domain(ExcludedField(table="t", column="id", reason="r")).template()


def test_domain_seed_callable_is_called_once() -> None:
    calls = []

    def seed() -> dict:
        calls.append(1)
        return {"t": [{"id": "a", "n": 1}]}

    d = Domain(name="lazy", schema_sql=SCHEMA, seed=seed, tools=[], policy="")
    assert calls == []
    assert d.template() is d.template()
    assert calls == [1]


def test_task_patch_errors_name_task_and_field(toy_domain: Domain, task: Task) -> None:
    from fixtures.support import task_from
    from statebox.errors import TaskSpecError

    bad = task_from(task, initial_state={"accounts": [{"id": "A1", "colour": "red"}]})
    with pytest.raises(TaskSpecError) as info:
        WorldCache().template(toy_domain, bad)
    assert info.value.task_id == task.id
    assert info.value.field == "initial_state"
    assert "colour" in str(info.value)


# --- snapshots that re-read only written tables ----------------------------------------

_ACCOUNTS = st.sampled_from(["A1", "A2", "A3", "ZZ"])
_CALLS = st.lists(
    st.one_of(
        st.builds(
            lambda a, s: ("set_status", {"account_id": a, "status": s}),
            _ACCOUNTS,
            st.sampled_from(["active", "frozen", "closed"]),
        ),
        st.builds(lambda a: ("add_note", {"account_id": a, "body": "b"}), _ACCOUNTS),
        st.builds(lambda n: ("delete_note", {"note_id": n}), st.sampled_from(["N-001", "N-002"])),
        st.builds(
            lambda s, d, x: ("transfer", {"src": s, "dst": d, "amount": x}),
            _ACCOUNTS,
            _ACCOUNTS,
            st.sampled_from([1, 2.5, 30, 500]),
        ),
        st.builds(lambda a: ("get_account", {"account_id": a}), _ACCOUNTS),
    ),
    max_size=6,
)


@settings(max_examples=60, deadline=None)
@given(calls=_CALLS, which=st.sampled_from([0, 1]))
def test_incremental_snapshot_equals_a_full_read(calls: list[tuple[str, dict]], which: int) -> None:
    from fixtures.support import TOY_TASKS
    from fixtures.toy import make_domain
    from statebox.tasks import load_tasks
    from statebox.tools import Dispatcher, ToolCall
    from statebox.world import effects

    domain = make_domain()
    task = load_tasks(TOY_TASKS)[which]  # 1 has an initial_state patch
    cache = WorldCache()
    initial = cache.initial_state(domain, task)
    assert initial == cache.template(domain, task).state()
    world = cache.clone(domain, task)
    try:
        d = Dispatcher(world, domain.tools)
        for name, args in calls:
            d.call(ToolCall(tool=name, args=args))
        fast, full = world.state(initial), world.state()
        assert fast == full
        assert fast.hash() == full.hash()
        assert effects(initial, fast) == effects(initial, full)
        policy = domain.field_policy
        assert effects(initial, fast, policy) == effects(initial, full, policy)
        assert fast.project(policy).hash() == full.project(policy).hash()
    finally:
        world.close()


def test_incremental_snapshot_sees_cascades_and_schema_triggers() -> None:
    schema = """
    CREATE TABLE p (id TEXT PRIMARY KEY, n INTEGER);
    CREATE TABLE c (id TEXT PRIMARY KEY,
                    p TEXT REFERENCES p(id) ON DELETE CASCADE ON UPDATE CASCADE);
    CREATE TABLE audit (id INTEGER PRIMARY KEY, what TEXT);
    CREATE TRIGGER log AFTER UPDATE ON p BEGIN
        INSERT INTO audit (what) VALUES ('upd ' || new.id);
    END;
    """
    seed = {"p": [{"id": "a", "n": 1}, {"id": "b", "n": 1}], "c": [{"id": "x", "p": "a"}]}
    template = WorldTemplate.build(schema, seed)
    initial = template.state()
    w = template.clone(NOW)
    with w.transaction() as tx:
        tx.execute("UPDATE p SET id = 'aa' WHERE id = 'a'")  # cascades into c, logs in audit
    fast = w.state(initial)
    assert fast == w.state()
    assert fast.rows["c"] == {("x",): {"id": "x", "p": "aa"}}
    assert fast.rows["audit"] == {(1,): {"id": 1, "what": "upd aa"}}
    with w.transaction() as tx:
        tx.execute("DELETE FROM p WHERE id = 'aa'")
    assert w.state(initial).rows["c"] == {}
    w.close()
