"""The shop example end to end, on a real PostgreSQL started by the tests and on a SQLite file.

Each kind gets one `DatabaseBackend` for the module (its golden replays are shared by
the tests): the oracle passes every task through the runner; the fault agent's write
faults come out as missing, wrong and extra effects; two concurrent trials of one task
never see each other's writes; the validator gives every task a check strength; and
both kinds give the very same canonical states for the same tasks.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fixtures.backend_support import BACKEND_FILES, EXAMPLE, Loop
from statebox.agents import FaultInjectionFactory, FaultRates, OracleFactory
from statebox.backends import DatabaseBackend, PostgresServer, load_backend, open_backend
from statebox.judge import judged_task_problems, validate_judged_task
from statebox.records import TrialRecord, TrialStatus, read_results
from statebox.registry import Registry
from statebox.runner import Campaign, run_campaign
from statebox.tasks import Task, load_tasks
from statebox.tools import ToolCall

pytestmark = pytest.mark.slow

KINDS = ("postgres", "sqlite")
REFUND = "shop.refund.damaged.001"


@pytest.fixture(scope="module")
def loop() -> Iterator[Loop]:
    shared = Loop()
    yield shared
    shared.close()


@pytest.fixture(scope="module")
def backends(loop: Loop, postgres: PostgresServer) -> Iterator[dict[str, DatabaseBackend]]:
    made = {
        kind: open_backend(load_backend(path), postgres_url=postgres.url, warm=0)
        for kind, path in BACKEND_FILES.items()
    }
    yield made
    for backend in made.values():
        loop.run(backend.aclose())


@pytest.fixture(scope="module")
def tasks() -> dict[str, Task]:
    return {t.id: t for t in load_tasks(EXAMPLE / "tasks")}


def _campaign(
    loop: Loop, backend: DatabaseBackend, tasks: list[Task], agents: list[Any], out: Path
) -> list[TrialRecord]:
    campaign = Campaign(tasks, agents, 1, out, environments={backend.name: backend})
    loop.run(run_campaign(campaign, Registry()))
    return read_results(out)


def test_mutating_tools_come_from_the_servers_annotations(
    loop: Loop, backends: dict[str, DatabaseBackend], tasks: dict[str, Task]
) -> None:
    backend = backends["sqlite"]
    assert loop.run(backend.mutating_tools(tasks[REFUND])) == {
        "cancel_order",
        "refund_order",
        "tag_customer",
        "update_shipping_address",
    }
    assert "find_customer" in backend.tool_names()


def test_both_kinds_give_the_same_canonical_states(
    loop: Loop, backends: dict[str, DatabaseBackend], tasks: dict[str, Task]
) -> None:
    for task in tasks.values():
        pg, lite = (loop.run(backends[k].prepare(task)) for k in KINDS)
        assert pg.template.state == lite.template.state
        assert pg.template.state.hash() == lite.template.state.hash()
        assert pg.golden == lite.golden
        assert pg.golden[0] != pg.template.state  # every example task writes
    refund = loop.run(backends["postgres"].prepare(tasks[REFUND])).golden[0]
    assert refund.rows["refunds"][(2,)] == {
        "id": 2,
        "order_id": 1001,
        "amount": 25.5,
        "reason": "damaged",
        "created_at": "2024-05-03T11:00:00+00:00",
    }
    assert refund.rows["orders"][(1001,)]["total"] == 80  # the task's patch (80.00)
    assert refund.rows["customers"][(1,)]["external_id"] == "6f9619ff-8b86-d011-b42d-00c04fc964ff"


@pytest.mark.parametrize("kind", KINDS)
def test_the_oracle_passes_every_task(
    kind: str,
    loop: Loop,
    backends: dict[str, DatabaseBackend],
    tasks: dict[str, Task],
    tmp_path: Path,
) -> None:
    records = _campaign(loop, backends[kind], list(tasks.values()), [OracleFactory()], tmp_path)
    assert [r.status for r in records] == [TrialStatus.PASSED] * 3
    for r in records:
        assert r.verdict is not None
        assert r.verdict.comparison.matches
        assert r.verdict.actual_effects == r.verdict.expected_effects != ()
        assert r.verdict.flags.called_mutating_tool
    refund = next(r for r in records if r.task_id == REFUND)
    assert refund.verdict is not None
    assert {c.name for c in refund.verdict.checks} >= {"state", "invariant[0]", "termination"}
    assert [(e.table, e.kind) for e in refund.verdict.actual_effects] == [("refunds", "insert")]


FAULTS = {
    "missing": FaultRates(skip_write=1, wrong_value=0, extra_write=0, stop_early=0),
    "wrong": FaultRates(skip_write=0, wrong_value=1, extra_write=0, stop_early=0),
    "extra": FaultRates(skip_write=0, wrong_value=0, extra_write=1, stop_early=0),
}


@pytest.mark.parametrize("kind", KINDS)
def test_write_faults_are_caught_as_missing_wrong_and_extra(
    kind: str,
    loop: Loop,
    backends: dict[str, DatabaseBackend],
    tasks: dict[str, Task],
    tmp_path: Path,
) -> None:
    agents = {name: FaultInjectionFactory(rates) for name, rates in FAULTS.items()}
    records = _campaign(loop, backends[kind], [tasks[REFUND]], list(agents.values()), tmp_path)
    by_agent = {r.agent_id: r for r in records}
    for name, agent in agents.items():
        r = by_agent[agent.agent_id]
        assert r.status == TrialStatus.FAILED, name
        assert r.verdict is not None
        c = r.verdict.comparison
        found = {k: [(d.op, d.table) for d in getattr(c, k)] for k in ("missing", "wrong", "extra")}
        assert found[name], (name, found)
        assert all(v == [] for k, v in found.items() if k != name), (name, found)
        assert all(table == "refunds" for _, table in found[name])
    missing = by_agent[agents["missing"].agent_id].verdict
    assert missing is not None and missing.comparison.missing[0].op == "insert"
    assert missing.actual_effects == ()
    extra = by_agent[agents["extra"].agent_id].verdict
    assert extra is not None and extra.comparison.extra[0].key == {"id": 3}


@pytest.mark.parametrize("kind", KINDS)
def test_concurrent_trials_of_one_task_never_see_each_others_writes(
    kind: str, loop: Loop, backends: dict[str, DatabaseBackend], tasks: dict[str, Task]
) -> None:
    backend, task = backends[kind], tasks[REFUND]

    async def go() -> list[Any]:
        a, b = await asyncio.gather(backend.open(task), backend.open(task))
        try:
            call = ToolCall(tool="refund_order", args={"order_id": 1001, "reason": "damaged"})
            first, second = await asyncio.gather(
                a.call(call.model_copy(update={"args": {**call.args, "amount": 10.0}})),
                b.call(call.model_copy(update={"args": {**call.args, "amount": 20.0}})),
            )
            assert first.ok and second.ok and first.mutating
            seen = [
                await s.call(ToolCall(tool="get_order", args={"order_id": 1001})) for s in (a, b)
            ]
            states = [s.world().state(s.initial_state()) for s in (a, b)]
            return [first, second, seen, states, a.initial_state()]
        finally:
            a.close()
            b.close()
            await asyncio.gather(a.aclose(), b.aclose())

    first, second, seen, states, initial = loop.run(go())
    # Both trials got the next refund id: each database is its own.
    assert first.output["refund_id"] == second.output["refund_id"] == 2
    assert [[x["amount"] for x in s.output["refunds"]] for s in seen] == [[10.0], [20.0]]
    assert [s.rows["refunds"][(2,)]["amount"] for s in states] == [10, 20]
    assert (2,) not in initial.rows["refunds"]
    fresh = loop.run(backend.fresh_world(task))
    try:
        assert fresh.state(initial) == initial  # the template saw neither trial
    finally:
        fresh.close()


def test_validation_gives_every_task_a_check_strength(
    loop: Loop, backends: dict[str, DatabaseBackend], tasks: dict[str, Task]
) -> None:
    # On PostgreSQL (the SQLite kind is validated through the CLI: test_backend_cli.py).
    backend = backends["postgres"]
    judge = backend.trial_judge(None)
    results = {t.id: loop.run(validate_judged_task(judge, t)) for t in tasks.values()}
    for task_id, v in results.items():
        assert v.problems == (), task_id
        assert v.check_strength == 1.0, task_id
        kinds = {m.kind for m in v.mutants}
        assert {"drop_write", "wrong_value", "extra_write"} <= kinds <= {*kinds, "text_fact"}
        assert v.survived == 0
    # The cancellation's note text is excluded from exact comparison, so a note saying
    # nothing survives unless its text check (the reason) catches it: it does.
    cancel = {m.description: m.outcome for m in results["shop.cancel.placed.001"].mutants}
    assert cancel["notes{'id': 1}.body: 'Cancelled: wrong size ordered' → 'x'"] == "caught"
    assert any(d.startswith("notes{'id': 1}.body: fact 'size'") for d in cancel)
    assert results[REFUND].caught >= 6


def test_a_server_that_writes_differently_each_run_fails_the_oracle_check(
    loop: Loop, tasks: dict[str, Task]
) -> None:
    # No SHOP_NOW: the server stamps the wall clock, so two replays of one golden
    # trajectory differ, and validation must say the oracle fails its own checks.
    config = load_backend(BACKEND_FILES["sqlite"])
    server = config.server.model_copy(update={"env": {"SHOP_DATABASE_URL": "{database_url}"}})
    backend = open_backend(config.model_copy(update={"server": server}), warm=0)
    try:
        problems = loop.run(judged_task_problems(backend.trial_judge(None), tasks[REFUND]))
    finally:
        loop.run(backend.aclose())
    assert any("the oracle fails its own checks" in p for p in problems), problems


def test_the_same_server_over_streamable_http_gives_the_same_verdicts(
    loop: Loop, backends: dict[str, DatabaseBackend], tasks: dict[str, Task], tmp_path: Path
) -> None:
    config = load_backend(BACKEND_FILES["sqlite"])
    server = config.server.model_copy(
        update={"command": ("{python}", "server.py", "--http", "{port}"), "transport": "http"}
    )
    http = open_backend(config.model_copy(update={"server": server}), warm=0)
    try:
        records = _campaign(loop, http, [tasks[REFUND]], [OracleFactory()], tmp_path)
        golden = loop.run(http.prepare(tasks[REFUND])).golden
    finally:
        loop.run(http.aclose())
    assert [r.status for r in records] == [TrialStatus.PASSED]
    assert golden == loop.run(backends["sqlite"].prepare(tasks[REFUND])).golden
