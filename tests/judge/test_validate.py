"""Task validation: golden replay, do-nothing, mutants and check strength (docs/design.md §5)."""

from __future__ import annotations

import asyncio

import pytest

from fixtures.support import INVALID_TASKS, task_from
from fixtures.toy import FIELD_POLICY, SCHEMA, SEED, TOOLS
from statebox.domains import Domain
from statebox.judge import Judge, TaskValidation, validate_task
from statebox.tasks import Task, load_tasks
from statebox.tools import tool
from statebox.world import WorldTx


def validate(domain: Domain, task: Task, judge: Judge | None = None) -> TaskValidation:
    return asyncio.run(validate_task(domain, task, judge))


def test_every_toy_task_is_valid_with_full_strength(
    toy_domain: Domain, toy_tasks: list[Task]
) -> None:
    judge = Judge(toy_domain)
    results = {t.id: validate(toy_domain, t, judge) for t in toy_tasks}
    for v in results.values():
        assert v.ok, v
        assert v.problems == ()
        assert v.survived == 0
        assert v.check_strength == 1.0
    transfer = results["toy.transfer.basic.001"]
    assert transfer.excluded == 0
    kinds = [m.kind for m in transfer.mutants]
    assert kinds.count("drop_write") == 1  # one golden write
    assert kinds.count("wrong_value") >= 4  # two balances, amount, created_at
    assert kinds.count("extra_write") >= 1
    assert transfer.caught == len(transfer.mutants)


def test_field_policy_exclusion_is_reported_not_counted(
    toy_domain: Domain, toy_tasks: list[Task]
) -> None:
    v = validate(toy_domain, toy_tasks[1])  # toy.freeze.note.001
    excluded = [m for m in v.mutants if m.outcome == "excluded"]
    assert len(excluded) == 1
    (m,) = excluded
    assert m.kind == "wrong_value"
    assert m.reason == "free text; judged by rubric"
    assert m.description.startswith("notes{'id': 'N-002'}.body: 'card lost'")
    assert v.excluded == 1
    assert v.caught == len(v.mutants) - 1
    assert v.check_strength == 1.0  # excluded mutants are neither caught nor survived
    assert sorted(m.kind for m in v.mutants if m.kind == "drop_write") == ["drop_write"] * 3


def test_failing_golden_call_is_a_problem_naming_step_and_tool(toy_domain: Domain) -> None:
    (bad,) = load_tasks(INVALID_TASKS)
    v = validate(toy_domain, bad)
    assert not v.ok
    assert len(v.problems) == 1
    assert "golden call 1 (transfer) failed" in v.problems[0]
    assert "insufficient funds" in v.problems[0]
    assert v.mutants == ()
    assert v.check_strength is None


def test_weak_checks_let_mutants_survive(toy_domain: Domain, task: Task) -> None:
    weak = task_from(
        task,
        id="toy.transfer.weak.001",
        checks={
            "state": "none",
            "invariants": [{"sql": "select balance from accounts where id = 'A2'", "equals": 65}],
        },
    )
    v = validate(toy_domain, weak)
    assert v.problems == ()  # oracle passes, do-nothing fails: only the mutants expose it
    assert v.survived > 0
    assert not v.ok
    assert v.check_strength is not None and v.check_strength < 1.0
    survivors = [m.description for m in v.mutants if m.outcome == "survived"]
    assert any(d.startswith("accounts{'id': 'A1'}.balance: 60 → ") for d in survivors)
    assert any(d.startswith("transfers{'id': 'T-0001'}.amount: 40 → ") for d in survivors)
    caught = [m.description for m in v.mutants if m.outcome == "caught"]
    assert any(d.startswith("accounts{'id': 'A2'}.balance: 65 → ") for d in caught)
    assert v.check_strength == pytest.approx(v.caught / (v.caught + v.survived))


