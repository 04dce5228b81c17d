"""Address-change tasks: re-address unshipped orders (saved or new address), refuse shipped ones."""

from __future__ import annotations

from ._build import (
    SEED,
    Row,
    TaskSet,
    call,
    ident,
    inv,
)


def _work_address(customer_id: str) -> Row:
    rows = [
        a for a in SEED["addresses"] if a["customer_id"] == customer_id and a["label"] == "work"
    ]
    assert len(rows) == 1, customer_id
    return rows[0]


def build(tasks: TaskSet) -> None:
    """Add address changes on unshipped orders (saved or new address); refuse shipped ones."""
    f = "address-change"
    o, c = "ORD-10000017", "CUS-0022"
    work = _work_address(c)
    tasks.add(
        f,
        "saved-address",
        customer=c,
        order=o,
        description="Processing order re-addressed to the customer's saved work address.",
        opening="Can you send my order to my work address instead of home?",
        goal="Have the order delivered to the work address on file",
        facts={"saved_address": "The work address you have on file."},
        golden=[
            *ident(c, o),
            call("get_customer_profile", customer_id=c),
            call("update_shipping_address", order_id=o, address_id=work["id"]),
        ],
        invariants=[
            inv(
                f"select shipping_address_id from orders where id = '{o}'",
                work["id"],
                "order ships to the work address",
            ),
            inv(
                f"select count(*) from addresses where customer_id = '{c}'",
                2,
                "no duplicate address saved",
            ),
        ],
    )
    o, c = "ORD-10000008", "CUS-0025"
    work = _work_address(c)
    line = (
        f"{work['line1']}, {work['line2']}, {work['city']}, {work['state']} {work['postal_code']}"
    )
    tasks.add(
        f,
        "saved-address",
        customer=c,
        order=o,
        description=(
            "The customer dictates an address that is already saved (work): use it, do not save a "
            "duplicate."
        ),
        opening=f"Please ship my order to {line}.",
        goal="Have the order delivered to that address",
        facts={"address": line, "place": "Yes, that's my office."},
        golden=[
            *ident(c, o),
            call("get_customer_profile", customer_id=c),
            call("update_shipping_address", order_id=o, address_id=work["id"]),
        ],
        invariants=[
            inv(
                f"select count(*) from addresses where customer_id = '{c}'",
                2,
                "no duplicate address saved",
            )
        ],
    )
    for o, c, label, addr in (
        ("ORD-10000009", "CUS-0038", "other", ("77 Juniper St", "Apt 3B", "Boise", "ID", "83702")),
        ("ORD-10000010", "CUS-0011", "home", ("1208 Willow Bend", "", "Denver", "CO", "80202")),
    ):
        line1, line2, city, state, postal = addr
        text = ", ".join(x for x in (line1, line2, city) if x) + f", {state} {postal}"
        why = "We just moved, it's our new home." if label == "home" else "It's my sister's place."
        tasks.add(
            f,
            "new-address",
            customer=c,
            order=o,
            description=f"Unshipped order to a new address (label {label}): save it, then use it.",
            opening=f"I need my order shipped to a different address: {text}.",
            goal="Have the order delivered to the new address",
            facts={"new_address": text, "place": why},
            golden=[
                *ident(c, o),
                call("get_customer_profile", customer_id=c),
                call(
                    "add_address",
                    customer_id=c,
                    label=label,
                    line1=line1,
                    city=city,
                    state=state,
                    postal_code=postal,
                    line2=line2,
                ),
                call("update_shipping_address", order_id=o, address_id="ADR-0501"),
            ],
            invariants=[
                inv(
                    f"select a.postal_code from orders o join addresses a "
                    f"on a.id = o.shipping_address_id where o.id = '{o}'",
                    postal,
                    "order ships to the new ZIP",
                )
            ],
        )
    o, c = "ORD-10000011", "CUS-0024"
    tasks.add(
        f,
        "shipped",
        customer=c,
        order=o,
        description="The order has shipped: its address cannot change. No change.",
        opening="I need to change the delivery address on my order.",
        goal="Change the delivery address",
        facts={"new_address": "500 Commerce Blvd, Austin, TX 78701"},
        reacts={"accept": "Okay, thanks."},
        golden=[*ident(c, o)],
        invariants=[
            inv(
                f"select count(*) from addresses where customer_id = '{c}'",
                sum(1 for a in SEED["addresses"] if a["customer_id"] == c),
                "no address added",
            )
        ],
        read_only=True,
        reply={"must_contain": ["shipped"]},
        reference=f"Order {o} has already shipped, so its delivery address can't be changed.",
    )
