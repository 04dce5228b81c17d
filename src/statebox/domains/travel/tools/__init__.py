"""The travel domain's tools, split by entity; `ALL_TOOLS` lists them in a fixed order.

`STEP_TOOLS` record mandatory steps (verification, disclosures, confirmations) in
`STEP_SCHEMA`'s tables; they are offered only to tasks that record steps.
"""

from statebox.domains.travel.tools._bookings import (
    cancel_booking,
    change_booking_dates,
    get_booking,
    list_customer_bookings,
    quote_booking_change,
    update_passenger_name,
    validate_booking_reference,
)
from statebox.domains.travel.tools._corporate import (
    approve_corporate_booking,
    get_corporate_account,
    reject_corporate_booking,
)
from statebox.domains.travel.tools._customers import (
    add_customer_note,
    find_customer_by_email,
    get_customer_profile,
    update_customer_contact,
)
from statebox.domains.travel.tools._hotels import (
    add_special_request,
    escalate_to_hotel,
    get_hotel,
    resolve_hotel_escalation,
)
from statebox.domains.travel.tools._loyalty import (
    add_loyalty_points,
    get_loyalty_account,
    update_loyalty_tier,
)
from statebox.domains.travel.tools._payments import issue_refund, issue_travel_credit
from statebox.domains.travel.tools._steps import STEP_SCHEMA, STEP_TOOLS
from statebox.domains.travel.tools._tickets import TICKET_TOOLS
from statebox.tools import ToolSpec

__all__ = ["ALL_TOOLS", "STEP_SCHEMA", "STEP_TOOLS"]

ALL_TOOLS: tuple[ToolSpec, ...] = (
    # CRM
    find_customer_by_email,
    get_customer_profile,
    update_customer_contact,
    add_customer_note,
    # loyalty
    get_loyalty_account,
    add_loyalty_points,
    update_loyalty_tier,
    # bookings
    validate_booking_reference,
    get_booking,
    list_customer_bookings,
    quote_booking_change,
    cancel_booking,
    change_booking_dates,
    update_passenger_name,
    # money
    issue_refund,
    issue_travel_credit,
    # corporate
    get_corporate_account,
    approve_corporate_booking,
    reject_corporate_booking,
    # hotel partner channel
    get_hotel,
    add_special_request,
    escalate_to_hotel,
    resolve_hotel_escalation,
    # tickets
    *(
        TICKET_TOOLS[name]
        for name in (
            "get_ticket",
            "list_customer_tickets",
            "create_ticket",
            "update_ticket",
            "hold_ticket",
            "escalate_ticket",
            "add_ticket_note",
        )
    ),
)
