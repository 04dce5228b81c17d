"""Licence tools: pools with seat counts, allocations, assign and release.

Hard invariant: a pool never allocates more seats than it holds, and one employee holds at
most one active seat per pool. Approval needs and reclaiming idle seats are policy.
"""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from typing import Any

from statebox.domains.neobank_it.tools._records import TABLES, employee_row, row_of
from statebox.kit import Transition, new_id
from statebox.tools import ToolError, tool
from statebox.world import WorldTx

__all__ = [
    "assign_licence",
    "list_employee_licences",
    "list_licence_pools",
    "list_pool_allocations",
    "release_licence",
]

_USED = (
    "(SELECT count(*) FROM licence_allocations a WHERE a.pool_id = p.id AND a.status = 'active')"
)
_RELEASE = Transition(
    TABLES["licence_allocations"],
    allowed=("active",),
    to="released",
    today="released_on",
    refusal="allocation {id} is already released",
)


@tool(mutates=False)
def list_licence_pools(tx: WorldTx) -> list[dict[str, Any]]:
    """List software licence pools: seats total, used and free, cost, approval need.

    Cost is per seat per month in dollars; requires_approval 1 means a seat needs the
    manager's approval.
    """
    return tx.query(
        f"SELECT p.*, {_USED} AS seats_used, p.seats_total - {_USED} AS seats_free "
        "FROM licence_pools p ORDER BY p.id"
    )


@tool(mutates=False)
def list_pool_allocations(tx: WorldTx, pool_id: str) -> list[dict[str, Any]]:
    """List a pool's active allocations with each holder's last use date, oldest use first.

    Args:
        pool_id: Licence pool id, such as 'LIC-FIGMA'.
    """
    row_of(tx, "licence_pools", pool_id)
    return tx.query(
        "SELECT id, employee_id, allocated_on, last_used_on FROM licence_allocations "
        "WHERE pool_id = ? AND status = 'active' ORDER BY last_used_on, id",
        [pool_id],
    )


@tool(mutates=False)
def list_employee_licences(tx: WorldTx, employee_id: str) -> list[dict[str, Any]]:
    """List an employee's licence allocations (active and released).

    Args:
        employee_id: Employee id, such as 'EMP-0001'.
    """
    employee_row(tx, employee_id)
    return tx.query(
        "SELECT * FROM licence_allocations WHERE employee_id = ? ORDER BY id", [employee_id]
    )


@tool(mutates=True)
def assign_licence(tx: WorldTx, pool_id: str, employee_id: str) -> dict[str, Any]:
    """Allocate one seat of a pool to an employee.

    Args:
        pool_id: Licence pool id, such as 'LIC-FIGMA'.
        employee_id: Employee id, such as 'EMP-0001'.
    """
    pool = row_of(tx, "licence_pools", pool_id)
    employee_row(tx, employee_id)
    used = tx.one(
        "SELECT count(*) AS n FROM licence_allocations WHERE pool_id = ? AND status = 'active'",
        [pool_id],
    )
    if used is not None and int(str(used["n"])) >= int(str(pool["seats_total"])):
        raise ToolError("invalid_state", f"pool {pool_id} has no free seat")
    if tx.one(
        "SELECT id FROM licence_allocations WHERE pool_id = ? AND employee_id = ? "
        "AND status = 'active'",
        [pool_id, employee_id],
    ):
        raise ToolError("invalid_state", f"{employee_id} already holds a {pool_id} seat")
    row = {
        "id": new_id(tx, "licence_allocations", "LA-"),
        "pool_id": pool_id,
        "employee_id": employee_id,
        "allocated_on": tx.today.isoformat(),
        "last_used_on": None,
        "status": "active",
        "released_on": None,
    }
    return tx.insert("licence_allocations", row)


@tool(mutates=True)
def release_licence(tx: WorldTx, allocation_id: str) -> dict[str, Any]:
    """Release an active licence allocation, freeing its seat.

    Args:
        allocation_id: Allocation id, such as 'LA-00001'.
    """
    return _RELEASE.apply(tx, allocation_id)
