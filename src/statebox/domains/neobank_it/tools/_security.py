"""Security tools: incidents, lost-device handling and SSO account controls.

Hard invariants: a wiped or returned device cannot be marked lost, a wipe needs a device
in use or lost, only a locked account can be unlocked and a disabled account stays
disabled. Severity, when to wipe and when unlocking is allowed are policy.
"""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from typing import Any, Literal

from statebox.domains.neobank_it.tools._records import employee_row, row_of
from statebox.kit import Row, new_id, stamp
from statebox.tools import ToolError, tool
from statebox.world import WorldTx

__all__ = [
    "disable_account",
    "force_password_reset",
    "get_incident",
    "mark_device_lost",
    "remote_wipe_device",
    "report_security_incident",
    "unlock_account",
]


def _account(tx: WorldTx, employee_id: str) -> Row:
    employee_row(tx, employee_id)
    row = tx.one("SELECT * FROM accounts WHERE employee_id = ?", [employee_id])
    if row is None:
        raise ToolError("not_found", f"employee {employee_id} has no SSO account")
    return row


@tool(mutates=False)
def get_incident(tx: WorldTx, incident_id: str) -> dict[str, Any]:
    """Get a security incident.

    Args:
        incident_id: Incident id, such as 'INC-00001'.
    """
    return row_of(tx, "security_incidents", incident_id)


@tool(mutates=True)
def report_security_incident(
    tx: WorldTx,
    reporter_id: str,
    category: Literal["phishing", "lost_device", "malware", "account_compromise", "data_leak"],
    severity: Literal["low", "medium", "high", "critical"],
    description: str,
    device_id: str | None = None,
) -> dict[str, Any]:
    """Open a security incident (status 'open').

    Args:
        reporter_id: Employee reporting it, such as 'EMP-0001'.
        category: Incident category.
        severity: Severity under the security policy.
        description: What happened, in the reporter's words.
        device_id: The device involved, such as 'DEV-0001'; null when none.
    """
    employee_row(tx, reporter_id)
    if device_id is not None:
        row_of(tx, "devices", device_id)
    if not description.strip():
        raise ToolError("invalid_state", "description must not be empty")
    row = {
        "id": new_id(tx, "security_incidents", "INC-"),
        "reporter_id": reporter_id,
        "category": category,
        "severity": severity,
        "device_id": device_id,
        "status": "open",
        "description": description.strip(),
        "created_at": stamp(tx),
    }
    return tx.insert("security_incidents", row)


@tool(mutates=True)
def mark_device_lost(tx: WorldTx, device_id: str) -> dict[str, Any]:
    """Mark a device lost or stolen (blocks it from the network).

    Args:
        device_id: Device id, such as 'DEV-0001'.
    """
    row = row_of(tx, "devices", device_id)
    if row["status"] != "in_use":
        raise ToolError("invalid_state", f"device {device_id} is {row['status']}")
    values = {"status": "lost", "updated_at": stamp(tx)}
    tx.update("devices", {"id": device_id}, values)
    return {**row, **values}


@tool(mutates=True)
def remote_wipe_device(tx: WorldTx, device_id: str) -> dict[str, Any]:
    """Erase a device remotely. Irreversible.

    Args:
        device_id: Device id, such as 'DEV-0001'.
    """
    row = row_of(tx, "devices", device_id)
    if row["status"] not in ("in_use", "lost"):
        raise ToolError("invalid_state", f"device {device_id} is {row['status']}")
    values = {"status": "wiped", "updated_at": stamp(tx)}
    tx.update("devices", {"id": device_id}, values)
    return {**row, **values}


@tool(mutates=True)
def unlock_account(tx: WorldTx, employee_id: str) -> dict[str, Any]:
    """Unlock a locked SSO account.

    Args:
        employee_id: Employee id, such as 'EMP-0001'.
    """
    row = _account(tx, employee_id)
    if row["sso_status"] != "locked":
        raise ToolError("invalid_state", f"account of {employee_id} is {row['sso_status']}")
    values = {"sso_status": "active", "lock_reason": None, "updated_at": stamp(tx)}
    tx.update("accounts", {"employee_id": employee_id}, values)
    return {**row, **values}


@tool(mutates=True)
def force_password_reset(tx: WorldTx, employee_id: str) -> dict[str, Any]:
    """Expire an employee's password and sessions: they must set a new one at next sign-in.

    Args:
        employee_id: Employee id, such as 'EMP-0001'.
    """
    row = _account(tx, employee_id)
    if row["sso_status"] == "disabled":
        raise ToolError("invalid_state", f"account of {employee_id} is disabled")
    if row["must_reset_password"] == 1:
        raise ToolError("invalid_state", f"{employee_id} must already reset the password")
    values = {"must_reset_password": 1, "updated_at": stamp(tx)}
    tx.update("accounts", {"employee_id": employee_id}, values)
    return {**row, **values}


@tool(mutates=True)
def disable_account(tx: WorldTx, employee_id: str) -> dict[str, Any]:
    """Disable an employee's SSO account (offboarding). Irreversible at the service desk.

    Refused while the employee still holds an active access grant.

    Args:
        employee_id: Employee id, such as 'EMP-0001'.
    """
    row = _account(tx, employee_id)
    if row["sso_status"] == "disabled":
        raise ToolError("invalid_state", f"account of {employee_id} is already disabled")
    # Disabling first would leave grants no one reviews (policy §4.3: revoke, then disable).
    held = tx.query(
        "SELECT id FROM access_grants WHERE employee_id = ? AND status = 'active' ORDER BY id",
        [employee_id],
    )
    if held:
        ids = ", ".join(str(g["id"]) for g in held)
        raise ToolError(
            "invalid_state",
            f"{employee_id} still holds active grants ({ids}); revoke them before disabling",
        )
    values = {"sso_status": "disabled", "lock_reason": None, "updated_at": stamp(tx)}
    tx.update("accounts", {"employee_id": employee_id}, values)
    return {**row, **values}
