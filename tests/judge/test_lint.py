"""Identifier lint: golden-call ids must be stated by the user or returned by an earlier call."""

from __future__ import annotations

import asyncio

from fixtures.support import task_from
from statebox.domains import Domain
from statebox.judge import IdentifierProblem, lint_identifiers, validate_task
from statebox.tasks import Task


def _transfer(toy_tasks: list[Task], **user: object) -> Task:
    base = toy_tasks[0]  # toy.transfer.basic.001: get_account(A1), transfer(A1 → A2, 40)
    assert base.id == "toy.transfer.basic.001"
    spec = {"opening": "Please move 40 dollars from my account to Bo.", **user}
    return task_from(base, user=spec)


def test_an_id_the_user_never_states_and_no_read_returns_is_flagged(
    toy_domain: Domain, toy_tasks: list[Task]
) -> None:
    task = _transfer(toy_tasks, facts={"account_id": "A1"})
    problems = lint_identifiers(toy_domain, task)
    assert problems == [IdentifierProblem(step=1, tool="transfer", argument="dst", value="A2")]
    # A1 is a fact, so neither the read (step 0) nor the transfer's src is flagged.
    v = asyncio.run(validate_task(toy_domain, task))
    assert not v.ok
    assert v.problems == (str(problems[0]),)
    assert "golden call 1 (transfer) argument dst='A2'" in v.problems[0]


def test_the_same_id_in_the_facts_is_clean(toy_domain: Domain, toy_tasks: list[Task]) -> None:
    task = _transfer(toy_tasks, facts={"account_id": "A1", "payee_account": "A2"})
    assert lint_identifiers(toy_domain, task) == []
    assert asyncio.run(validate_task(toy_domain, task)).ok


def test_ids_said_in_the_script_count_as_whole_tokens_only(
    toy_domain: Domain, toy_tasks: list[Task]
) -> None:
    said = _transfer(toy_tasks, facts={"account_id": "A1"}, script=["Bo is A2."])
    assert lint_identifiers(toy_domain, said) == []
    inside = _transfer(toy_tasks, facts={"account_id": "A1"}, script=["Bo is XA22."])
    assert [p.value for p in lint_identifiers(toy_domain, inside)] == ["A2"]


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
    problems = lint_identifiers(toy_domain, reads_first)
    assert [(p.step, p.tool, p.argument) for p in problems] == [(1, "get_account", "account_id")]


def test_closed_choices_are_not_identifiers(toy_domain: Domain, toy_tasks: list[Task]) -> None:
    freeze = toy_tasks[1]  # set_status(status=frozen): a Literal, never linted
    assert freeze.id == "toy.freeze.note.001"
    assert lint_identifiers(toy_domain, freeze) == []
    no_persona = task_from(freeze, user={"opening": freeze.user.opening})
    assert [(p.step, p.value) for p in lint_identifiers(toy_domain, no_persona)] == [(2, "N-001")]
