"""Promotion tasks: coupon eligibility by dates, minimum and tier; missed codes after shipping."""

from __future__ import annotations

from ._build import (
    BY_ID,
    TaskSet,
    call,
    day,
    ident,
    inv,
    merge,
    no_compensation,
    no_refund,
    pct,
    tier,
)


def build(tasks: TaskSet) -> None:
    """Add coupons: eligibility by dates, minimum and tier; missed codes on shipped orders."""
    f = "promotions"
    apply_cases = [
        ("ORD-10000008", "CUS-0025", None, "FALL15"),
        ("ORD-10000010", "CUS-0011", "premium", "PLUS20"),
        ("ORD-10000017", "CUS-0022", "plus", "PLUS20"),
    ]
    promos = BY_ID["promotions"]
    for o, c, level, code in apply_cases:
        order = BY_ID["orders"][o]
        p = promos[code]
        discount = pct(order["subtotal"], p["value"]) if p["kind"] == "percent" else p["value"]
        tasks.add(
            f,
            "apply",
            customer=c,
            order=o,
            description=f"{code} is eligible on the unshipped order: apply it ({discount} off).",
            opening=f"I forgot to use my code {code} on my order. Can you add it?",
            goal=f"Get the {code} discount on the order",
            reacts={"agree": "Yes please."},
            facts={"code": code},
            patch=tier(c, level) if level else None,
            golden=[
                *ident(c, o),
                call("validate_promotion", code=code, order_id=o),
                call("apply_coupon", order_id=o, code=code),
            ],
            invariants=[
                inv(f"select discount from orders where id = '{o}'", discount, "discount applied")
            ],
        )
    refuse_cases = [
        ("ORD-10000001", "CUS-0014", "PLUS20", "Basic member; PLUS20 needs Plus or better.", None),
        ("ORD-10000017", "CUS-0022", "SUMMER25", "SUMMER25 ended on 2025-08-31.", None),
        ("ORD-10000009", "CUS-0038", "FALL15", "Subtotal 59 is below FALL15's $75 minimum.", None),
        ("ORD-10000002", "CUS-0027", "FALL15", "The order already uses WELCOME10; one code only.",
         {"orders": [{"id": "ORD-10000002", "coupon_code": "WELCOME10", "discount": 10.0,
                      "total": 106.0}],
          "payments": [{"id": "PAY-10000002", "amount": 106.0}]}),
    ]  # fmt: skip
    # What the refusal must name: the tier, the end date, the minimum, the code in use.
    refuse_reasons = {
        "ORD-10000001": (["plus"], "PLUS20 is only for Plus members or better."),
        "ORD-10000017": (["2025-08-31"], "SUMMER25 ended on 2025-08-31."),
        "ORD-10000009": ([75], "FALL15 needs a subtotal of at least $75; yours is $59."),
        "ORD-10000002": (["WELCOME10"], "Your order already uses WELCOME10; one code per order."),
    }
    for o, c, code, why, patch in refuse_cases:
        must, because = refuse_reasons[o]
        tasks.add(
            f,
            "ineligible",
            customer=c,
            order=o,
            description=f"{why} No change.",
            opening=f"Please apply the code {code} to my order.",
            goal=f"Get the {code} discount",
            reacts={"pushback": 1, "push": "Are you sure it doesn't work?", "accept": "Okay."},
            facts={"code": code},
            patch=merge(tier(c, BY_ID["memberships"][c]["tier"]), patch or {}),
            golden=[*ident(c, o), call("validate_promotion", code=code, order_id=o)],
            invariants=[no_refund(o)],
            read_only=True,
            reply={"must_contain": must},
            reference=f"I'm sorry, I can't apply {code}: {because}",
        )
    o, c = "ORD-10000011", "CUS-0024"
    credit = pct(BY_ID["orders"][o]["subtotal"], 15)
    tasks.add(
        f,
        "missed-code",
        customer=c,
        order=o,
        description=(
            "Order shipped, placed 4 days ago while FALL15 was valid and met: store credit equal "
            f"to the discount ({credit}), reason price_adjustment."
        ),
        opening="I had the FALL15 code but forgot to enter it. My order already shipped.",
        goal="Get the FALL15 discount somehow",
        reacts={"alternative": True, "agree": "Store credit is fine."},
        facts={"code": "FALL15"},
        golden=[
            *ident(c, o),
            call("validate_promotion", code="FALL15", order_id=o),
            call(
                "issue_store_credit",
                customer_id=c,
                amount=credit,
                reason="price_adjustment",
                order_id=o,
            ),
        ],
        invariants=[no_refund(o)],
    )
    o, c = "ORD-10000038", "CUS-0015"
    assert BY_ID["orders"][o]["placed_at"][:10] == day(15).isoformat()
    tasks.add(
        f,
        "missed-code",
        customer=c,
        order=o,
        description="Placed 15 days ago (limit 14) with FALL15 unused: no adjustment.",
        opening="I forgot to use FALL15 on an order a couple of weeks ago. Can I still get it?",
        goal="Get the FALL15 discount after the fact",
        reacts={"pushback": 1, "push": "It was only a bit over two weeks...", "accept": "Okay."},
        facts={"code": "FALL15"},
        golden=[*ident(c, o), call("validate_promotion", code="FALL15", order_id=o)],
        invariants=no_compensation(c, o),
        read_only=True,
        reply={"must_contain": [14]},
        reference="A missed code can be applied as a price adjustment only within 14 days of "
        "the order; yours was placed 15 days ago, so I can't adjust it.",
    )
