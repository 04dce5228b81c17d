"""The built-in travel domain: breadth, task mix, regeneration, validity, oracle and fault runs."""

from __future__ import annotations

import asyncio
import importlib
from collections import Counter
from pathlib import Path

import pytest

from fixtures.support import ScriptAgent, call, play
from statebox.agents import FaultInjectionFactory, FaultRates, OracleFactory
from statebox.domains.travel import DOMAIN
from statebox.domains.travel.tools._fees import cancellation_fee, change_fee
from statebox.judge import FailureSignature, Judge, validate_task
from statebox.records import read_results
from statebox.registry import default_registry
from statebox.report import summarize
from statebox.runner import Campaign, run_campaign
from statebox.tasks import Task, WorldCache

SCHEDULE_TASK = "travel.cancel-flight.schedule-change.001"
TASKS_DIR = (
    Path(__file__).resolve().parents[2] / "src" / "statebox" / "domains" / "travel" / "tasks"
)


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    return default_registry().suite("travel")


def test_travel_has_the_promised_breadth() -> None:
    assert len(DOMAIN.template().tables) == 18
    mutating = {n for n, t in DOMAIN.tools.items() if t.mutates}
    assert len(DOMAIN.tools) == 29
    assert len(mutating) == 18
    reads = set(DOMAIN.tools) - mutating
    assert all(n.startswith(("get_", "list_", "find_", "validate_", "quote_")) for n in reads)
    assert {(e.table, e.column) for e in DOMAIN.field_policy.excluded} == {
        ("customer_notes", "body"),
        ("ticket_notes", "body"),
        ("tickets", "subject"),
        ("special_requests", "detail"),
        ("hotel_escalations", "detail"),
    }
    assert all(e.reason for e in DOMAIN.field_policy.excluded)
    assert len(DOMAIN.policy.split()) > 1500


def test_fee_schedule_matches_the_policy_table() -> None:
    assert cancellation_fee("flight", "standard", 14, 400.0, 0.0) == 75.0
    assert cancellation_fee("flight", "standard", 13, 400.0, 0.0) == 150.0
    assert cancellation_fee("flight", "standard", 2, 401.0, 0.0) == 200.5
    assert cancellation_fee("flight", "basic", 30, 401.0, 0.0) == 401.0
    assert cancellation_fee("flight", "flex", 0, 401.0, 0.0) == 50.0
    assert cancellation_fee("hotel", "flexible", 1, 300.0, 150.0) == 150.0
    assert cancellation_fee("hotel", "semi_flex", 7, 300.0, 150.0) == 0.0
    assert cancellation_fee("hotel", "semi_flex", 1, 300.0, 150.0) == 150.0
    assert cancellation_fee("hotel", "non_refundable", 40, 300.0, 150.0) == 300.0
    assert change_fee("flight", "basic", 20) is None
    assert change_fee("hotel", "semi_flex", 7) == 40.0
    assert change_fee("hotel", "semi_flex", 6) is None


def test_travel_task_mix_follows_the_rules(tasks: list[Task]) -> None:
    n = len(tasks)
    assert n == 121
    families = Counter(t.family for t in tasks)
    assert len(families) == 11
    assert min(families.values()) >= 8
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
    for t in tasks:
        if "user-fact" in t.tags:
            extra = {k: v for k, v in t.user.facts.items() if k != "email"}
            assert extra, t.id
            assert all(str(f.value) not in t.user.opening for f in extra.values()), t.id


def test_regenerating_gives_byte_identical_files(tmp_path: Path) -> None:
    gen = importlib.import_module("scripts.gen_travel_tasks.__main__")
    gen.main(tmp_path)
    fresh = {p.name: p.read_bytes() for p in sorted(tmp_path.glob("*.yaml"))}
    shipped = {p.name: p.read_bytes() for p in sorted(TASKS_DIR.glob("*.yaml"))}
    assert fresh == shipped


def test_charging_the_fee_despite_an_airline_schedule_change_fails(tasks: list[Task]) -> None:
    task = next(t for t in tasks if t.id == SCHEDULE_TASK)
    judge = Judge(DOMAIN, WorldCache(), skip_rubric=True)
    charging = ScriptAgent(
        [call("cancel_booking", booking_id="BK-100022", reason="customer_request", fee=150.0)],
        final="Cancelled; the $150 fee applies.",
    )
    played = asyncio.run(play(DOMAIN, task, charging, judge=judge))
    assert not played.verdict.passed
    assert played.verdict.signature == FailureSignature.WRONG_STATE_UPDATE
    wrong = {(d.table, d.column) for d in played.verdict.comparison.wrong}
    assert ("bookings", "cancel_fee") in wrong
    assert ("bookings", "cancel_reason") in wrong
    waiving = ScriptAgent(
        [call("cancel_booking", booking_id="BK-100022", reason="airline_schedule_change", fee=0.0)],
        final="Cancelled without fee because the airline moved your flight.",
    )
    assert asyncio.run(play(DOMAIN, task, waiving, judge=judge)).verdict.passed


@pytest.mark.slow
def test_every_travel_task_is_valid_with_full_check_strength(tasks: list[Task]) -> None:
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
    assert summarize(read_results(tmp_path / "o"))["overall"]["pass_at_1"] == 1.0
    rates = FaultRates(skip_write=0.3, wrong_value=0.3, extra_write=0.3, stop_early=0.0)
    fault = Campaign(
        tasks=tasks, agents=[FaultInjectionFactory(rates)], trials=1, out=tmp_path / "f", seed=3
    )
    asyncio.run(run_campaign(fault, registry))
    failures = summarize(read_results(tmp_path / "f"))["failures"]
    assert failures["with_missing"] > 0
    assert failures["with_wrong"] > 0
    assert failures["with_extra"] > 0
