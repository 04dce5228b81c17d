"""Service-desk ticket tools: list, read, open, hold, escalate, resolve, annotate.

A resolved ticket is final. Holding needs a reason code and escalating a team and a
reason code, so the state records why, not only what.
"""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from typing import Any, Literal

from statebox.domains.consulting_hr.tools._records import Row, new_id, row_of, stamp
from statebox.tools import ToolError, tool
from statebox.world import WorldTx

__all__ = [
    "add_ticket_note",
    "create_ticket",
    "escalate_ticket",
    "get_ticket",
    "hold_ticket",
    "list_employee_tickets",
    "resolve_ticket",
]

Category = Literal[
    "onboarding",
    "offboarding",
    "site_access",
    "expenses",
    "training",
    "software",
    "travel",
    "equipment",
    "staffing",
]


def _writable(tx: WorldTx, ticket_id: str) -> Row:
    row = row_of(tx, "tickets", ticket_id)
    if row["status"] == "resolved":
        raise ToolError("invalid_state", f"ticket {ticket_id} is resolved; open a new one")
    return row


@tool(mutates=False)
def list_employee_tickets(tx: WorldTx, employee_id: str) -> list[dict[str, Any]]:
    """List the tickets about an employee, newest first.

    Args:
        employee_id: Employee id, such as 'EMP-0012'.
    """
    row_of(tx, "employees", employee_id)
    return tx.query(
        "SELECT * FROM tickets WHERE employee_id = ? ORDER BY created_at DESC, id", [employee_id]
    )


@tool(mutates=False)
def get_ticket(tx: WorldTx, ticket_id: str) -> dict[str, Any]:
    """Get a ticket with its notes.

    Args:
        ticket_id: Ticket id, such as 'TKT-00004'.
    """
    row = row_of(tx, "tickets", ticket_id)
    notes = tx.query(
        "SELECT * FROM ticket_notes WHERE ticket_id = ? ORDER BY created_at, id", [ticket_id]
    )
    return {**row, "notes": notes}


@tool(mutates=True)
def create_ticket(
    tx: WorldTx, employee_id: str, category: Category, subject: str
) -> dict[str, Any]:
    """Open a service-desk ticket about an employee (status 'open', team service_desk).

    Args:
        employee_id: Employee id the ticket is about, such as 'EMP-0012'.
        category: What the ticket is about.
        subject: One-line summary.
    """
    row_of(tx, "employees", employee_id)
    if not subject.strip():
        raise ToolError("invalid_state", "subject must not be empty")
    now = stamp(tx)
    return tx.insert(
        "tickets",
        {
            "id": new_id(tx, "tickets", "TKT-"),
            "employee_id": employee_id,
            "category": category,
            "subject": subject.strip(),
            "status": "open",
            "team": "service_desk",
            "hold_reason": None,
            "escalation_reason": None,
            "created_at": now,
            "updated_at": now,
        },
    )


@tool(mutates=True)
def hold_ticket(
    tx: WorldTx,
    ticket_id: str,
    reason: Literal["background_check", "licence_pool", "manager_approval", "employee_reply"],
) -> dict[str, Any]:
    """Put a ticket on hold until something outside the desk happens.

    Args:
        ticket_id: Ticket id, such as 'TKT-00004'.
        reason: What the ticket waits for.
    """
    row = _writable(tx, ticket_id)
    if row["status"] == "on_hold" and row["hold_reason"] == reason:
        raise ToolError("invalid_state", f"ticket {ticket_id} is already on hold for {reason}")
    values = {"status": "on_hold", "hold_reason": reason, "updated_at": stamp(tx)}
    tx.update("tickets", {"id": ticket_id}, values)
    return {**row, **values}


@tool(mutates=True)
def escalate_ticket(
    tx: WorldTx,
    ticket_id: str,
    team: Literal["hr", "security", "it_approvals", "finance"],
    reason: Literal[
        "clearance_required",
        "background_check_failed",
        "restricted_software",
        "lost_device",
        "staffing_conflict",
    ],
) -> dict[str, Any]:
    """Hand a ticket to a specialist team; it stays open in that team's queue.

    Args:
        ticket_id: Ticket id, such as 'TKT-00004'.
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
def resolve_ticket(tx: WorldTx, ticket_id: str) -> dict[str, Any]:
    """Mark a ticket resolved (final).

    Args:
        ticket_id: Ticket id, such as 'TKT-00004'.
    """
    row = _writable(tx, ticket_id)
    values = {"status": "resolved", "hold_reason": None, "updated_at": stamp(tx)}
    tx.update("tickets", {"id": ticket_id}, values)
    return {**row, **values}


@tool(mutates=True)
def add_ticket_note(tx: WorldTx, ticket_id: str, body: str) -> dict[str, Any]:
    """Add an internal note to a ticket.

    Args:
        ticket_id: Ticket id, such as 'TKT-00004'.
        body: The note text.
    """
    _writable(tx, ticket_id)
    if not body.strip():
        raise ToolError("invalid_state", "note body must not be empty")
    now = stamp(tx)
    row = tx.insert(
        "ticket_notes",
        {
            "id": new_id(tx, "ticket_notes", "TKN-"),
            "ticket_id": ticket_id,
            "author": "agent",
            "body": body.strip(),
            "created_at": now,
        },
    )
    tx.update("tickets", {"id": ticket_id}, {"updated_at": now})
    return row
