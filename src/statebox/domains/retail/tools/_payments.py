"""Payment tools: refunds to the original payment and store credit.

The tool enforces what money allows (a refund never exceeds what was captured and not
yet refunded; credit is positive and bounded); how much an agent may grant on its own,
by membership tier, is policy, so an agent that ignores the limit can still over-refund
and be caught by the state check.
"""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from typing import Any, Literal

from statebox.domains.retail.tools._records import (
    charged_payment,
    customer_row,
    order_row,
    refunded_total,
)
from statebox.kit import cents, money, new_id, stamp, text
from statebox.tools import ToolError, tool
from statebox.world import WorldTx

__all__ = ["issue_refund", "issue_store_credit"]

_MAX_CREDIT = 500.0


@tool(mutates=True)
def issue_refund(
    tx: WorldTx,
    order_id: str,
    amount: float,
    reason: Literal[
        "late_delivery", "damaged_item", "lost_package", "price_adjustment", "goodwill"
    ],
) -> dict[str, Any]:
    """Refund part or all of an order to its original payment method.

    Returns are refunded by approve_return, not here. A card that has expired
    (``card_expires`` before this month) cannot receive a refund.

    Args:
        order_id: Order id, such as 'ORD-10000020'.
        amount: Dollars to refund, such as 25.0; at most what was charged and not yet refunded.
        reason: Why the money is returned.
    """
    order_row(tx, order_id)
    amount = cents(amount)
    if amount <= 0:
        raise ToolError("invalid_state", "the refund amount must be positive")
    payment = charged_payment(tx, order_id)
    expires = payment.get("card_expires")
    if (
        payment["method"] == "card"
        and expires is not None
        and text(expires) < tx.today.isoformat()[:7]
    ):
        # A card network refuses credits to a closed card; policy says what to give instead.
        raise ToolError(
            "invalid_state",
            f"the card of payment {payment['id']} expired ({expires}); a refund cannot be sent "
            "to an expired card",
        )
    remaining = cents(money(payment["amount"]) - refunded_total(tx, order_id))
    if amount > remaining:
        raise ToolError(
            "invalid_state",
            f"refund of {amount:.2f} exceeds the {remaining:.2f} still refundable on {order_id}",
        )
    row = {
        "id": new_id(tx, "refunds", "RFD-"),
        "order_id": order_id,
        "payment_id": payment["id"],
        "amount": amount,
        "reason": reason,
        "rma_id": None,
        "created_at": stamp(tx),
    }
    tx.insert("refunds", row)
    return {**row, "refundable_left": cents(remaining - amount)}


@tool(mutates=True)
def issue_store_credit(
    tx: WorldTx,
    customer_id: str,
    amount: float,
    reason: Literal[
        "late_delivery", "price_adjustment", "goodwill", "damaged_item", "refund_fallback"
    ],
    order_id: str | None = None,
) -> dict[str, Any]:
    """Add store credit (dollars spendable on future orders) to a customer's account.

    Args:
        customer_id: Customer id, such as 'CUS-0001'.
        amount: Dollars of credit, such as 10.0; between 0.01 and 500.
        reason: Why the credit is given.
        order_id: The order the credit relates to, such as 'ORD-10000020'; null when none.
    """
    customer_row(tx, customer_id)
    amount = cents(amount)
    if not 0 < amount <= _MAX_CREDIT:
        raise ToolError("invalid_state", f"store credit must be between 0.01 and {_MAX_CREDIT}")
    if order_id is not None:
        order = order_row(tx, order_id)
        if order["customer_id"] != customer_id:
            raise ToolError("invalid_state", f"order {order_id} belongs to another customer")
    row = {
        "id": new_id(tx, "store_credits", "SC-"),
        "customer_id": customer_id,
        "amount": amount,
        "reason": reason,
        "order_id": order_id,
        "created_at": stamp(tx),
    }
    return tx.insert("store_credits", row)
