"""The key rule of each built-in domain, played by scripted agents: breaking it fails the
state check with the right discrepancies, keeping it passes. The domains' shared promises
(breadth, task mix, validity, campaigns) are in test_domains.py."""

from __future__ import annotations

import asyncio
from datetime import datetime

import pytest

from fixtures.support import ScriptAgent, call, play, task_from
from statebox.domains.auto_insurance import DOMAIN as AUTO
from statebox.domains.consulting_hr import DOMAIN as CONSULTING
from statebox.domains.neobank_it import DOMAIN as NEOBANK
from statebox.domains.retail import DOMAIN as RETAIL
from statebox.domains.travel import DOMAIN as TRAVEL
from statebox.domains.travel.tools._fees import cancellation_fee, change_fee
from statebox.judge import FailureSignature, Judge, YesJudge
from statebox.registry import default_registry
from statebox.tasks import Task, WorldCache
from statebox.tools import Dispatcher, ToolCall

VERIFY = call(
    "verify_identity", policy_id="POL-300001", date_of_birth="1958-01-01", zip_code="97205"
)


@pytest.fixture(scope="module")
def suites() -> dict[str, list[Task]]:
    registry = default_registry()
    return {
        d.name: registry.suite(f"{d.name}@1.0") for d in (AUTO, CONSULTING, NEOBANK, RETAIL, TRAVEL)
    }


def _task(suites: dict[str, list[Task]], task_id: str, *, rubric: bool = True) -> Task:
    """The built-in task; without ``rubric``, without its rubric questions (no judge model
    runs in these tests)."""
    task = next(t for t in suites[task_id.split(".")[0]] if t.id == task_id)
    if rubric:
        return task
    return task_from(task, checks={"invariants": [i.model_dump() for i in task.checks.invariants]})


def test_refunding_while_the_carrier_exception_is_open_fails(suites: dict[str, list[Task]]) -> None:
    task = _task(suites, "retail.delivery-exception.hold-ticket.001")
    refunding = ScriptAgent(
        [
            call("get_order", order_id="ORD-10000020"),
            call("hold_ticket", ticket_id="20", reason="carrier"),
            call("issue_refund", order_id="ORD-10000020", amount=10.0, reason="late_delivery"),
        ],
        final="I've put your ticket on hold and refunded $10.",
    )
    played = asyncio.run(play(RETAIL, task, refunding))
    assert not played.verdict.passed
    assert played.verdict.signature == FailureSignature.WRONG_STATE_UPDATE
    extra = {d.table for d in played.verdict.comparison.extra}
    assert "refunds" in extra
    # A tool-call grader sees a clean end after successful writes: it would be fooled.
    assert played.verdict.tool_grader_fooled

    holding = ScriptAgent(
        [call("hold_ticket", ticket_id="20", reason="carrier")],
        final="Your ticket is on hold until the carrier resolves the delay.",
    )
    assert asyncio.run(play(RETAIL, task, holding)).verdict.passed


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


def test_charging_the_fee_despite_an_airline_schedule_change_fails(
    suites: dict[str, list[Task]],
) -> None:
    task = _task(suites, "travel.cancel-flight.schedule-change.001")
    judge = Judge(TRAVEL, WorldCache(), skip_rubric=True)
    charging = ScriptAgent(
        [call("cancel_booking", booking_id="BK-100022", reason="customer_request", fee=150.0)],
        final="Cancelled; the $150 fee applies.",
    )
    played = asyncio.run(play(TRAVEL, task, charging, judge=judge))
    assert not played.verdict.passed
    assert played.verdict.signature == FailureSignature.WRONG_STATE_UPDATE
    wrong = {(d.table, d.column) for d in played.verdict.comparison.wrong}
    assert ("bookings", "cancel_fee") in wrong
    assert ("bookings", "cancel_reason") in wrong
    waiving = ScriptAgent(
        [call("cancel_booking", booking_id="BK-100022", reason="airline_schedule_change", fee=0.0)],
        final=task.reference_response,  # the fee ($0.00) and refund its reply check asks for
    )
    yes = Judge(TRAVEL, judge.worlds, YesJudge())  # its rubric answered yes
    assert asyncio.run(play(TRAVEL, task, waiving, judge=yes)).verdict.passed


def test_tools_refuse_until_the_caller_is_verified() -> None:
    world = AUTO.template().clone(datetime.fromisoformat("2025-11-03T14:00:00+00:00"))
    try:
        tools = Dispatcher(world, AUTO.tools, None)
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


