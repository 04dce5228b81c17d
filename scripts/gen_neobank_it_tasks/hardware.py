"""Hardware-order tasks: the 36-month refresh, damage, price thresholds and who approves."""

from __future__ import annotations

from typing import Any

from ._build import (
    CATALOG,
    DEVICE_OF,
    EMP,
    TaskSet,
    call,
    day,
    ident,
    inv,
    manager,
    notify,
    sent,
    ts,
)

_RUBRIC = [
    "Does the reply say that contractors get their equipment from their agency, so no order "
    "was placed? (yes/no)",
]


def build(tasks: TaskSet) -> None:
    """Add laptop and accessory orders across the refresh boundary and price limits."""
    f = "hardware-order"
    # variant, employee, laptop age in days, item (None: laptop by department), quantity,
    # damaged?, open laptop order?, line
    cases: list[tuple[str, str, int, str | None, int, bool, bool, str]] = [
        ("refresh", "EMP-0045", 1200, None, 1, False, False, "It's just old and slow."),
        ("refresh", "EMP-0031", 1095, None, 1, False, False, "It's getting really slow."),
        ("refresh-pro", "EMP-0006", 1300, None, 1, False, False, "The battery barely lasts."),
        ("too-new", "EMP-0032", 1094, None, 1, False, False, "It's a bit slow these days."),
        ("too-new", "EMP-0053", 400, None, 1, False, False, "I'd just like a faster one."),
        (
            "damaged",
            "EMP-0025",
            500,
            None,
            1,
            True,
            False,
            "I dropped it and the screen is shattered; it won't boot.",
        ),
        (
            "damaged",
            "EMP-0010",
            300,
            None,
            1,
            True,
            False,
            "Coffee went into the keyboard and it is dead now.",
        ),
        ("accessory", "EMP-0046", 700, "HW-MON-27", 1, False, False, "Just one monitor."),
        ("accessory", "EMP-0023", 700, "HW-DOCK", 1, False, False, "One dock please."),
        ("accessory-over", "EMP-0033", 700, "HW-MON-27", 2, False, False, "Two monitors, please."),
        ("contractor", "EMP-0044", 1300, None, 1, False, False, "It's very old."),
        ("duplicate", "EMP-0047", 1250, None, 1, False, True, "It's old."),
    ]
    for n, (variant, emp, age, item, qty, damaged, open_order, line) in enumerate(cases, 1):
        e = EMP[emp]
        dev = DEVICE_OF[emp]
        patch: dict[str, list[dict[str, Any]]] = {
            "devices": [{"id": dev["id"], "assigned_on": day(-age)}]
        }
        laptop = item is None
        cat = item or ("HW-LAP-PRO" if e["department_id"] == "DEP-ENG" else "HW-LAP-STD")
        total = round(float(CATALOG[cat]["price_usd"]) * qty, 2)
        if open_order:
            patch["hardware_orders"] = [
                {
                    "id": f"HO-{400 + n:05d}",
                    "employee_id": emp,
                    "catalog_id": cat,
                    "quantity": 1,
                    "total_usd": total,
                    "reason": "refresh",
                    "status": "pending_approval",
                    "cancel_reason": None,
                    "created_at": ts(-3),
                    "updated_at": ts(-3),
                }
            ]
        golden = [
            ident(emp),
            call("list_employee_devices", employee_id=emp),
            call("list_hardware_orders", employee_id=emp),
            call("list_hardware_catalog"),
        ]
        read_only = False
        rubric = None
        reference = ""
        reply = None
        tags = ["threshold"]
        if damaged:
            tags.append("user-fact")
        if e["employment_type"] == "contractor" or open_order:
            read_only = True
            invariants = [
                inv(
                    f"select count(*) from hardware_orders where employee_id = '{emp}' and "
                    "status != 'delivered'",
                    1 if open_order else 0,
                    "no new order",
                )
            ]
            desc = f"{emp}: {'contractor' if not open_order else 'open laptop order'} -> refuse"
            if not open_order:
                rubric = _RUBRIC
                reference = (
                    "As a contractor your equipment comes from your agency, so I "
                    "haven't placed an order; please contact your agency."
                )
                reply = {"must_contain": ["agency"]}
            else:
                reference = (
                    "You already have an open laptop order, so I can't place another one "
                    "until it is delivered."
                )
                reply = {"must_contain": [["already", "open order", "existing order"]]}
        else:
            if laptop:
                reason = (
                    "damage_replacement" if damaged else ("refresh" if age >= 1095 else "new_need")
                )
                auto = reason != "new_need" and total <= 2000
            else:
                reason = "new_need"
                auto = total <= 300
            approval = "auto" if auto else "manager"
            golden += [
                call(
                    "create_hardware_order",
                    employee_id=emp,
                    catalog_id=cat,
                    quantity=qty,
                    reason=reason,
                    approval=approval,
                ),
                notify(emp, "order_placed", "HO-00501")
                if auto
                else notify(manager(emp), "approval_needed", "HO-00501"),
            ]
            status = "approved" if auto else "pending_approval"
            invariants = [
                inv(
                    "select catalog_id || ' ' || quantity || ' ' || reason || ' ' || status "
                    "from hardware_orders where id = 'HO-00501'",
                    f"{cat} {qty} {reason} {status}",
                    f"{reason} order, {status}",
                ),
                sent(emp, "order_placed", "HO-00501")
                if auto
                else sent(manager(emp), "approval_needed", "HO-00501"),
            ]
            desc = f"{cat} x{qty} ${total:.2f}, laptop age {age}d -> {reason}, {approval}"
        what = "a new laptop" if laptop else f"{qty} x {CATALOG[cat]['name']}"
        tasks.add(
            f,
            variant,
            employee=emp,
            description=desc,
            opening=f"Hi, I'd like to order {what}.",
            goal=f"Get {what}",
            reacts={"thanks": "Thanks."},
            facts={"situation": line},
            patch=patch,
            golden=golden,
            invariants=invariants,
            tags=tags,
            read_only=read_only,
            rubric=rubric,
            reference=reference,
            reply=reply,
        )
