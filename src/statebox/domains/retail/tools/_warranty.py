"""Warranty tools: list and read warranties, file a claim.

The tool refuses claims on a void warranty or while another claim is still open;
whether the warranty still covers the issue on today's date is policy.
"""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from typing import Any, Literal

from statebox.domains.retail.tools._records import customer_row
from statebox.kit import Row, Table, Transition, new_id, stamp
from statebox.tools import ToolError, tool
from statebox.world import WorldTx

__all__ = ["file_warranty_claim", "get_warranty", "list_customer_warranties"]

_VIEW = (
    "SELECT w.*, i.order_id, i.product_id, p.name AS product_name, p.price AS product_price "
    "FROM warranties w JOIN order_items i ON i.id = w.order_item_id "
    "JOIN products p ON p.id = i.product_id "
)


_ACTIVE = Transition(Table("warranties", "warranty", "WAR-0001"), allowed=("active",))


def _warranty_row(tx: WorldTx, warranty_id: str) -> Row:
    row = tx.one(_VIEW + "WHERE w.id = ?", [warranty_id])
    if row is None:
        raise ToolError("not_found", f"no warranty {warranty_id!r} (ids look like 'WAR-0001')")
    return row


@tool(mutates=False)
def list_customer_warranties(tx: WorldTx, customer_id: str) -> list[dict[str, Any]]:
    """List a customer's product warranties with product and coverage dates.

    Args:
        customer_id: Customer id, such as 'CUS-0001'.
    """
    customer_row(tx, customer_id)
    return tx.query(_VIEW + "WHERE w.customer_id = ? ORDER BY w.id", [customer_id])


@tool(mutates=False)
def get_warranty(tx: WorldTx, warranty_id: str) -> dict[str, Any]:
    """Get a warranty with its plan, coverage dates, product and past claims.

    Args:
        warranty_id: Warranty id, such as 'WAR-0001'.
    """
    row = _warranty_row(tx, warranty_id)
    claims = tx.query(
        "SELECT id, issue, resolution, status, created_at FROM warranty_claims "
        "WHERE warranty_id = ? ORDER BY id",
        [warranty_id],
    )
    return {**row, "claims": claims}


@tool(mutates=True)
def file_warranty_claim(
    tx: WorldTx,
    warranty_id: str,
    issue: Literal["defect", "battery", "screen", "accidental_damage"],
    resolution: Literal["repair", "replace"],
    description: str,
) -> dict[str, Any]:
    """File a warranty claim for a product (status 'submitted').

    Args:
        warranty_id: Warranty id, such as 'WAR-0001'.
        issue: The kind of problem.
        resolution: Whether the item is to be repaired or replaced.
        description: The customer's description of the problem, in a sentence or two.
    """
    warranty = _warranty_row(tx, warranty_id)
    _ACTIVE.check(warranty)
    if tx.one(
        "SELECT id FROM warranty_claims WHERE warranty_id = ? AND status = 'submitted'",
        [warranty_id],
    ):
        raise ToolError("invalid_state", f"warranty {warranty_id} already has an open claim")
    row = {
        "id": new_id(tx, "warranty_claims", "WCL-"),
        "warranty_id": warranty_id,
        "issue": issue,
        "resolution": resolution,
        "status": "submitted",
        "description": description.strip(),
        "created_at": stamp(tx),
    }
    return tx.insert("warranty_claims", row)
