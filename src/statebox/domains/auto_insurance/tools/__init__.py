"""The auto insurance domain's tools, split by entity; `ALL_TOOLS` lists them in a fixed order.

`STEP_TOOLS` record mandatory steps (disclosures) in `STEP_SCHEMA`'s tables; they are
offered only to tasks that record steps.
"""

from statebox.domains.auto_insurance.tools._billing import (
    change_payment_plan,
    get_billing,
    grant_payment_extension,
    pay_fee,
    pay_installment,
    waive_fee,
)
from statebox.domains.auto_insurance.tools._cancellations import (
    rescind_cancellation,
    schedule_cancellation,
)
from statebox.domains.auto_insurance.tools._claims import (
    file_claim,
    get_claim,
    list_claims,
    mark_document_received,
    request_claim_documents,
    withdraw_claim,
)
from statebox.domains.auto_insurance.tools._coverages import (
    add_coverage,
    change_deductible,
    change_liability_limit,
    remove_coverage,
)
from statebox.domains.auto_insurance.tools._identity import (
    get_customer,
    update_contact_info,
    verify_identity,
)
from statebox.domains.auto_insurance.tools._notes import NOTE_TOOLS
from statebox.domains.auto_insurance.tools._policies import (
    add_driver,
    add_vehicle,
    get_policy,
    remove_driver,
    remove_vehicle,
)
from statebox.domains.auto_insurance.tools._steps import STEP_SCHEMA, STEP_TOOLS
from statebox.domains.auto_insurance.tools._tickets import TICKET_TOOLS
from statebox.tools import ToolSpec

__all__ = ["ALL_TOOLS", "STEP_SCHEMA", "STEP_TOOLS"]

ALL_TOOLS: tuple[ToolSpec, ...] = (
    # identity
    verify_identity,
    get_customer,
    update_contact_info,
    # policy, vehicles, drivers, coverages
    get_policy,
    add_vehicle,
    remove_vehicle,
    add_driver,
    remove_driver,
    change_deductible,
    change_liability_limit,
    add_coverage,
    remove_coverage,
    schedule_cancellation,
    rescind_cancellation,
    # billing
    get_billing,
    pay_installment,
    pay_fee,
    waive_fee,
    grant_payment_extension,
    change_payment_plan,
    # claims
    list_claims,
    get_claim,
    file_claim,
    request_claim_documents,
    mark_document_received,
    withdraw_claim,
    # service
    NOTE_TOOLS["add_crm_note"],
    NOTE_TOOLS["list_crm_notes"],
    *(
        TICKET_TOOLS[name]
        for name in (
            "list_customer_tickets",
            "create_ticket",
            "update_ticket",
            "hold_ticket",
            "escalate_ticket",
        )
    ),
)
