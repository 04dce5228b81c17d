"""Row lookups shared by the neobank_it tools.

Lookups raise `ToolError("not_found")` with an agent-facing message naming the id format,
so every tool refuses an unknown id the same way. Ids of new rows come from world
sequences starting at 501, above every seeded (< 400) and task-patched (400-499) id.
"""

from __future__ import annotations

from statebox.tools import ToolError
from statebox.world import Scalar, WorldTx

__all__ = ["Row", "employee_row", "new_id", "row_of", "stamp"]

Row = dict[str, Scalar]

_FORMATS = {
    "employees": "'EMP-0001'",
    "systems": "'SYS-CRM'",
    "access_requests": "'AR-00001'",
    "access_grants": "'GR-00001'",
    "licence_pools": "'LIC-FIGMA'",
    "licence_allocations": "'LA-00001'",
    "hardware_catalog": "'HW-LAP-STD'",
    "hardware_orders": "'HO-00001'",
    "security_incidents": "'INC-00001'",
    "devices": "'DEV-0001'",
    "tickets": "'TCK-00001'",
    "departments": "'DEP-ENG'",
}


def stamp(tx: WorldTx) -> str:
    """The episode clock as an ISO 8601 timestamp."""
    return tx.now.isoformat()


def new_id(tx: WorldTx, table: str, prefix: str, width: int = 5) -> str:
    """The next id of a world sequence, numbered above every seeded and patched id."""
    return tx.next_id(table, prefix=prefix, width=width, start=501)


def row_of(tx: WorldTx, table: str, row_id: str) -> Row:
    """The row with primary key ``id`` = ``row_id``, or a not_found refusal."""
    row = tx.one(f'SELECT * FROM "{table}" WHERE id = ?', [row_id])
    if row is None:
        fmt = _FORMATS.get(table, "")
        raise ToolError("not_found", f"no {table} row {row_id!r} (ids look like {fmt})")
    return row


def employee_row(tx: WorldTx, employee_id: str) -> Row:
    """The employee, or a not_found refusal."""
    return row_of(tx, "employees", employee_id)
