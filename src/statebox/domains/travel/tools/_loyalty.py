"""Loyalty tools: read the account and its history, credit points, change the tier."""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from typing import Any, Literal

from statebox.domains.travel.tools._records import LOYALTY_ACCOUNTS, booking_row, customer_row
from statebox.kit import stamp
from statebox.tools import ToolError, tool
from statebox.world import WorldTx

__all__ = ["add_loyalty_points", "get_loyalty_account", "update_loyalty_tier"]


@tool(mutates=False)
def get_loyalty_account(tx: WorldTx, customer_id: str) -> dict[str, Any]:
    """Get a loyalty account (tier, points, qualifying nights) and its transactions.

    Args:
        customer_id: Customer id, such as 'CUS-0001'.
    """
    customer_row(tx, customer_id)
    account = LOYALTY_ACCOUNTS.row(tx, customer_id)
    return {
        **account,
        "transactions": tx.query(
            "SELECT * FROM loyalty_transactions WHERE customer_id = ? ORDER BY id", [customer_id]
        ),
    }


@tool(mutates=True)
def add_loyalty_points(
    tx: WorldTx,
    customer_id: str,
    points: int,
    kind: Literal["missing_credit", "goodwill"],
    booking_id: str | None = None,
) -> dict[str, Any]:
    """Credit loyalty points to a customer's account.

    Args:
        customer_id: Customer id, such as 'CUS-0001'.
        points: Points to add (positive whole number).
        kind: missing_credit for a stay or flight that earned nothing; goodwill otherwise.
        booking_id: The booking the points are for, such as 'BK-100001' (required for
            missing_credit).
    """
    customer_row(tx, customer_id)
    if points <= 0:
        raise ToolError("invalid_state", "points must be positive")
    if kind == "missing_credit":
        if booking_id is None:
            raise ToolError("invalid_state", "missing_credit needs the booking_id")
        if booking_row(tx, booking_id)["customer_id"] != customer_id:
            raise ToolError("not_permitted", f"booking {booking_id} is not this customer's")
    tx.insert(
        "loyalty_transactions",
        {
            "id": tx.next_id("loyalty_transactions", prefix="LTX-", width=4, start=5001),
            "customer_id": customer_id,
            "booking_id": booking_id,
            "points": points,
            "kind": kind,
            "created_at": stamp(tx),
        },
    )
    tx.execute(
        "UPDATE loyalty_accounts SET points = points + ? WHERE customer_id = ?",
        [points, customer_id],
    )
    return get_loyalty_account.fn(tx, customer_id)  # type: ignore[no-any-return]


@tool(mutates=True)
def update_loyalty_tier(
    tx: WorldTx, customer_id: str, tier: Literal["blue", "silver", "gold", "platinum"]
) -> dict[str, Any]:
    """Set a customer's loyalty tier.

    Args:
        customer_id: Customer id, such as 'CUS-0001'.
        tier: The new tier.
    """
    customer_row(tx, customer_id)
    account = LOYALTY_ACCOUNTS.row(tx, customer_id)
    if account["tier"] == tier:
        raise ToolError("invalid_state", f"customer {customer_id} is already {tier}")
    LOYALTY_ACCOUNTS.update(tx, account, {"tier": tier})
    tx.insert(
        "loyalty_transactions",
        {
            "id": tx.next_id("loyalty_transactions", prefix="LTX-", width=4, start=5001),
            "customer_id": customer_id,
            "booking_id": None,
            "points": 0,
            "kind": "tier_change",
            "created_at": stamp(tx),
        },
    )
    return {"customer_id": customer_id, "tier": tier}
