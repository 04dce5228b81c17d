"""Directory tools: find and read employees, departments and SSO accounts."""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from typing import Any

from statebox.domains.neobank_it.tools._records import account_row, employee_row, row_of
from statebox.kit import found
from statebox.tools import tool
from statebox.world import WorldTx

__all__ = ["find_employee_by_email", "get_account", "get_department", "get_employee"]


def _profile(tx: WorldTx, employee_id: str) -> dict[str, Any]:
    row = employee_row(tx, employee_id)
    manager = None
    if row["manager_id"] is not None:
        manager = tx.one(
            "SELECT id, first_name, last_name, email, title FROM employees WHERE id = ?",
            [row["manager_id"]],
        )
    return {**row, "manager": manager}


@tool(mutates=False)
def find_employee_by_email(tx: WorldTx, email: str) -> dict[str, Any]:
    """Find an employee by work email; returns the profile with the manager's contact.

    Args:
        email: Work email, such as 'avery.hollis@neobank.example.com'.
    """
    row = found(
        tx,
        "SELECT id FROM employees WHERE lower(email) = lower(?)",
        [email.strip()],
        f"no employee with email {email!r}",
    )
    return _profile(tx, str(row["id"]))


@tool(mutates=False)
def get_employee(tx: WorldTx, employee_id: str) -> dict[str, Any]:
    """Get an employee's profile: department, manager, level, employment type, status, dates.

    Args:
        employee_id: Employee id, such as 'EMP-0001'.
    """
    return _profile(tx, employee_id)


@tool(mutates=False)
def get_department(tx: WorldTx, department_id: str) -> dict[str, Any]:
    """Get a department with its head's contact details.

    Args:
        department_id: Department id, such as 'DEP-ENG'.
    """
    row = row_of(tx, "departments", department_id)
    head = tx.one(
        "SELECT id, first_name, last_name, email FROM employees WHERE id = ?", [row["head_id"]]
    )
    return {**row, "head": head}


@tool(mutates=False)
def get_account(tx: WorldTx, employee_id: str) -> dict[str, Any]:
    """Get an employee's SSO account: status, lock reason, MFA enrolment.

    Args:
        employee_id: Employee id, such as 'EMP-0001'.
    """
    return account_row(tx, employee_id)
