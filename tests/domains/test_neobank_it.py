"""The built-in neobank_it domain: breadth, task mix, validity, oracle and fault campaigns."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pytest

from fixtures.support import ScriptAgent, call, play
from statebox.agents import FaultInjectionFactory, FaultRates, OracleFactory
from statebox.domains.neobank_it import DOMAIN
from statebox.judge import FailureSignature, Judge, validate_task
from statebox.records import read_results
from statebox.registry import default_registry
from statebox.report import summarize
from statebox.runner import Campaign, run_campaign
from statebox.tasks import Task, WorldCache

SOD_TASK = "neobank_it.access-grant.sod-conflict.001"


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    return default_registry().suite("neobank_it")


def test_neobank_it_has_the_promised_breadth(tasks: list[Task]) -> None:
    assert len(DOMAIN.template().tables) >= 12
    mutating = [t for t in DOMAIN.tools.values() if t.mutates]
    assert len(DOMAIN.tools) == 36
    assert len(mutating) == 20
    # Only free text is left out of comparison; recipients, templates and codes are compared.
    assert {(e.table, e.column) for e in DOMAIN.field_policy.excluded} == {
        ("access_requests", "justification"),
        ("notifications", "body"),
        ("security_incidents", "description"),
        ("tickets", "subject"),
    }
    assert all(e.reason for e in DOMAIN.field_policy.excluded)
    assert len(DOMAIN.policy.split()) > 1500


def test_neobank_it_task_mix_follows_the_rules(tasks: list[Task]) -> None:
    n = len(tasks)
    assert n == 127
    families = Counter(t.family for t in tasks)
    assert len(families) == 11
    assert min(families.values()) >= 10
    assert sum("user-fact" in t.tags for t in tasks) >= 0.2 * n
    assert sum("refusal" in t.tags for t in tasks) >= 0.1 * n
    rubric = [t for t in tasks if t.checks.response and t.checks.response.rubric]
    assert len(rubric) >= 15
    assert all(t.reference_response for t in rubric)
    train = sum(t.split == "train" for t in tasks)
    assert 0.15 * n <= train <= 0.25 * n
    assert all(t.user.facts and t.user.behaviour.changed_from for t in tasks)
    assert all(t.checks.invariants for t in tasks)
    assert len({t.id for t in tasks}) == n


def test_granting_despite_a_segregation_of_duties_conflict_fails(tasks: list[Task]) -> None:
    task = next(t for t in tasks if t.id == SOD_TASK)
    # No judge model here: the rubric question is skipped, as in a campaign without one.
    judge = Judge(DOMAIN, WorldCache(), skip_rubric=True)
    granting = ScriptAgent(
        [
            call("get_access_request", request_id="AR-00413"),
            call("grant_access", request_id="AR-00413", role="read", expires_on="2026-05-31"),
        ],
        final="Done, you have payment approval access now.",
    )
    played = asyncio.run(play(DOMAIN, task, granting, judge=judge))
    assert not played.verdict.passed
    assert played.verdict.signature == FailureSignature.WRONG_STATE_UPDATE
    assert "access_grants" in {d.table for d in played.verdict.comparison.extra}
    email = task.user.facts["email"].value
    assert email == "odile.jessop@neobank.example.com"
    rejecting = ScriptAgent(
        [
            call("reject_access_request", request_id="AR-00413", reason="sod_conflict"),
            call(
                "send_notification",
                recipient=email,
                template="access_rejected",
                related_id="AR-00413",
            ),
        ],
        final="Rejected under segregation of duties.",
    )
    assert asyncio.run(play(DOMAIN, task, rejecting, judge=judge)).verdict.passed
    # Rejecting for the wrong reason code is a wrong field value, not a pass.
    wrong_reason = ScriptAgent(
        [
            call("reject_access_request", request_id="AR-00413", reason="approver_rejected"),
            call(
                "send_notification",
                recipient=email,
                template="access_rejected",
                related_id="AR-00413",
            ),
        ],
        final="Rejected.",
    )
    played = asyncio.run(play(DOMAIN, task, wrong_reason, judge=judge))
    assert not played.verdict.passed
    assert [(d.table, d.column) for d in played.verdict.comparison.wrong] == [
        ("access_requests", "decision_reason")
    ]


def test_mutates_flags_follow_the_tool_names() -> None:
    reads = {n for n, t in DOMAIN.tools.items() if not t.mutates}
    assert all(n.startswith(("get_", "list_", "find_")) for n in reads)
    writes = {n for n, t in DOMAIN.tools.items() if t.mutates}
    assert not any(n.startswith(("get_", "list_", "find_")) for n in writes)


@pytest.mark.slow
def test_every_neobank_it_task_is_valid_with_full_check_strength(tasks: list[Task]) -> None:
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
