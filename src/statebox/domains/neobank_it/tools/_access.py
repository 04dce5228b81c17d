"""Access tools: systems, access requests with their approvals, and access grants.

Hard invariants only: a decided request cannot be decided again, a revoked grant cannot be
changed, a terminated employee cannot be granted access and an expiry date must lie in the
future. Whether the approvals suffice, whether segregation of duties allows the grant and
how long it may last are policy (policy.md), so a wrong agent can make the wrong write.
"""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from datetime import date
from typing import Any, Literal

from statebox.domains.neobank_it.tools._records import TABLES, employee_row, row_of
from statebox.kit import Transition, new_id, stamp
from statebox.tools import ToolError, tool
from statebox.world import WorldTx

__all__ = [
    "create_access_request",
    "extend_access",
    "get_access_request",
    "grant_access",
    "list_employee_access",
    "list_systems",
    "reject_access_request",
    "revoke_access",
]

Role = Literal["read", "write", "admin"]


def _future(tx: WorldTx, expires_on: str) -> str:
    try:
        day = date.fromisoformat(expires_on)
    except ValueError:
        raise ToolError("invalid_state", f"expires_on {expires_on!r} is not YYYY-MM-DD") from None
    if day <= tx.today:
        raise ToolError("invalid_state", f"expires_on {expires_on} is not after today")
    return day.isoformat()


_PROVISION = Transition(
    TABLES["access_requests"],
    allowed=("pending",),
    to="provisioned",
    stamp="decided_at",
    refusal="request {id} is already {status}",
)
_REJECT = _PROVISION._replace(to="rejected")
_ACTIVE_GRANT = Transition(
    TABLES["access_grants"], allowed=("active",), refusal="grant {id} is {status}"
)
_REVOKE = _ACTIVE_GRANT._replace(to="revoked", stamp="revoked_at")


@tool(mutates=False)
def list_systems(tx: WorldTx) -> list[dict[str, Any]]:
    """List every business system with its owner and access rules.

    Each row has the owner's contact, data class, approval policy, longest grant in days
    and the system it conflicts with under segregation of duties.
    """
    return tx.query(
        "SELECT s.*, e.email AS owner_email, e.first_name || ' ' || e.last_name AS owner_name "
        "FROM systems s JOIN employees e ON e.id = s.owner_id ORDER BY s.id"
    )


@tool(mutates=False)
def list_employee_access(tx: WorldTx, employee_id: str) -> dict[str, Any]:
    """List an employee's access grants (active and revoked) and access requests.

    Args:
        employee_id: Employee id, such as 'EMP-0001'.
    """
    employee_row(tx, employee_id)
    return {
        "grants": tx.query(
            "SELECT * FROM access_grants WHERE employee_id = ? ORDER BY id", [employee_id]
        ),
        "requests": tx.query(
            "SELECT id, system_id, role, requested_days, status, decision_reason, created_at "
            "FROM access_requests WHERE employee_id = ? ORDER BY id",
            [employee_id],
        ),
    }


@tool(mutates=False)
def get_access_request(tx: WorldTx, request_id: str) -> dict[str, Any]:
    """Get an access request with every approval decision recorded on it.

    Args:
        request_id: Access request id, such as 'AR-00001'.
    """
    row = row_of(tx, "access_requests", request_id)
    approvals = tx.query(
        "SELECT a.id, a.approver_id, e.first_name || ' ' || e.last_name AS approver_name, "
        "a.approver_role, a.decision, a.decided_at FROM approvals a "
        "JOIN employees e ON e.id = a.approver_id WHERE a.request_id = ? ORDER BY a.id",
        [request_id],
    )
    return {**row, "approvals": approvals}


