"""A veterinary clinic's front desk as a statebox domain (docs/own-domain.md walks through it).

Owners verify with their email and a pet's name; then the agent books and cancels
appointments, refills prescriptions and notes side effects. ``schema.sql``,
``policy.md`` and ``tasks/`` sit beside this module; the entry point in pyproject.toml
(``vetclinic = "vetclinic:DOMAIN"``) is how statebox finds it once installed.
"""

from pathlib import Path

from statebox.domains import Domain
from statebox.world import ExcludedField, FieldPolicy
from vetclinic.seed import SEED
from vetclinic.tools import STEP_SCHEMA, STEP_TOOLS, TOOLS

__all__ = ["DOMAIN", "FIELD_POLICY"]

FIELD_POLICY = FieldPolicy(
    excluded=(
        ExcludedField(
            table="clinic_notes",
            column="body",
            reason="free text in the agent's words: its wording is not compared; the "
            "facts a task needs in it (prescription id, symptom) are its text checks'",
        ),
    )
)
"""Columns left out of the exact state comparison, each with its reason."""

DOMAIN = Domain.from_folder(
    "vetclinic",
    Path(__file__).parent,
    seed=SEED,
    tools=TOOLS,
    step_tools=STEP_TOOLS,  # offered only to tasks with record_steps: true
    extra_schema=STEP_SCHEMA,
    irreversible=("cancel_appointment", "refill_prescription"),  # held by --approval-gate
    field_policy=FIELD_POLICY,
)
