"""Corporate tools: read an account and its travel policy, approve or reject bookings."""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from typing import Any, Literal

from statebox.domains.travel.tools._records import BOOKINGS, booking_row
from statebox.kit import Row, Table, number, stamp
from statebox.tools import ToolError, tool
from statebox.world import WorldTx

__all__ = ["approve_corporate_booking", "get_corporate_account", "reject_corporate_booking"]

_ACCOUNTS = Table("corporate_accounts", "corporate account", "")


@tool(mutates=False)
def get_corporate_account(tx: WorldTx, corporate_account_id: str) -> dict[str, Any]:
    """Get a corporate account, its travel policy and its bookings awaiting approval.

    Args:
        corporate_account_id: Corporate account id, such as 'CORP-01'.
    """
    row = _ACCOUNTS.row(tx, corporate_account_id)
    return {
        **row,
        "pending_approval": tx.query(
            "SELECT id, customer_id, kind, total, start_date FROM bookings "
            "WHERE corporate_account_id = ? AND status = 'pending_approval' ORDER BY id",
            [corporate_account_id],
        ),
    }


def _pending(tx: WorldTx, booking_id: str) -> Row:
    b = booking_row(tx, booking_id)
    if b["status"] != "pending_approval" or b["corporate_account_id"] is None:
        raise ToolError("invalid_state", f"booking {booking_id} is not awaiting corporate approval")
    return b


def _record(tx: WorldTx, booking_id: str, kind: str, new_value: str) -> None:
    tx.insert(
        "booking_changes",
        {
            "id": tx.next_id("booking_changes", prefix="CHG-", width=4),
            "booking_id": booking_id,
            "kind": kind,
            "old_value": "pending_approval",
            "new_value": new_value,
            "fee": 0.0,
            "created_at": stamp(tx),
        },
    )


@tool(mutates=True)
def approve_corporate_booking(tx: WorldTx, booking_id: str, approver_email: str) -> dict[str, Any]:
    """Approve a corporate booking awaiting approval; it becomes confirmed.

    Args:
        booking_id: Booking id, such as 'BK-100001'.
        approver_email: Email of the person approving (recorded on the booking history).
    """
    BOOKINGS.update(tx, _pending(tx, booking_id), {"status": "confirmed"})
    _record(tx, booking_id, "approval", approver_email.strip().lower())
    return {"booking_id": booking_id, "status": "confirmed"}


@tool(mutates=True)
def reject_corporate_booking(
    tx: WorldTx,
    booking_id: str,
    reason: Literal["over_rate_cap", "cabin_not_allowed", "account_suspended", "manager_declined"],
) -> dict[str, Any]:
    """Reject a corporate booking awaiting approval; it becomes rejected and is refunded in full.

    Args:
        booking_id: Booking id, such as 'BK-100001'.
        reason: Why the booking is rejected.
    """
    b = BOOKINGS.update(
        tx, _pending(tx, booking_id), {"status": "rejected", "cancel_reason": reason}
    )
    for pay in tx.query("SELECT * FROM payments WHERE booking_id = ? ORDER BY id", [booking_id]):
        left = round(number(pay["amount"]) - number(pay["refunded_amount"]), 2)
        if left <= 0:
            continue
        tx.update(
            "payments",
            {"id": pay["id"]},
            {"refunded_amount": pay["amount"], "status": "refunded"},
        )
        tx.insert(
            "refunds",
            {
                "id": tx.next_id("refunds", prefix="RFD-", width=4),
                "booking_id": b["id"],
                "payment_id": pay["id"],
                "amount": left,
                "reason": "cancellation",
                "created_at": stamp(tx),
            },
        )
    _record(tx, booking_id, "rejection", reason)
    return {"booking_id": booking_id, "status": "rejected", "reason": reason}
