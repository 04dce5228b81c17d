"""neobank_it's looked-up tables (helpers come from `statebox.kit`).

Ids of new rows come from world sequences starting at 501, above every seeded (< 400)
and task-patched (400-499) id.
"""

from __future__ import annotations

from statebox.kit import Table, Tables

__all__ = ["TABLES", "employee_row", "row_of"]

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
