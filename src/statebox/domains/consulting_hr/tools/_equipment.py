"""Equipment tools: stock, assign, take back, report damaged or lost devices."""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from typing import Any, Literal

from statebox.domains.consulting_hr.tools._records import STAFFABLE_EMPLOYEE, TABLES, row_of
from statebox.kit import Transition
from statebox.tools import ToolError, tool
from statebox.world import WorldTx

__all__ = [
    "assign_equipment",
    "list_available_equipment",
    "report_equipment_issue",
    "return_equipment",
]
_IN_STOCK = Transition(
    TABLES["equipment"],
    allowed=("in_stock",),
    to="assigned",
    today="assigned_on",
    refusal="{noun} {id} is {status}, not in stock",
)
_RETURN = Transition(
    TABLES["equipment"],
    allowed=("assigned",),
    to="in_stock",
    refusal="{noun} {id} is {status}, not assigned",
)


@tool(mutates=False)
def list_available_equipment(
    tx: WorldTx, kind: Literal["laptop", "phone", "monitor"]
) -> list[dict[str, Any]]:
    """List in-stock devices of one kind, by asset tag.

    Args:
        kind: Device kind.
    """
    return tx.query(
        "SELECT * FROM equipment WHERE kind = ? AND status = 'in_stock' ORDER BY id", [kind]
    )


@tool(mutates=True)
def assign_equipment(tx: WorldTx, employee_id: str, asset_id: str) -> dict[str, Any]:
    """Assign an in-stock device to an employee from today (one laptop per person).

    Args:
        employee_id: Employee id, such as 'EMP-0012'.
        asset_id: Asset tag, such as 'AST-0103'.
    """
    emp = row_of(tx, "employees", employee_id)
    row = row_of(tx, "equipment", asset_id)
    STAFFABLE_EMPLOYEE.check(emp)
    _IN_STOCK.check(row)
    if row["kind"] == "laptop":
        held = tx.one(
            "SELECT id FROM equipment WHERE employee_id = ? AND kind = 'laptop' "
            "AND status = 'assigned' ORDER BY id",
            [employee_id],
        )
        if held is not None:
            raise ToolError(
                "invalid_state",
                f"{employee_id} already has laptop {held['id']}; one laptop per person "
                "(take the old one back or report it first)",
            )
    return _IN_STOCK.write(tx, row, {"employee_id": employee_id})


@tool(mutates=True)
def return_equipment(tx: WorldTx, asset_id: str) -> dict[str, Any]:
    """Take back an assigned device that was handed in; it goes back to stock.

    Args:
        asset_id: Asset tag, such as 'AST-0012'.
    """
    return _RETURN.apply(tx, asset_id, {"employee_id": None, "assigned_on": None})


@tool(mutates=True)
def report_equipment_issue(
    tx: WorldTx, asset_id: str, issue: Literal["damaged", "lost"]
) -> dict[str, Any]:
    """Report an assigned device damaged (it goes to repair) or lost.

    Args:
        asset_id: Asset tag, such as 'AST-0012'.
        issue: What happened to the device.
    """
    row = _RETURN.row(tx, asset_id)
    values: dict[str, Any] = (
        {"status": "in_repair", "employee_id": None, "assigned_on": None}
        if issue == "damaged"
        else {"status": "lost"}
    )
    return TABLES["equipment"].update(tx, row, values)
