"""Support ticket tools: read, create, update, hold, escalate, comment.

A closed ticket is final: every write to it is refused. Holding needs a reason code and
escalating needs a team and a reason code, so the state records why, not only what.
"""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from typing import Any, Literal

from statebox.domains.retail.tools._records import (
    Row,
    customer_row,
    new_id,
    order_row,
    stamp,
    ticket_row,
)
from statebox.tools import ToolError, tool
from statebox.world import WorldTx

__all__ = [
    "add_ticket_comment",
    "create_ticket",
    "escalate_ticket",
    "get_ticket",
    "hold_ticket",
    "list_customer_tickets",
    "update_ticket",
]

Priority = Literal["low", "normal", "high", "urgent"]


def _writable(tx: WorldTx, ticket_id: str) -> Row:
    row = ticket_row(tx, ticket_id)
    if row["status"] == "closed":
        raise ToolError("invalid_state", f"ticket {ticket_id} is closed; create a new ticket")
    return row


@tool(mutates=False)
def get_ticket(tx: WorldTx, ticket_id: str) -> dict[str, Any]:
    """Get a support ticket with its comments.

    Args:
        ticket_id: Ticket id, such as '20'.
    """
    row = ticket_row(tx, ticket_id)
    comments = tx.query(
        "SELECT id, author, public, body, created_at FROM ticket_comments "
        "WHERE ticket_id = ? ORDER BY created_at, id",
        [ticket_id],
    )
    return {**row, "comments": comments}


@tool(mutates=False)
def list_customer_tickets(tx: WorldTx, customer_id: str) -> list[dict[str, Any]]:
    """List a customer's support tickets, newest first.

    Args:
        customer_id: Customer id, such as 'CUS-0001'.
    """
    customer_row(tx, customer_id)
    return tx.query(
        "SELECT id, order_id, subject, category, status, priority, team, hold_reason, "
        "created_at FROM tickets WHERE customer_id = ? ORDER BY created_at DESC, id",
        [customer_id],
    )


@tool(mutates=True)
def create_ticket(
    tx: WorldTx,
    customer_id: str,
    subject: str,
    category: Literal["shipping", "billing", "returns", "product", "account", "warranty"],
    order_id: str | None = None,
    priority: Priority = "normal",
) -> dict[str, Any]:
    """Open a new support ticket (status 'open', team tier1).

    Args:
        customer_id: Customer id, such as 'CUS-0001'.
        subject: One-line summary of the request.
        category: What the ticket is about.
        order_id: The related order, such as 'ORD-10000020'; null when none.
        priority: Ticket priority.
    """
    customer_row(tx, customer_id)
    if order_id is not None and order_row(tx, order_id)["customer_id"] != customer_id:
        raise ToolError("invalid_state", f"order {order_id} belongs to another customer")
    if not subject.strip():
        raise ToolError("invalid_state", "subject must not be empty")
    now = stamp(tx)
    row = {
        "id": tx.next_id("tickets", start=501),
        "customer_id": customer_id,
        "order_id": order_id,
        "subject": subject.strip(),
        "category": category,
        "status": "open",
        "priority": priority,
        "team": "tier1",
        "hold_reason": None,
        "escalation_reason": None,
        "created_at": now,
        "updated_at": now,
    }
    return tx.insert("tickets", row)


@tool(mutates=True)
def update_ticket(
    tx: WorldTx,
    ticket_id: str,
    status: Literal["open", "pending", "solved", "closed"] | None = None,
    priority: Priority | None = None,
) -> dict[str, Any]:
    """Change a ticket's status and/or priority. To put a ticket on hold use hold_ticket.

    Args:
        ticket_id: Ticket id, such as '20'.
        status: New status; null to keep it. 'pending' means waiting on the customer's reply.
        priority: New priority; null to keep it.
    """
    row = _writable(tx, ticket_id)
    values: dict[str, Any] = {}
    if status is not None and status != row["status"]:
        values["status"] = status
        if row["status"] == "hold":
            values["hold_reason"] = None
    if priority is not None and priority != row["priority"]:
        values["priority"] = priority
    if not values:
        raise ToolError("invalid_state", "nothing to change: give a different status or priority")
    values["updated_at"] = stamp(tx)
    tx.update("tickets", {"id": ticket_id}, values)
    return {**row, **values}


@tool(mutates=True)
def hold_ticket(
    tx: WorldTx, ticket_id: str, reason: Literal["customer", "carrier", "warehouse"]
) -> dict[str, Any]:
    """Put a ticket on hold until someone else acts.

    Args:
        ticket_id: Ticket id, such as '20'.
        reason: Who the ticket is waiting for.
    """
    row = _writable(tx, ticket_id)
    if row["status"] == "hold" and row["hold_reason"] == reason:
        raise ToolError("invalid_state", f"ticket {ticket_id} is already on hold for {reason}")
    values = {"status": "hold", "hold_reason": reason, "updated_at": stamp(tx)}
    tx.update("tickets", {"id": ticket_id}, values)
    return {**row, **values}


@tool(mutates=True)
def escalate_ticket(
    tx: WorldTx,
    ticket_id: str,
    team: Literal["tier2", "billing", "warehouse"],
    reason: Literal[
        "refund_over_limit",
        "damaged_on_arrival",
        "technical_issue",
        "fraud_review",
        "warranty_exception",
    ],
) -> dict[str, Any]:
    """Hand a ticket to a specialist team; it becomes 'open' in that team's queue.

    Args:
        ticket_id: Ticket id, such as '20'.
        team: The team that takes over.
        reason: Why the ticket is escalated.
    """
    row = _writable(tx, ticket_id)
    if row["team"] == team:
        raise ToolError("invalid_state", f"ticket {ticket_id} is already with {team}")
    values = {
        "team": team,
        "escalation_reason": reason,
        "status": "open",
        "hold_reason": None,
        "updated_at": stamp(tx),
    }
    tx.update("tickets", {"id": ticket_id}, values)
    return {**row, **values}


@tool(mutates=True)
def add_ticket_comment(tx: WorldTx, ticket_id: str, body: str, public: bool) -> dict[str, Any]:
    """Add a comment to a ticket.

    Args:
        ticket_id: Ticket id, such as '20'.
        body: The comment text.
        public: True when the customer can see it; false for an internal note.
    """
    _writable(tx, ticket_id)
    if not body.strip():
        raise ToolError("invalid_state", "comment body must not be empty")
    now = stamp(tx)
    row = {
        "id": new_id(tx, "ticket_comments", "CMT-"),
        "ticket_id": ticket_id,
        "author": "agent",
        "public": int(public),
        "body": body.strip(),
        "created_at": now,
    }
    tx.insert("ticket_comments", row)
    tx.update("tickets", {"id": ticket_id}, {"updated_at": now})
    return row
