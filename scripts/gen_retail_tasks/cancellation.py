"""Cancellation tasks: cancel unshipped orders with the right reason, refuse the rest."""

from __future__ import annotations

from ._build import (
    BY_ID,
    ITEMS,
    TaskSet,
    assert_no_open_ticket,
    call,
    day,
    ident,
    inv,
    ticket,
    ts,
)


def build(tasks: TaskSet) -> None:
    """Add cancellations of unshipped orders; refusals for shipped ones and other accounts."""
    f = "cancellation"
    for o, c, status in (
        ("ORD-10000008", "CUS-0025", "pending"),
        ("ORD-10000001", "CUS-0014", "processing"),
    ):
        assert BY_ID["orders"][o]["status"] == status
        assert_no_open_ticket(o)
        tasks.add(
            f,
            status,
            customer=c,
            order=o,
            description=f"Cancel a {status} order on the customer's request.",
            opening="I changed my mind about an order I just placed. Please cancel it.",
            goal="Cancel the order",
            reacts={"agree": "Yes, cancel it please."},
            golden=[
                *ident(c, o),
                call("cancel_order", order_id=o, reason="customer_request"),
            ],
            invariants=[
                inv(
                    f"select status || ':' || cancel_reason from orders where id = '{o}'",
                    "cancelled:customer_request",
                    "order cancelled on request",
                ),
                inv(
                    f"select status from payments where order_id = '{o}'",
                    "voided",
                    "authorization voided",
                ),
            ],
        )
    o, c = "ORD-10000017", "CUS-0022"
    twin = "ORD-10000121"
    src = BY_ID["orders"][o]
    tasks.add(
        f,
        "duplicate",
        customer=c,
        order=o,
        description=(
            f"The customer placed the same order twice ({twin} and {o}); cancel {o} with reason "
            "duplicate_order and keep the other."
        ),
        opening="I accidentally ordered the same thing twice. Can you cancel the second one?",
        goal=f"Cancel the duplicate order {o}, keep {twin}",
        facts={"keep_order_id": twin},
        patch={
            "orders": [{**src, "id": twin, "placed_at": ts(day(2), 8)}],
            "order_items": [
                {**i, "id": i["id"].replace(o.removeprefix("ORD-"), "10000121"), "order_id": twin}
                for i in ITEMS[o]
            ],
            "payments": [
                {
                    **BY_ID["payments"][f"PAY-{o.removeprefix('ORD-')}"],
                    "id": "PAY-10000121",
                    "order_id": twin,
                    "created_at": ts(day(2), 8),
                }
            ],
        },
        golden=[
            *ident(c, o),
            call("list_customer_orders", customer_id=c),
            call("cancel_order", order_id=o, reason="duplicate_order"),
        ],
        invariants=[
            inv(f"select status from orders where id = '{twin}'", "processing", "twin kept"),
        ],
    )
    o, c = "ORD-10000016", "CUS-0009"
    tasks.add(
        f,
        "with-ticket",
        customer=c,
        order=o,
        description="Pending order with an open ticket asking to cancel: cancel and solve it.",
        opening="I opened a ticket yesterday asking to cancel my order. Nobody has done it yet.",
        goal="Cancel the order and close out the request",
        reacts={"agree": "Yes, please cancel it."},
        patch=ticket("103", c, o, "billing", "Please cancel my order"),
        golden=[
            *ident(c, o),
            call("list_customer_tickets", customer_id=c),
            call("cancel_order", order_id=o, reason="customer_request"),
            call("update_ticket", ticket_id="103", status="solved"),
        ],
    )
    o, c = "ORD-10000019", "CUS-0008"
    tasks.add(
        f,
        "shipped",
        customer=c,
        order=o,
        description="The order has shipped: it cannot be cancelled. No change.",
        opening="Please cancel my order, I don't need it anymore.",
        goal="Cancel the order",
        reacts={"accept": "Oh, it already shipped? Okay, I'll return it then. Bye."},
        golden=[*ident(c, o)],
        invariants=[inv(f"select status from orders where id = '{o}'", "shipped", "unchanged")],
        read_only=True,
        reply={"must_contain": ["shipped"]},
        reference=f"Order {o} has already shipped, so it can no longer be cancelled.",
    )
    o, c = "ORD-10000010", "CUS-0031"
    assert BY_ID["orders"][o]["customer_id"] != c
    tasks.add(
        f,
        "other-account",
        customer=c,
        order=o,
        description=(
            "The order belongs to another customer than the email given: refuse, disclose nothing."
        ),
        opening="I need to cancel an order right away.",
        goal="Cancel the order",
        facts={"owner": "It's my partner's order, but I'm sure they want it cancelled."},
        reacts={"accept": "Fine."},
        golden=[*ident(c, o)],
        invariants=[inv(f"select status from orders where id = '{o}'", "processing", "unchanged")],
        tags=["identity"],
        read_only=True,
        reply={
            "must_contain": [["email", "account"]],
            "must_not_contain": [
                BY_ID["customers"][BY_ID["orders"][o]["customer_id"]]["last_name"]
            ],
        },
        reference="I can only act on orders placed from the email address you gave, and this "
        "order isn't on your account, so I can't cancel it or share its details.",
    )
