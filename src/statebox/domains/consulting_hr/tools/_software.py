"""Software tools: the catalogue with its licence pools, assign and release licences.

A licence needs a free seat in the pool (a hard fact the tool enforces); who may get a
restricted title is policy.
"""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from typing import Any

from statebox.domains.consulting_hr.tools._records import ACTIVE_EMPLOYEE, TABLES, row_of
from statebox.kit import Transition, integer, new_id, stamp
from statebox.tools import ToolError, tool
from statebox.world import WorldTx

__all__ = ["assign_licence", "list_software", "release_licence"]

_USED = (
    "(SELECT count(*) FROM licence_allocations l WHERE l.software_id = s.id "
    "AND l.status = 'active')"
)
_RELEASE = Transition(
    TABLES["licence_allocations"],
    allowed=("active",),
    to="released",
    stamp="released_at",
    refusal="licence {id} is {status}",
)


@tool(mutates=False)
def list_software(tx: WorldTx) -> list[dict[str, Any]]:
    """List the software catalogue: tier, seats in the pool, seats in use, annual cost."""
    return tx.query(f"SELECT s.*, {_USED} AS seats_used FROM software s ORDER BY s.id")


@tool(mutates=True)
def assign_licence(tx: WorldTx, employee_id: str, software_id: str) -> dict[str, Any]:
    """Assign a licence seat from the software's pool to an employee.

    Args:
        employee_id: Employee id, such as 'EMP-0012'.
        software_id: Software id, such as 'SW-103'.
    """
    emp = row_of(tx, "employees", employee_id)
    sw = row_of(tx, "software", software_id)
    ACTIVE_EMPLOYEE.check(emp)
    if tx.one(
        "SELECT id FROM licence_allocations WHERE employee_id = ? AND software_id = ? "
        "AND status = 'active'",
        [employee_id, software_id],
    ):
        raise ToolError("invalid_state", f"{employee_id} already holds {software_id}")
    used = tx.one(f"SELECT {_USED} AS n FROM software s WHERE s.id = ?", [software_id])
    if used is not None and integer(used["n"]) >= integer(sw["seats_total"]):
        raise ToolError("invalid_state", f"no free seat in the {software_id} pool")
    return tx.insert(
        "licence_allocations",
        {
            "id": new_id(tx, "licence_allocations", "LIC-"),
            "employee_id": employee_id,
            "software_id": software_id,
            "status": "active",
            "assigned_at": stamp(tx),
            "released_at": None,
        },
    )


@tool(mutates=True)
def release_licence(tx: WorldTx, allocation_id: str) -> dict[str, Any]:
    """Release a licence back to its pool.

    Args:
        allocation_id: Licence allocation id, such as 'LIC-00004'.
    """
    return _RELEASE.apply(tx, allocation_id)
