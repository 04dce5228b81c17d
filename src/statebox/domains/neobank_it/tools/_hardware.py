"""Hardware tools: the catalogue, an employee's devices and hardware orders.

Hard invariants: quantity positive, and only orders not yet placed with the vendor
('pending_approval' or 'approved') can be cancelled. Whether an order needs manager approval
(refresh cycle, price threshold) is policy.
"""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from typing import Any, Literal

from statebox.domains.neobank_it.tools._records import TABLES, employee_row, row_of
from statebox.kit import Transition, new_id, stamp
from statebox.tools import ToolError, tool
from statebox.world import WorldTx

__all__ = [
    "cancel_hardware_order",
    "create_hardware_order",
    "list_employee_devices",
    "list_hardware_catalog",
    "list_hardware_orders",
]
_CANCEL = Transition(
    TABLES["hardware_orders"],
    allowed=("pending_approval", "approved"),
    to="cancelled",
    stamp="updated_at",
    refusal="order {id} is {status}; it can no longer be cancelled",
)


@tool(mutates=False)
def list_hardware_catalog(tx: WorldTx) -> list[dict[str, Any]]:
    """List orderable hardware with unit prices in dollars."""
    return tx.query("SELECT * FROM hardware_catalog ORDER BY id")


@tool(mutates=False)
def list_employee_devices(tx: WorldTx, employee_id: str) -> list[dict[str, Any]]:
    """List the devices assigned to an employee (model, serial, assigned date, encryption).

    Args:
        employee_id: Employee id, such as 'EMP-0001'.
    """
    employee_row(tx, employee_id)
    return tx.query("SELECT * FROM devices WHERE employee_id = ? ORDER BY id", [employee_id])


@tool(mutates=False)
def list_hardware_orders(tx: WorldTx, employee_id: str) -> list[dict[str, Any]]:
    """List an employee's hardware orders, newest first.

    Args:
        employee_id: Employee id, such as 'EMP-0001'.
    """
    employee_row(tx, employee_id)
    return tx.query(
        "SELECT * FROM hardware_orders WHERE employee_id = ? ORDER BY created_at DESC, id",
        [employee_id],
    )


@tool(mutates=True)
def create_hardware_order(
    tx: WorldTx,
    employee_id: str,
    catalog_id: str,
    quantity: int,
    reason: Literal["refresh", "damage_replacement", "new_need"],
    approval: Literal["auto", "manager"],
) -> dict[str, Any]:
    """Place a hardware order.

    'auto' approval makes it 'approved' at once; 'manager' leaves it 'pending_approval'
    until the employee's manager approves.

    Args:
        employee_id: Employee the hardware is for, such as 'EMP-0001'.
        catalog_id: Catalogue item id, such as 'HW-LAP-STD'.
        quantity: Number of units.
        reason: Why the hardware is needed.
        approval: Whether policy allows automatic approval or needs the manager's.
    """
    employee_row(tx, employee_id)
    item = row_of(tx, "hardware_catalog", catalog_id)
    if quantity <= 0:
        raise ToolError("invalid_state", "quantity must be positive")
    now = stamp(tx)
    row = {
        "id": new_id(tx, "hardware_orders", "HO-"),
        "employee_id": employee_id,
        "catalog_id": catalog_id,
        "quantity": quantity,
        "total_usd": round(float(str(item["price_usd"])) * quantity + 0.0, 2),
        "reason": reason,
        "status": "approved" if approval == "auto" else "pending_approval",
        "cancel_reason": None,
        "created_at": now,
        "updated_at": now,
    }
    return tx.insert("hardware_orders", row)


@tool(mutates=True)
def cancel_hardware_order(
    tx: WorldTx,
    order_id: str,
    reason: Literal["requester_withdrew", "duplicate", "not_eligible", "manager_declined"],
) -> dict[str, Any]:
    """Cancel a hardware order that is not yet placed with the vendor.

    Args:
        order_id: Hardware order id, such as 'HO-00001'.
        reason: Why the order is cancelled.
    """
    return _CANCEL.apply(tx, order_id, {"cancel_reason": reason})
