"""Auto insurance's support desk: tickets of verified customers, linked to a policy or claim.

Every ticket tool needs the ticket's customer verified in this conversation; the rules
live in `statebox.kit.TicketDesk`.
"""

from __future__ import annotations

from statebox import kit
from statebox.domains.auto_insurance.tools._records import (
    CUSTOMERS,
    claim_row,
    policy_row,
    require_verified,
)

__all__ = ["TICKET_TOOLS"]

DESK = kit.TicketDesk(
    tickets=kit.Table("tickets", "ticket", "TCK-0001"),
    ids=kit.IdFormat("TCK-", width=4),
    owner=kit.Owner("customer_id", CUSTOMERS, "Customer id, such as 'CUS-1001'.", require_verified),
    categories=("billing", "policy", "claim", "complaint"),
    team="service",
    statuses=("open", "pending", "solved"),
    hold=kit.Hold(
        reasons=("customer_documents", "payment_pending", "underwriting_review", "open_claim")
    ),
    escalation=kit.TeamEscalation(
        teams=("billing", "claims", "underwriting"),
        reasons=(
            "injury_claim",
            "high_risk_driver",
            "extension_over_limit",
            "fee_dispute",
            "suspected_fraud",
            "cancellation_with_open_claim",
        ),
    ),
    links=(
        kit.Link(
            "policy_id",
            "The related policy, such as 'POL-300001'; null when none.",
            policy_row,
            owner_column="customer_id",
            message="policy {id} belongs to another customer",
        ),
        kit.Link("claim_id", "The related claim, such as 'CLM-00001'; null when none.", claim_row),
    ),
    docs={
        "list_customer_tickets": "List a verified customer's support tickets, newest first.",
        "create_ticket": "Open a support ticket (status 'open', team 'service').",
        "hold_ticket.reason": "What the ticket waits for.",
    },
)
TICKET_TOOLS = kit.ticket_tools(DESK)
