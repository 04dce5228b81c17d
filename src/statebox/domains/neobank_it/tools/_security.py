"""Security tools: incidents, lost-device handling and SSO account controls.

Hard invariants: a wiped or returned device cannot be marked lost, a wipe needs a device
in use or lost, only a locked account can be unlocked and a disabled account stays
disabled. Severity, when to wipe and when unlocking is allowed are policy.
"""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from typing import Any, Literal

from statebox.domains.neobank_it.tools._records import (
    ACCOUNTS,
    TABLES,
    account_row,
    employee_row,
    row_of,
)
from statebox.kit import Transition, new_id, stamp
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


_LOST = Transition(
    TABLES["devices"],
    allowed=("in_use",),
    to="lost",
    stamp="updated_at",
    refusal="device {id} is {status}",
)
_WIPE = _LOST._replace(allowed=("in_use", "lost"), to="wiped")
_UNLOCK = Transition(
    ACCOUNTS,
    allowed=("locked",),
    to="active",
    stamp="updated_at",
    refusal="account of {id} is {status}",
    column="sso_status",
)
_RESET = Transition(
    ACCOUNTS,
    allowed=None,
    stamp="updated_at",
    refusal="account of {id} is disabled",
    refused=("disabled",),
    column="sso_status",
)
_DISABLE = _RESET._replace(to="disabled", refusal="account of {id} is already disabled")


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
    return _LOST.apply(tx, device_id)


@tool(mutates=True)
def remote_wipe_device(tx: WorldTx, device_id: str) -> dict[str, Any]:
    """Erase a device remotely. Irreversible.

    Args:
        device_id: Device id, such as 'DEV-0001'.
    """
    return _WIPE.apply(tx, device_id)


@tool(mutates=True)
def unlock_account(tx: WorldTx, employee_id: str) -> dict[str, Any]:
    """Unlock a locked SSO account.

    Args:
        employee_id: Employee id, such as 'EMP-0001'.
    """
    return _UNLOCK.write(tx, _UNLOCK.check(account_row(tx, employee_id)), {"lock_reason": None})


@tool(mutates=True)
def force_password_reset(tx: WorldTx, employee_id: str) -> dict[str, Any]:
    """Expire an employee's password and sessions: they must set a new one at next sign-in.

    Args:
        employee_id: Employee id, such as 'EMP-0001'.
    """
    row = _RESET.check(account_row(tx, employee_id))
    if row["must_reset_password"] == 1:
        raise ToolError("invalid_state", f"{employee_id} must already reset the password")
    return _RESET.write(tx, row, {"must_reset_password": 1})


@tool(mutates=True)
def disable_account(tx: WorldTx, employee_id: str) -> dict[str, Any]:
    """Disable an employee's SSO account (offboarding). Irreversible at the service desk.

    Refused while the employee still holds an active access grant.

    Args:
        employee_id: Employee id, such as 'EMP-0001'.
    """
    row = _DISABLE.check(account_row(tx, employee_id))
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
    return _DISABLE.write(tx, row, {"lock_reason": None})
