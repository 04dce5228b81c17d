"""The built-in travel & hospitality domain: a travel agency's support backend.

Flights and hotel stays, payments and refunds, a hotel partner channel, CRM and
loyalty, corporate accounts with travel policies, and support tickets. Schema, policy
and tasks sit beside this module; the seed is built lazily on first use.
"""

from pathlib import Path

from statebox.domains import Domain
from statebox.domains.travel.seed import seed_rows
from statebox.domains.travel.tools import ALL_TOOLS, STEP_SCHEMA, STEP_TOOLS
from statebox.world import ExcludedField, FieldPolicy

__all__ = ["DOMAIN"]

_FREE_TEXT = (
    "free text: its wording is not compared; the facts a task needs in it (ids, amounts, "
    "dates, what happened) are read by that task's text checks"
)

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
    field_policy=FieldPolicy(
        excluded=(
            ExcludedField(table="customer_notes", column="body", reason=_FREE_TEXT),
            ExcludedField(table="ticket_notes", column="body", reason=_FREE_TEXT),
            ExcludedField(table="tickets", column="subject", reason=_FREE_TEXT),
            ExcludedField(table="special_requests", column="detail", reason=_FREE_TEXT),
            ExcludedField(table="hotel_escalations", column="detail", reason=_FREE_TEXT),
        )
    ),
)
