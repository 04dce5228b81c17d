"""Retail's step-recording tools: caller verification and disclosures before a change.

The policy mandates both steps (§1, §2); these tools leave them in the state, so a task
that records steps (`Task.record_steps`) can require them. They are offered only to such
tasks, with the policy blocks that document them.
"""

from __future__ import annotations

from statebox import kit
from statebox.domains.retail.tools._records import CUSTOMERS, ORDERS

__all__ = ["STEP_SCHEMA", "STEP_TOOLS"]

_CUSTOMER = kit.Owner("customer_id", CUSTOMERS, "Customer id, such as 'CUS-0001'.")
VERIFICATIONS = kit.VerificationLog()
CONSENTS = kit.ConsentLog(
    _CUSTOMER,
    related=(
        ORDERS,
        kit.Table("returns", "return", "RMA-00501"),
        kit.Table("tickets", "ticket", "20"),
        CUSTOMERS,
    ),
    disclosures=("planned_change",),
    docs={
        "record_disclosure": (
            "Record that you told the customer what you are about to do, before you do it."
        ),
        "record_disclosure.topic": "What you told the customer: 'planned_change'.",
    },
)
VERIFY = kit.identity_tool(
    kit.IdentityCheck(
        "verify_customer",
        "Verify that the caller owns a customer account: the account's email together with "
        "an order id of that account (order matters) or the full name on the account "
        "(account matters). Every attempt is recorded, passed or failed; the answer never "
        "says which detail did not match.",
        _CUSTOMER,
        proofs=(
            kit.Proof(
                "email", "The email address the caller gives.", kit.matches("customers", "email")
            ),
            kit.Proof(
                "order_id",
                "An order id the caller gives, such as 'ORD-10000020'; null when none.",
                kit.owns("orders", "customer_id"),
            ),
            kit.Proof(
                "full_name",
                "The full name the caller gives, such as 'Sarah Martinez'; null when none.",
                kit.matches("customers", "first_name || ' ' || last_name"),
            ),
        ),
        methods=(("email", "order_id"), ("email", "full_name")),
        log=VERIFICATIONS,
    )
)
STEP_TOOLS = (VERIFY, *kit.consent_tools(CONSENTS).values())
STEP_SCHEMA = VERIFICATIONS.schema("customers") + CONSENTS.schema()
