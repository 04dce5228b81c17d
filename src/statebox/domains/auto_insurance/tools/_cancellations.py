"""Cancellation tools: schedule a policy cancellation, rescind a scheduled one.

A scheduled cancellation puts the policy in `pending_cancellation`; rescinding it before
its effective date restores `active`. The tools refuse what policy.md §4 forbids outright
(a cancellation while a claim is open, a backdate other than a replaced coverage's of at
most 30 days, rescinding a nonpayment cancellation before everything past due is paid);
the date and reason to choose are policy.
"""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from datetime import timedelta
from typing import Any, Literal

from statebox.domains.auto_insurance.tools._records import (
    POLICIES,
    iso_date,
    open_claims,
    past_due_items,
    policy_row,
    require_active,
)
from statebox.kit import Table, Transition, new_id, stamp, text
from statebox.tools import ToolError, tool
from statebox.world import WorldTx

__all__ = ["rescind_cancellation", "schedule_cancellation"]

_BACKDATE_DAYS = 30
_RESCIND = Transition(
    Table("cancellations", "cancellation", "CAN-00001"),
    allowed=("scheduled",),
    to="rescinded",
    stamp="rescinded_at",
)


@tool(mutates=True)
def schedule_cancellation(
    tx: WorldTx,
    policy_id: str,
    effective_date: str,
    reason: Literal["customer_request", "replaced_coverage", "vehicle_sold", "moved_out_of_state"],
) -> dict[str, Any]:
    """Schedule the cancellation of a policy on a date within its current term.

    Args:
        policy_id: Policy number, such as 'POL-300001'.
        effective_date: The day coverage ends, 'YYYY-MM-DD'.
        reason: Why the policy is cancelled.
    """
    policy = policy_row(tx, policy_id)
    require_active(policy)
    if policy["status"] == "pending_cancellation":
        raise ToolError("invalid_state", f"policy {policy_id} already has a scheduled cancellation")
    claims = open_claims(tx, policy_id)
    if claims:
        raise ToolError(
            "invalid_state",
            f"claim {claims[0]} is still open: a cancellation goes to the claims team",
        )
    when = iso_date(effective_date, "effective_date")
    if when < tx.today:
        if reason != "replaced_coverage":
            raise ToolError("invalid_state", "the effective date cannot be before today")
        if when < tx.today - timedelta(days=_BACKDATE_DAYS):
            raise ToolError(
                "invalid_state",
                f"a replaced-coverage cancellation goes back at most {_BACKDATE_DAYS} days",
            )
    if not text(policy["term_start"]) <= when.isoformat() <= text(policy["term_end"]):
        raise ToolError("invalid_state", "the effective date must fall within the policy term")
    row = tx.insert(
        "cancellations",
        {
            "id": new_id(tx, "cancellations", "CAN-"),
            "policy_id": policy_id,
            "reason": reason,
            "effective_date": when.isoformat(),
            "status": "scheduled",
            "created_at": stamp(tx),
            "rescinded_at": None,
        },
    )
    POLICIES.update(tx, policy, {"status": "pending_cancellation"})
    return {**row, "policy_status": "pending_cancellation"}


@tool(mutates=True)
def rescind_cancellation(tx: WorldTx, cancellation_id: str) -> dict[str, Any]:
    """Rescind a scheduled cancellation before its effective date; the policy becomes active again.

    Args:
        cancellation_id: Cancellation id, such as 'CAN-00001'.
    """
    row = _RESCIND.table.row(tx, cancellation_id)
    policy_id = text(row["policy_id"])
    policy = policy_row(tx, policy_id)
    _RESCIND.check(row)
    if text(row["effective_date"]) <= tx.today.isoformat():
        raise ToolError(
            "invalid_state", "the cancellation is already in effect; it can no longer be rescinded"
        )
    owed = past_due_items(tx, policy_id) if row["reason"] == "nonpayment" else []
    if owed:
        raise ToolError(
            "invalid_state",
            f"a nonpayment cancellation is rescinded only once everything past due is paid: "
            f"{', '.join(owed)}",
        )
    _RESCIND.write(tx, row)
    POLICIES.update(tx, policy, {"status": "active"})
    return {"cancellation_id": cancellation_id, "status": "rescinded", "policy_status": "active"}
