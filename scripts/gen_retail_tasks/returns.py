"""Return tasks: RMA window by tier, final sale, approve-now versus inspect, partial quantity."""

from __future__ import annotations

from ._build import (
    ITEMS,
    PRODUCTS,
    TaskSet,
    assert_no_open_ticket,
    call,
    day,
    delivered,
    ident,
    inv,
    merge,
    no_refund,
    tier,
    ts,
)


def build(tasks: TaskSet) -> None:
    """Add RMAs: window by tier, final sale, approve-now versus inspect reasons, partial units."""
    f = "returns"
    approve_cases = [
        (
            "ORD-10000107",
            "CUS-0032",
            "basic",
            20,
            0,
            1,
            "defective",
            "stopped working after a week",
        ),
        ("ORD-10000118", "CUS-0015", "plus", 40, 1, 1, "wrong_item", "is not what I ordered"),
        ("ORD-10000095", "CUS-0036", "plus", 45, 0, 1, "defective", "has a broken clasp"),
        ("ORD-10000063", "CUS-0020", "basic", 12, 0, 2, "defective", "both kits are missing parts"),
        ("ORD-10000055", "CUS-0036", "plus", 5, 0, 1, "damaged_in_transit", "arrived crushed"),
    ]
    for o, c, level, days, idx, qty, reason, problem in approve_cases:
        item = ITEMS[o][idx]
        assert_no_open_ticket(o)
        pname = PRODUCTS[item["product_id"]]["name"]
        tasks.add(
            f,
            "approve",
            customer=c,
            order=o,
            description=(
                f"{level} member, delivered {days} days ago, returns {qty} x {pname} ({reason}, "
                f"returnable={PRODUCTS[item['product_id']]['returnable']}): open and approve."
            ),
            opening=f"I want to return the {pname} from my order; it {problem}.",
            goal="Return the item for a refund",
            facts={"item": pname, "quantity": qty},
            patch=merge(delivered(o, days), tier(c, level)),
            golden=[
                *ident(c, o),
                call(
                    "create_return",
                    order_id=o,
                    items=[{"order_item_id": item["id"], "quantity": qty}],
                    reason=reason,
                ),
                call("approve_return", rma_id="RMA-00501"),
            ],
            invariants=[
                inv(
                    f"select sum(amount) from refunds where order_id = '{o}' and reason = 'return'",
                    round(qty * item["unit_price"], 2),
                    "items refunded",
                )
            ],
        )
    o, c = "ORD-10000072", "CUS-0017"
    item = ITEMS[o][1]
    tasks.add(
        f,
        "inspect",
        customer=c,
        order=o,
        description="Premium, 55 days (window 60), no_longer_needed: open the RMA only.",
        opening="I'd like to return the rain jacket I bought, I never wore it.",
        goal="Return the jacket",
        facts={"reason": "I just don't need it anymore."},
        patch=delivered(o, 55),
        golden=[
            *ident(c, o),
            call(
                "create_return",
                order_id=o,
                items=[{"order_item_id": item["id"], "quantity": 1}],
                reason="no_longer_needed",
            ),
        ],
        invariants=[
            inv(
                "select status from returns where id = 'RMA-00501'", "requested", "awaits warehouse"
            ),
            no_refund(o),
        ],
    )
    for o, c, level, days, reason_text, desc, must, because in (
        ("ORD-10000084", "CUS-0013", "basic", 40, "I don't need them anymore",
         "Basic member, 40 days after delivery (window 30): refuse.", [30],
         "your order was delivered 40 days ago and returns are accepted within 30 days"),
        ("ORD-10000062", "CUS-0007", "basic", 10, "it doesn't fit me",
         "Final-sale item, no_longer_needed: refuse even within the window.",
         [["final sale", "final-sale"]], "the item was a final sale"),
    ):  # fmt: skip
        tasks.add(
            f,
            "refuse",
            customer=c,
            order=o,
            description=desc,
            opening=f"I want to return my order, {reason_text}.",
            goal="Return the order for a refund",
            reacts={"pushback": 1, "push": "Are you sure?", "accept": "Okay then. Bye."},
            patch=merge(delivered(o, days), tier(c, level)),
            golden=[*ident(c, o)],
            invariants=[no_refund(o)],
            read_only=True,
            reply={"must_contain": must},
            reference=f"I'm sorry, I can't accept this return: {because}.",
        )
    o, c = "ORD-10000054", "CUS-0023"
    sheets = ITEMS[o][1]
    assert PRODUCTS[sheets["product_id"]]["returnable"] == 0
    tasks.add(
        f,
        "review",
        customer=c,
        order=o,
        description=(
            "An RMA for a final-sale item with reason no_longer_needed is still requested: "
            "reject it (final_sale)."
        ),
        opening="What's happening with my return? I sent the request a few days ago.",
        goal="Know the status of the return",
        reacts={"accept": "That's disappointing. Okay. Bye."},
        facts={"rma_id": "RMA-00100"},
        patch=merge(
            delivered(o, 20),
            {
                "returns": [
                    {
                        "id": "RMA-00100",
                        "order_id": o,
                        "customer_id": c,
                        "status": "requested",
                        "reason": "no_longer_needed",
                        "created_at": ts(day(4), 15),
                        "decided_at": None,
                        "reject_reason": None,
                    }
                ],
                "return_items": [
                    {"rma_id": "RMA-00100", "order_item_id": sheets["id"], "quantity": 2}
                ],
            },
        ),
        golden=[
            *ident(c, o),
            call("get_return", rma_id="RMA-00100"),
            call("reject_return", rma_id="RMA-00100", reason="final_sale"),
        ],
        invariants=[no_refund(o)],
    )
