"""Solvability lint: every golden value must be in the opening or a fact, or returned earlier."""

from __future__ import annotations

import asyncio

import pytest

from fixtures.support import task_from
from statebox.domains import Domain
from statebox.judge import SolvabilityProblem, lint_solvability, validate_task
from statebox.registry import default_registry
from statebox.tasks import Task


def _transfer(toy_tasks: list[Task], **user: object) -> Task:
    base = toy_tasks[0]  # toy.transfer.basic.001: get_account(A1), transfer(A1 → A2, 40)
    assert base.id == "toy.transfer.basic.001"
    spec = {"opening": "Please move 40 dollars from my account to Bo.", **user}
    return task_from(base, user=spec)


def test_an_id_the_user_never_holds_and_no_read_returns_is_flagged(
    toy_domain: Domain, toy_tasks: list[Task]
) -> None:
    task = _transfer(toy_tasks, facts={"account_id": "A1"})
    problems = lint_solvability(toy_domain, task)
    assert problems == [
        SolvabilityProblem(step=1, tool="transfer", argument="dst", value="A2", kind="identifier")
    ]
    # A1 is a fact, so neither the read (step 0) nor the transfer's src is flagged.
    v = asyncio.run(validate_task(toy_domain, task))
    assert not v.ok
    assert v.problems == (str(problems[0]),)
    assert "golden call 1 (transfer) argument dst='A2'" in v.problems[0]


def test_the_same_id_in_the_facts_is_clean(toy_domain: Domain, toy_tasks: list[Task]) -> None:
    task = _transfer(toy_tasks, facts={"account_id": "A1", "payee_account": "A2"})
    assert lint_solvability(toy_domain, task) == []
    assert asyncio.run(validate_task(toy_domain, task)).ok


def test_the_persona_is_not_a_place_for_facts(toy_domain: Domain, toy_tasks: list[Task]) -> None:
    # Both players get the facts; only an LLM user would ever read a persona's ids.
    task = _transfer(toy_tasks, persona="Al; Bo's account is A2", facts={"account_id": "A1"})
    assert [p.value for p in lint_solvability(toy_domain, task)] == ["A2"]


def test_values_in_facts_count_as_whole_tokens_only(
    toy_domain: Domain, toy_tasks: list[Task]
) -> None:
    said = _transfer(toy_tasks, facts={"account_id": "A1", "bo": "Bo is A2."})
    assert lint_solvability(toy_domain, said) == []
    inside = _transfer(toy_tasks, facts={"account_id": "A1", "bo": "Bo is XA22."})
    assert [p.value for p in lint_solvability(toy_domain, inside)] == ["A2"]


def test_an_id_returned_by_an_earlier_call_is_discoverable(
    toy_domain: Domain, toy_tasks: list[Task]
) -> None:
    base = _transfer(toy_tasks, facts={"account_id": "A1"})
    reads_first = task_from(
        base,
        golden=[
            {"tool": "get_account", "args": {"account_id": "A1"}},
            {"tool": "get_account", "args": {"account_id": "A2"}},
            {"tool": "transfer", "args": {"src": "A1", "dst": "A2", "amount": 40}},
        ],
    )
    # The second read needs A2 before anything returned it; the transfer then has it.
    problems = lint_solvability(toy_domain, reads_first)
    assert [(p.step, p.tool, p.argument) for p in problems] == [(1, "get_account", "account_id")]


def test_amounts_dates_and_free_text_are_checked(toy_domain: Domain, toy_tasks: list[Task]) -> None:
    base = _transfer(toy_tasks, facts={"account_id": "A1", "payee_account": "A2"})
    odd = task_from(
        base,
        golden=[
            {"tool": "transfer", "args": {"src": "A1", "dst": "A2", "amount": 47.31}},
            {"tool": "add_note", "args": {"account_id": "A1", "body": "lost on 2019-02-28"}},
        ],
    )
    found = [(p.step, p.kind, p.value) for p in lint_solvability(toy_domain, odd)]
    assert found == [(0, "amount", "47.31"), (1, "date", "2019-02-28")]
    told = task_from(
        odd,
        user={
            **odd.user.model_dump(),
            "facts": {
                **{k: f.model_dump() for k, f in odd.user.facts.items()},
                "amount": 47.31,
                "lost_on": "2019-02-28",
            },
        },
    )
    assert lint_solvability(toy_domain, told) == []
    # The opening's "40 dollars" covers the original amount; free text without ids passes.
    assert lint_solvability(toy_domain, base) == []


def test_closed_choices_are_not_values_to_know(toy_domain: Domain, toy_tasks: list[Task]) -> None:
    freeze = toy_tasks[1]  # set_status(status=frozen): a Literal, never linted
    assert freeze.id == "toy.freeze.note.001"
    assert lint_solvability(toy_domain, freeze) == []
    no_note = task_from(freeze, user={"opening": freeze.user.opening})
    assert [(p.step, p.value) for p in lint_solvability(toy_domain, no_note)] == [(2, "N-001")]


def test_a_fact_the_rule_user_cannot_say_is_flagged(
    toy_domain: Domain, toy_tasks: list[Task]
) -> None:
    mute = _transfer(
        toy_tasks,
        facts={"account_id": "A1", "payee": {"value": "A2", "ask": ["Bo"], "say": "It's Bo's."}},
    )
    (problem,) = lint_solvability(toy_domain, mute)
    assert (problem.kind, problem.argument, problem.value) == ("rule user", "payee", "A2")
    assert "rule user cannot say fact payee='A2'" in str(problem)


@pytest.fixture(scope="module")
def add_driver() -> tuple[Domain, Task]:
    reg = default_registry()
    task = next(
        t for t in reg.suite("auto_insurance@1.0") if t.id == "auto_insurance.driver-change.add.001"
    )
    return reg.domain("auto_insurance"), task


def test_a_name_and_date_only_a_script_held_are_flagged(add_driver: tuple[Domain, Task]) -> None:
    # The bug this lint was widened for: the new driver's name and date of birth lived
    # only in script lines, and the identifier lint skipped dates and names.
    domain, task = add_driver
    assert lint_solvability(domain, task) == []
    facts = {k: f for k, f in task.user.facts.items() if k not in ("driver_name", "driver_dob")}
    stripped = task.model_copy(update={"user": task.user.model_copy(update={"facts": facts})})
    found = {(p.argument, p.kind, p.value) for p in lint_solvability(domain, stripped)}
    # (The last name is the policyholder's, which the policy read returns.)
    assert found == {("first_name", "name", "Rowan"), ("date_of_birth", "date", "1990-04-12")}
