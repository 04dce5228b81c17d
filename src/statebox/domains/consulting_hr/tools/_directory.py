"""Employee directory tools: look up people, activate new hires, offboard leavers.

Activation and offboarding write what the tool is told; whether a hire may be activated
(background check, start date) or when access comes off is policy, so a wrong agent can
make the wrong write and be graded on it.
"""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from typing import Any

from statebox.domains.consulting_hr.tools._records import TABLES, iso_date, row_of
from statebox.kit import Row, Transition, found, new_id, stamp, text
from statebox.tools import ToolError, tool
from statebox.world import WorldTx

__all__ = [
    "activate_employee",
    "disable_all_accounts",
    "find_employee_by_email",
    "get_employee",
    "get_employee_access",
    "offboard_employee",
]


def _employee(tx: WorldTx, employee_id: str) -> Row:
    return row_of(tx, "employees", employee_id)


_ACTIVATE = Transition(
    TABLES["employees"],
    allowed=("pre_start",),
    to="active",
    refusal="{noun} {id} is {status}, not pre_start",
)
_OFFBOARD = Transition(TABLES["employees"], allowed=("active", "leaving"))
"""Recording a last day; the status reached depends on the day."""


@tool(mutates=False)
def find_employee_by_email(tx: WorldTx, email: str) -> dict[str, Any]:
    """Find an employee (or a new hire) by work email.

    Args:
        email: Work email, such as 'ada.eastwood@example.com'.
    """
    return found(
        tx,
        "SELECT * FROM employees WHERE lower(email) = lower(?)",
        [email.strip()],
        f"no employee with email {email!r}",
    )


@tool(mutates=False)
def get_employee(tx: WorldTx, employee_id: str) -> dict[str, Any]:
    """Get an employee's record with system accounts, equipment and engagement assignments.

    Args:
        employee_id: Employee id, such as 'EMP-0012'.
    """
    row = _employee(tx, employee_id)
    return {
        **row,
        "accounts": tx.query(
            "SELECT * FROM system_accounts WHERE employee_id = ? ORDER BY id", [employee_id]
        ),
        "equipment": tx.query(
            "SELECT * FROM equipment WHERE employee_id = ? ORDER BY id", [employee_id]
        ),
        "assignments": tx.query(
            "SELECT a.*, e.client_id, e.status AS engagement_status, e.end_date AS "
            "engagement_end_date FROM assignments a JOIN engagements e ON e.id = a.engagement_id "
            "WHERE a.employee_id = ? ORDER BY a.id",
            [employee_id],
        ),
    }


@tool(mutates=False)
def get_employee_access(tx: WorldTx, employee_id: str) -> dict[str, Any]:
    """Get an employee's NDAs, client-site access grants and software licences.

    Args:
        employee_id: Employee id, such as 'EMP-0012'.
    """
    _employee(tx, employee_id)
    return {
        "employee_id": employee_id,
        "ndas": tx.query("SELECT * FROM ndas WHERE employee_id = ? ORDER BY id", [employee_id]),
        "site_access": tx.query(
            "SELECT * FROM site_access WHERE employee_id = ? ORDER BY id", [employee_id]
        ),
        "licences": tx.query(
            "SELECT l.*, s.name AS software_name FROM licence_allocations l "
            "JOIN software s ON s.id = l.software_id WHERE l.employee_id = ? ORDER BY l.id",
            [employee_id],
        ),
    }


@tool(mutates=True)
def activate_employee(tx: WorldTx, employee_id: str) -> dict[str, Any]:
    """Activate a new hire: status 'active' and standard system accounts created.

    Creates email, vpn and timesheet accounts, plus crm for every grade above analyst.

    Args:
        employee_id: Employee id of the new hire, such as 'EMP-0045'.
    """
    row = _ACTIVATE.row(tx, employee_id)
    now = stamp(tx)
    _ACTIVATE.write(tx, row)
    systems = ["email", "vpn", "timesheet"] + (["crm"] if row["grade"] != "analyst" else [])
    accounts = [
        tx.insert(
            "system_accounts",
            {
                "id": new_id(tx, "system_accounts", "ACT-"),
                "employee_id": employee_id,
                "system": s,
                "status": "active",
                "created_at": now,
                "disabled_at": None,
            },
        )
        for s in systems
    ]
    return {**row, "status": "active", "accounts": accounts}


@tool(mutates=True)
def offboard_employee(tx: WorldTx, employee_id: str, last_day: str) -> dict[str, Any]:
    """Record an employee's last working day.

    The status becomes 'left' when the last day is today or earlier, else 'leaving'.
    Accounts, site access, licences and equipment are handled by their own tools.

    Args:
        employee_id: Employee id, such as 'EMP-0012'.
        last_day: Last working day, ISO date such as '2026-03-20'.
    """
    row = _OFFBOARD.row(tx, employee_id)
    day = iso_date(last_day, "last_day")
    status = "left" if day <= tx.today else "leaving"
    return _OFFBOARD.write(tx, row, {"status": status, "end_date": day.isoformat()})


@tool(mutates=True)
def disable_all_accounts(tx: WorldTx, employee_id: str) -> dict[str, Any]:
    """Disable every active system account of an employee whose last day is recorded.

    Args:
        employee_id: Employee id, such as 'EMP-0012'.
    """
    row = _employee(tx, employee_id)
    if row["status"] in ("active", "pre_start"):
        raise ToolError(
            "invalid_state",
            f"employee {employee_id} has no last working day recorded; record it first "
            "(offboard_employee)",
        )
    ids = [
        text(r["id"])
        for r in tx.query(
            "SELECT id FROM system_accounts WHERE employee_id = ? AND status = 'active' "
            "ORDER BY id",
            [employee_id],
        )
    ]
    if not ids:
        raise ToolError("invalid_state", f"employee {employee_id} has no active account")
    now = stamp(tx)
    for account in ids:
        tx.update("system_accounts", {"id": account}, {"status": "disabled", "disabled_at": now})
    return {"employee_id": employee_id, "disabled": ids}
