"""Travel's step-recording tools: caller verification, the fee disclosure and the customer's yes.

The policy mandates identifying the caller (§1); before a cancellation or a date change,
telling the fee and getting an explicit yes (§3.2, §4.4); and telling the customer when
a refund becomes a travel credit (§3.6, §7.6). These tools leave those steps in
the state for tasks that record steps (`Task.record_steps`), the only tasks they are
offered to.
"""

from __future__ import annotations

from statebox import kit
from statebox.domains.travel.tools._records import BOOKINGS, CUSTOMERS

__all__ = ["STEP_SCHEMA", "STEP_TOOLS"]

_CUSTOMER = kit.Owner("customer_id", CUSTOMERS, "Customer id, such as 'CUS-0001'.")
VERIFICATIONS = kit.VerificationLog()
CONSENTS = kit.ConsentLog(
    _CUSTOMER,
    related=(BOOKINGS,),
    confirmations=("cancellation", "date_change"),
    disclosures=("cancellation_fee_and_refund", "change_fee", "refund_as_travel_credit"),
)
VERIFY = kit.identity_tool(
    kit.IdentityCheck(
        "verify_customer",
        "Verify that the caller owns a customer account: by the account's email, or by a "
        "booking reference of the account with the account holder's last name. Every attempt "
        "is recorded, passed or failed; the answer never says which detail did not match.",
        _CUSTOMER,
        proofs=(
            kit.Proof(
                "email",
                "The email address the caller gives; null when none.",
                kit.matches("customers", "email"),
            ),
            kit.Proof(
                "booking_reference",
                "A six-character booking reference the caller gives, such as 'QX7K2M'; null "
                "when none.",
                kit.owns("bookings", "customer_id", key="reference"),
            ),
            kit.Proof(
                "last_name",
                "The last name the caller gives with the reference; null when none.",
                kit.matches("customers", "last_name"),
            ),
        ),
        methods=(("email",), ("booking_reference", "last_name")),
        log=VERIFICATIONS,
    )
)
STEP_TOOLS = (VERIFY, *kit.consent_tools(CONSENTS).values())
STEP_SCHEMA = VERIFICATIONS.schema("customers") + CONSENTS.schema()
