"""Client-site access tools: record a signed NDA, grant and revoke site access.

The tools do not check prerequisites (NDA, clearance, assignment, expiry cap): the policy
says when a grant is allowed, so a wrong agent can grant access it should not.
"""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from typing import Any

from statebox.domains.consulting_hr.tools._records import ACTIVE_EMPLOYEE, TABLES, iso_date, row_of
from statebox.kit import Transition, in_days, new_id
from statebox.tools import ToolError, tool
from statebox.world import WorldTx

__all__ = ["grant_site_access", "record_nda", "revoke_site_access"]
_REVOKE = Transition(
    TABLES["site_access"],
    allowed=("active",),
    to="revoked",
    today="revoked_on",
    refusal="access {id} is {status}",
)


@tool(mutates=True)
def record_nda(tx: WorldTx, employee_id: str, client_id: str, envelope_id: str) -> dict[str, Any]:
    """Record an NDA the employee signed today through the e-signature service (valid 2 years).

    Args:
        employee_id: Employee id, such as 'EMP-0012'.
        client_id: Client id, such as 'CLI-03'.
        envelope_id: The signed envelope's reference, such as 'ENV-4471-KQ'.
    """
    row_of(tx, "employees", employee_id)
    row_of(tx, "clients", client_id)
    if not envelope_id.strip().upper().startswith("ENV-"):
        raise ToolError("invalid_state", "envelope ids look like 'ENV-4471-KQ'")
    return tx.insert(
        "ndas",
        {
            "id": new_id(tx, "ndas", "NDA-"),
            "employee_id": employee_id,
            "client_id": client_id,
            "envelope_id": envelope_id.strip(),
            "signed_on": tx.today.isoformat(),
            "expires_on": in_days(tx, 730),
        },
    )


@tool(mutates=True)
def grant_site_access(
    tx: WorldTx, employee_id: str, client_id: str, expires_on: str
) -> dict[str, Any]:
    """Grant an employee badge access to a client's site from today until ``expires_on``.

    Args:
        employee_id: Employee id, such as 'EMP-0012'.
        client_id: Client id, such as 'CLI-03'.
        expires_on: Last day of access, ISO date such as '2026-05-31'.
    """
    emp = row_of(tx, "employees", employee_id)
    row_of(tx, "clients", client_id)
    ACTIVE_EMPLOYEE.check(emp)
    if iso_date(expires_on, "expires_on") <= tx.today:
        raise ToolError("invalid_state", "expires_on must be after today")
    if tx.one(
        "SELECT id FROM site_access WHERE employee_id = ? AND client_id = ? AND status = 'active'",
        [employee_id, client_id],
    ):
        raise ToolError("invalid_state", f"{employee_id} already has active access to {client_id}")
    return tx.insert(
        "site_access",
        {
            "id": new_id(tx, "site_access", "SAC-"),
            "employee_id": employee_id,
            "client_id": client_id,
            "status": "active",
            "granted_on": tx.today.isoformat(),
            "expires_on": expires_on,
            "revoked_on": None,
        },
    )


@tool(mutates=True)
def revoke_site_access(tx: WorldTx, access_id: str) -> dict[str, Any]:
    """Revoke an active site-access grant today.

    Args:
        access_id: Site-access id, such as 'SAC-00003'.
    """
    return _REVOKE.apply(tx, access_id)
