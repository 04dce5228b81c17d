"""Retail's row lookups and money facts that several tools share.

Lookups refuse an unknown id with the id format (`statebox.kit.Table`); column helpers
come from `statebox.kit`.
"""

from __future__ import annotations

from statebox.kit import Row, Table, cents, money
from statebox.tools import ToolError
from statebox.world import WorldTx

__all__ = [
    "CUSTOMERS",
    "MEMBERSHIPS",
    "NOT_SHIPPED",
    "ORDERS",
    "charged_payment",
    "customer_row",
    "order_row",
    "refunded_total",
]

CUSTOMERS = Table("customers", "customer", "CUS-0001")
ORDERS = Table("orders", "order", "ORD-10000020")
MEMBERSHIPS = Table(
    "memberships", "membership", "", key="customer_id", missing="customer {key} has no membership"
)
customer_row = CUSTOMERS.row
order_row = ORDERS.row
NOT_SHIPPED = ("pending", "processing")
"""Order statuses before shipment: the order may still be cancelled, re-addressed, discounted."""


def charged_payment(tx: WorldTx, order_id: str) -> Row:
    """The order's captured payment, or an invalid_state refusal when none was captured."""
    row = tx.one(
        "SELECT * FROM payments WHERE order_id = ? AND status = 'captured' ORDER BY id",
        [order_id],
    )
    if row is None:
        raise ToolError(
            "invalid_state", f"order {order_id} has no captured payment to refund against"
        )
    return row


def refunded_total(tx: WorldTx, order_id: str) -> float:
    """Dollars already refunded on an order."""
    rows = tx.query("SELECT amount FROM refunds WHERE order_id = ?", [order_id])
    return cents(sum(money(r["amount"]) for r in rows))
