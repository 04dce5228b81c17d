"""Loyalty tools: points history, add points, redeem points for store credit, change tier.

Redemption rules the program itself enforces (minimum 500 points, multiples of 100,
100 points = $1) are hard; who deserves goodwill points or a tier change is policy.
"""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from typing import Any, Literal

from statebox.domains.retail.tools._records import MEMBERSHIPS, customer_row, order_row
from statebox.kit import Row, integer, new_id, stamp
from statebox.tools import ToolError, tool
from statebox.world import WorldTx

__all__ = [
    "add_loyalty_points",
    "get_points_history",
    "redeem_points",
    "update_membership_tier",
]

_MAX_GRANT = 5000
_MIN_REDEEM = 500


def _membership(tx: WorldTx, customer_id: str) -> Row:
    customer_row(tx, customer_id)
    return MEMBERSHIPS.row(tx, customer_id)


def _ledger(tx: WorldTx, customer_id: str, delta: int, reason: str, order_id: str | None) -> Row:
    return tx.insert(
        "points_ledger",
        {
            "id": new_id(tx, "points_ledger", "PTS-"),
            "customer_id": customer_id,
            "delta": delta,
            "reason": reason,
            "order_id": order_id,
            "created_at": stamp(tx),
        },
    )


@tool(mutates=False)
def get_points_history(tx: WorldTx, customer_id: str) -> dict[str, Any]:
    """Get a customer's membership tier, points balance and points ledger.

    Args:
        customer_id: Customer id, such as 'CUS-0001'.
    """
    membership = _membership(tx, customer_id)
    ledger = tx.query(
        "SELECT * FROM points_ledger WHERE customer_id = ? ORDER BY created_at, id", [customer_id]
    )
    return {**membership, "ledger": ledger}


@tool(mutates=True)
def add_loyalty_points(
    tx: WorldTx,
    customer_id: str,
    points: int,
    reason: Literal["late_delivery", "goodwill", "missing_purchase_points"],
    order_id: str | None = None,
) -> dict[str, Any]:
    """Add loyalty points to a customer's balance.

    Args:
        customer_id: Customer id, such as 'CUS-0001'.
        points: Points to add, between 1 and 5000.
        reason: Why the points are granted.
        order_id: The related order, such as 'ORD-10000020'; null when none.
    """
    membership = _membership(tx, customer_id)
    if not 0 < points <= _MAX_GRANT:
        raise ToolError("invalid_state", f"points must be between 1 and {_MAX_GRANT}")
    if order_id is not None and order_row(tx, order_id)["customer_id"] != customer_id:
        raise ToolError("invalid_state", f"order {order_id} belongs to another customer")
    balance = integer(membership["points_balance"]) + points
    MEMBERSHIPS.update(tx, membership, {"points_balance": balance})
    entry = _ledger(tx, customer_id, points, reason, order_id)
    return {"points_balance": balance, "entry": entry}


@tool(mutates=True)
def redeem_points(tx: WorldTx, customer_id: str, points: int) -> dict[str, Any]:
    """Convert loyalty points into store credit at 100 points = $1.

    Args:
        customer_id: Customer id, such as 'CUS-0001'.
        points: Points to redeem: at least 500, in multiples of 100.
    """
    membership = _membership(tx, customer_id)
    if points < _MIN_REDEEM or points % 100:
        raise ToolError("invalid_state", "redeem at least 500 points, in multiples of 100")
    balance = integer(membership["points_balance"])
    if points > balance:
        raise ToolError("invalid_state", f"the customer has only {balance} points")
    MEMBERSHIPS.update(tx, membership, {"points_balance": balance - points})
    _ledger(tx, customer_id, -points, "redemption", None)
    credit = tx.insert(
        "store_credits",
        {
            "id": new_id(tx, "store_credits", "SC-"),
            "customer_id": customer_id,
            "amount": points / 100,
            "reason": "points_redemption",
            "order_id": None,
            "created_at": stamp(tx),
        },
    )
    return {"points_balance": balance - points, "store_credit": credit}


@tool(mutates=True)
def update_membership_tier(
    tx: WorldTx,
    customer_id: str,
    tier: Literal["basic", "plus", "premium"],
    reason: Literal["spend_threshold", "customer_request"],
) -> dict[str, Any]:
    """Change a customer's membership tier.

    Args:
        customer_id: Customer id, such as 'CUS-0001'.
        tier: The new tier.
        reason: Why the tier changes.
    """
    membership = _membership(tx, customer_id)
    if membership["tier"] == tier:
        raise ToolError("invalid_state", f"customer {customer_id} is already {tier}")
    MEMBERSHIPS.update(
        tx, membership, {"tier": tier, "tier_changed_at": stamp(tx), "tier_change_reason": reason}
    )
    return {"customer_id": customer_id, "tier": tier, "previous_tier": membership["tier"]}
