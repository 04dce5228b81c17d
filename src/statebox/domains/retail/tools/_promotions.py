"""Promotion tools: check a coupon against an order, apply it.

`validate_promotion` reports each eligibility fact (active, dates, minimum subtotal,
tier); `apply_coupon` enforces only what the order allows (not shipped, one coupon per
order), so an agent that skips the check can still apply an ineligible code.
"""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from typing import Any

from statebox.domains.retail.tools._records import NOT_SHIPPED, ORDERS, order_row
from statebox.kit import Row, Transition, cents, money, text
from statebox.tools import ToolError, tool
from statebox.world import WorldTx

__all__ = ["apply_coupon", "validate_promotion"]

_TIER_RANK = {"basic": 0, "plus": 1, "premium": 2}


_DISCOUNTABLE = Transition(
    ORDERS, allowed=NOT_SHIPPED, refusal="{noun} {id} is {status}; coupons apply before shipment"
)


def _promotion(tx: WorldTx, code: str) -> Row:
    row = tx.one("SELECT * FROM promotions WHERE code = upper(?)", [code.strip()])
    if row is None:
        raise ToolError("not_found", f"no promotion code {code!r}")
    return row


def _discount(promo: Row, subtotal: float) -> float:
    if promo["kind"] == "percent":
        return cents(subtotal * money(promo["value"]) / 100)
    return cents(min(money(promo["value"]), subtotal))


@tool(mutates=False)
def validate_promotion(tx: WorldTx, code: str, order_id: str) -> dict[str, Any]:
    """Check a promotion code against an order today: each eligibility fact and the discount.

    Args:
        code: Promotion code, such as 'FALL15'.
        order_id: Order id, such as 'ORD-10000020'.
    """
    promo = _promotion(tx, code)
    order = order_row(tx, order_id)
    membership = tx.one(
        "SELECT tier FROM memberships WHERE customer_id = ?", [order["customer_id"]]
    )
    tier = text(membership["tier"]) if membership else "basic"
    today = tx.today.isoformat()
    subtotal = money(order["subtotal"])
    required = promo["tier_required"]
    facts = {
        "active": promo["active"] == 1,
        "within_dates": text(promo["starts_on"]) <= today <= text(promo["ends_on"]),
        "meets_min_subtotal": subtotal >= money(promo["min_subtotal"]),
        "meets_tier": required is None or _TIER_RANK[tier] >= _TIER_RANK[text(required)],
        "order_not_shipped": order["status"] in NOT_SHIPPED,
        "no_coupon_yet": order["coupon_code"] is None,
    }
    return {
        "promotion": promo,
        "customer_tier": tier,
        **facts,
        "eligible": all(facts.values()),
        "discount": _discount(promo, subtotal),
    }


@tool(mutates=True)
def apply_coupon(tx: WorldTx, order_id: str, code: str) -> dict[str, Any]:
    """Apply a promotion code to an order that has not shipped; the payment authorization shrinks.

    Args:
        order_id: Order id, such as 'ORD-10000020'.
        code: Promotion code, such as 'FALL15'.
    """
    order = order_row(tx, order_id)
    promo = _promotion(tx, code)
    _DISCOUNTABLE.check(order)
    if order["coupon_code"] is not None:
        raise ToolError("invalid_state", f"order {order_id} already uses {order['coupon_code']}")
    subtotal = money(order["subtotal"])
    discount = _discount(promo, subtotal)
    total = cents(subtotal - discount + money(order["shipping_fee"]))
    _DISCOUNTABLE.write(
        tx, order, {"coupon_code": promo["code"], "discount": discount, "total": total}
    )
    tx.execute(
        "UPDATE payments SET amount = ? WHERE order_id = ? AND status = 'authorized'",
        [total, order_id],
    )
    return {
        "order_id": order_id,
        "coupon_code": promo["code"],
        "discount": discount,
        "total": total,
    }
