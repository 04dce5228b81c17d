"""Order tools: view, cancel, change the shipping address, reship a lost order.

Hard rules live here (an order that has shipped cannot be cancelled or re-addressed; a
replacement needs stock); judgement calls (whether a reship is deserved) are policy.
"""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from typing import Any, Literal

from statebox.domains.retail.tools._customers import address_text
from statebox.domains.retail.tools._records import NOT_SHIPPED, ORDERS, order_row
from statebox.kit import Row, Transition, days_between, integer, stamp, text
from statebox.tools import ToolError, tool
from statebox.world import WorldTx

__all__ = ["cancel_order", "get_order", "reship_order", "update_shipping_address"]

_CANCEL = Transition(
    ORDERS,
    allowed=NOT_SHIPPED,
    to="cancelled",
    stamp="cancelled_at",
    refusal="{noun} {id} is {status}; only pending or processing orders can be cancelled",
)
_READDRESS = Transition(
    ORDERS,
    allowed=NOT_SHIPPED,
    refusal="{noun} {id} is {status}; the address can only change before shipment",
)
_SHIPPED = Transition(
    ORDERS, allowed=("shipped", "delivered"), refusal="{noun} {id} is {status}, not shipped"
)


def _items(tx: WorldTx, order_id: str) -> list[Row]:
    return tx.query(
        "SELECT i.id, i.product_id, p.name, i.quantity, i.unit_price, i.returned_qty, "
        "p.returnable, p.warranty_months FROM order_items i "
        "JOIN products p ON p.id = i.product_id WHERE i.order_id = ? ORDER BY i.id",
        [order_id],
    )


@tool(mutates=False)
def get_order(tx: WorldTx, order_id: str) -> dict[str, Any]:
    """Get an order with its items, payments, refunds, shipments and returns.

    ``days_since_delivery`` counts whole days from the delivery date to today (null
    until delivered).

    Args:
        order_id: Order id, such as 'ORD-10000020'.
    """
    order = order_row(tx, order_id)
    shipments = tx.query(
        "SELECT id, carrier, tracking_number, status, shipped_at, estimated_delivery, "
        "delivered_at FROM shipments WHERE order_id = ? ORDER BY id",
        [order_id],
    )
    delivered = [s["delivered_at"] for s in shipments if s["delivered_at"]]
    return {
        **order,
        "shipping_address": address_text(tx, text(order["shipping_address_id"])),
        "items": _items(tx, order_id),
        "payments": tx.query("SELECT * FROM payments WHERE order_id = ? ORDER BY id", [order_id]),
        "refunds": tx.query("SELECT * FROM refunds WHERE order_id = ? ORDER BY id", [order_id]),
        "shipments": shipments,
        "returns": tx.query(
            "SELECT id, status, reason, created_at FROM returns WHERE order_id = ? ORDER BY id",
            [order_id],
        ),
        "days_since_delivery": days_between(delivered[-1], tx.today) if delivered else None,
    }


def _release_stock(tx: WorldTx, order_id: str) -> None:
    for item in tx.query(
        "SELECT product_id, quantity FROM order_items WHERE order_id = ?", [order_id]
    ):
        tx.execute(
            "UPDATE inventory SET reserved = max(reserved - ?, 0) WHERE product_id = ?",
            [item["quantity"], item["product_id"]],
        )


@tool(mutates=True)
def cancel_order(
    tx: WorldTx,
    order_id: str,
    reason: Literal["customer_request", "duplicate_order", "fraud_suspected"],
) -> dict[str, Any]:
    """Cancel an order that has not shipped yet (status pending or processing).

    The payment authorization is voided (nothing was captured, so no refund is needed)
    and reserved stock is released.

    Args:
        order_id: Order id, such as 'ORD-10000020'.
        reason: Why the order is cancelled.
    """
    _CANCEL.apply(tx, order_id, {"cancel_reason": reason})
    tx.execute(
        "UPDATE payments SET status = 'voided' WHERE order_id = ? AND status = 'authorized'",
        [order_id],
    )
    _release_stock(tx, order_id)
    return {"order_id": order_id, "status": "cancelled", "reason": reason}


@tool(mutates=True)
def update_shipping_address(tx: WorldTx, order_id: str, address_id: str) -> dict[str, Any]:
    """Ship an order that has not shipped yet to another address saved on the customer's account.

    Save a new address first with add_address when the customer gives one not on file.

    Args:
        order_id: Order id, such as 'ORD-10000020'.
        address_id: Saved address id of the same customer, such as 'ADR-0001'.
    """
    order = _READDRESS.row(tx, order_id)
    address = tx.one("SELECT * FROM addresses WHERE id = ?", [address_id])
    if address is None or address["customer_id"] != order["customer_id"]:
        raise ToolError("not_found", f"no address {address_id!r} on this customer's account")
    if order["shipping_address_id"] == address_id:
        raise ToolError("invalid_state", f"order {order_id} already ships to {address_id}")
    _READDRESS.write(tx, order, {"shipping_address_id": address_id})
    return {"order_id": order_id, "shipping_address": address_text(tx, address_id)}


@tool(mutates=True)
def reship_order(
    tx: WorldTx, order_id: str, reason: Literal["lost_package", "damaged_in_transit"]
) -> dict[str, Any]:
    """Send a free replacement of a shipped order's items, as a new order at no charge.

    Args:
        order_id: The original order id, such as 'ORD-10000020'.
        reason: Why a replacement is sent.
    """
    order = _SHIPPED.row(tx, order_id)
    if tx.one("SELECT id FROM orders WHERE replacement_for = ?", [order_id]):
        raise ToolError("invalid_state", f"order {order_id} already has a replacement order")
    items = tx.query(
        "SELECT product_id, quantity, unit_price FROM order_items WHERE order_id = ? ORDER BY id",
        [order_id],
    )
    for item in items:
        stock = tx.one(
            "SELECT on_hand - reserved AS available FROM inventory WHERE product_id = ?",
            [item["product_id"]],
        )
        if stock is None or integer(stock["available"]) < integer(item["quantity"]):
            raise ToolError("invalid_state", f"product {item['product_id']} is out of stock")
    number = tx.next_id("orders", start=10000901)
    new_order = f"ORD-{number}"
    tx.insert(
        "orders",
        {
            "id": new_order,
            "customer_id": order["customer_id"],
            "status": "processing",
            "placed_at": stamp(tx),
            "shipping_address_id": order["shipping_address_id"],
            "subtotal": 0.0,
            "discount": 0.0,
            "shipping_fee": 0.0,
            "total": 0.0,
            "coupon_code": None,
            "replacement_for": order_id,
            "replacement_reason": reason,
            "cancel_reason": None,
            "cancelled_at": None,
        },
    )
    for line, item in enumerate(items, start=1):
        tx.insert(
            "order_items",
            {
                "id": f"OI-{number}-{line}",
                "order_id": new_order,
                "product_id": item["product_id"],
                "quantity": item["quantity"],
                "unit_price": 0.0,
                "returned_qty": 0,
            },
        )
        tx.execute(
            "UPDATE inventory SET reserved = reserved + ? WHERE product_id = ?",
            [item["quantity"], item["product_id"]],
        )
    return {"replacement_order_id": new_order, "replacement_for": order_id, "reason": reason}
