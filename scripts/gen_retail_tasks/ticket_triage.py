"""Ticket-triage tasks: ticket status, hold, priority and escalation routing."""

from __future__ import annotations

from ._build import (
    TaskSet,
    assert_no_open_ticket,
    call,
    delivered,
    ident,
    inv,
    merge,
    no_refund,
    ticket,
)


def build(tasks: TaskSet) -> None:
    """Add ticket status, hold, priority and escalation routing."""
    f = "ticket-triage"
    o, c = "ORD-10000089", "CUS-0038"
    tasks.add(
        f,
        "hold",
        customer=c,
        order=o,
        description="Customer asks to pause their ticket until they are back: hold (customer).",
        opening=(
            "I have an open ticket about my rain jacket, but I'm travelling until the 20th. "
            "Can you pause it until I'm back?"
        ),
        goal="Pause the ticket until they return",
        reacts={"agree": "Yes, just pause it."},
        facts={"ticket_id": "8"},
        patch=ticket("8", c, o, "product", "Rain jacket zipper question"),
        golden=[
            *ident(c, o),
            call("get_ticket", ticket_id="8"),
            call("hold_ticket", ticket_id="8", reason="customer"),
        ],
    )
    o, c = "ORD-10000023", "CUS-0020"
    tasks.add(
        f,
        "solve",
        customer=c,
        order=o,
        description="The customer found the package at a neighbour's: set ticket 2 solved.",
        opening="Good news, the package I reported missing was at my neighbour's the whole time.",
        goal="Let the store know the problem is resolved",
        reacts={"thanks": "No, nothing else needed. Thanks."},
        facts={"ticket_id": "2"},
        patch=ticket("2", c, o, "shipping", "Package marked delivered but not received"),
        golden=[
            *ident(c, o),
            call("get_ticket", ticket_id="2"),
            call("update_ticket", ticket_id="2", status="solved"),
        ],
    )
    o, c = "ORD-10000078", "CUS-0015"
    tasks.add(
        f,
        "solve",
        customer=c,
        order=o,
        description="The customer asks to 'close' ticket 7: agents set solved, never closed.",
        opening="Please close my ticket 7, the drone works fine now.",
        goal="Close the ticket",
        reacts={"agree": "Yes, we're done with it."},
        facts={"ticket_id": "7"},
        patch=ticket("7", c, o, "product", "Drone will not pair"),
        golden=[
            *ident(c, o),
            call("get_ticket", ticket_id="7"),
            call("update_ticket", ticket_id="7", status="solved"),
        ],
        invariants=[inv("select status from tickets where id = '7'", "solved", "solved")],
    )
    o, c = "ORD-10000106", "CUS-0019"
    assert_no_open_ticket(o)
    tasks.add(
        f,
        "escalate",
        customer=c,
        order=o,
        description=(
            "Drone arrived damaged and the customer wants a replacement, not a refund: escalate "
            "ticket 107 to the warehouse (damaged_on_arrival) with one internal comment."
        ),
        opening="One of the drones I got arrived with a snapped propeller arm. I want a new one.",
        goal="Get a replacement for the damaged drone, not a refund",
        facts={"choice": "A replacement please, no refund."},
        patch=merge(delivered(o, 3), ticket("107", c, o, "shipping", "Drone arrived damaged")),
        golden=[
            *ident(c, o),
            call("list_customer_tickets", customer_id=c),
            call("escalate_ticket", ticket_id="107", team="warehouse", reason="damaged_on_arrival"),
            call(
                "add_ticket_comment",
                ticket_id="107",
                body=f"{o}: Drone Mini Flyer arrived with a snapped arm; customer wants a "
                "replacement.",
                public=False,
            ),
        ],
        invariants=[no_refund(o)],
    )
    o, c = "ORD-10000097", "CUS-0022"
    tasks.add(
        f,
        "escalate",
        customer=c,
        order=o,
        description=(
            "Speaker sparks when charging (safety) and the customer wants it looked at, no claim "
            "yet: ticket 109 urgent, escalate to tier2 (technical_issue), one internal comment."
        ),
        opening="My Bluetooth speaker threw sparks when I plugged it in to charge!",
        goal="Get the safety problem looked at by someone technical",
        facts={
            "choice": "I don't want a replacement yet, I just want someone technical to look "
            "into it."
        },
        patch=ticket("109", c, o, "product", "Speaker problem"),
        golden=[
            *ident(c, o),
            call("list_customer_tickets", customer_id=c),
            call("update_ticket", ticket_id="109", priority="urgent"),
            call("escalate_ticket", ticket_id="109", team="tier2", reason="technical_issue"),
            call(
                "add_ticket_comment",
                ticket_id="109",
                body=f"{o}: safety, speaker sparked while charging. Customer asks for technical "
                "review.",
                public=False,
            ),
        ],
        invariants=[inv("select count(*) from warranty_claims", 0, "no claim filed")],
        tags=["safety"],
    )
    o, c = "ORD-10000110", "CUS-0031"
    assert_no_open_ticket(o)
    tasks.add(
        f,
        "escalate",
        customer=c,
        order=o,
        description=(
            "Customer reports an order on their account they did not place: open a billing "
            "ticket and escalate it (fraud_review) with one internal comment; no cancellation."
        ),
        opening="There's an order on my account I never placed. I think someone used my card.",
        goal="Have the suspicious order investigated",
        facts={"owner": "No, I definitely didn't order a beanie and a coffee set."},
        golden=[
            *ident(c, o),
            call("list_customer_tickets", customer_id=c),
            call(
                "create_ticket",
                customer_id=c,
                subject=f"{o}: customer reports an order they did not place",
                category="billing",
                order_id=o,
            ),
            call("escalate_ticket", ticket_id="501", team="billing", reason="fraud_review"),
            call(
                "add_ticket_comment",
                ticket_id="501",
                body=f"{o}: customer did not place this order; possible card misuse.",
                public=False,
            ),
        ],
        invariants=[no_refund(o)],
    )
