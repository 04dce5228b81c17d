"""The built-in retail domain: an online store's customer-service backend.

Schema, policy and tasks sit beside this module; the seed is built lazily on first use
(`seed.seed_rows`), so importing the package only reads two small text files.
"""

from pathlib import Path

from statebox import kit
from statebox.domains import Domain
from statebox.domains.retail.seed import seed_rows
from statebox.domains.retail.tools import ALL_TOOLS, STEP_SCHEMA, STEP_TOOLS

__all__ = ["DOMAIN"]

DOMAIN = Domain.from_folder(
    "retail",
    Path(__file__).parent,
    seed=seed_rows,
    tools=ALL_TOOLS,
    irreversible=(
        "issue_refund",
        "issue_store_credit",
        "cancel_order",
        "approve_return",
        "reship_order",
        "redeem_points",
    ),  # held by --approval-gate
    step_tools=STEP_TOOLS,
    extra_schema=STEP_SCHEMA,
    suites={"1.0": "tasks", "2.0": "tasks_v2"},
    field_policy=kit.field_policy(
        "ticket_comments.body",
        "tickets.subject",
        "warranty_claims.description",
    ),
)
