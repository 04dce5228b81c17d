"""consulting_hr's step-recording tools: requester verification and the disclosure before a change.

The policy mandates identifying the requester by their work email (§2) and saying what
you are about to do before a change (§1); these tools leave both in the state for tasks
that record steps (`Task.record_steps`), the only tasks they are offered to.
"""

from __future__ import annotations

from statebox import kit
from statebox.domains.consulting_hr.tools._records import TABLES

__all__ = ["STEP_SCHEMA", "STEP_TOOLS"]

_EMPLOYEE = kit.Owner("employee_id", TABLES["employees"], "Employee id, such as 'EMP-0012'.")
VERIFICATIONS = kit.VerificationLog(subject="employee_id")
CONSENTS = kit.ConsentLog(
    _EMPLOYEE,
    related=tuple(
        TABLES[t]
        for t in (
            "employees",
            "expense_claims",
            "travel_requests",
            "site_access",
            "enrolments",
            "licence_allocations",
            "equipment",
            "assignments",
            "tickets",
        )
    ),
    disclosures=("planned_change",),
    docs={
        "record_disclosure": (
            "Record that you told the requester what you are about to do, before you do it."
        ),
        "record_disclosure.employee_id": "The requester's employee id, such as 'EMP-0012'.",
        "record_disclosure.topic": "What you told the requester: 'planned_change'.",
    },
)
VERIFY = kit.identity_tool(
    kit.IdentityCheck(
        "verify_employee",
        "Verify that the requester is the employee whose work email they give. Every attempt "
        "is recorded, passed or failed.",
        _EMPLOYEE,
        proofs=(
            kit.Proof(
                "email",
                "The work email the requester gives, such as 'ada.eastwood@example.com'.",
                kit.matches("employees", "email"),
            ),
        ),
        methods=(("email",),),
        log=VERIFICATIONS,
    )
)
STEP_TOOLS = (VERIFY, *kit.consent_tools(CONSENTS).values())
STEP_SCHEMA = VERIFICATIONS.schema("employees") + CONSENTS.schema()
