"""Support ticket tools: read, list, create, update, hold, escalate, add notes."""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from typing import Any, Literal

from statebox.domains.travel.tools._records import Row, booking_row, customer_row, stamp
from statebox.tools import ToolError, tool
from statebox.world import WorldTx

__all__ = [
    "add_ticket_note",
    "create_ticket",
    "escalate_ticket",
    "get_ticket",
    "hold_ticket",
    "list_customer_tickets",
    "update_ticket",
]

Category = Literal["cancellation", "change", "billing", "hotel", "loyalty", "corporate", "other"]


def _ticket(tx: WorldTx, ticket_id: str) -> Row:
    row = tx.one("SELECT * FROM tickets WHERE id = ?", [ticket_id])
    if row is None:
        raise ToolError("not_found", f"no ticket {ticket_id!r} (ids look like 'TKT-0001')")
    return row


def _touch(tx: WorldTx, ticket_id: str, values: dict[str, Any]) -> Row:
    tx.update("tickets", {"id": ticket_id}, {**values, "updated_at": stamp(tx)})
    return _ticket(tx, ticket_id)


@tool(mutates=False)
def get_ticket(tx: WorldTx, ticket_id: str) -> dict[str, Any]:
    """Get a support ticket and its notes.

    Args:
        ticket_id: Ticket id, such as 'TKT-0001'.
    """
    row = _ticket(tx, ticket_id)
    notes = tx.query("SELECT * FROM ticket_notes WHERE ticket_id = ? ORDER BY id", [ticket_id])
    return {**row, "notes": notes}


@tool(mutates=False)
def list_customer_tickets(tx: WorldTx, customer_id: str) -> list[dict[str, Any]]:
    """List a customer's support tickets (id, booking, subject, category, status).

    Args:
        customer_id: Customer id, such as 'CUS-0001'.
    """
    customer_row(tx, customer_id)
    return tx.query(
        "SELECT id, booking_id, subject, category, status, priority FROM tickets "
        "WHERE customer_id = ? ORDER BY id",
        [customer_id],
    )


@tool(mutates=True)
def create_ticket(
    tx: WorldTx,
    customer_id: str,
    category: Category,
    subject: str,
    priority: Literal["low", "normal", "high", "urgent"],
    booking_id: str | None = None,
) -> dict[str, Any]:
    """Open a support ticket for a customer.

    Args:
        customer_id: Customer id, such as 'CUS-0001'.
        category: Ticket category.
        subject: One-line summary.
        priority: Ticket priority.
        booking_id: The booking it concerns, such as 'BK-100001', if any.
    """
    customer_row(tx, customer_id)
    if booking_id is not None and booking_row(tx, booking_id)["customer_id"] != customer_id:
        raise ToolError("not_permitted", f"booking {booking_id} is not this customer's")
    row = {
        "id": tx.next_id("tickets", prefix="TKT-", width=4, start=501),
        "customer_id": customer_id,
        "booking_id": booking_id,
        "subject": subject,
        "category": category,
        "status": "open",
        "priority": priority,
        "hold_reason": None,
        "escalation_reason": None,
        "created_at": stamp(tx),
        "updated_at": stamp(tx),
    }
    return tx.insert("tickets", row)


@tool(mutates=True)
def update_ticket(
    tx: WorldTx,
    ticket_id: str,
    status: Literal["open", "solved"],
    priority: Literal["low", "normal", "high", "urgent"] | None = None,
) -> dict[str, Any]:
    """Set a ticket's status to open or solved, and optionally its priority.

    Args:
        ticket_id: Ticket id, such as 'TKT-0001'.
        status: New status.
        priority: New priority; omit to keep.
    """
    row = _ticket(tx, ticket_id)
    values: dict[str, Any] = {"status": status, "hold_reason": None}
    if priority is not None:
        values["priority"] = priority
    if row["status"] == status and (priority is None or priority == row["priority"]):
        raise ToolError("invalid_state", f"ticket {ticket_id} is already {status}")
    return _touch(tx, ticket_id, values)


@tool(mutates=True)
def hold_ticket(
    tx: WorldTx,
    ticket_id: str,
    reason: Literal["awaiting_hotel", "awaiting_airline", "awaiting_customer", "awaiting_approval"],
) -> dict[str, Any]:
    """Put a ticket on hold while waiting on someone else.

    Args:
        ticket_id: Ticket id, such as 'TKT-0001'.
        reason: Who the ticket is waiting on.
    """
    row = _ticket(tx, ticket_id)
    if row["status"] == "solved":
        raise ToolError("invalid_state", f"ticket {ticket_id} is solved; reopen it first")
    return _touch(tx, ticket_id, {"status": "hold", "hold_reason": reason})


@tool(mutates=True)
def escalate_ticket(
    tx: WorldTx,
    ticket_id: str,
    reason: Literal["refund_over_limit", "safety", "legal", "fraud", "repeated_failure"],
) -> dict[str, Any]:
    """Escalate a ticket to the tier-2 team; its priority becomes high (urgent for safety).

    Args:
        ticket_id: Ticket id, such as 'TKT-0001'.
        reason: Why it is escalated.
    """
    row = _ticket(tx, ticket_id)
    if row["status"] in ("solved", "escalated"):
        raise ToolError("invalid_state", f"ticket {ticket_id} is {row['status']}")
    priority = "urgent" if reason == "safety" else "high"
    return _touch(
        tx,
        ticket_id,
        {
            "status": "escalated",
            "escalation_reason": reason,
            "priority": priority,
            "hold_reason": None,
        },
    )


@tool(mutates=True)
def add_ticket_note(tx: WorldTx, ticket_id: str, body: str, public: bool) -> dict[str, Any]:
    """Add a note to a ticket.

    Args:
        ticket_id: Ticket id, such as 'TKT-0001'.
        body: Note text.
        public: True when the customer can see it; False for an internal note.
    """
    _ticket(tx, ticket_id)
    row = {
        "id": tx.next_id("ticket_notes", prefix="TN-", width=4, start=501),
        "ticket_id": ticket_id,
        "public": int(public),
        "body": body,
        "created_at": stamp(tx),
    }
    tx.insert("ticket_notes", row)
    _touch(tx, ticket_id, {})
    return row
