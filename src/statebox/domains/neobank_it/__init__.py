"""The built-in neobank_it domain: a digital bank's internal IT support backend.

Schema, policy and tasks sit beside this module; the seed is built lazily on first use
(`seed.seed_rows`), so importing the package only reads two small text files.
"""

from pathlib import Path

from statebox import kit
from statebox.domains import Domain
from statebox.domains.neobank_it.seed import seed_rows
from statebox.domains.neobank_it.tools import ALL_TOOLS, STEP_SCHEMA, STEP_TOOLS

__all__ = ["DOMAIN"]

DOMAIN = Domain.from_folder(
    "neobank_it",
    Path(__file__).parent,
    seed=seed_rows,
    tools=ALL_TOOLS,
    irreversible=(
        "grant_access",
        "extend_access",
        "remote_wipe_device",
        "disable_account",
        "cancel_hardware_order",
    ),  # held by --approval-gate
    step_tools=STEP_TOOLS,
    extra_schema=STEP_SCHEMA,
    suites={"1.0": "tasks", "2.0": "tasks_v2"},
    field_policy=kit.field_policy(
        (
            "access_requests.justification",
            "free text in the employee's words: not compared; role, system and days "
            "are, and the task's text checks read the need it must pass on",
        ),
        (
            "notifications.body",
            "optional free-text addition to a template, left to the agent (tasks "
            "declare it dont_care); recipient, template and related id are compared",
        ),
        (
            "security_incidents.description",
            "free text: not compared; category, severity and device are, and the "
            "task's text checks read what happened (hours missing, what was clicked)",
        ),
        "tickets.subject",
    ),
)
