"""Auto insurance's step-recording tool: the disclosure before a change.

Verification already leaves its trace (`verify_identity` writes `verification_events`);
the policy also mandates telling the customer what a change does and costs before making
it (§1), which `record_disclosure` leaves in the state for tasks that record steps
(`Task.record_steps`), the only tasks it is offered to.
"""

from __future__ import annotations

from statebox import kit
from statebox.domains.auto_insurance.tools._records import CUSTOMERS, POLICIES, require_verified

__all__ = ["STEP_SCHEMA", "STEP_TOOLS"]

CONSENTS = kit.ConsentLog(
    kit.Owner("customer_id", CUSTOMERS, "Customer id, such as 'CUS-1001'.", require_verified),
    related=(POLICIES, kit.Table("claims", "claim", "CLM-00001")),
    disclosures=("planned_change",),
    docs={
        "record_disclosure": (
            "Record that you told a verified customer what a change does and what it costs "
            "(the annual premium change), before you make it."
        ),
        "record_disclosure.topic": "What you told the customer: 'planned_change'.",
    },
)
STEP_TOOLS = tuple(kit.consent_tools(CONSENTS).values())
STEP_SCHEMA = CONSENTS.schema()
