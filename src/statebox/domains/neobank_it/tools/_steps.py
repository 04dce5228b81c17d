"""neobank_it's step-recording tools: caller verification and the employee's confirmation.

The policy mandates identifying the caller by work email before any change (and, for an
unlock, by the employee id they state: §1), marking a ticket solved only when the
employee confirms the problem is fixed (§9) and wiping a device only after the employee
accepts that its data is erased (§8.4); these tools leave both in the state for
tasks that record steps (`Task.record_steps`), the only tasks they are offered to.
"""

from __future__ import annotations

from statebox import kit
from statebox.domains.neobank_it.tools._records import TABLES

__all__ = ["STEP_SCHEMA", "STEP_TOOLS"]

_EMPLOYEE = kit.Owner("employee_id", TABLES["employees"], "Employee id, such as 'EMP-0001'.")
VERIFICATIONS = kit.VerificationLog(subject="employee_id")
CONSENTS = kit.ConsentLog(
    _EMPLOYEE,
    related=(TABLES["tickets"], TABLES["devices"]),
    confirmations=("problem_fixed", "remote_wipe"),
    docs={
        "record_confirmation.topic": "What the employee confirmed: 'problem_fixed' (a "
        "ticket id) or 'remote_wipe' (a device id: they accept that everything on it is "
        "erased).",
    },
)
VERIFY = kit.identity_tool(
    kit.IdentityCheck(
        "verify_employee",
        "Verify that the caller is the employee they say: the employee id (the one the caller "
        "states, or the one find_employee_by_email returned) with the work email they give. "
        "Every attempt is recorded, passed or failed.",
        _EMPLOYEE,
        proofs=(
            kit.Proof(
                "email",
                "The work email the caller gives, such as 'avery.hollis@neobank.example.com'.",
                kit.matches("employees", "email"),
            ),
        ),
        methods=(("email",),),
        log=VERIFICATIONS,
    )
)
STEP_TOOLS = (VERIFY, *kit.consent_tools(CONSENTS).values())
STEP_SCHEMA = VERIFICATIONS.schema("employees") + CONSENTS.schema()
