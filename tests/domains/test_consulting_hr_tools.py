"""consulting_hr v2 tool preconditions: each refuses the natural first attempt, then the fix works.

A held claim's receipt before approval, a trip that overlaps a live one, a second laptop, and
accounts disabled before a last day is recorded (policy §§15, 17, 18, 21).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from statebox.registry import default_registry
from statebox.tasks import Task, WorldCache
from statebox.tools import Dispatcher, ToolCall, ToolResult

_CLAIM = {
    "id": "EXP-00110",
    "employee_id": "EMP-0016",
    "engagement_id": "ENG-105",
    "category": "meals",
    "amount": 48.0,
    "incurred_on": "2026-02-20",
    "receipt": 0,
    "description": "team dinner",
    "status": "on_hold",
    "decision_reason": "missing_receipt",
    "submitted_at": "2026-02-21T09:00:00+00:00",
    "decided_at": "2026-02-22T09:00:00+00:00",
}
_TRIP = {
    "id": "TRV-00110",
    "employee_id": "EMP-0016",
    "engagement_id": "ENG-105",
    "destination": "Leeds",
    "international": 0,
    "depart_on": "2026-03-20",
    "return_on": "2026-03-23",
    "estimated_cost": 900.0,
    "status": "approved",
    "escalation_reason": None,
    "created_at": "2026-02-20T09:00:00+00:00",
    "decided_at": "2026-02-21T09:00:00+00:00",
}


@pytest.fixture(scope="module")
def run() -> Iterator[Any]:
    domain = default_registry().domain("consulting_hr")
    task = Task.model_validate(
        {
            "id": "consulting_hr.tools.v2.001",
            "domain": "consulting_hr",
            "now": "2026-03-02T10:00:00+00:00",
            "initial_state": {"upsert": {"expense_claims": [_CLAIM], "travel_requests": [_TRIP]}},
            "user": {"opening": "Hi."},
            "golden": [],
            "read_only": True,
        }
    )
    world = WorldCache().clone(domain, task)
    dispatcher = Dispatcher(world, domain.tools)

    def call(tool: str, **args: Any) -> ToolResult:
        return dispatcher.call(ToolCall(tool=tool, args=args))

    try:
        yield call
    finally:
        world.close()


def _refused(result: ToolResult, needle: str) -> None:
    assert result.error is not None and result.error.kind == "invalid_state"
    assert needle in result.error.message


def test_a_claim_held_for_its_receipt_is_approved_only_after_attach_receipt(run: Any) -> None:
    _refused(run("approve_expense_claim", claim_id="EXP-00110"), "attach_receipt")
    attached = run("attach_receipt", claim_id="EXP-00110")
    assert attached.ok and attached.output["receipt"] == 1
    assert attached.output["status"] == "on_hold"
    _refused(run("attach_receipt", claim_id="EXP-00110"), "already has its receipt")
    approved = run("approve_expense_claim", claim_id="EXP-00110")
    assert approved.ok and approved.output["status"] == "approved"


def test_a_trip_overlapping_a_live_request_is_refused_until_that_one_is_cancelled(
    run: Any,
) -> None:
    trip = {
        "employee_id": "EMP-0016",
        "engagement_id": "ENG-105",
        "destination": "Leeds",
        "international": False,
        "depart_on": "2026-03-22",
        "return_on": "2026-03-25",
        "estimated_cost": 950.0,
    }
    _refused(run("create_travel_request", **trip), "TRV-00110")
    cancelled = run("cancel_travel_request", request_id="TRV-00110")
    assert cancelled.ok and cancelled.output["status"] == "cancelled"
    _refused(run("cancel_travel_request", request_id="TRV-00110"), "already cancelled")
    created = run("create_travel_request", **trip)
    assert created.ok and created.output["id"] == "TRV-00501"


def test_a_second_laptop_is_refused_until_the_first_is_taken_back(run: Any) -> None:
    _refused(run("assign_equipment", employee_id="EMP-0016", asset_id="AST-0102"), "AST-0016")
    assert run("assign_equipment", employee_id="EMP-0016", asset_id="AST-0201").ok  # a monitor
    assert run("return_equipment", asset_id="AST-0016").ok
    assigned = run("assign_equipment", employee_id="EMP-0016", asset_id="AST-0102")
    assert assigned.ok and assigned.output["employee_id"] == "EMP-0016"


def test_accounts_are_disabled_only_once_a_last_day_is_recorded(run: Any) -> None:
    _refused(run("disable_all_accounts", employee_id="EMP-0022"), "offboard_employee")
    assert run("offboard_employee", employee_id="EMP-0022", last_day="2026-03-01").ok
    disabled = run("disable_all_accounts", employee_id="EMP-0022")
    assert disabled.ok and disabled.output["disabled"]
