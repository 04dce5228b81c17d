"""consulting_hr's looked-up tables and its date format (helpers come from `statebox.kit`)."""

from __future__ import annotations

from functools import partial

from statebox import kit
from statebox.kit import Table, Tables

__all__ = ["ACTIVE_EMPLOYEE", "STAFFABLE_EMPLOYEE", "TABLES", "iso_date", "row_of"]

TABLES = Tables(
    Table("employees", "employee", "EMP-0012"),
    Table("clients", "client", "CLI-03"),
    Table("engagements", "engagement", "ENG-105"),
    Table("assignments", "assignment", "ASG-00007"),
    Table("site_access", "site-access grant", "SAC-00003"),
    Table("expense_claims", "expense claim", "EXP-00012"),
    Table("courses", "course", "CRS-104"),
    Table("enrolments", "enrolment", "ENR-00021"),
    Table("software", "software title", "SW-103"),
    Table("licence_allocations", "licence allocation", "LIC-00004"),
    Table("equipment", "asset", "AST-0012"),
    Table("travel_requests", "travel request", "TRV-00002"),
    Table("tickets", "ticket", "TKT-00004"),
)
row_of = TABLES.row
ACTIVE_EMPLOYEE = kit.Transition(TABLES["employees"], allowed=("active",))
"""A guard: the employee works here now (``employee X is <status>`` otherwise)."""
STAFFABLE_EMPLOYEE = kit.Transition(TABLES["employees"], allowed=("active", "pre_start"))
"""A guard: the employee works here now or is about to start."""
iso_date = partial(kit.iso_date, example="2026-03-16")
