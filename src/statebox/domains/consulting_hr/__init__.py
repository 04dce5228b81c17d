"""The built-in consulting_hr domain: a consulting firm's internal IT/HR service desk.

Onboarding and offboarding, client-site access behind NDA and clearance prerequisites,
expense claims against limits, training, software licences, equipment, travel requests,
engagement staffing and tickets. Schema, policy and tasks sit beside this module; the
seed is built lazily on first use (`seed.seed_rows`).
"""

from pathlib import Path

from statebox.domains import Domain
from statebox.domains.consulting_hr.seed import seed_rows
from statebox.domains.consulting_hr.tools import ALL_TOOLS, STEP_SCHEMA, STEP_TOOLS
from statebox.world import ExcludedField, FieldPolicy

__all__ = ["DOMAIN"]

_FREE_TEXT = (
    "free text: its wording is not compared; the facts a task needs in it (ids, amounts, "
    "dates, what happened) are read by that task's text checks"
)

DOMAIN = Domain.from_folder(
    "consulting_hr",
    Path(__file__).parent,
    seed=seed_rows,
    tools=ALL_TOOLS,
    irreversible=(
        "offboard_employee",
        "disable_all_accounts",
        "grant_site_access",
        "approve_expense_claim",
        "approve_travel_request",
        "cancel_enrolment",
        "cancel_travel_request",
    ),  # held by --approval-gate
    step_tools=STEP_TOOLS,
    extra_schema=STEP_SCHEMA,
    suites={"1.0": "tasks", "2.0": "tasks_v2"},
    field_policy=FieldPolicy(
        excluded=(
            ExcludedField(table="ticket_notes", column="body", reason=_FREE_TEXT),
            ExcludedField(table="tickets", column="subject", reason=_FREE_TEXT),
            ExcludedField(
                table="expense_claims",
                column="description",
                reason="free text in the employee's words: not compared; amount, category and "
                "date are, and the task's text checks read what the expense was",
            ),
        )
    ),
)