def test_read_only_task_that_writes(toy_domain: Domain, toy_tasks: list[Task]) -> None:
    liar = task_from(
        toy_tasks[2],
        golden=[{"tool": "set_status", "args": {"account_id": "A1", "status": "frozen"}}],
    )
    v = validate(toy_domain, liar)
    assert "declared read_only but the golden trajectory changes the state" in v.problems
    assert not v.ok


def test_golden_that_changes_nothing_must_be_read_only(toy_domain: Domain, task: Task) -> None:
    lookup = task_from(
        task, golden=[{"tool": "get_account", "args": {"account_id": "A1"}}], checks={}
    )
    v = validate(toy_domain, lookup)
    assert "golden state equals the initial state: declare read_only or fix golden" in v.problems
    assert "the do-nothing agent passes" in v.problems


def test_oracle_failing_its_own_invariant(toy_domain: Domain, task: Task) -> None:
    wrong = task_from(
        task,
        checks={
            "invariants": [{"sql": "select balance from accounts where id = 'A2'", "equals": 66}]
        },
    )
    v = validate(toy_domain, wrong)
    assert len(v.problems) == 1
    assert v.problems[0].startswith("the oracle fails its own checks")
    assert "invariant[0]" in v.problems[0]


def test_unknown_tools_and_wrong_domain(toy_domain: Domain, task: Task) -> None:
    other = task_from(task, golden=[{"tool": "launch", "args": {}}])
    v = validate(toy_domain, other)
    assert v.problems == ("tools not in domain toy: ['launch']",)
    assert not v.ok
    retail = task_from(task, id="retail.transfer.basic.001", domain="retail")
    v = validate(toy_domain, retail)
    assert v.problems[0] == "task domain 'retail' is not 'toy'"


def test_bad_initial_state_is_a_problem(toy_domain: Domain, task: Task) -> None:
    bad = task_from(task, initial_state={"accounts": [{"id": "A1", "colour": "red"}]})
    v = validate(toy_domain, bad)
    assert not v.ok
    assert "field initial_state" in v.problems[0] and "colour" in v.problems[0]


def test_drop_write_that_leaves_golden_state_is_equivalent(toy_domain: Domain, task: Task) -> None:
    # Freezing twice: dropping either call leaves the same end state — not a real mutant.
    twice = task_from(
        task,
        id="toy.freeze.twice.001",
        golden=[
            {"tool": "set_status", "args": {"account_id": "A1", "status": "frozen"}},
            {"tool": "set_status", "args": {"account_id": "A1", "status": "frozen"}},
        ],
        checks={},
    )
    v = validate(toy_domain, twice)
    drops = [m for m in v.mutants if m.kind == "drop_write"]
    assert [m.outcome for m in drops] == ["equivalent", "equivalent"]
    assert v.ok and v.check_strength == 1.0


def test_dropping_a_write_to_an_excluded_column_is_reported_as_excluded(task: Task) -> None:
    @tool(mutates=True)
    def edit_note(tx: WorldTx, note_id: str, body: str) -> bool:
        """Rewrite a note's text.

        Args:
            note_id: Note id.
            body: New text.
        """
        return tx.update("notes", {"id": note_id}, {"body": body}) == 1

    domain = Domain(
        name="toy",
        schema_sql=SCHEMA,
        seed=SEED,
        tools=[*TOOLS, edit_note],
        policy="",
        field_policy=FIELD_POLICY,
    )
    t = task_from(
        task,
        id="toy.freeze.annotate.001",
        golden=[
            {"tool": "set_status", "args": {"account_id": "A1", "status": "frozen"}},
            {"tool": "edit_note", "args": {"note_id": "N-001", "body": "frozen on request"}},
        ],
        checks={},
    )
    v = validate(domain, t)
    dropped = next(m for m in v.mutants if m.description == "drop golden call 1 (edit_note)")
    assert dropped.outcome == "excluded"
    assert dropped.reason == "free text; judged by rubric"
