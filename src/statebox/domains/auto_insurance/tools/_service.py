"""Service tools: CRM notes and support tickets.

CRM notes are internal and need no verification (an agent may note a failed attempt);
tickets belong to a verified customer. Holding needs a reason code and escalating a
team and a reason code, so the state records why, not only what.
"""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from typing import Any, Literal

from statebox.domains.auto_insurance.tools._records import (
    claim_row,
    new_id,
    policy_row,
    require_verified,
    stamp,
    ticket_row,
)
from statebox.tools import ToolError, tool
from statebox.world import WorldTx

__all__ = [
    "add_crm_note",
    "create_ticket",
    "escalate_ticket",
    "hold_ticket",
    "list_crm_notes",
    "list_customer_tickets",
    "update_ticket",
]

Priority = Literal["low", "normal", "high", "urgent"]


def _customer(tx: WorldTx, customer_id: str) -> None:
    if tx.one("SELECT id FROM customers WHERE id = ?", [customer_id]) is None:
        raise ToolError("not_found", f"no customer {customer_id!r} (ids look like 'CUS-1001')")


@tool(mutates=True)
def add_crm_note(
    tx: WorldTx,
    customer_id: str,
    category: Literal[
        "verification", "billing", "policy_change", "claim", "cancellation", "complaint"
    ],
    body: str,
    policy_id: str | None = None,
) -> dict[str, Any]:
    """Add an internal note to a customer's CRM record.

    Args:
        customer_id: Customer id, such as 'CUS-1001'.
        category: What the note is about.
        body: The note text.
        policy_id: The related policy, such as 'POL-300001'; null when none.
    """
    _customer(tx, customer_id)
    if not body.strip():
        raise ToolError("invalid_state", "the note must not be empty")
    return tx.insert(
        "crm_notes",
        {
            "id": new_id(tx, "crm_notes", "NOTE-"),
            "customer_id": customer_id,
            "policy_id": policy_id,
            "category": category,
            "body": body.strip(),
            "created_at": stamp(tx),
        },
    )


@tool(mutates=False)
def list_crm_notes(tx: WorldTx, customer_id: str) -> list[dict[str, Any]]:
    """List a verified customer's CRM notes, newest first.

    Args:
        customer_id: Customer id, such as 'CUS-1001'.
    """
    _customer(tx, customer_id)
    require_verified(tx, customer_id)
    return tx.query(
        "SELECT * FROM crm_notes WHERE customer_id = ? ORDER BY created_at DESC, id",
        [customer_id],
    )


@tool(mutates=False)
def list_customer_tickets(tx: WorldTx, customer_id: str) -> list[dict[str, Any]]:
    """List a verified customer's support tickets, newest first.

    Args:
        customer_id: Customer id, such as 'CUS-1001'.
    """
    _customer(tx, customer_id)
    require_verified(tx, customer_id)
    return tx.query(
        "SELECT * FROM tickets WHERE customer_id = ? ORDER BY created_at DESC, id", [customer_id]
    )


@tool(mutates=True)
def create_ticket(
    tx: WorldTx,
    customer_id: str,
    category: Literal["billing", "policy", "claim", "complaint"],
    subject: str,
    policy_id: str | None = None,
    claim_id: str | None = None,
    priority: Priority = "normal",
) -> dict[str, Any]:
    """Open a support ticket (status 'open', team 'service').

    Args:
        customer_id: Customer id, such as 'CUS-1001'.
        category: What the ticket is about.
        subject: One-line summary.
        policy_id: The related policy, such as 'POL-300001'; null when none.
        claim_id: The related claim, such as 'CLM-00001'; null when none.
        priority: Ticket priority.
    """
    _customer(tx, customer_id)
    require_verified(tx, customer_id)
    if policy_id is not None and policy_row(tx, policy_id)["customer_id"] != customer_id:
        raise ToolError("invalid_state", f"policy {policy_id} belongs to another customer")
    if claim_id is not None:
        claim_row(tx, claim_id)
    if not subject.strip():
        raise ToolError("invalid_state", "the subject must not be empty")
    now = stamp(tx)
    return tx.insert(
        "tickets",
        {
            "id": new_id(tx, "tickets", "TCK-", 4),
            "customer_id": customer_id,
            "policy_id": policy_id,
            "claim_id": claim_id,
            "category": category,
            "subject": subject.strip(),
            "status": "open",
            "priority": priority,
            "team": "service",
            "hold_reason": None,
            "escalation_reason": None,
            "created_at": now,
            "updated_at": now,
        },
    )


@tool(mutates=True)
def update_ticket(
    tx: WorldTx,
    ticket_id: str,
    status: Literal["open", "pending", "solved"] | None = None,
    priority: Priority | None = None,
) -> dict[str, Any]:
    """Change a ticket's status and/or priority. To put a ticket on hold use hold_ticket.

    Args:
        ticket_id: Ticket id, such as 'TCK-0001'.
        status: New status; null to keep it.
        priority: New priority; null to keep it.
    """
    row = ticket_row(tx, ticket_id)
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
    tx: WorldTx,
    ticket_id: str,
    reason: Literal["customer_documents", "payment_pending", "underwriting_review", "open_claim"],
) -> dict[str, Any]:
    """Put a ticket on hold until someone else acts.

    Args:
        ticket_id: Ticket id, such as 'TCK-0001'.
        reason: What the ticket waits for.
    """
    row = ticket_row(tx, ticket_id)
    if row["status"] == "hold" and row["hold_reason"] == reason:
        raise ToolError("invalid_state", f"ticket {ticket_id} is already on hold for {reason}")
    values = {"status": "hold", "hold_reason": reason, "updated_at": stamp(tx)}
    tx.update("tickets", {"id": ticket_id}, values)
    return {**row, **values}


@tool(mutates=True)
def escalate_ticket(
    tx: WorldTx,
    ticket_id: str,
    team: Literal["billing", "claims", "underwriting"],
    reason: Literal[
        "injury_claim",
        "high_risk_driver",
        "extension_over_limit",
        "fee_dispute",
        "suspected_fraud",
        "cancellation_with_open_claim",
    ],
) -> dict[str, Any]:
    """Hand a ticket to a specialist team; it becomes 'open' in that team's queue.

    Args:
        ticket_id: Ticket id, such as 'TCK-0001'.
        team: The team that takes over.
        reason: Why the ticket is escalated.
    """
    row = ticket_row(tx, ticket_id)
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
