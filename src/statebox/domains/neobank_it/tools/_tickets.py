"""neobank_it's service desk: employees' support tickets, without comments.

A closed ticket is final; escalation hands a ticket to a specialist team. The rules live
in `statebox.kit.TicketDesk`.
"""

from __future__ import annotations

from statebox import kit
from statebox.domains.neobank_it.tools._records import TABLES

__all__ = ["TICKET_TOOLS"]

DESK = kit.TicketDesk(
    tickets=TABLES["tickets"],
    ids=kit.IdFormat("TCK-"),
    owner=kit.Owner("employee_id", TABLES["employees"], "Employee id, such as 'EMP-0001'."),
    categories=("access", "hardware", "software", "account", "security", "licence"),
    team="service_desk",
    statuses=("open", "pending", "solved", "closed"),
    final="closed",
    hold=kit.Hold(reasons=("vendor", "approver", "hr", "procurement")),
    escalation=kit.TeamEscalation(
        teams=("iam", "field_services", "security", "procurement"),
        reasons=(
            "privileged_access",
            "security_hold",
            "hardware_fault",
            "licence_shortage",
            "sod_review",
        ),
    ),
    docs={
        "list_employee_tickets": "List an employee's support tickets, newest first.",
        "create_ticket": "Open a support ticket (status 'open', team service_desk).",
        "create_ticket.employee_id": "Employee the ticket is for, such as 'EMP-0001'.",
        "hold_ticket": "Put a ticket on hold until someone outside the service desk acts.",
    },
)
TICKET_TOOLS = kit.ticket_tools(DESK)
