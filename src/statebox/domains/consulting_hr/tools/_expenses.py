"""Expense tools: limits, claims, submit, approve, hold, reject.

The tools enforce only the claim's life cycle (a decided claim stays decided, a claim held for
its receipt is approved only once the receipt is attached); limits, receipts and the submission
window are policy.
"""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from typing import Any, Literal

from statebox.domains.consulting_hr.tools._records import TABLES, iso_date, row_of
from statebox.kit import Transition, cents, new_id, stamp
from statebox.tools import ToolError, tool
from statebox.world import WorldTx

__all__ = [
    "approve_expense_claim",
    "attach_receipt",
    "get_expense_claim",
    "get_expense_limits",
    "hold_expense_claim",
    "list_expense_claims",
    "reject_expense_claim",
    "submit_expense_claim",
]

Category = Literal[
    "airfare",
    "client_entertainment",
    "ground_transport",
    "home_office",
    "lodging",
    "meals",
    "training_materials",
]


_OPEN = Transition(
    TABLES["expense_claims"],
    allowed=("submitted", "on_hold"),
    refusal="claim {id} is {status}; it is decided",
)
"""An undecided claim; the decisions below set their own status."""
_CLAIMANT = Transition(TABLES["employees"], allowed=("active", "leaving"))
"""A guard: only someone still on the payroll claims expenses."""


def _decide(tx: WorldTx, claim_id: str, status: str, reason: str) -> dict[str, Any]:
    row = _OPEN.row(tx, claim_id)
    if row["status"] == status and row["decision_reason"] == reason:
        raise ToolError("invalid_state", f"claim {claim_id} is already {status} ({reason})")
    decided = _OPEN._replace(to=status, stamp="decided_at")
    return decided.write(tx, row, {"decision_reason": reason})


@tool(mutates=False)
def get_expense_limits(tx: WorldTx) -> list[dict[str, Any]]:
    """List the per-claim limit and the receipt threshold of every expense category (dollars)."""
    return tx.query("SELECT * FROM expense_limits ORDER BY category")


@tool(mutates=False)
def list_expense_claims(tx: WorldTx, employee_id: str) -> list[dict[str, Any]]:
    """List an employee's expense claims, newest first.

    Args:
        employee_id: Employee id, such as 'EMP-0012'.
    """
    row_of(tx, "employees", employee_id)
    return tx.query(
        "SELECT * FROM expense_claims WHERE employee_id = ? ORDER BY submitted_at DESC, id",
        [employee_id],
    )


@tool(mutates=False)
def get_expense_claim(tx: WorldTx, claim_id: str) -> dict[str, Any]:
    """Get one expense claim.

    Args:
        claim_id: Claim id, such as 'EXP-00012'.
    """
    return row_of(tx, "expense_claims", claim_id)


@tool(mutates=True)
def submit_expense_claim(
    tx: WorldTx,
    employee_id: str,
    category: Category,
    amount: float,
    incurred_on: str,
    receipt: bool,
    description: str,
    engagement_id: str | None = None,
) -> dict[str, Any]:
    """Submit an expense claim for an employee (status 'submitted').

    Args:
        employee_id: Employee id, such as 'EMP-0012'.
        category: Expense category.
        amount: Amount in dollars, such as 64.5.
        incurred_on: Day the expense was incurred, ISO date such as '2026-02-20'.
        receipt: Whether the employee has an itemised receipt for it.
        description: Short description of the expense.
        engagement_id: The engagement to bill, such as 'ENG-105'; null for internal costs.
    """
    _CLAIMANT.row(tx, employee_id)
    if engagement_id is not None:
        row_of(tx, "engagements", engagement_id)
    if amount <= 0:
        raise ToolError("invalid_state", "amount must be positive")
    if iso_date(incurred_on, "incurred_on") > tx.today:
        raise ToolError("invalid_state", "incurred_on cannot be in the future")
    return tx.insert(
        "expense_claims",
        {
            "id": new_id(tx, "expense_claims", "EXP-"),
            "employee_id": employee_id,
            "engagement_id": engagement_id,
            "category": category,
            "amount": cents(amount),
            "incurred_on": incurred_on,
            "receipt": int(receipt),
            "description": description.strip() or category,
            "status": "submitted",
            "decision_reason": None,
            "submitted_at": stamp(tx),
            "decided_at": None,
        },
    )


@tool(mutates=True)
def approve_expense_claim(tx: WorldTx, claim_id: str) -> dict[str, Any]:
    """Approve a submitted or held claim for payment (reason 'within_policy').

    Args:
        claim_id: Claim id, such as 'EXP-00012'.
    """
    row = _OPEN.row(tx, claim_id)
    if row["decision_reason"] == "missing_receipt" and not row["receipt"]:
        raise ToolError(
            "invalid_state",
            f"claim {claim_id} is held for a missing receipt; attach the receipt first "
            "(attach_receipt)",
        )
    return _decide(tx, claim_id, "approved", "within_policy")


@tool(mutates=True)
def attach_receipt(tx: WorldTx, claim_id: str) -> dict[str, Any]:
    """Record that the itemised receipt of an undecided claim has been uploaded.

    The claim keeps its status; decide it afterwards.

    Args:
        claim_id: Claim id, such as 'EXP-00012'.
    """
    row = _OPEN.row(tx, claim_id)
    if row["receipt"]:
        raise ToolError("invalid_state", f"claim {claim_id} already has its receipt")
    return _OPEN.write(tx, row, {"receipt": 1})


@tool(mutates=True)
def hold_expense_claim(
    tx: WorldTx, claim_id: str, reason: Literal["missing_receipt", "over_limit"]
) -> dict[str, Any]:
    """Put a claim on hold until a receipt arrives or the manager approves the excess.

    Args:
        claim_id: Claim id, such as 'EXP-00012'.
        reason: What the claim waits for.
    """
    return _decide(tx, claim_id, "on_hold", reason)


@tool(mutates=True)
def reject_expense_claim(
    tx: WorldTx,
    claim_id: str,
    reason: Literal["late_submission", "not_reimbursable", "duplicate"],
) -> dict[str, Any]:
    """Reject a submitted or held claim.

    Args:
        claim_id: Claim id, such as 'EXP-00012'.
        reason: Why the claim is rejected.
    """
    return _decide(tx, claim_id, "rejected", reason)
