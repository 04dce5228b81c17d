"""The retail domain's tools, split by entity; `ALL_TOOLS` lists them in a fixed order.

`STEP_TOOLS` record mandatory steps (verification, disclosures) in `STEP_SCHEMA`'s tables;
they are offered only to tasks that record steps.
"""

from statebox.domains.retail.tools._catalog import check_inventory, get_product, search_products
from statebox.domains.retail.tools._customers import (
    add_address,
    find_customer_by_email,
    get_customer_profile,
    list_customer_orders,
)
from statebox.domains.retail.tools._loyalty import (
    add_loyalty_points,
    get_points_history,
    redeem_points,
    update_membership_tier,
)
from statebox.domains.retail.tools._orders import (
    cancel_order,
    get_order,
    reship_order,
    update_shipping_address,
)
from statebox.domains.retail.tools._payments import issue_refund, issue_store_credit
from statebox.domains.retail.tools._promotions import apply_coupon, validate_promotion
from statebox.domains.retail.tools._returns import (
    approve_return,
    create_return,
    get_return,
    record_return_serial,
    reject_return,
)
from statebox.domains.retail.tools._shipments import get_shipment_tracking
from statebox.domains.retail.tools._steps import STEP_SCHEMA, STEP_TOOLS
from statebox.domains.retail.tools._tickets import TICKET_TOOLS
from statebox.domains.retail.tools._warranty import (
    file_warranty_claim,
    get_warranty,
    list_customer_warranties,
)
from statebox.tools import ToolSpec

__all__ = ["ALL_TOOLS", "STEP_SCHEMA", "STEP_TOOLS"]

ALL_TOOLS: tuple[ToolSpec, ...] = (
    # customers and catalog
    find_customer_by_email,
    get_customer_profile,
    list_customer_orders,
    add_address,
    get_product,
    search_products,
    check_inventory,
    # orders and shipments
    get_order,
    cancel_order,
    update_shipping_address,
    reship_order,
    get_shipment_tracking,
    # money
    issue_refund,
    issue_store_credit,
    # returns and warranty
    get_return,
    create_return,
    approve_return,
    reject_return,
    record_return_serial,
    list_customer_warranties,
    get_warranty,
    file_warranty_claim,
    # promotions and loyalty
    validate_promotion,
    apply_coupon,
    get_points_history,
    add_loyalty_points,
    redeem_points,
    update_membership_tier,
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
            "add_ticket_comment",
        )
    ),
)
