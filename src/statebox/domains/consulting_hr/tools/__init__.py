"""The consulting_hr domain's tools, split by entity; `ALL_TOOLS` lists them in a fixed order.

`STEP_TOOLS` record mandatory steps (verification, disclosures) in `STEP_SCHEMA`'s tables; they are
offered only to tasks that record steps.
"""

from statebox.domains.consulting_hr.tools._access import (
    grant_site_access,
    record_nda,
    revoke_site_access,
)
from statebox.domains.consulting_hr.tools._directory import (
    activate_employee,
    disable_all_accounts,
    find_employee_by_email,
    get_employee,
    get_employee_access,
    offboard_employee,
)
from statebox.domains.consulting_hr.tools._engagements import (
    assign_to_engagement,
    end_assignment,
    get_client,
    get_engagement,
)
from statebox.domains.consulting_hr.tools._equipment import (
    assign_equipment,
    list_available_equipment,
    report_equipment_issue,
    return_equipment,
)
from statebox.domains.consulting_hr.tools._expenses import (
    approve_expense_claim,
    attach_receipt,
    get_expense_claim,
    get_expense_limits,
    hold_expense_claim,
    list_expense_claims,
    reject_expense_claim,
    submit_expense_claim,
)
from statebox.domains.consulting_hr.tools._software import (
    assign_licence,
    list_software,
    release_licence,
)
from statebox.domains.consulting_hr.tools._steps import STEP_SCHEMA, STEP_TOOLS
from statebox.domains.consulting_hr.tools._tickets import TICKET_TOOLS
from statebox.domains.consulting_hr.tools._training import (
    cancel_enrolment,
    enrol_in_course,
    get_training_record,
    list_courses,
)
from statebox.domains.consulting_hr.tools._travel import (
    approve_travel_request,
    cancel_travel_request,
    create_travel_request,
    escalate_travel_request,
    list_travel_requests,
)
from statebox.tools import ToolSpec

__all__ = ["ALL_TOOLS", "STEP_SCHEMA", "STEP_TOOLS"]

ALL_TOOLS: tuple[ToolSpec, ...] = (
    # directory, onboarding, offboarding
    find_employee_by_email,
    get_employee,
    get_employee_access,
    activate_employee,
    offboard_employee,
    disable_all_accounts,
    # engagements and client sites
    get_engagement,
    get_client,
    assign_to_engagement,
    end_assignment,
    record_nda,
    grant_site_access,
    revoke_site_access,
    # expenses
    get_expense_limits,
    list_expense_claims,
    get_expense_claim,
    submit_expense_claim,
    approve_expense_claim,
    hold_expense_claim,
    reject_expense_claim,
    attach_receipt,
    # training
    list_courses,
    get_training_record,
    enrol_in_course,
    cancel_enrolment,
    # software and equipment
    list_software,
    assign_licence,
    release_licence,
    list_available_equipment,
    assign_equipment,
    return_equipment,
    report_equipment_issue,
    # travel
    list_travel_requests,
    create_travel_request,
    approve_travel_request,
    escalate_travel_request,
    cancel_travel_request,
    # tickets
    *(
        TICKET_TOOLS[name]
        for name in (
            "list_employee_tickets",
            "get_ticket",
            "create_ticket",
            "hold_ticket",
            "escalate_ticket",
            "resolve_ticket",
            "add_ticket_note",
        )
    ),
)
