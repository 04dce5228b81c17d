"""Hotel partner channel: read a hotel, send special requests, escalate to the property.

An escalation stays open until it is resolved with an outcome; a stay with an open
escalation cannot be cancelled (the hotel is still working on it).
"""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from typing import Any, Literal

from statebox.domains.travel.tools._records import BOOKINGS, booking_row
from statebox.kit import Table, Transition, stamp
from statebox.tools import ToolError, tool
from statebox.world import WorldTx

__all__ = ["add_special_request", "escalate_to_hotel", "get_hotel", "resolve_hotel_escalation"]

ESCALATIONS = Table("hotel_escalations", "hotel escalation", "ESC-0001")
_HOTELS = Table("hotels", "hotel", "")
_RESOLVE = Transition(
    ESCALATIONS, allowed=("open",), to="resolved", refusal="{noun} {id} is already resolved"
)
_CONFIRMED = Transition(BOOKINGS, allowed=("confirmed",))


@tool(mutates=False)
def get_hotel(tx: WorldTx, hotel_id: str) -> dict[str, Any]:
    """Get a partner hotel and its open escalations.

    Args:
        hotel_id: Hotel id, such as 'HTL-01'.
    """
    row = _HOTELS.row(tx, hotel_id)
    return {
        **row,
        "open_escalations": tx.query(
            "SELECT id, booking_id, reason, priority FROM hotel_escalations "
            "WHERE hotel_id = ? AND status = 'open' ORDER BY id",
            [hotel_id],
        ),
    }


def _stay(tx: WorldTx, booking_id: str) -> dict[str, Any]:
    b = booking_row(tx, booking_id)
    stay = tx.one("SELECT hotel_id FROM hotel_stays WHERE booking_id = ?", [booking_id])
    if b["kind"] != "hotel" or stay is None:
        raise ToolError("invalid_state", f"booking {booking_id} is not a hotel stay")
    return {**b, "hotel_id": stay["hotel_id"]}


@tool(mutates=True)
def add_special_request(
    tx: WorldTx,
    booking_id: str,
    kind: Literal[
        "early_check_in", "late_checkout", "accessible_room", "crib", "extra_bed", "quiet_room"
    ],
    complimentary: bool,
    detail: str,
) -> dict[str, Any]:
    """Send a special request for a confirmed hotel stay to the hotel.

    Args:
        booking_id: Hotel booking id, such as 'BK-100001'.
        kind: What is requested.
        complimentary: True when the request is free of charge under policy; False when
            the hotel may charge for it.
        detail: Details for the hotel (times, needs).
    """
    b = _CONFIRMED.check(_stay(tx, booking_id))
    if tx.one(
        "SELECT id FROM special_requests WHERE booking_id = ? AND kind = ?", [booking_id, kind]
    ):
        raise ToolError("invalid_state", f"a {kind} request already exists on {booking_id}")
    row = {
        "id": tx.next_id("special_requests", prefix="REQ-", width=4),
        "booking_id": booking_id,
        "hotel_id": b["hotel_id"],
        "kind": kind,
        "complimentary": int(complimentary),
        "status": "requested",
        "detail": detail,
        "created_at": stamp(tx),
    }
    return tx.insert("special_requests", row)


@tool(mutates=True)
def escalate_to_hotel(
    tx: WorldTx,
    booking_id: str,
    reason: Literal["overbooked", "room_not_as_booked", "billing_dispute", "safety"],
    priority: Literal["normal", "urgent"],
    detail: str,
) -> dict[str, Any]:
    """Open an escalation with the hotel's partner desk about a stay.

    Args:
        booking_id: Hotel booking id, such as 'BK-100001'.
        reason: What the escalation is about.
        priority: urgent or normal (see policy).
        detail: What happened, for the hotel.
    """
    b = _stay(tx, booking_id)
    if tx.one(
        "SELECT id FROM hotel_escalations WHERE booking_id = ? AND status = 'open'", [booking_id]
    ):
        raise ToolError("invalid_state", f"booking {booking_id} already has an open escalation")
    row = {
        "id": tx.next_id("hotel_escalations", prefix="ESC-", width=4),
        "booking_id": booking_id,
        "hotel_id": b["hotel_id"],
        "reason": reason,
        "priority": priority,
        "status": "open",
        "detail": detail,
        "created_at": stamp(tx),
    }
    return tx.insert("hotel_escalations", row)


@tool(mutates=True)
def resolve_hotel_escalation(
    tx: WorldTx,
    escalation_id: str,
    resolution: Literal["fixed_by_hotel", "guest_cancelled", "withdrawn"],
) -> dict[str, Any]:
    """Close an open hotel escalation with its outcome.

    Args:
        escalation_id: Escalation id, such as 'ESC-0001' (from get_booking or get_hotel).
        resolution: fixed_by_hotel when the hotel fixed the problem; guest_cancelled when
            the guest cancels the stay; withdrawn when the guest withdraws the complaint.
    """
    _RESOLVE.apply(tx, escalation_id, {"resolution": resolution})
    return {"id": escalation_id, "status": "resolved", "resolution": resolution}
