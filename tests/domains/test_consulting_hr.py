"""The built-in consulting_hr domain: breadth, task mix, key policy cases, validity, campaigns."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pytest

from fixtures.support import ScriptAgent, call, play, task_from
from statebox.agents import FaultInjectionFactory, FaultRates, OracleFactory
from statebox.domains.consulting_hr import DOMAIN
from statebox.judge import FailureSignature, Judge, validate_task
from statebox.records import read_results
from statebox.registry import default_registry
from statebox.report import summarize
from statebox.runner import Campaign, run_campaign
from statebox.tasks import Task, WorldCache

CLEARANCE_TASK = "consulting_hr.site-access.clearance.001"
FUTURE_LEAVER_TASK = "consulting_hr.offboarding.future-last-day.001"


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    return default_registry().suite("consulting_hr")


def _task(tasks: list[Task], task_id: str) -> Task:
    """The task, without its rubric questions (no judge model runs in these tests)."""
    task = next(t for t in tasks if t.id == task_id)
    return task_from(task, checks={"invariants": [i.model_dump() for i in task.checks.invariants]})


def test_consulting_hr_has_the_promised_breadth(tasks: list[Task]) -> None:
    assert len(DOMAIN.template().tables) == 17
    mutating = [t for t in DOMAIN.tools.values() if t.mutates]
    assert len(DOMAIN.tools) == 42
    assert len(mutating) == 27
    # Only free text is left out of comparison; amounts, dates and reason codes are compared.
    assert {(e.table, e.column) for e in DOMAIN.field_policy.excluded} == {
        ("expense_claims", "description"),
        ("ticket_notes", "body"),
        ("tickets", "subject"),
    }
    assert "1.5 ×" in DOMAIN.policy and "90 days" in DOMAIN.policy


def test_the_task_mix_holds(tasks: list[Task]) -> None:
    n = len(tasks)
    assert n == 117
    families = Counter(t.family for t in tasks)
    assert len(families) == 10
    assert min(families.values()) >= 10
    user_fact = [t for t in tasks if "user-fact" in t.tags]
    assert len(user_fact) / n >= 0.20
    for t in user_fact:
        private = {k: f for k, f in t.user.facts.items() if k != "email"}
        assert private, t.id
        for fact in private.values():
            assert str(fact.value) not in t.user.opening, t.id
    assert sum("refusal" in t.tags for t in tasks) / n >= 0.10
    rubric = [t for t in tasks if t.checks.response and t.checks.response.rubric]
    assert len(rubric) >= 15
    assert all(t.reference_response for t in rubric)
    train = sum(t.split == "train" for t in tasks) / n
    assert 0.15 <= train <= 0.25
    assert all(t.checks.invariants for t in tasks)
    assert len({t.id for t in tasks}) == n


def test_granting_access_without_clearance_fails(tasks: list[Task]) -> None:
    task = _task(tasks, CLEARANCE_TASK)
    emp = task.golden[1].args["employee_id"]
    granting = ScriptAgent(
        [
            call("find_employee_by_email", email=task.user.facts["email"].value),
            call("grant_site_access", employee_id=emp, client_id="CLI-02", expires_on="2026-05-31"),
        ],
        final="You now have badge access.",
    )
    played = asyncio.run(play(DOMAIN, task, granting))
    assert not played.verdict.passed
    assert played.verdict.signature == FailureSignature.WRONG_STATE_UPDATE
    assert "site_access" in {d.table for d in played.verdict.comparison.extra}
    assert {d.table for d in played.verdict.comparison.missing} == {"tickets"}

    escalating = ScriptAgent(
        [
            call("create_ticket", employee_id=emp, category="site_access", subject="Clearance"),
            call(
                "escalate_ticket",
                ticket_id="TKT-00501",
                team="security",
                reason="clearance_required",
            ),
        ],
        final="I've escalated ticket TKT-00501 to Security.",
    )
    assert asyncio.run(play(DOMAIN, task, escalating)).verdict.passed


def test_removing_access_before_the_last_day_fails(tasks: list[Task]) -> None:
    task = _task(tasks, FUTURE_LEAVER_TASK)
    offboard = task.golden[-1]
    assert offboard.tool == "offboard_employee"
    emp, last_day = offboard.args["employee_id"], offboard.args["last_day"]
    early = ScriptAgent(
        [
            call("offboard_employee", employee_id=emp, last_day=last_day),
            call("disable_all_accounts", employee_id=emp),
        ]
    )
    played = asyncio.run(play(DOMAIN, task, early))
    assert not played.verdict.passed
    assert {d.table for d in played.verdict.comparison.extra} == {"system_accounts"}
    final = played.final.rows["employees"][(emp,)]
    assert final["status"] == "leaving"
    assert final["end_date"] == last_day


def test_tools_enforce_hard_facts(tasks: list[Task]) -> None:
    task = _task(tasks, CLEARANCE_TASK)
    agent = ScriptAgent(
        [
            # SW-106 has 4 seats, all in use: the tool refuses.
            call("assign_licence", employee_id="EMP-0012", software_id="SW-106"),
            # CRS-106 has 2 seats, both taken: the tool waitlists.
            call("enrol_in_course", employee_id="EMP-0012", course_id="CRS-106"),
            # A last day in the past: the leaver has left.
            call("offboard_employee", employee_id="EMP-0040", last_day="2026-02-27"),
            # Unknown ids are refused with the id format.
            call("get_engagement", engagement_id="ENG-999"),
        ]
    )
    played = asyncio.run(play(DOMAIN, task, agent))
    results = [e.result for e in played.transcript if e.result is not None]
    assert not results[0].ok
    assert results[0].error is not None and results[0].error.kind == "invalid_state"
    assert "no free seat" in results[0].error.message
    assert played.final.rows["enrolments"][("ENR-00501",)]["status"] == "waitlisted"
    assert played.final.rows["enrolments"][("ENR-00501",)]["cost"] == 800.0
    assert played.final.rows["employees"][("EMP-0040",)]["status"] == "left"
    assert results[3].error is not None and results[3].error.kind == "not_found"
    assert results[3].error.message == "no engagement 'ENG-999' (ids look like 'ENG-105')"


@pytest.mark.slow
def test_every_consulting_hr_task_is_valid_with_full_check_strength(tasks: list[Task]) -> None:
    judge = Judge(DOMAIN, WorldCache())

    async def go() -> list[tuple[str, bool, float | None, tuple[str, ...]]]:
        out = []
        for t in tasks:
            v = await validate_task(DOMAIN, t, judge)
            out.append((t.id, v.ok, v.check_strength, v.problems))
        return out

    results = asyncio.run(go())
    assert [r for r in results if not r[1]] == []
    assert {r[2] for r in results} == {1.0}


@pytest.mark.slow
def test_oracle_and_fault_campaigns(tasks: list[Task], tmp_path: Path) -> None:
    registry = default_registry()
    oracle = Campaign(tasks=tasks, agents=[OracleFactory()], trials=2, out=tmp_path / "o")
    asyncio.run(run_campaign(oracle, registry))
    summary = summarize(read_results(tmp_path / "o"))
    assert summary["overall"]["pass_at_1"] == 1.0
    rates = FaultRates(skip_write=0.3, wrong_value=0.3, extra_write=0.3, stop_early=0.0)
    fault = Campaign(
        tasks=tasks, agents=[FaultInjectionFactory(rates)], trials=1, out=tmp_path / "f", seed=3
    )
    asyncio.run(run_campaign(fault, registry))
    failures = summarize(read_results(tmp_path / "f"))["failures"]
    assert failures["with_missing"] > 0
    assert failures["with_wrong"] > 0
    assert failures["with_extra"] > 0
