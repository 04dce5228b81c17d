"""Money tools: refund a payment, issue a travel credit.

A refund never exceeds what is left of the payment (hard rule); how much to refund and
when a refund needs escalation instead (the agent limit) are policy.
"""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any, Literal

from statebox.domains.travel.tools._records import booking_row, customer_row
from statebox.kit import Table, money, stamp, text
from statebox.tools import ToolError, tool
from statebox.world import WorldTx

__all__ = ["credit_row", "issue_refund", "issue_travel_credit", "refuse_expired_card"]

_PAYMENTS = Table("payments", "payment", "")


def refuse_expired_card(tx: WorldTx, pay: Mapping[str, Any]) -> None:
    """Refuse a refund to ``pay`` when its card has expired (its last month is before today's).

    A refund cannot reach an expired card; policy §7.6 says what to do instead.
    """
    until = pay.get("card_expires")
    if pay["method"] == "card" and until is not None and text(until) < tx.today.isoformat()[:7]:
        raise ToolError(
            "invalid_state",
            f"the card of payment {pay['id']} expired ({until}); a refund cannot reach it",
        )


def credit_row(
    tx: WorldTx, customer_id: str, amount: float, reason: str, booking_id: str | None
) -> dict[str, Any]:
    """Insert a travel credit valid 365 days from today and return its row."""
    row = {
        "id": tx.next_id("travel_credits", prefix="TC-", width=4),
        "customer_id": customer_id,
        "booking_id": booking_id,
        "amount": amount,
        "reason": reason,
        "expires_on": (tx.today + timedelta(days=365)).isoformat(),
        "created_at": stamp(tx),
    }
    return tx.insert("travel_credits", row)


@tool(mutates=True)
def issue_refund(
    tx: WorldTx,
    payment_id: str,
    amount: float,
    reason: Literal["duplicate_charge", "service_failure", "goodwill"],
) -> dict[str, Any]:
    """Refund part or all of a captured payment to its original method.

    Args:
        payment_id: Payment id, such as 'PAY-100001' (from get_booking).
        amount: Dollars to refund; at most the amount not yet refunded.
        reason: Why the refund is issued.
    """
    pay = _PAYMENTS.row(tx, payment_id)
    amount = money(amount)
    left = money(money(pay["amount"]) - money(pay["refunded_amount"]))
    if amount <= 0 or amount > left:
        raise ToolError("invalid_state", f"refund must be above 0 and at most {left}")
    refuse_expired_card(tx, pay)
    done = money(money(pay["refunded_amount"]) + amount)
    status = "refunded" if done >= money(pay["amount"]) else "partially_refunded"
    _PAYMENTS.update(tx, pay, {"refunded_amount": done, "status": status})
    row = {
        "id": tx.next_id("refunds", prefix="RFD-", width=4),
        "booking_id": pay["booking_id"],
        "payment_id": payment_id,
        "amount": amount,
        "reason": reason,
        "created_at": stamp(tx),
    }
    return tx.insert("refunds", row)


@tool(mutates=True)
def issue_travel_credit(
    tx: WorldTx,
    customer_id: str,
    amount: float,
    reason: Literal["walked_guest", "service_failure", "goodwill", "expired_card"],
    booking_id: str | None = None,
) -> dict[str, Any]:
    """Issue a travel credit (valid 365 days) to a customer's account.

    Args:
        customer_id: Customer id, such as 'CUS-0001'.
        amount: Credit in dollars (positive).
        reason: Why the credit is issued (expired_card: money owed back to a card that has
            expired).
        booking_id: The booking it relates to, such as 'BK-100001', if any.
    """
    customer_row(tx, customer_id)
    if booking_id is not None and booking_row(tx, booking_id)["customer_id"] != customer_id:
        raise ToolError("not_permitted", f"booking {booking_id} is not this customer's")
    amount = money(amount)
    if amount <= 0:
        raise ToolError("invalid_state", "amount must be positive")
    return credit_row(tx, customer_id, amount, reason, booking_id)
