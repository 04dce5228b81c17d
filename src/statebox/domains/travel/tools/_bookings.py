"""Booking tools: validate a reference, read, quote, cancel, change dates, correct names.

Hard rules live here (a started, cancelled or completed booking cannot be cancelled or
changed; a refund never exceeds what was paid). The fee a cancellation or change
carries, and whether a waiver applies, are policy: the agent passes the fee, so a
wrong fee is a wrong write the checks see.
"""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from datetime import date, timedelta
from typing import Any, Literal

from statebox.domains.travel.tools._fees import cancellation_fee, change_fee
from statebox.domains.travel.tools._payments import credit_row, refuse_expired_card
from statebox.domains.travel.tools._records import BOOKINGS, booking_row, customer_row
from statebox.kit import Row, Table, Transition, days_until, money, stamp, text
from statebox.tools import ToolError, tool
from statebox.world import WorldTx

__all__ = [
    "cancel_booking",
    "change_booking_dates",
    "get_booking",
    "list_customer_bookings",
    "quote_booking_change",
    "update_passenger_name",
    "validate_booking_reference",
]


_TRAVELLERS = Table("passengers", "traveller", "")


def _plan(b: Row) -> str:
    return text(b["fare_class"] if b["kind"] == "flight" else b["rate_plan"])


def _nightly(tx: WorldTx, booking_id: str) -> float:
    stay = tx.one("SELECT nightly_rate FROM hotel_stays WHERE booking_id = ?", [booking_id])
    return money(stay["nightly_rate"]) if stay else 0.0


def _open(b: Row, tx: WorldTx, action: str) -> None:
    Transition(
        BOOKINGS,
        allowed=("confirmed", "pending_approval"),
        refusal=f"{{noun}} {{id}} is {{status}}; cannot {action}",
    ).check(b)
    if days_until(tx, b["start_date"]) < 0:
        raise ToolError("invalid_state", f"booking {b['id']} has already started; cannot {action}")


@tool(mutates=False)
def validate_booking_reference(tx: WorldTx, reference: str, last_name: str) -> dict[str, Any]:
    """Check a six-character booking reference against the traveller's last name.

    Returns the booking id and summary when both match; a not_found error otherwise
    (the error never says which part was wrong).

    Args:
        reference: Booking reference (record locator), six characters such as 'QX7K2M'.
        last_name: The traveller's last name as on the booking.
    """
    row = tx.one(
        "SELECT b.id, b.reference, b.customer_id, b.kind, b.status, b.start_date, b.end_date "
        "FROM bookings b JOIN passengers p ON p.booking_id = b.id "
        "WHERE b.reference = ? AND lower(p.last_name) = lower(?)",
        [reference.strip().upper(), last_name.strip()],
    )
    if row is None:
        raise ToolError("not_found", "no booking matches that reference and last name")
    return row


@tool(mutates=False)
def get_booking(tx: WorldTx, booking_id: str) -> dict[str, Any]:
    """Get a booking with its flight segments or hotel stay, travellers, payments and history.

    ``days_before_start`` counts whole days from today to departure / check-in.

    Args:
        booking_id: Booking id, such as 'BK-100001'.
    """
    b = booking_row(tx, booking_id)
    stay = tx.one(
        "SELECT s.*, h.name AS hotel_name, h.city FROM hotel_stays s "
        "JOIN hotels h ON h.id = s.hotel_id WHERE s.booking_id = ?",
        [booking_id],
    )
    return {
        **b,
        "days_before_start": days_until(tx, b["start_date"]),
        "segments": tx.query(
            "SELECT * FROM flight_segments WHERE booking_id = ? ORDER BY id", [booking_id]
        ),
        "stay": stay,
        "travellers": tx.query(
            "SELECT * FROM passengers WHERE booking_id = ? ORDER BY id", [booking_id]
        ),
        "payments": tx.query(
            "SELECT * FROM payments WHERE booking_id = ? ORDER BY id", [booking_id]
        ),
        "refunds": tx.query("SELECT * FROM refunds WHERE booking_id = ? ORDER BY id", [booking_id]),
        "changes": tx.query(
            "SELECT * FROM booking_changes WHERE booking_id = ? ORDER BY id", [booking_id]
        ),
        "hotel_escalations": tx.query(
            "SELECT id, reason, priority, status FROM hotel_escalations WHERE booking_id = ? "
            "ORDER BY id",
            [booking_id],
        ),
        "special_requests": tx.query(
            "SELECT id, kind, complimentary, status FROM special_requests WHERE booking_id = ? "
            "ORDER BY id",
            [booking_id],
        ),
        "loyalty_credited": tx.query(
            "SELECT id, points, kind FROM loyalty_transactions WHERE booking_id = ? ORDER BY id",
            [booking_id],
        ),
    }


