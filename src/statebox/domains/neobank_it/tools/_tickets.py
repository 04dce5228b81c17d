"""Support ticket and notification tools.

A closed ticket is final. Holding needs a reason code and escalating a team and a reason
code, so the state records why. Notifications record recipient, template code and the
related object (business facts); the body is free text.
"""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from typing import Any, Literal

from statebox.domains.neobank_it.tools._records import Row, employee_row, new_id, row_of, stamp
from statebox.tools import ToolError, tool
from statebox.world import WorldTx

__all__ = [
    "create_ticket",
    "escalate_ticket",
    "get_ticket",
    "hold_ticket",
    "list_employee_tickets",
    "send_notification",
    "update_ticket",
]

Priority = Literal["low", "normal", "high", "urgent"]
Template = Literal[
    "access_granted",
    "access_rejected",
    "access_revoked",
    "access_extended",
    "approval_needed",
    "licence_assigned",
    "licence_reclaimed",
    "order_placed",
    "order_cancelled",
    "incident_ack",
    "account_unlocked",
    "offboarding_complete",
]


def _writable(tx: WorldTx, ticket_id: str) -> Row:
    row = row_of(tx, "tickets", ticket_id)
    if row["status"] == "closed":
        raise ToolError("invalid_state", f"ticket {ticket_id} is closed; create a new ticket")
    return row


@tool(mutates=False)
def get_ticket(tx: WorldTx, ticket_id: str) -> dict[str, Any]:
    """Get a support ticket.

    Args:
        ticket_id: Ticket id, such as 'TCK-00001'.
    """
    return row_of(tx, "tickets", ticket_id)


@tool(mutates=False)
def list_employee_tickets(tx: WorldTx, employee_id: str) -> list[dict[str, Any]]:
    """List an employee's support tickets, newest first.

    Args:
        employee_id: Employee id, such as 'EMP-0001'.
    """
    employee_row(tx, employee_id)
    return tx.query(
        "SELECT * FROM tickets WHERE employee_id = ? ORDER BY created_at DESC, id", [employee_id]
    )


@tool(mutates=True)
def create_ticket(
    tx: WorldTx,
    employee_id: str,
    category: Literal["access", "hardware", "software", "account", "security", "licence"],
    subject: str,
    priority: Priority = "normal",
) -> dict[str, Any]:
    """Open a support ticket (status 'open', team service_desk).

    Args:
        employee_id: Employee the ticket is for, such as 'EMP-0001'.
        category: What the ticket is about.
        subject: One-line summary.
        priority: Ticket priority.
    """
    employee_row(tx, employee_id)
    if not subject.strip():
        raise ToolError("invalid_state", "subject must not be empty")
    now = stamp(tx)
    row = {
        "id": new_id(tx, "tickets", "TCK-"),
        "employee_id": employee_id,
        "category": category,
        "subject": subject.strip(),
        "status": "open",
        "priority": priority,
        "team": "service_desk",
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
        ticket_id: Ticket id, such as 'TCK-00001'.
        status: New status; null to keep it.
        priority: New priority; null to keep it.
    """
    row = _writable(tx, ticket_id)
    values: dict[str, Any] = {}
    if status is not None and status != row["status"]:
        values["status"] = status
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
    tx: WorldTx, ticket_id: str, reason: Literal["vendor", "approver", "hr", "procurement"]
) -> dict[str, Any]:
    """Put a ticket on hold until someone outside the service desk acts.

    Args:
        ticket_id: Ticket id, such as 'TCK-00001'.
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
    team: Literal["iam", "field_services", "security", "procurement"],
    reason: Literal[
        "privileged_access", "security_hold", "hardware_fault", "licence_shortage", "sod_review"
    ],
) -> dict[str, Any]:
    """Hand a ticket to a specialist team; it becomes 'open' in that team's queue.

    Args:
        ticket_id: Ticket id, such as 'TCK-00001'.
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
def send_notification(
    tx: WorldTx, recipient: str, template: Template, related_id: str, body: str = ""
) -> dict[str, Any]:
    """Send an email notification from a template.

    Args:
        recipient: Recipient's work email, such as 'avery.hollis@neobank.example.com'.
        template: Template code; it fixes the subject line.
        related_id: Id of the object the email is about, such as 'AR-00001' or 'INC-00501'.
        body: Optional free-text addition to the template.
    """
    if not tx.one("SELECT id FROM employees WHERE email = ?", [recipient]):
        raise ToolError("not_found", f"{recipient!r} is not an employee's work email")
    row = {
        "id": new_id(tx, "notifications", "NTF-"),
        "recipient": recipient,
        "template": template,
        "related_id": related_id,
        "body": body.strip(),
        "sent_at": stamp(tx),
    }
    return tx.insert("notifications", row)
