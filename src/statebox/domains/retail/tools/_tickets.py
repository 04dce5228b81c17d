"""Retail's support desk: tickets on customers, linked to their orders, with comments.

A closed ticket is final; the rules live in `statebox.kit.TicketDesk`.
"""

from __future__ import annotations

from statebox import kit
from statebox.domains.retail.tools._records import CUSTOMERS, ORDERS

__all__ = ["TICKET_TOOLS"]

DESK = kit.TicketDesk(
    tickets=kit.Table("tickets", "ticket", "20"),
    ids=kit.IdFormat("", width=0),
    owner=kit.Owner("customer_id", CUSTOMERS, "Customer id, such as 'CUS-0001'."),
    categories=("shipping", "billing", "returns", "product", "account", "warranty"),
    team="tier1",
    statuses=("open", "pending", "solved", "closed"),
    final="closed",
    hold=kit.Hold(reasons=("customer", "carrier", "warehouse")),
    escalation=kit.TeamEscalation(
        teams=("tier2", "billing", "warehouse"),
        reasons=(
            "refund_over_limit",
            "damaged_on_arrival",
            "technical_issue",
            "fraud_review",
            "warranty_exception",
        ),
    ),
    links=(
        kit.Link(
            "order_id",
            "The related order, such as 'ORD-10000020'; null when none.",
            ORDERS.row,
            owner_column="customer_id",
            message="order {id} belongs to another customer",
        ),
    ),
    comments=kit.Comments(
        "ticket_comments",
        "comment",
        kit.IdFormat("CMT-"),
        columns=("id", "author", "public", "body", "created_at"),
    ),
    list_columns=(
        "id",
        "order_id",
        "subject",
        "category",
        "status",
        "priority",
        "team",
        "hold_reason",
        "created_at",
    ),
    create_args=("customer_id", "subject", "category", "order_id", "priority"),
    docs={
        "create_ticket": "Open a new support ticket (status 'open', team tier1).",
        "create_ticket.subject": "One-line summary of the request.",
        "update_ticket.status": (
            "New status; null to keep it. 'pending' means waiting on the customer's reply."
        ),
    },
)
TICKET_TOOLS = kit.ticket_tools(DESK)
