"""The neobank_it domain's tools, split by entity; `ALL_TOOLS` lists them in a fixed order.

`STEP_TOOLS` record mandatory steps (verification, confirmations) in `STEP_SCHEMA`'s
tables; they are offered only to tasks that record steps.
"""

from statebox.domains.neobank_it.tools._access import (
    create_access_request,
    extend_access,
    get_access_request,
    grant_access,
    list_employee_access,
    list_systems,
    reject_access_request,
    revoke_access,
)
from statebox.domains.neobank_it.tools._directory import (
    find_employee_by_email,
    get_account,
    get_department,
    get_employee,
)
from statebox.domains.neobank_it.tools._hardware import (
    cancel_hardware_order,
    create_hardware_order,
    list_employee_devices,
    list_hardware_catalog,
    list_hardware_orders,
)
from statebox.domains.neobank_it.tools._licences import (
    assign_licence,
    list_employee_licences,
    list_licence_pools,
    list_pool_allocations,
    release_licence,
)
from statebox.domains.neobank_it.tools._notifications import send_notification
from statebox.domains.neobank_it.tools._security import (
    disable_account,
    force_password_reset,
    get_incident,
    mark_device_lost,
    remote_wipe_device,
    report_security_incident,
    unlock_account,
)
from statebox.domains.neobank_it.tools._steps import STEP_SCHEMA, STEP_TOOLS
from statebox.domains.neobank_it.tools._tickets import TICKET_TOOLS
from statebox.tools import ToolSpec

__all__ = ["ALL_TOOLS", "STEP_SCHEMA", "STEP_TOOLS"]

ALL_TOOLS: tuple[ToolSpec, ...] = (
    # directory and accounts
    find_employee_by_email,
    get_employee,
    get_department,
    get_account,
    unlock_account,
    force_password_reset,
    disable_account,
    # access
    list_systems,
    list_employee_access,
    get_access_request,
    create_access_request,
    grant_access,
    reject_access_request,
    revoke_access,
    extend_access,
    # licences
    list_licence_pools,
    list_pool_allocations,
    list_employee_licences,
    assign_licence,
    release_licence,
    # hardware and devices
    list_hardware_catalog,
    list_employee_devices,
    list_hardware_orders,
    create_hardware_order,
    cancel_hardware_order,
    # security
    get_incident,
    report_security_incident,
    mark_device_lost,
    remote_wipe_device,
    # tickets and notifications
    *(
        TICKET_TOOLS[name]
        for name in (
            "get_ticket",
            "list_employee_tickets",
            "create_ticket",
            "update_ticket",
            "hold_ticket",
            "escalate_ticket",
        )
    ),
    send_notification,
)
