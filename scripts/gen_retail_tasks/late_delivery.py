"""Late-delivery tasks: compensation for orders delivered late, by tier, around the 3-day limit."""

from __future__ import annotations

from ._build import (
    BY_ID,
    TaskSet,
    call,
    day,
    delivered,
    ident,
    inv,
    merge,
    no_compensation,
    no_refund,
    pct,
    ts,
)


def build(tasks: TaskSet) -> None:
    """Add compensation for delivered-late orders by tier, with the 3-day threshold."""
    f = "late-delivery"
    o, c = "ORD-10000042", "CUS-0027"
    total = BY_ID["orders"][o]["total"]
    tasks.add(
        f,
        "store-credit",
        customer=c,
        order=o,
        description="Plus member, delivered 6 days late: store credit of 10% of the total.",
        opening="My blender arrived almost a week later than promised. Can you do anything?",
        goal="Get compensation for the late delivery",
        facts={"choice": "Store credit works for me."},
        patch=delivered(o, 10, late_days=6),
        golden=[
            *ident(c, o),
            call("get_shipment_tracking", order_id=o),
            call(
                "issue_store_credit",
                customer_id=c,
                amount=pct(total, 10),
                reason="late_delivery",
                order_id=o,
            ),
        ],
        invariants=[no_refund(o)],
    )
    o, c = "ORD-10000072", "CUS-0017"
    total = BY_ID["orders"][o]["total"]
    tasks.add(
        f,
        "store-credit",
        customer=c,
        order=o,
        description="Premium member, delivered 4 days late (just over the threshold): 10% credit.",
        opening="My order came four days after the delivery date. That's not great.",
        goal="Get compensation for the late delivery",
        reacts={"agree": "Yes please.", "thanks": "Thank you."},
        patch=delivered(o, 6, late_days=4),
        golden=[
            *ident(c, o),
            call("get_shipment_tracking", order_id=o),
            call(
                "issue_store_credit",
                customer_id=c,
                amount=pct(total, 10),
                reason="late_delivery",
                order_id=o,
            ),
        ],
    )
    o, c = "ORD-10000080", "CUS-0001"
    tasks.add(
        f,
        "points",
        customer=c,
        order=o,
        description="Basic member, delivered 5 days late: 500 loyalty points, no credit.",
        opening="My hiking poles were delivered five days late. I'd like some compensation.",
        goal="Get compensation for the late delivery",
        facts={"choice": "Points are fine."},
        patch=delivered(o, 8, late_days=5),
        golden=[
            *ident(c, o),
            call("get_shipment_tracking", order_id=o),
            call(
                "add_loyalty_points", customer_id=c, points=500, reason="late_delivery", order_id=o
            ),
        ],
        invariants=[
            inv(
                f"select points_balance from memberships where customer_id = '{c}'",
                BY_ID["memberships"][c]["points_balance"] + 500,
                "500 points added",
            )
        ],
    )
    o, c = "ORD-10000053", "CUS-0010"
    tasks.add(
        f,
        "under-threshold",
        customer=c,
        order=o,
        description="Delivered exactly 3 days late: no compensation (threshold is more than 3).",
        opening="My order was three days late. I think I deserve something for that.",
        goal="Get compensation for a 3-day delay",
        reacts={"accept": "Okay, I understand. Bye."},
        patch=delivered(o, 2, late_days=3),
        golden=[*ident(c, o), call("get_shipment_tracking", order_id=o)],
        invariants=no_compensation(c, o),
        read_only=True,
        reply={"must_contain": [3]},
        reference="Your order arrived 3 days late; compensation starts only when a delivery is "
        "more than 3 days late, so I can't offer any.",
    )
    o, c = "ORD-10000072", "CUS-0017"
    tasks.add(
        f,
        "already-compensated",
        customer=c,
        order=o,
        description="Premium, 7 days late, but a late-delivery credit was already given: none.",
        opening="My order was a week late. What will you do about it?",
        goal="Get compensation for the late delivery",
        reacts={"accept": "Oh, I missed that. Okay. Thanks."},
        patch=merge(
            delivered(o, 9, late_days=7),
            {
                "store_credits": [
                    {
                        "id": "SC-00100",
                        "customer_id": c,
                        "amount": pct(BY_ID["orders"][o]["total"], 10),
                        "reason": "late_delivery",
                        "order_id": o,
                        "created_at": ts(day(5), 12),
                    }
                ]
            },
        ),
        golden=[
            *ident(c, o),
            call("get_shipment_tracking", order_id=o),
            call("get_customer_profile", customer_id=c),
        ],
        read_only=True,
        reply={"must_contain": [["already", "credit"]]},
        reference="You already received a late-delivery store credit for this order, so there "
        "is no further compensation.",
    )
