"""The built-in auto insurance domain: a personal auto insurer's service backend.

Schema, policy and tasks sit beside this module; the seed is built lazily on first use
(`seed.seed_rows`), so importing the package only reads two small text files.
"""

from pathlib import Path

from statebox import kit
from statebox.domains import Domain
from statebox.domains.auto_insurance.seed import seed_rows
from statebox.domains.auto_insurance.tools import ALL_TOOLS, STEP_SCHEMA, STEP_TOOLS

__all__ = ["DOMAIN"]

DOMAIN = Domain.from_folder(
    "auto_insurance",
    Path(__file__).parent,
    seed=seed_rows,
    tools=ALL_TOOLS,
    irreversible=(
        "schedule_cancellation",
        "withdraw_claim",
        "waive_fee",
        "pay_fee",
        "pay_installment",
        "remove_coverage",
        "remove_driver",
        "remove_vehicle",
    ),  # held by --approval-gate
    step_tools=STEP_TOOLS,
    extra_schema=STEP_SCHEMA,
    suites={"1.0": "tasks", "2.0": "tasks_v2"},
    field_policy=kit.field_policy(
        "crm_notes.body",
        "tickets.subject",
        "claims.description",
    ),
)
