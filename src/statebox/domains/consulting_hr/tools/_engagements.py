"""Engagement and client tools: read engagements and clients, staff and release people.

The tool refuses only what cannot be true (a closed engagement, a duplicate assignment);
how many engagements one person may carry and who may lead are policy.
"""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from typing import Any, Literal

from statebox.domains.consulting_hr.tools._records import (
    STAFFABLE_EMPLOYEE,
    TABLES,
    iso_date,
    row_of,
)
from statebox.kit import Transition, new_id, text
from statebox.tools import ToolError, tool
from statebox.world import WorldTx

__all__ = ["assign_to_engagement", "end_assignment", "get_client", "get_engagement"]
_ACTIVE_ENGAGEMENT = Transition(TABLES["engagements"], allowed=("active",))
_END = Transition(TABLES["assignments"], allowed=("active",), to="ended", today="end_date")


@tool(mutates=False)
def get_engagement(tx: WorldTx, engagement_id: str) -> dict[str, Any]:
    """Get an engagement with its client's site requirements and active staff.

    Args:
        engagement_id: Engagement id, such as 'ENG-105'.
    """
    row = row_of(tx, "engagements", engagement_id)
    client = row_of(tx, "clients", str(row["client_id"]))
    staff = tx.query(
        "SELECT id, employee_id, role, start_date FROM assignments "
        "WHERE engagement_id = ? AND status = 'active' ORDER BY id",
        [engagement_id],
    )
    return {**row, "client": client, "staff": staff}


@tool(mutates=False)
def get_client(tx: WorldTx, client_id: str) -> dict[str, Any]:
    """Get a client with its NDA and clearance requirements and its engagements.

    Args:
        client_id: Client id, such as 'CLI-03'.
    """
    row = row_of(tx, "clients", client_id)
    engagements = tx.query(
        "SELECT id, name, status, start_date, end_date FROM engagements WHERE client_id = ? "
        "ORDER BY id",
        [client_id],
    )
    return {**row, "engagements": engagements}


@tool(mutates=True)
def assign_to_engagement(
    tx: WorldTx,
    employee_id: str,
    engagement_id: str,
    role: Literal["analyst", "consultant", "lead"],
    start_date: str,
) -> dict[str, Any]:
    """Staff an employee on an active engagement.

    Args:
        employee_id: Employee id, such as 'EMP-0012'.
        engagement_id: Engagement id, such as 'ENG-105'.
        role: The role on the engagement.
        start_date: First day on the engagement, ISO date such as '2026-03-09'.
    """
    emp = row_of(tx, "employees", employee_id)
    eng = row_of(tx, "engagements", engagement_id)
    _ACTIVE_ENGAGEMENT.check(eng)
    STAFFABLE_EMPLOYEE.check(emp)
    if iso_date(start_date, "start_date") > iso_date(text(eng["end_date"]), "end_date"):
        raise ToolError("invalid_state", f"engagement {engagement_id} ends before {start_date}")
    if tx.one(
        "SELECT id FROM assignments WHERE employee_id = ? AND engagement_id = ? "
        "AND status = 'active'",
        [employee_id, engagement_id],
    ):
        raise ToolError("invalid_state", f"{employee_id} is already on {engagement_id}")
    return tx.insert(
        "assignments",
        {
            "id": new_id(tx, "assignments", "ASG-"),
            "employee_id": employee_id,
            "engagement_id": engagement_id,
            "role": role,
            "status": "active",
            "start_date": start_date,
            "end_date": None,
        },
    )


@tool(mutates=True)
def end_assignment(tx: WorldTx, assignment_id: str) -> dict[str, Any]:
    """End an active assignment today.

    Args:
        assignment_id: Assignment id, such as 'ASG-00007'.
    """
    return _END.apply(tx, assignment_id)
