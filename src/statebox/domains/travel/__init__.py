"""The built-in travel & hospitality domain: a travel agency's support backend.

Flights and hotel stays, payments and refunds, a hotel partner channel, CRM and
loyalty, corporate accounts with travel policies, and support tickets. Schema, policy
and tasks sit beside this module; the seed is built lazily on first use.
"""

from pathlib import Path

from statebox import kit
from statebox.domains import Domain
from statebox.domains.travel.seed import seed_rows
from statebox.domains.travel.tools import ALL_TOOLS, STEP_SCHEMA, STEP_TOOLS

__all__ = ["DOMAIN"]

DOMAIN = Domain.from_folder(
    "travel",
    Path(__file__).parent,
    seed=seed_rows,
    tools=ALL_TOOLS,
    irreversible=(
        "issue_refund",
        "issue_travel_credit",
        "cancel_booking",
        "approve_corporate_booking",
    ),  # held by --approval-gate
    step_tools=STEP_TOOLS,
    extra_schema=STEP_SCHEMA,
    suites={"1.0": "tasks", "2.0": "tasks_v2"},
    field_policy=kit.field_policy(
        "customer_notes.body",
        "ticket_notes.body",
        "tickets.subject",
        "special_requests.detail",
        "hotel_escalations.detail",
    ),
)
