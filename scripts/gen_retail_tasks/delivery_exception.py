"""Delivery-exception tasks: hold open carrier exceptions; refund or reship lost packages."""

from __future__ import annotations

from datetime import timedelta

from ._build import (
    BY_ID,
    ITEMS,
    Patch,
    TaskSet,
    assert_no_open_ticket,
    call,
    day,
    ident,
    inv,
    merge,
    no_compensation,
    no_refund,
    order_number,
    stock,
    ticket,
    tier,
    ts,
)


def in_transit(
    order_id: str,
    shipped_days_ago: int,
    eta_days_ago: int,
    exception: str | None = None,
    resolution: str | None = None,
) -> Patch:
    """Re-date a shipped seed order; optionally add carrier exception EXC-0101.

    Args:
        order_id: A seed order in status shipped without a seed exception.
        shipped_days_ago: Days since the carrier picked it up.
        eta_days_ago: Days since the estimated delivery (negative: still ahead).
        exception: Exception kind, or None.
        resolution: None for an open exception, else how the carrier resolved it.
    """
    order = BY_ID["orders"][order_id]
    n = order_number(order_id)
    assert order["status"] == "shipped" and n % 3 != 0, order_id
    shipped = day(shipped_days_ago)
    placed = shipped - timedelta(days=1)
    status = "in_transit"
    if exception:
        status = "lost" if resolution == "lost" else "exception"
    sid = f"SHP-{10000000 + n}"
    events = [
        {"id": f"EVT-{10000000 + n}-1", "occurred_at": ts(shipped, 16)},
        {"id": f"EVT-{10000000 + n}-2", "occurred_at": ts(shipped, 21)},
        {"id": f"EVT-{10000000 + n}-3", "occurred_at": ts(shipped + timedelta(days=1), 6)},
    ]
    patch: Patch = {
        "orders": [{"id": order_id, "placed_at": ts(placed, 9)}],
        "payments": [{"id": f"PAY-{10000000 + n}", "created_at": ts(placed, 9)}],
        "shipments": [
            {
                "id": sid,
                "status": status,
                "shipped_at": ts(shipped, 16),
                "estimated_delivery": day(eta_days_ago).isoformat(),
            }
        ],
        "tracking_events": events,
    }
    if exception:
        opened = day(eta_days_ago - 1)
        text = {
            "delay": "Delayed: package held at regional hub",
            "lost": "Package not scanned since departure; carrier trace opened",
            "address_issue": "Address could not be verified by the carrier",
        }[exception]
        events.append(
            {
                "id": f"EVT-{10000000 + n}-4",
                "shipment_id": sid,
                "occurred_at": ts(opened, 9),
                "code": "exception",
                "location": "Regional hub",
                "description": text,
            }
        )
        resolved = day(1) if resolution else None
        patch["carrier_exceptions"] = [
            {
                "id": "EXC-0101",
                "shipment_id": sid,
                "kind": exception,
                "status": "resolved" if resolution else "open",
                "resolution": resolution,
                "opened_at": ts(opened, 9),
                "resolved_at": ts(resolved, 11) if resolved else None,
            }
        ]
        if resolution == "lost":
            events.append(
                {
                    "id": f"EVT-{10000000 + n}-5",
                    "shipment_id": sid,
                    "occurred_at": ts(day(1), 11),
                    "code": "lost",
                    "location": "Regional hub",
                    "description": "Carrier declared the package lost",
                }
            )
    return patch


