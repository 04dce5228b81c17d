"""Return (RMA) tools: open a return, approve it (refund to the original payment), reject it.

The tool enforces what the order allows: only delivered orders, only items of that
order, never more units than were bought and not already on a return. The return
window and final-sale rules are policy: they depend on tier and reason.
"""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from statebox.domains.retail.tools._records import ORDERS, charged_payment, refunded_total
from statebox.kit import Row, Table, Transition, cents, integer, money, new_id, stamp, text
from statebox.tools import ToolError, tool
from statebox.world import WorldTx

__all__ = [
    "ReturnLine",
    "approve_return",
    "create_return",
    "get_return",
    "record_return_serial",
    "reject_return",
]


class ReturnLine(BaseModel):
    """One order line to return."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    order_item_id: str = Field(description="Order item id, such as 'OI-10000020-1'.")
    quantity: int = Field(ge=1, description="Units of that item to return.")


_RETURNS = Table("returns", "return", "RMA-00501")
_REQUESTED = Transition(
    _RETURNS, allowed=("requested",), refusal="{noun} {id} is {status}, not requested"
)
"""A return not yet decided; approving and rejecting stamp the decision."""
_APPROVE = _REQUESTED._replace(to="approved", stamp="decided_at")
_REJECT = _REQUESTED._replace(to="rejected", stamp="decided_at")
_DELIVERED = Transition(
    ORDERS, allowed=("delivered",), refusal="{noun} {id} is {status}, not delivered"
)


def _on_open_returns(tx: WorldTx, order_item_id: str) -> int:
    row = tx.one(
        "SELECT coalesce(sum(ri.quantity), 0) AS n FROM return_items ri "
        "JOIN returns r ON r.id = ri.rma_id "
        "WHERE ri.order_item_id = ? AND r.status IN ('requested', 'approved')",
        [order_item_id],
    )
    return integer(row["n"]) if row else 0


def _return_view(tx: WorldTx, rma_id: str) -> dict[str, Any]:
    row = _RETURNS.row(tx, rma_id)
    items = tx.query("SELECT * FROM return_items WHERE rma_id = ? ORDER BY order_item_id", [rma_id])
    return {**row, "items": items}


@tool(mutates=False)
def get_return(tx: WorldTx, rma_id: str) -> dict[str, Any]:
    """Get a return (RMA) with its items.

    Args:
        rma_id: Return id, such as 'RMA-00501'.
    """
    return _return_view(tx, rma_id)


@tool(mutates=True)
def create_return(
    tx: WorldTx,
    order_id: str,
    items: list[ReturnLine],
    reason: Literal[
        "defective", "wrong_item", "damaged_in_transit", "not_as_described", "no_longer_needed"
    ],
) -> dict[str, Any]:
    """Open a return (RMA, status 'requested') for items of a delivered order.

    Args:
        order_id: Order id, such as 'ORD-10000020'.
        items: The lines and units to return, such as
            [{"order_item_id": "OI-10000020-1", "quantity": 1}].
        reason: Why the customer returns the items.
    """
    order = _DELIVERED.row(tx, order_id)
    if not items:
        raise ToolError("invalid_state", "name at least one item to return")
    seen: set[str] = set()
    for line in items:
        if line.order_item_id in seen:
            raise ToolError("invalid_state", f"item {line.order_item_id} is listed twice")
        seen.add(line.order_item_id)
        item = tx.one(
            "SELECT * FROM order_items WHERE id = ? AND order_id = ?",
            [line.order_item_id, order_id],
        )
        if item is None:
            raise ToolError("not_found", f"order {order_id} has no item {line.order_item_id!r}")
        left = integer(item["quantity"]) - _on_open_returns(tx, line.order_item_id)
        if line.quantity > left:
            raise ToolError(
                "invalid_state",
                f"only {left} unit(s) of {line.order_item_id} can still be returned",
            )
    rma_id = new_id(tx, "returns", "RMA-")
    tx.insert(
        "returns",
        {
            "id": rma_id,
            "order_id": order_id,
            "customer_id": order["customer_id"],
            "status": "requested",
            "reason": reason,
            "created_at": stamp(tx),
            "decided_at": None,
            "reject_reason": None,
        },
    )
    for line in items:
        tx.insert(
            "return_items",
            {"rma_id": rma_id, "order_item_id": line.order_item_id, "quantity": line.quantity},
        )
    return _return_view(tx, rma_id)


@tool(mutates=True)
def approve_return(tx: WorldTx, rma_id: str) -> dict[str, Any]:
    """Approve a requested return and refund its items' price to the original payment.

    Args:
        rma_id: Return id, such as 'RMA-00501'.
    """
    rma = _APPROVE.row(tx, rma_id)
    if _serials(tx, rma_id) and not rma["serial_checked"]:
        raise ToolError(
            "invalid_state",
            f"return {rma_id} holds a serial-tracked item; record the serial number the "
            "customer reads from the item with record_return_serial before approving",
        )
    order_id = text(rma["order_id"])
    lines = tx.query(
        "SELECT ri.order_item_id, ri.quantity, i.unit_price FROM return_items ri "
        "JOIN order_items i ON i.id = ri.order_item_id WHERE ri.rma_id = ? ORDER BY 1",
        [rma_id],
    )
    value = cents(sum(integer(r["quantity"]) * money(r["unit_price"]) for r in lines))
    payment = charged_payment(tx, order_id)
    amount = min(value, cents(money(payment["amount"]) - refunded_total(tx, order_id)))
    _APPROVE.write(tx, rma)
    for r in lines:
        tx.execute(
            "UPDATE order_items SET returned_qty = returned_qty + ? WHERE id = ?",
            [r["quantity"], r["order_item_id"]],
        )
    refund: Row | None = None
    if amount > 0:
        refund = tx.insert(
            "refunds",
            {
                "id": new_id(tx, "refunds", "RFD-"),
                "order_id": order_id,
                "payment_id": payment["id"],
                "amount": amount,
                "reason": "return",
                "rma_id": rma_id,
                "created_at": stamp(tx),
            },
        )
    return {"rma_id": rma_id, "status": "approved", "refund": refund}


def _serials(tx: WorldTx, rma_id: str) -> list[str]:
    rows = tx.query(
        "SELECT i.serial_number FROM return_items ri JOIN order_items i ON i.id = ri.order_item_id "
        "WHERE ri.rma_id = ? AND i.serial_number IS NOT NULL ORDER BY 1",
        [rma_id],
    )
    return [text(r["serial_number"]) for r in rows]


@tool(mutates=True)
def record_return_serial(tx: WorldTx, rma_id: str, serial_number: str) -> dict[str, Any]:
    """Record that the serial number on a returned serial-tracked item matches the order.

    The customer reads the serial from the item; it must equal the serial shipped on a
    serial-tracked line of the return (any case, spaces ignored).

    Args:
        rma_id: Return id, such as 'RMA-00501'.
        serial_number: The serial the customer reads from the item, such as 'SN-4F7Q2K'.
    """
    rma = _REQUESTED.row(tx, rma_id)
    serials = _serials(tx, rma_id)
    if not serials:
        raise ToolError("invalid_state", f"return {rma_id} holds no serial-tracked item")
    given = serial_number.replace(" ", "").upper()
    if given not in {s.replace(" ", "").upper() for s in serials}:
        raise ToolError(
            "invalid_state", f"serial {serial_number!r} matches no item shipped on this return"
        )
    _REQUESTED.write(tx, rma, {"serial_checked": 1})
    return {"rma_id": rma_id, "serial_checked": True}


@tool(mutates=True)
def reject_return(
    tx: WorldTx,
    rma_id: str,
    reason: Literal["outside_return_window", "final_sale", "damaged_by_customer"],
) -> dict[str, Any]:
    """Reject a requested return.

    Args:
        rma_id: Return id, such as 'RMA-00501'.
        reason: Why the return is rejected.
    """
    _REJECT.apply(tx, rma_id, {"reject_reason": reason})
    return {"rma_id": rma_id, "status": "rejected", "reason": reason}
