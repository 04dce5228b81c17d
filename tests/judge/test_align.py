"""Order-free matching of inserted rows: generated ids mapped by content (issue 13, finding 3)."""

from __future__ import annotations

import asyncio

import pytest

from fixtures.support import ScriptAgent, call, play, task_from
from statebox.domains import Domain
from statebox.judge import Judge, align_inserts
from statebox.registry import default_registry
from statebox.tasks import Task, WorldCache

NOTES = [
    {"tool": "add_note", "args": {"account_id": "A1", "body": "first call"}},
    {"tool": "add_note", "args": {"account_id": "A2", "body": "second call"}},
    {"tool": "transfer", "args": {"src": "A1", "dst": "A2", "amount": 10}},
]


def two_notes(task: Task, **checks: object) -> Task:
    return task_from(
        task,
        id="toy.notes.two.001",
        golden=NOTES,
        checks={"invariants": [], **checks},
    )


def played(domain: Domain, task: Task, order: list[int]) -> object:
    agent = ScriptAgent([call(NOTES[i]["tool"], **NOTES[i]["args"]) for i in order])
    return asyncio.run(play(domain, task, agent)).verdict


def test_inserts_in_the_other_order_match_by_content(toy_domain: Domain, task: Task) -> None:
    t = two_notes(task)
    v = played(toy_domain, t, [1, 0, 2])
    assert v.passed, v.checks  # N-002 and N-003 swapped: the same notes all the same
    # A wrong note body is still wrong (the notes pair by everything else they hold).
    agent = ScriptAgent(
        [
            call("add_note", account_id="A2", body="second call"),
            call("add_note", account_id="A2", body="first call"),
            call("transfer", src="A1", dst="A2", amount=10),
        ]
    )
    v = asyncio.run(play(toy_domain, t, agent)).verdict
    assert not v.passed
    assert [(d.kind, d.table, d.column) for d in v.comparison.wrong] == [
        ("wrong", "notes", "account_id")
    ]


def test_a_task_that_fixes_the_order_matches_by_id(toy_domain: Domain, task: Task) -> None:
    t = two_notes(task, ordered=True)
    assert played(toy_domain, t, [0, 1, 2]).passed
    v = played(toy_domain, t, [1, 0, 2])
    assert not v.passed
    assert {(d.table, d.column) for d in v.comparison.wrong} == {("notes", "account_id")}


def test_renamed_ids_follow_references(toy_domain: Domain, task: Task) -> None:
    # Golden inserts N-002 (A1) then N-003 (A2); the trial the other way round.
    t = two_notes(task)
    judge = Judge(toy_domain)
    initial = judge.worlds.initial_state(toy_domain, t)
    golden = judge.golden_states(t)[0]
    world = judge.replay(t, [t.golden[1], t.golden[0], t.golden[2]])
    try:
        final = world.state(initial)
    finally:
        world.close()
    aligned, ids = align_inserts(initial, golden, final)
    assert ids == {"N-002": "N-003", "N-003": "N-002"}
    assert aligned.rows["notes"] == golden.rows["notes"]
    assert final.rows["notes"] != golden.rows["notes"]


@pytest.mark.parametrize("n", [1, 2, 3])
def test_paying_the_fee_before_the_installment_reinstates_too(n: int) -> None:
    # Finding 3: paying the fee first swapped the two payments' ids, and the sequence-id
    # match called six payment columns wrong although the policy sets no order.
    registry = default_registry()
    domain = registry.domain("auto_insurance")
    task = next(
        t for t in registry.suite("auto_insurance@1.0") if t.id.endswith(f"reinstate.00{n}")
    )
    golden = list(task.golden)
    pay = [i for i, c in enumerate(golden) if c.tool in ("pay_installment", "pay_fee")]
    assert [golden[i].tool for i in pay] == ["pay_installment", "pay_fee"]
    golden[pay[0]], golden[pay[1]] = golden[pay[1]], golden[pay[0]]
    agent = ScriptAgent([call(c.tool, **c.args) for c in golden], final=task.reference_response)
    judge = Judge(domain, WorldCache(), skip_rubric=True)
    v = asyncio.run(play(domain, task, agent, judge=judge)).verdict
    assert v.comparison.matches, v.comparison
    assert v.passed
