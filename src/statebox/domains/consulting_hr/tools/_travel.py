"""Travel request tools: read, create, approve, escalate for partner approval.

The tool checks dates make sense; notice periods, cost ceilings and what needs a partner
are policy.
"""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from typing import Any, Literal

from statebox.domains.consulting_hr.tools._records import TABLES, iso_date, row_of
from statebox.kit import Transition, cents, new_id, stamp
from statebox.tools import ToolError, tool
from statebox.world import WorldTx

__all__ = [
    "approve_travel_request",
    "cancel_travel_request",
    "create_travel_request",
    "escalate_travel_request",
    "list_travel_requests",
]


_APPROVE = Transition(
    TABLES["travel_requests"], allowed=("submitted",), to="approved", stamp="decided_at"
)
_ESCALATE = _APPROVE._replace(to="escalated")
_CANCEL = Transition(
    TABLES["travel_requests"],
    allowed=None,
    to="cancelled",
    stamp="decided_at",
    refused=("cancelled",),
    refusal="{noun} {id} is already cancelled",
)


@tool(mutates=False)
def list_travel_requests(tx: WorldTx, employee_id: str) -> list[dict[str, Any]]:
    """List an employee's travel requests, newest first.

    Args:
        employee_id: Employee id, such as 'EMP-0012'.
    """
    row_of(tx, "employees", employee_id)
    return tx.query(
        "SELECT * FROM travel_requests WHERE employee_id = ? ORDER BY created_at DESC, id",
        [employee_id],
    )


@tool(mutates=True)
def create_travel_request(
    tx: WorldTx,
    employee_id: str,
    engagement_id: str,
    destination: str,
    international: bool,
    depart_on: str,
    return_on: str,
    estimated_cost: float,
) -> dict[str, Any]:
    """Create a travel request (status 'submitted') for an engagement trip.

    Args:
        employee_id: Employee id, such as 'EMP-0012'.
        engagement_id: The engagement the trip serves, such as 'ENG-105'.
        destination: Destination city, such as 'Leeds'.
        international: Whether the trip crosses a border.
        depart_on: Departure day, ISO date such as '2026-03-16'.
        return_on: Return day, ISO date such as '2026-03-18'.
        estimated_cost: Estimated total cost in dollars (fares, lodging, per diems).
    """
    row_of(tx, "employees", employee_id)
    row_of(tx, "engagements", engagement_id)
    out, back = iso_date(depart_on, "depart_on"), iso_date(return_on, "return_on")
    if out < tx.today:
        raise ToolError("invalid_state", "depart_on is in the past")
    if back < out:
        raise ToolError("invalid_state", "return_on is before depart_on")
    if estimated_cost <= 0:
        raise ToolError("invalid_state", "estimated_cost must be positive")
    # One traveller cannot be on two trips at once: a rebooking cancels the old trip first.
    clash = tx.one(
        "SELECT id FROM travel_requests WHERE employee_id = ? AND status != 'cancelled' "
        "AND depart_on <= ? AND return_on >= ? ORDER BY id",
        [employee_id, return_on, depart_on],
    )
    if clash is not None:
        raise ToolError(
            "invalid_state",
            f"the trip overlaps travel request {clash['id']}; cancel that request first "
            "if it is being replaced",
        )
    return tx.insert(
        "travel_requests",
        {
            "id": new_id(tx, "travel_requests", "TRV-"),
            "employee_id": employee_id,
            "engagement_id": engagement_id,
            "destination": destination.strip(),
            "international": int(international),
            "depart_on": depart_on,
            "return_on": return_on,
            "estimated_cost": cents(estimated_cost),
            "status": "submitted",
            "escalation_reason": None,
            "created_at": stamp(tx),
            "decided_at": None,
        },
    )


@tool(mutates=True)
def approve_travel_request(tx: WorldTx, request_id: str) -> dict[str, Any]:
    """Approve a submitted travel request.

    Args:
        request_id: Travel request id, such as 'TRV-00002'.
    """
    return _APPROVE.apply(tx, request_id)


@tool(mutates=True)
def escalate_travel_request(
    tx: WorldTx,
    request_id: str,
    reason: Literal["international", "over_budget", "short_notice"],
) -> dict[str, Any]:
    """Send a submitted travel request to the engagement partner for approval.

    Args:
        request_id: Travel request id, such as 'TRV-00002'.
        reason: Why the partner must approve.
    """
    return _ESCALATE.apply(tx, request_id, {"escalation_reason": reason})


@tool(mutates=True)
def cancel_travel_request(tx: WorldTx, request_id: str) -> dict[str, Any]:
    """Cancel a travel request whose trip has not started (submitted, approved or escalated).

    Args:
        request_id: Travel request id, such as 'TRV-00002'.
    """
    row = _CANCEL.row(tx, request_id)
    if iso_date(str(row["depart_on"]), "depart_on") <= tx.today:
        raise ToolError("invalid_state", f"the trip of {request_id} has already started")
    return _CANCEL.write(tx, row)