@tool(mutates=False)
def list_customer_bookings(tx: WorldTx, customer_id: str) -> list[dict[str, Any]]:
    """List a customer's bookings (id, reference, kind, status, dates, total).

    Args:
        customer_id: Customer id, such as 'CUS-0001'.
    """
    customer_row(tx, customer_id)
    return tx.query(
        "SELECT id, reference, kind, status, start_date, end_date, total FROM bookings "
        "WHERE customer_id = ? ORDER BY id",
        [customer_id],
    )


@tool(mutates=False)
def quote_booking_change(tx: WorldTx, booking_id: str) -> dict[str, Any]:
    """Quote the scheduled cancellation fee and date-change fee of a booking as of today.

    The quote applies the published schedule only; waivers (policy §3.3) are not applied.
    ``change_fee`` is null when the fare or rate plan does not allow a date change.

    Args:
        booking_id: Booking id, such as 'BK-100001'.
    """
    b = booking_row(tx, booking_id)
    days = days_until(tx, b["start_date"])
    plan = _plan(b)
    total = money(b["total"])
    return {
        "booking_id": booking_id,
        "kind": b["kind"],
        "plan": plan,
        "days_before_start": days,
        "total": total,
        "cancellation_fee": cancellation_fee(
            text(b["kind"]), plan, days, total, _nightly(tx, booking_id)
        ),
        "change_fee": change_fee(text(b["kind"]), plan, days),
    }


@tool(mutates=True)
def cancel_booking(
    tx: WorldTx,
    booking_id: str,
    reason: Literal["customer_request", "airline_schedule_change", "duplicate_booking"],
    fee: float,
    refund_to: Literal["original_payment", "travel_credit"] = "original_payment",
) -> dict[str, Any]:
    """Cancel a booking that has not started, keep ``fee`` and refund the rest.

    The refund (total minus fee) goes to the booking's original payment, or is issued as
    a travel credit (reason expired_card) when ``refund_to`` is travel_credit. A card
    that has expired cannot take a refund, and a hotel stay with an open hotel
    escalation cannot be cancelled until the escalation is resolved.

    Args:
        booking_id: Booking id, such as 'BK-100001'.
        reason: Why the booking is cancelled.
        fee: Cancellation fee kept, in dollars (0 when waived); at most the booking total.
        refund_to: Where the refund goes: original_payment (default) or travel_credit.
    """
    b = booking_row(tx, booking_id)
    _open(b, tx, "cancel")
    total = money(b["total"])
    fee = money(fee)
    if fee < 0 or fee > total:
        raise ToolError("invalid_state", f"fee must be between 0 and the total {total}")
    escalation = tx.one(
        "SELECT id FROM hotel_escalations WHERE booking_id = ? AND status = 'open' ORDER BY id",
        [booking_id],
    )
    if escalation is not None:
        raise ToolError(
            "invalid_state",
            f"booking {booking_id} has an open hotel escalation {escalation['id']}; resolve it "
            "before cancelling",
        )
    refund = money(total - fee)
    pay = tx.one("SELECT * FROM payments WHERE booking_id = ? ORDER BY id LIMIT 1", [booking_id])
    if refund > 0 and refund_to == "original_payment":
        if pay is None:
            raise ToolError("invalid_state", f"booking {booking_id} has no payment to refund")
        refuse_expired_card(tx, pay)
    values = {
        "status": "cancelled",
        "cancel_reason": reason,
        "cancel_fee": fee,
        "cancelled_at": stamp(tx),
    }
    BOOKINGS.update(tx, b, values)
    out: dict[str, Any] = {"booking_id": booking_id, "status": "cancelled", "fee": fee}
    if refund > 0 and refund_to == "travel_credit":
        credit = credit_row(tx, text(b["customer_id"]), refund, "expired_card", booking_id)
        out["travel_credit"] = {"id": credit["id"], "amount": refund}
    elif refund > 0 and pay is not None:
        done = money(money(pay["refunded_amount"]) + refund)
        status = "refunded" if done >= money(pay["amount"]) else "partially_refunded"
        tx.update("payments", {"id": pay["id"]}, {"refunded_amount": done, "status": status})
        rid = tx.next_id("refunds", prefix="RFD-", width=4)
        tx.insert(
            "refunds",
            {
                "id": rid,
                "booking_id": booking_id,
                "payment_id": pay["id"],
                "amount": refund,
                "reason": "cancellation",
                "created_at": stamp(tx),
            },
        )
        out["refund"] = {"id": rid, "amount": refund, "payment_id": pay["id"]}
    return out


