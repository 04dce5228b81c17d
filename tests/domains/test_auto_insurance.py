"""The built-in auto insurance domain: breadth, mix, key rules, validity, campaigns, generator."""

from __future__ import annotations

import asyncio
import filecmp
import subprocess
import sys
from collections import Counter
from datetime import datetime
from pathlib import Path

import pytest

from fixtures.support import ScriptAgent, call, play
from statebox.agents import FaultInjectionFactory, FaultRates, OracleFactory
from statebox.domains.auto_insurance import DOMAIN
from statebox.judge import FailureSignature, Judge, validate_task
from statebox.records import read_results
from statebox.registry import default_registry
from statebox.report import summarize
from statebox.runner import Campaign, run_campaign
from statebox.tasks import Task, WorldCache
from statebox.tools import Dispatcher, ToolCall

REPO = Path(__file__).resolve().parents[2]
PAST_GRACE = "auto_insurance.payment-extension.past-grace.001"
VERIFY = call(
    "verify_identity", policy_id="POL-300001", date_of_birth="1958-01-01", zip_code="97205"
)


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    return default_registry().suite("auto_insurance")


def test_auto_insurance_has_the_promised_breadth() -> None:
    assert len(DOMAIN.template().tables) == 17
    mutating = {n for n, t in DOMAIN.tools.items() if t.mutates}
    assert len(DOMAIN.tools) == 33
    assert len(mutating) == 26
    reads = set(DOMAIN.tools) - mutating
    assert reads == {
        "get_customer", "get_policy", "get_billing", "list_claims", "get_claim",
        "list_crm_notes", "list_customer_tickets",
    }  # fmt: skip
    # Only free text is left out of comparison; amounts, codes, dates and flags are compared.
    assert {(e.table, e.column) for e in DOMAIN.field_policy.excluded} == {
        ("crm_notes", "body"),
        ("tickets", "subject"),
        ("claims", "description"),
    }
    assert all(e.reason for e in DOMAIN.field_policy.excluded)
    assert len(DOMAIN.policy.split()) > 2000


def test_auto_insurance_task_mix_follows_the_rules(tasks: list[Task]) -> None:
    n = len(tasks)
    assert n == 139
    families = Counter(t.family for t in tasks)
    assert len(families) == 12
    assert min(families.values()) >= 6
    assert sum("user-fact" in t.tags for t in tasks) >= 0.2 * n
    assert sum("refusal" in t.tags for t in tasks) >= 0.1 * n
    rubric = [t for t in tasks if t.checks.response and t.checks.response.rubric]
    assert len(rubric) >= 15
    assert all(t.reference_response for t in rubric)
    train = sum(t.split == "train" for t in tasks)
    assert 0.15 * n <= train <= 0.25 * n
    assert all(t.user.behaviour.changed_from and t.checks.invariants for t in tasks)
    assert len({t.id for t in tasks}) == n
    for t in tasks:
        if "user-fact" in t.tags:
            # A user-fact task holds a fact the opening does not state.
            assert any(str(f.value) not in t.user.opening for f in t.user.facts.values()), t.id


def test_tools_refuse_until_the_caller_is_verified() -> None:
    world = DOMAIN.template().clone(datetime.fromisoformat("2025-11-03T14:00:00+00:00"))
    try:
        tools = Dispatcher(world, DOMAIN.tools, None)
        before = tools.call(ToolCall(tool="get_policy", args={"policy_id": "POL-300001"}))
        assert not before.ok and before.error is not None
        assert before.error.kind == "not_permitted"
        wrong = tools.call(
            ToolCall(
                tool="verify_identity",
                args={
                    "policy_id": "POL-300001",
                    "date_of_birth": "1958-01-02",
                    "zip_code": "97205",
                },
            )
        )
        assert wrong.ok and wrong.output == {
            "verified": False, "event_id": "VER-00501", "policy_id": "POL-300001"
        }  # fmt: skip
        assert not tools.call(ToolCall(tool="get_policy", args={"policy_id": "POL-300001"})).ok
        right = tools.call(ToolCall(tool="verify_identity", args=dict(VERIFY.call.args)))
        assert right.ok and right.output["customer_id"] == "CUS-1001"
        after = tools.call(ToolCall(tool="get_policy", args={"policy_id": "POL-300001"}))
        assert after.ok and after.output["premium_annual"] == 1888.0
        events = world.query("SELECT result FROM verification_events WHERE id >= 'VER-00501'")
        assert [e["result"] for e in events] == ["failed", "passed"]
    finally:
        world.close()


def test_extending_after_the_grace_period_fails(tasks: list[Task]) -> None:
    task = next(t for t in tasks if t.id == PAST_GRACE)
    judge = Judge(DOMAIN, WorldCache(), skip_rubric=True)
    extending = ScriptAgent(
        [
            VERIFY,
            call("get_billing", policy_id="POL-300001"),
            call(
                "grant_payment_extension", installment_id="INS-300001-01", new_due_date="2025-11-05"
            ),
        ],
        final="Done: your payment is now due on 2025-11-05.",
    )
    played = asyncio.run(play(DOMAIN, task, extending, judge=judge))
    assert not played.verdict.passed
    assert played.verdict.signature == FailureSignature.WRONG_STATE_UPDATE
    # Golden writes neither table, so both changes are extra effects (none missing or wrong).
    extra = sorted((d.table, d.column) for d in played.verdict.comparison.extra)
    assert [t for t, _ in extra] == ["installments", "payment_extensions"]
    assert ("installments", "due_date") in extra
    assert played.verdict.comparison.wrong == () and played.verdict.comparison.missing == ()
    assert played.verdict.tool_grader_fooled
    refusing = ScriptAgent(
        [VERIFY, call("get_billing", policy_id="POL-300001")],
        final="I'm sorry, the grace period has passed, so I can't extend this installment.",
    )
    assert asyncio.run(play(DOMAIN, task, refusing, judge=judge)).verdict.passed


def test_the_generator_is_byte_identical(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from pathlib import Path; "
            "from scripts.gen_auto_insurance_tasks.__main__ import main; main(Path(sys.argv[1]))",
            str(tmp_path),
        ],
        cwd=REPO,
        check=True,
        capture_output=True,
    )
    committed = DOMAIN.tasks_dir
    assert committed is not None
    names = sorted(p.name for p in committed.glob("*.yaml"))
    assert names == sorted(p.name for p in tmp_path.glob("*.yaml"))
    _, mismatch, errors = filecmp.cmpfiles(committed, tmp_path, names, shallow=False)
    assert (mismatch, errors) == ([], [])


@pytest.mark.slow
def test_every_auto_insurance_task_is_valid_with_full_check_strength(tasks: list[Task]) -> None:
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
    rates = FaultRates(skip_write=0.2, wrong_value=0.2, extra_write=0.2, stop_early=0.0)
    fault = Campaign(
        tasks=tasks, agents=[FaultInjectionFactory(rates)], trials=1, out=tmp_path / "f", seed=7
    )
    asyncio.run(run_campaign(fault, registry))
    failures = summarize(read_results(tmp_path / "f"))["failures"]
    assert failures["with_missing"] > 0
    assert failures["with_wrong"] > 0
    assert failures["with_extra"] > 0
