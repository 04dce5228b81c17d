"""consulting_hr v2 tool preconditions with more to them than a refusal and its way out.

A held claim's receipt before approval and a trip that overlaps a live one (policy §§15,
17); the second laptop and accounts disabled before a last day is recorded are rules of
test_tool_rules.py.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from fixtures.domain_desks import consulting_desk
from statebox.testing import Desk


@pytest.fixture
def desk() -> Iterator[Desk]:
    with consulting_desk() as d:
        yield d


def test_a_claim_held_for_its_receipt_is_approved_only_after_attach_receipt(desk: Desk) -> None:
    desk("approve_expense_claim", claim_id="EXP-00110").refused("invalid_state", "attach_receipt")
    attached = desk("attach_receipt", claim_id="EXP-00110").succeeded()
    assert attached["receipt"] == 1 and attached["status"] == "on_hold"
    desk("attach_receipt", claim_id="EXP-00110").refused("invalid_state", "already has its receipt")
    approved = desk("approve_expense_claim", claim_id="EXP-00110").succeeded()
    assert approved["status"] == "approved"


def test_a_trip_overlapping_a_live_request_is_refused_until_that_one_is_cancelled(
    desk: Desk,
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
    desk("create_travel_request", **trip).refused("invalid_state", "TRV-00110")
    cancelled = desk("cancel_travel_request", request_id="TRV-00110").succeeded()
    assert cancelled["status"] == "cancelled"
    desk("cancel_travel_request", request_id="TRV-00110").refused(
        "invalid_state", "already cancelled"
    )
    assert desk("create_travel_request", **trip).succeeded()["id"] == "TRV-00501"
