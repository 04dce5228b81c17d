"""neobank_it's looked-up tables (helpers come from `statebox.kit`).

Ids of new rows come from world sequences starting at 501, above every seeded (< 400)
and task-patched (400-499) id.
"""

from __future__ import annotations

from statebox.kit import Row, Table, Tables
from statebox.tools import ToolError
from statebox.world import WorldTx

__all__ = ["ACCOUNTS", "TABLES", "account_row", "employee_row", "row_of"]

TABLES = Tables(
    *(
        Table(name, f"{name} row", example)
        for name, example in (
            ("employees", "EMP-0001"),
            ("systems", "SYS-CRM"),
            ("access_requests", "AR-00001"),
            ("access_grants", "GR-00001"),
            ("licence_pools", "LIC-FIGMA"),
            ("licence_allocations", "LA-00001"),
            ("hardware_catalog", "HW-LAP-STD"),
            ("hardware_orders", "HO-00001"),
            ("security_incidents", "INC-00001"),
            ("devices", "DEV-0001"),
            ("tickets", "TCK-00001"),
            ("departments", "DEP-ENG"),
        )
    )
)
row_of = TABLES.row
employee_row = TABLES["employees"].row
ACCOUNTS = Table("accounts", "account", "", key="employee_id")
"""SSO accounts, one per employee, keyed by the employee id."""


def account_row(tx: WorldTx, employee_id: str) -> Row:
    """An employee's SSO account (the employee looked up first).

    Raises:
        ToolError: ``not_found`` for an unknown employee or one with no account.
    """
    employee_row(tx, employee_id)
    row = ACCOUNTS.get(tx, employee_id)
    if row is None:
        raise ToolError("not_found", f"employee {employee_id} has no SSO account")
    return row
