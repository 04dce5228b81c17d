"""Warranty tasks: claims by plan coverage, dates and age; recent expiry escalates."""

from __future__ import annotations

from datetime import timedelta

from ._build import (
    BY_ID,
    ITEMS,
    PRODUCTS,
    TODAY,
    WARRANTY_OF_ITEM,
    Row,
    TaskSet,
    add_months,
    assert_no_open_ticket,
    call,
    day,
    delivered,
    ident,
    inv,
    merge,
    ticket,
)


def _warranty(order_id: str, idx: int) -> Row:
    return WARRANTY_OF_ITEM[ITEMS[order_id][idx]["id"]]


def _names_product(warranty_id: str, pname: str) -> Row:
    """The claim's description names the product (by its name, or its last word)."""
    return {
        "table": "warranty_claims",
        "column": "description",
        "where": {"warranty_id": warranty_id},
        "must_contain": [[pname, pname.split()[-1]]],
    }


def build(tasks: TaskSet) -> None:
    """Add claims by plan coverage, dates and age; recent expiry escalates; safety is urgent."""
    f = "warranty"
    claim_cases = [
        # order, item idx, days since delivery, plan, issue, resolution, problem
        ("ORD-10000047", 0, 60, "standard", "defect", "replace", "stopped charging my laptop"),
        ("ORD-10000030", 0, 134, "standard", "battery", "repair", "battery dies within an hour"),
        ("ORD-10000064", 0, 134, "extended", "accidental_damage", "repair",
         "got crushed when I dropped my bag"),
        ("ORD-10000077", 1, 53, "extended", "screen", "replace", "has a dead stripe on the screen"),
    ]  # fmt: skip
    for o, idx, days, plan, issue, resolution, problem in claim_cases:
        c = BY_ID["orders"][o]["customer_id"]
        w = _warranty(o, idx)
        pname = PRODUCTS[ITEMS[o][idx]["product_id"]]["name"]
        assert_no_open_ticket(o)
        patch = delivered(o, days)
        for row in patch["warranties"]:
            if row["id"] == w["id"]:
                months = PRODUCTS[ITEMS[o][idx]["product_id"]]["warranty_months"]
                row["plan"] = plan
                row["expires_on"] = add_months(
                    day(days), months + (12 if plan == "extended" else 0)
                ).isoformat()
        tasks.add(
            f,
            "claim",
            customer=c,
            order=o,
            description=(
                f"{plan} warranty, {issue}, started {days} days ago: covered, file a claim with "
                f"resolution {resolution}."
            ),
            opening=f"My {pname} {problem}. It should still be under warranty.",
            goal="Get the product fixed or replaced under warranty",
            facts={"item": pname},
            patch=patch,
            golden=[
                *ident(c, o),
                call("list_customer_warranties", customer_id=c),
                call(
                    "file_warranty_claim",
                    warranty_id=w["id"],
                    issue=issue,
                    resolution=resolution,
                    description=f"{pname} {problem}.",
                ),
            ],
            invariants=[
                inv(
                    f"select issue || ':' || resolution from warranty_claims "
                    f"where warranty_id = '{w['id']}'",
                    f"{issue}:{resolution}",
                    "claim filed with the right issue and resolution",
                )
            ],
            text=[_names_product(w["id"], pname)],
        )
    o, c = "ORD-10000104", "CUS-0033"
    w = _warranty(o, 0)
    tasks.add(
        f,
        "not-covered",
        customer=c,
        order=o,
        description="Standard plan, screen issue: not covered. No claim.",
        opening="The screen on my tablet cracked. Can I get it fixed under warranty?",
        goal="Get the cracked screen fixed for free",
        facts={"item": "Nimbus Tablet"},
        reacts={"accept": "Okay."},
        patch={"warranties": [{"id": w["id"], "plan": "standard"}]},
        golden=[
            *ident(c, o),
            call("list_customer_warranties", customer_id=c),
            call("get_warranty", warranty_id=w["id"]),
        ],
        invariants=[inv("select count(*) from warranty_claims", 0, "no claim filed")],
        read_only=True,
        reply={"must_contain": [["standard", "extended"]]},
        reference="Your standard warranty doesn't cover screen damage (only the extended plan "
        "does), so I can't file a claim.",
    )
    for o, expired_days, variant in (
        ("ORD-10000117", 10, "recently-expired"),
        ("ORD-10000120", 40, "expired"),
    ):
        c = BY_ID["orders"][o]["customer_id"]
        w = _warranty(o, 0)
        pname = PRODUCTS[ITEMS[o][0]["product_id"]]["name"]
        assert_no_open_ticket(o)
        start = day(expired_days) - timedelta(days=365)
        delivered_ago = (TODAY - start).days
        patch = delivered(o, delivered_ago)
        for row in patch["warranties"]:
            row.update(plan="standard", starts_on=start.isoformat())
            row["expires_on"] = day(expired_days).isoformat()
        golden = [
            *ident(c, o),
            call("list_customer_warranties", customer_id=c),
            call("get_warranty", warranty_id=w["id"]),
        ]
        invariants = [inv("select count(*) from warranty_claims", 0, "no claim filed")]
        if expired_days <= 14:
            golden += [
                call("list_customer_tickets", customer_id=c),
                call(
                    "create_ticket",
                    customer_id=c,
                    subject=f"{o}: {pname} defective just after warranty expiry",
                    category="warranty",
                    order_id=o,
                ),
                call("escalate_ticket", ticket_id="501", team="tier2", reason="warranty_exception"),
                call(
                    "add_ticket_comment",
                    ticket_id="501",
                    body=f"{o}: {pname} defect; standard warranty expired {expired_days} days ago.",
                    public=False,
                ),
            ]
            invariants.append(
                inv(
                    "select team || ':' || escalation_reason from tickets where id = '501'",
                    "tier2:warranty_exception",
                    "warranty exception escalated",
                )
            )
        tasks.add(
            f,
            variant,
            customer=c,
            order=o,
            description=(
                f"Standard warranty expired {expired_days} days ago, defect: "
                + ("escalate to tier2 (warranty_exception)." if expired_days <= 14 else "refuse.")
            ),
            opening=f"My {pname} stopped working. Is it still covered?",
            goal="Get the product repaired under warranty",
            facts={"problem": "It just stopped working, a defect."},
            patch=patch,
            golden=golden,
            invariants=invariants,
            read_only=expired_days > 14,
            tags=["threshold"],
            **(
                {
                    "reply": {"must_contain": [["expired", "expiry"]]},
                    "reference": f"Your warranty expired {expired_days} days ago, so I can't "
                    "file a claim.",
                }
                if expired_days > 14
                else {}
            ),
        )
    o, c = "ORD-10000035", "CUS-0016"
    w = _warranty(o, 0)
    patch = merge(delivered(o, 40), ticket("105", c, o, "product", "Air purifier problem"))
    for row in patch["warranties"]:
        row.update(plan="standard", expires_on=add_months(day(40), 24).isoformat())
    tasks.add(
        f,
        "safety",
        customer=c,
        order=o,
        description=(
            "Air purifier smells of burning, standard warranty 40 days old: file a defect claim "
            "(replace), set ticket 105 urgent and escalate to tier2 (technical_issue)."
        ),
        opening="My air purifier started smelling like something is burning! I unplugged it.",
        goal="Get the unsafe purifier replaced",
        reacts={"agree": "Yes, please replace it under warranty."},
        patch=patch,
        golden=[
            *ident(c, o),
            call("list_customer_warranties", customer_id=c),
            call(
                "file_warranty_claim",
                warranty_id=w["id"],
                issue="defect",
                resolution="replace",
                description="Purifier smells of burning during use.",
            ),
            call("list_customer_tickets", customer_id=c),
            call("update_ticket", ticket_id="105", priority="urgent"),
            call("escalate_ticket", ticket_id="105", team="tier2", reason="technical_issue"),
            call(
                "add_ticket_comment",
                ticket_id="105",
                body=f"{o}: safety, purifier smells of burning. Warranty replacement claim filed.",
                public=False,
            ),
        ],
        invariants=[
            inv(
                "select priority || ':' || team from tickets where id = '105'",
                "urgent:tier2",
                "urgent, with tier2",
            )
        ],
        tags=["safety"],
        text=[_names_product(w["id"], "Air Purifier")],
    )