def build(tasks: TaskSet) -> None:
    """Add open carrier exceptions (hold, no compensation) and lost ones (refund or reship)."""
    f = "delivery-exception"
    cases = [
        ("ORD-10000020", "CUS-0021", None, "20", "open", "delay", 16, 12),
        ("ORD-10000005", "CUS-0026", "basic", "101", "pending", "delay", 14, 9),
        ("ORD-10000022", "CUS-0007", "premium", "102", "open", "lost", 20, 15),
    ]
    for o, c, level, tid, status, kind, shipped, eta in cases:
        assert_no_open_ticket(o)
        patch = merge(
            in_transit(o, shipped, eta, kind),
            ticket(tid, c, o, "shipping", "Order has not arrived", status=status),
            tier(c, level) if level else {},
        )
        tasks.add(
            f,
            "hold-ticket",
            customer=c,
            order=o,
            description=(
                f"Order {eta} days past its estimate with an OPEN carrier exception ({kind}); the "
                f"customer has ticket {tid} ({status}) and asks for a refund. Correct: hold the "
                "existing ticket for the carrier; no refund, reship or credit."
            ),
            opening=(
                "My order was supposed to arrive ages ago and it still hasn't shown up. "
                "I want my money back or at least a discount."
            ),
            goal="Get the delayed order resolved; wants a refund or a discount",
            reacts={
                "accept": "So you can't refund me right now? Fine, please keep me posted.",
                "thanks": "Thanks, that's all.",
            },
            patch=patch,
            golden=[
                *ident(c, o),
                call("get_shipment_tracking", order_id=o),
                call("list_customer_tickets", customer_id=c),
                call("hold_ticket", ticket_id=tid, reason="carrier"),
            ],
            invariants=[
                inv(
                    f"select status || ':' || hold_reason from tickets where id = '{tid}'",
                    "hold:carrier",
                    f"ticket {tid} on hold for the carrier",
                ),
                *no_compensation(c, o),
            ],
            tags=["user-fact", "policy-trap"],
        )

    o, c = "ORD-10000011", "CUS-0024"
    assert_no_open_ticket(o)
    tasks.add(
        f,
        "create-and-hold",
        customer=c,
        order=o,
        description=(
            "Open carrier exception and no ticket about the order: create a shipping ticket and "
            "hold it for the carrier; no compensation."
        ),
        opening="Where is my package? Tracking hasn't moved in over a week.",
        goal="Find out what happened to the package and get it sorted",
        reacts={"accept": "Okay, I'll wait for the carrier then. Thanks."},
        patch=in_transit(o, 13, 8, "delay"),
        golden=[
            *ident(c, o),
            call("get_shipment_tracking", order_id=o),
            call("list_customer_tickets", customer_id=c),
            call(
                "create_ticket",
                customer_id=c,
                subject=f"{o}: package delayed, carrier exception open",
                category="shipping",
                order_id=o,
            ),
            call("hold_ticket", ticket_id="501", reason="carrier"),
        ],
        invariants=[
            inv(
                f"select count(*) from tickets where order_id = '{o}' and status = 'hold' "
                "and hold_reason = 'carrier'",
                1,
                "one ticket on carrier hold",
            ),
            *no_compensation(c, o),
        ],
        tags=["policy-trap"],
    )

    o, c = "ORD-10000020", "CUS-0021"
    tasks.add(
        f,
        "already-on-hold",
        customer=c,
        order=o,
        description=(
            "Ticket 20 is already on carrier hold and the exception is still open; the customer "
            "pushes for a refund again. Correct: no change."
        ),
        opening="I already contacted you about my late order. I want a refund today, please.",
        goal="Push for an immediate refund on the late order",
        reacts={"accept": "That's frustrating, but okay. Bye."},
        patch=merge(
            in_transit(o, 18, 14, "delay"),
            ticket("20", c, o, "shipping", "Order has not arrived", "hold", hold_reason="carrier"),
        ),
        golden=[*ident(c, o), call("get_shipment_tracking", order_id=o)],
        invariants=no_compensation(c, o),
        read_only=True,
        reply={"must_contain": ["carrier"]},
        reference="Your ticket is on hold while the carrier investigates the delay; I can't "
        "refund the order before that investigation ends.",
    )

    o, c = "ORD-10000013", "CUS-0010"
    total = BY_ID["orders"][o]["total"]
    tasks.add(
        f,
        "lost-refund",
        customer=c,
        order=o,
        description=(
            f"Carrier resolved the exception as lost; customer (Basic) wants a refund: full "
            f"{total} to the original payment (no tier limit for lost packages); solve ticket 12."
        ),
        opening="The carrier told me my package is lost. I'd like a refund, please.",
        goal="Get a full refund for the lost package",
        facts={"choice": "A refund, please, not a replacement."},
        patch=merge(
            in_transit(o, 15, 11, "lost", "lost"),
            ticket("12", c, o, "shipping", "Package lost?"),
        ),
        golden=[
            *ident(c, o),
            call("get_shipment_tracking", order_id=o),
            call("issue_refund", order_id=o, amount=total, reason="lost_package"),
            call("list_customer_tickets", customer_id=c),
            call("update_ticket", ticket_id="12", status="solved"),
        ],
        invariants=[
            inv(
                f"select sum(amount) from refunds where order_id = '{o}'",
                total,
                "full refund of the lost order",
            )
        ],
    )

    o, c = "ORD-10000014", "CUS-0023"
    patch = merge(
        in_transit(o, 16, 12, "lost", "lost"),
        ticket("23", c, o, "shipping", "Package lost?", "pending"),
        *(stock(i["product_id"], 10) for i in ITEMS[o]),
    )
    tasks.add(
        f,
        "lost-reship",
        customer=c,
        order=o,
        description="Resolved as lost; customer wants a replacement, all items in stock: reship.",
        opening="My package was lost by the carrier. Can you send me the items again?",
        goal="Get a replacement shipment",
        facts={"choice": "A replacement, please."},
        patch=patch,
        golden=[
            *ident(c, o),
            call("get_shipment_tracking", order_id=o),
            *(call("check_inventory", product_id=i["product_id"]) for i in ITEMS[o]),
            call("reship_order", order_id=o, reason="lost_package"),
            call("list_customer_tickets", customer_id=c),
            call("update_ticket", ticket_id="23", status="solved"),
        ],
        invariants=[no_refund(o)],
    )

    o, c = "ORD-10000019", "CUS-0008"
    assert_no_open_ticket(o)
    total = BY_ID["orders"][o]["total"]
    hoodie = ITEMS[o][2]["product_id"]
    tasks.add(
        f,
        "lost-reship",
        customer=c,
        order=o,
        description=(
            "Resolved as lost; customer prefers a replacement but one item is out of stock, so "
            "the policy falls back to a full refund."
        ),
        opening="The carrier says my order is lost. I'd like it sent again.",
        goal="Get a replacement, or a refund if a replacement is impossible",
        facts={"choice": "A replacement, please; if you can't send it again, a full refund."},
        reacts={"alternative": True},
        patch=merge(in_transit(o, 14, 10, "lost", "lost"), stock(hoodie, 0)),
        golden=[
            *ident(c, o),
            call("get_shipment_tracking", order_id=o),
            call("check_inventory", product_id=hoodie),
            call("issue_refund", order_id=o, amount=total, reason="lost_package"),
        ],
        invariants=[
            inv(f"select count(*) from orders where replacement_for = '{o}'", 0, "no reship")
        ],
    )
