"""Order-cancellation tasks: own orders before they reach the vendor; nothing else."""

from __future__ import annotations

from ._build import CATALOG, TaskSet, call, ident, inv, notify, sent, ts

_RUBRIC = [
    "Does the reply say the order can no longer be cancelled because it was already placed "
    "with the vendor or delivered? (yes/no)",
]


def build(tasks: TaskSet) -> None:
    """Add cancellations by order status and ownership."""
    f = "order-cancel"
    # variant, caller, order owner, item, status
    cases = [
        ("pending", "EMP-0045", "EMP-0045", "HW-LAP-STD", "pending_approval"),
        ("pending", "EMP-0011", "EMP-0011", "HW-LAP-PRO", "pending_approval"),
        ("approved", "EMP-0023", "EMP-0023", "HW-MON-27", "approved"),
        ("approved", "EMP-0052", "EMP-0052", "HW-DOCK", "approved"),
        ("approved", "EMP-0037", "EMP-0037", "HW-HEADSET", "approved"),
        ("ordered", "EMP-0031", "EMP-0031", "HW-LAP-STD", "ordered"),
        ("ordered", "EMP-0008", "EMP-0008", "HW-MON-27", "ordered"),
        ("delivered", "EMP-0046", "EMP-0046", "HW-KEYB", "delivered"),
        ("not-own", "EMP-0047", "EMP-0048", "HW-LAP-STD", "approved"),
        ("not-own", "EMP-0025", "EMP-0026", "HW-DOCK", "pending_approval"),
    ]
    for n, (variant, caller, owner, cat, status) in enumerate(cases, 1):
        oid = f"HO-{400 + n:05d}"
        price = float(CATALOG[cat]["price_usd"])
        patch = {
            "hardware_orders": [
                {
                    "id": oid,
                    "employee_id": owner,
                    "catalog_id": cat,
                    "quantity": 1,
                    "total_usd": price,
                    "reason": "new_need",
                    "status": status,
                    "cancel_reason": None,
                    "created_at": ts(-6),
                    "updated_at": ts(-2),
                }
            ]
        }
        golden = [ident(caller), call("list_hardware_orders", employee_id=caller)]
        rubric = None
        reference = ""
        reply = None
        if caller == owner and status in ("pending_approval", "approved"):
            golden += [
                call("cancel_hardware_order", order_id=oid, reason="requester_withdrew"),
                notify(caller, "order_cancelled", oid),
            ]
            invariants = [
                inv(
                    f"select status || ':' || cancel_reason from hardware_orders where id = "
                    f"'{oid}'",
                    "cancelled:requester_withdrew",
                    "order cancelled",
                ),
                sent(caller, "order_cancelled", oid),
            ]
            desc = f"own {status} order -> cancel"
            read_only = False
        else:
            invariants = [
                inv(
                    f"select status from hardware_orders where id = '{oid}'",
                    status,
                    "order unchanged",
                ),
            ]
            desc = f"{'someone else' if caller != owner else 'own'}'s {status} order -> refuse"
            read_only = True
            if caller == owner:
                rubric = _RUBRIC
                reference = f"Order {oid} is already {status}, so it can no longer be cancelled."
                reply = {"must_contain": [status]}
            else:
                reference = "Only the person who placed an order can cancel it, so I can't "
                "cancel this one."
                reply = {"must_contain": [["placed", "your own", "someone else", "not yours"]]}
        tasks.add(
            f,
            variant,
            employee=caller,
            description=desc,
            opening="I want to cancel a hardware order.",
            goal="Cancel the hardware order",
            reacts={"thanks": "Okay, thanks.", "accept": "Okay, thanks."},
            facts={"order_id": oid},
            patch=patch,
            golden=golden,
            invariants=invariants,
            tags=["status"],
            read_only=read_only,
            rubric=rubric,
            reference=reference,
            reply=reply,
        )