@tool(mutates=True)
def create_access_request(
    tx: WorldTx,
    employee_id: str,
    system_id: str,
    role: Role,
    requested_days: int,
    justification: str,
) -> dict[str, Any]:
    """File a new access request (status 'pending') for an employee.

    Refused while the employee has a pending request for the same system.

    Args:
        employee_id: The employee who needs access, such as 'EMP-0001'.
        system_id: System id, such as 'SYS-CRM'.
        role: Access role requested (least privilege: the lowest role that covers the need).
        requested_days: How many days the access is needed.
        justification: Why the access is needed, in the employee's words.
    """
    employee_row(tx, employee_id)
    row_of(tx, "systems", system_id)
    # One open request per system: a second one would split the approvals (policy §2.3).
    pending = tx.one(
        "SELECT id FROM access_requests WHERE employee_id = ? AND system_id = ? "
        "AND status = 'pending' ORDER BY id",
        [employee_id, system_id],
    )
    if pending is not None:
        raise ToolError(
            "invalid_state",
            f"request {pending['id']} for {system_id} is already pending for {employee_id}; "
            "chase its approvals instead of filing another",
        )
    if requested_days <= 0:
        raise ToolError("invalid_state", "requested_days must be positive")
    if not justification.strip():
        raise ToolError("invalid_state", "justification must not be empty")
    row = {
        "id": new_id(tx, "access_requests", "AR-"),
        "employee_id": employee_id,
        "system_id": system_id,
        "role": role,
        "requested_days": requested_days,
        "justification": justification.strip(),
        "status": "pending",
        "decision_reason": None,
        "created_at": stamp(tx),
        "decided_at": None,
    }
    return tx.insert("access_requests", row)


@tool(mutates=True)
def grant_access(tx: WorldTx, request_id: str, role: Role, expires_on: str) -> dict[str, Any]:
    """Provision a pending access request as an active grant; the request becomes 'provisioned'.

    Args:
        request_id: Access request id, such as 'AR-00001'.
        role: Role to grant; at most the role requested.
        expires_on: Last day of access, YYYY-MM-DD, after today.
    """
    req = _PROVISION.row(tx, request_id)
    order = ("read", "write", "admin")
    if order.index(role) > order.index(str(req["role"])):
        raise ToolError("not_permitted", f"role {role} exceeds the {req['role']} requested")
    employee = employee_row(tx, str(req["employee_id"]))
    if employee["status"] == "terminated":
        raise ToolError("invalid_state", f"employee {employee['id']} is terminated")
    expires = _future(tx, expires_on)
    grant = {
        "id": new_id(tx, "access_grants", "GR-"),
        "employee_id": req["employee_id"],
        "system_id": req["system_id"],
        "role": role,
        "request_id": request_id,
        "granted_on": tx.today.isoformat(),
        "expires_on": expires,
        "status": "active",
        "revoke_reason": None,
        "revoked_at": None,
    }
    tx.insert("access_grants", grant)
    _PROVISION.write(tx, req)
    return grant


@tool(mutates=True)
def reject_access_request(
    tx: WorldTx,
    request_id: str,
    reason: Literal[
        "sod_conflict", "approver_rejected", "contractor_restricted", "not_eligible", "duplicate"
    ],
) -> dict[str, Any]:
    """Reject a pending access request with a reason code.

    Args:
        request_id: Access request id, such as 'AR-00001'.
        reason: Why the request is rejected.
    """
    return _REJECT.apply(tx, request_id, {"decision_reason": reason})


@tool(mutates=True)
def revoke_access(
    tx: WorldTx,
    grant_id: str,
    reason: Literal["role_change", "offboarding", "sod_conflict", "security", "no_longer_needed"],
) -> dict[str, Any]:
    """Revoke an active access grant.

    Args:
        grant_id: Grant id, such as 'GR-00001'.
        reason: Why the access is removed.
    """
    return _REVOKE.apply(tx, grant_id, {"revoke_reason": reason})


@tool(mutates=True)
def extend_access(tx: WorldTx, grant_id: str, expires_on: str) -> dict[str, Any]:
    """Move an active, unexpired grant's expiry date (an expired grant is refused).

    Args:
        grant_id: Grant id, such as 'GR-00001'.
        expires_on: New last day of access, YYYY-MM-DD, after today.
    """
    row = _ACTIVE_GRANT.row(tx, grant_id)
    if str(row["expires_on"]) < tx.today.isoformat():
        raise ToolError(
            "invalid_state",
            f"grant {grant_id} expired on {row['expires_on']}; an expired grant cannot be "
            "extended: file a new access request",
        )
    expires = _future(tx, expires_on)
    if expires == row["expires_on"]:
        raise ToolError("invalid_state", f"grant {grant_id} already expires on {expires}")
    return _ACTIVE_GRANT.write(tx, row, {"expires_on": expires})
