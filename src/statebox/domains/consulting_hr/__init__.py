"""The built-in consulting_hr domain: a consulting firm's internal IT/HR service desk.

Onboarding and offboarding, client-site access behind NDA and clearance prerequisites,
expense claims against limits, training, software licences, equipment, travel requests,
engagement staffing and tickets. Schema, policy and tasks sit beside this module; the
seed is built lazily on first use (`seed.seed_rows`).
"""

from pathlib import Path

from statebox import kit
from statebox.domains import Domain
from statebox.domains.consulting_hr.seed import seed_rows
from statebox.domains.consulting_hr.tools import ALL_TOOLS, STEP_SCHEMA, STEP_TOOLS

__all__ = ["DOMAIN"]

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
    field_policy=kit.field_policy(
        "ticket_notes.body",
        "tickets.subject",
        (
            "expense_claims.description",
            "free text in the employee's words: not compared; amount, category and "
            "date are, and the task's text checks read what the expense was",
        ),
    ),
)