@tool(mutates=True)
def change_booking_dates(
    tx: WorldTx, booking_id: str, new_start_date: str, fee: float
) -> dict[str, Any]:
    """Move a booking to a new departure / check-in date (hotel stays keep their length).

    A fee above zero is charged to a new card payment on the booking.

    Args:
        booking_id: Booking id, such as 'BK-100001'.
        new_start_date: New departure or check-in date, YYYY-MM-DD, after today.
        fee: Change fee charged, in dollars (0 when none).
    """
    b = booking_row(tx, booking_id)
    _open(b, tx, "change dates")
    try:
        new = date.fromisoformat(new_start_date)
    except ValueError as exc:
        raise ToolError("invalid_state", "new_start_date must be YYYY-MM-DD") from exc
    if new <= tx.today:
        raise ToolError("invalid_state", "the new date must be after today")
    old = date.fromisoformat(text(b["start_date"]))
    if new == old:
        raise ToolError("invalid_state", f"booking {booking_id} already starts on {new}")
    fee = money(fee)
    if fee < 0:
        raise ToolError("invalid_state", "fee cannot be negative")
    shift = new - old
    end = date.fromisoformat(text(b["end_date"])) + shift
    tx.update(
        "bookings",
        {"id": booking_id},
        {"start_date": new.isoformat(), "end_date": end.isoformat()},
    )
    for seg in tx.query(
        "SELECT id, depart_at FROM flight_segments WHERE booking_id = ?", [booking_id]
    ):
        at = text(seg["depart_at"])
        moved = (date.fromisoformat(at[:10]) + shift).isoformat() + at[10:]
        tx.update("flight_segments", {"id": seg["id"]}, {"depart_at": moved})
    tx.insert(
        "booking_changes",
        {
            "id": tx.next_id("booking_changes", prefix="CHG-", width=4),
            "booking_id": booking_id,
            "kind": "date_change",
            "old_value": old.isoformat(),
            "new_value": new.isoformat(),
            "fee": fee,
            "created_at": stamp(tx),
        },
    )
    if fee > 0:
        tx.insert(
            "payments",
            {
                "id": tx.next_id("payments", prefix="PAY-C", width=4),
                "booking_id": booking_id,
                "amount": fee,
                "method": "card",
                "status": "captured",
                "refunded_amount": 0.0,
                "created_at": stamp(tx),
            },
        )
    return {
        "booking_id": booking_id,
        "start_date": new.isoformat(),
        "end_date": end.isoformat(),
        "fee": fee,
        "shifted_days": shift // timedelta(days=1),
    }


@tool(mutates=True)
def update_passenger_name(
    tx: WorldTx, passenger_id: str, first_name: str, last_name: str
) -> dict[str, Any]:
    """Correct the name of a traveller on a booking that has not started.

    Args:
        passenger_id: Traveller id, such as 'PAX-100002-1' (from get_booking).
        first_name: Corrected first name.
        last_name: Corrected last name.
    """
    pax = _TRAVELLERS.row(tx, passenger_id)
    b = booking_row(tx, text(pax["booking_id"]))
    _open(b, tx, "correct a name")
    new = f"{first_name.strip()} {last_name.strip()}"
    old = f"{pax['first_name']} {pax['last_name']}"
    if new == old:
        raise ToolError("invalid_state", "the name is unchanged")
    tx.update(
        "passengers",
        {"id": passenger_id},
        {
            "first_name": first_name.strip(),
            "last_name": last_name.strip(),
            "name_corrections": int(str(pax["name_corrections"])) + 1,
        },
    )
    tx.insert(
        "booking_changes",
        {
            "id": tx.next_id("booking_changes", prefix="CHG-", width=4),
            "booking_id": b["id"],
            "kind": "name_correction",
            "old_value": old,
            "new_value": new,
            "fee": 0.0,
            "created_at": stamp(tx),
        },
    )
    return {"passenger_id": passenger_id, "name": new}
