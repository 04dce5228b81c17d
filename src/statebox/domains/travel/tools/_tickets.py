"""Travel's support desk: tickets on customers and their bookings, with public/internal notes.

Escalation goes up one tier (status 'escalated', priority high, urgent for safety) rather
than to a named team; a solved ticket can be reopened. The rules live in
`statebox.kit.TicketDesk`.
"""

from __future__ import annotations

from statebox import kit
from statebox.domains.travel.tools._records import BOOKINGS, CUSTOMERS

__all__ = ["TICKET_TOOLS"]

DESK = kit.TicketDesk(
    tickets=kit.Table("tickets", "ticket", "TKT-0001"),
    ids=kit.IdFormat("TKT-", width=4),
    owner=kit.Owner("customer_id", CUSTOMERS, "Customer id, such as 'CUS-0001'."),
    categories=("cancellation", "change", "billing", "hotel", "loyalty", "corporate", "other"),
    default_priority=None,
    statuses=("open", "solved"),
    status_required=True,
    hold=kit.Hold(
        reasons=("awaiting_hotel", "awaiting_airline", "awaiting_customer", "awaiting_approval"),
        blocked_by=("solved",),
        refuse_repeat=False,
    ),
    escalation=kit.TierEscalation(
        reasons=("refund_over_limit", "safety", "legal", "fraud", "repeated_failure"),
        urgent=("safety",),
        refused_in=("solved",),
    ),
    links=(
        kit.Link(
            "booking_id",
            "The booking it concerns, such as 'BK-100001', if any.",
            BOOKINGS.row,
            owner_column="customer_id",
            refusal="not_permitted",
            message="booking {id} is not this customer's",
        ),
    ),
    comments=kit.Comments("ticket_notes", "note", kit.IdFormat("TN-", width=4), author=None),
    clean_text=False,
    list_columns=("id", "booking_id", "subject", "category", "status", "priority"),
    newest_first=False,
    create_args=("customer_id", "category", "subject", "priority", "booking_id"),
    docs={
        "get_ticket": "Get a support ticket and its notes.",
        "list_customer_tickets": (
            "List a customer's support tickets (id, booking, subject, category, status)."
        ),
        "create_ticket": "Open a support ticket for a customer.",
        "create_ticket.category": "Ticket category.",
        "update_ticket": "Set a ticket's status to open or solved, and optionally its priority.",
        "update_ticket.priority": "New priority; omit to keep.",
        "hold_ticket": "Put a ticket on hold while waiting on someone else.",
        "hold_ticket.reason": "Who the ticket is waiting on.",
        "escalate_ticket": (
            "Escalate a ticket to the tier-2 team; its priority becomes high (urgent for safety)."
        ),
        "escalate_ticket.reason": "Why it is escalated.",
        "add_ticket_note": "Add a note to a ticket.",
        "add_ticket_note.body": "Note text.",
        "add_ticket_note.public": "True when the customer can see it; False for an internal note.",
    },
)
TICKET_TOOLS = kit.ticket_tools(DESK)