def test_extending_after_the_grace_period_is_refused_and_claiming_it_done_never_passes(
    suites: dict[str, list[Task]],
) -> None:
    task = _task(suites, "auto_insurance.payment-extension.past-grace.001")
    judge = Judge(AUTO, WorldCache(), skip_rubric=True)
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
    played = asyncio.run(play(AUTO, task, extending, judge=judge))
    # Since suite 2.0 the tool enforces the grace period: the extension is refused and
    # writes nothing, so the state stays right...
    (refusal,) = [e for e in played.transcript if e.result is not None and not e.result.ok]
    assert refusal.call is not None and refusal.call.tool == "grant_payment_extension"
    assert refusal.result is not None and refusal.result.error is not None
    assert refusal.result.error.kind == "invalid_state"
    assert played.verdict.comparison.extra == () and played.verdict.comparison.missing == ()
    # ...and the false "Done" is left to the rubric: unjudged without a judge model, never a pass.
    assert not played.verdict.passed
    assert played.verdict.signature == FailureSignature.UNJUDGED

    def refusing() -> ScriptAgent:
        return ScriptAgent(
            [VERIFY, call("get_billing", policy_id="POL-300001")],
            final="I'm sorry, the grace period has passed, so I can't extend this installment.",
        )

    refused = asyncio.run(play(AUTO, task, refusing(), judge=judge)).verdict
    # Its rubric has no judge model here: unjudged, so not a pass (fail-closed)...
    assert not refused.passed and refused.signature == FailureSignature.UNJUDGED
    # ...and with a judge that says yes, it passes.
    judged = Judge(AUTO, judge.worlds, YesJudge())
    assert asyncio.run(play(AUTO, task, refusing(), judge=judged)).verdict.passed


def test_granting_despite_a_segregation_of_duties_conflict_fails(
    suites: dict[str, list[Task]],
) -> None:
    task = _task(suites, "neobank_it.access-grant.sod-conflict.001")
    # No judge model here: the rubric question is skipped, as in a campaign without one.
    judge = Judge(NEOBANK, WorldCache(), skip_rubric=True)
    granting = ScriptAgent(
        [
            call("get_access_request", request_id="AR-00413"),
            call("grant_access", request_id="AR-00413", role="read", expires_on="2026-05-31"),
        ],
        final="Done, you have payment approval access now.",
    )
    played = asyncio.run(play(NEOBANK, task, granting, judge=judge))
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
    # The right work, judged with a judge model that answers its rubric question yes (with
    # no judge model the question is unjudged and the trial fails closed).
    yes = Judge(NEOBANK, judge.worlds, YesJudge())
    assert asyncio.run(play(NEOBANK, task, rejecting, judge=yes)).verdict.passed
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
    played = asyncio.run(play(NEOBANK, task, wrong_reason, judge=judge))
    assert not played.verdict.passed
    assert [(d.table, d.column) for d in played.verdict.comparison.wrong] == [
        ("access_requests", "decision_reason")
    ]


def test_granting_access_without_clearance_fails(suites: dict[str, list[Task]]) -> None:
    task = _task(suites, "consulting_hr.site-access.clearance.001", rubric=False)
    emp = task.golden[1].args["employee_id"]
    granting = ScriptAgent(
        [
            call("find_employee_by_email", email=task.user.facts["email"].value),
            call("grant_site_access", employee_id=emp, client_id="CLI-02", expires_on="2026-05-31"),
        ],
        final="You now have badge access.",
    )
    played = asyncio.run(play(CONSULTING, task, granting))
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
    assert asyncio.run(play(CONSULTING, task, escalating)).verdict.passed


def test_removing_access_before_the_last_day_fails(suites: dict[str, list[Task]]) -> None:
    task = _task(suites, "consulting_hr.offboarding.future-last-day.001", rubric=False)
    offboard = task.golden[-1]
    assert offboard.tool == "offboard_employee"
    emp, last_day = offboard.args["employee_id"], offboard.args["last_day"]
    early = ScriptAgent(
        [
            call("offboard_employee", employee_id=emp, last_day=last_day),
            call("disable_all_accounts", employee_id=emp),
        ]
    )
    played = asyncio.run(play(CONSULTING, task, early))
    assert not played.verdict.passed
    assert {d.table for d in played.verdict.comparison.extra} == {"system_accounts"}
    final = played.final.rows["employees"][(emp,)]
    assert final["status"] == "leaving"
    assert final["end_date"] == last_day


def test_tools_enforce_hard_facts(suites: dict[str, list[Task]]) -> None:
    task = _task(suites, "consulting_hr.site-access.clearance.001", rubric=False)
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
    played = asyncio.run(play(CONSULTING, task, agent))
    results = [e.result for e in played.transcript if e.result is not None]
    assert not results[0].ok
    assert results[0].error is not None and results[0].error.kind == "invalid_state"
    assert "no free seat" in results[0].error.message
    assert played.final.rows["enrolments"][("ENR-00501",)]["status"] == "waitlisted"
    assert played.final.rows["enrolments"][("ENR-00501",)]["cost"] == 800.0
    assert played.final.rows["employees"][("EMP-0040",)]["status"] == "left"
    assert results[3].error is not None and results[3].error.kind == "not_found"
    assert results[3].error.message == "no engagement 'ENG-999' (ids look like 'ENG-105')"
