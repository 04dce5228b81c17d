"""consulting_hr's service desk: tickets about employees, with internal notes.

A resolved ticket is final; escalation hands a ticket to a specialist team. The rules
live in `statebox.kit.TicketDesk`.
"""

from __future__ import annotations

from statebox import kit
from statebox.domains.consulting_hr.tools._records import TABLES

__all__ = ["TICKET_TOOLS"]

DESK = kit.TicketDesk(
    tickets=TABLES["tickets"],
    ids=kit.IdFormat("TKT-"),
    owner=kit.Owner("employee_id", TABLES["employees"], "Employee id, such as 'EMP-0012'."),
    categories=(
        "onboarding",
        "offboarding",
        "site_access",
        "expenses",
        "training",
        "software",
        "travel",
        "equipment",
        "staffing",
    ),
    priorities=None,
    team="service_desk",
    resolved="resolved",
    final="resolved",
    final_hint="open a new one",
    hold=kit.Hold(
        reasons=("background_check", "licence_pool", "manager_approval", "employee_reply"),
        status="on_hold",
    ),
    escalation=kit.TeamEscalation(
        teams=("hr", "security", "it_approvals", "finance"),
        reasons=(
            "clearance_required",
            "background_check_failed",
            "restricted_software",
            "lost_device",
            "staffing_conflict",
        ),
    ),
    comments=kit.Comments("ticket_notes", "note", kit.IdFormat("TKN-"), public=False),
    docs={
        "list_employee_tickets": "List the tickets about an employee, newest first.",
        "get_ticket": "Get a ticket with its notes.",
        "create_ticket": (
            "Open a service-desk ticket about an employee (status 'open', team service_desk)."
        ),
        "create_ticket.employee_id": "Employee id the ticket is about, such as 'EMP-0012'.",
        "hold_ticket": "Put a ticket on hold until something outside the desk happens.",
        "hold_ticket.reason": "What the ticket waits for.",
        "escalate_ticket": (
            "Hand a ticket to a specialist team; it stays open in that team's queue."
        ),
        "add_ticket_note": "Add an internal note to a ticket.",
        "add_ticket_note.body": "The note text.",
    },
)
TICKET_TOOLS = kit.ticket_tools(DESK)
