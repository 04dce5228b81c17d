"""Refund tasks: partial refunds for kept damaged items against the per-tier agent limit."""

from __future__ import annotations

from ._build import (
    ITEMS,
    PRODUCTS,
    TaskSet,
    assert_no_open_ticket,
    call,
    delivered,
    ident,
    inv,
    merge,
    no_refund,
    note,
    pct,
    ticket,
    tier,
)


def build(tasks: TaskSet) -> None:
    """Add partial refunds for kept damaged items, against the per-tier agent limit."""
    f = "refunds"
    cases = [
        # order, customer, tier, item index, units, ticket (id, status) or None
        ("ORD-10000041", "CUS-0014", "basic", 1, 1, None),
        ("ORD-10000025", "CUS-0006", "plus", 0, 1, None),
        ("ORD-10000048", "CUS-0025", "premium", 0, 2, ("37", "open")),
        ("ORD-10000103", "CUS-0020", "basic", 1, 1, ("104", "open")),
        ("ORD-10000048", "CUS-0025", "plus", 0, 2, ("37", "open")),
        ("ORD-10000101", "CUS-0034", "basic", 0, 1, None),
    ]
    limits = {"basic": 50.0, "plus": 150.0, "premium": 400.0}
    for o, c, level, idx, units, tk in cases:
        item = ITEMS[o][idx]
        pname = PRODUCTS[item["product_id"]]["name"]
        patch = merge(delivered(o, 9), tier(c, level))
        if units > item["quantity"]:  # the order held one unit: make it two
            total = round(units * item["unit_price"], 2)
            patch = merge(
                patch,
                {
                    "order_items": [{"id": item["id"], "quantity": units}],
                    "orders": [{"id": o, "subtotal": total, "total": total}],
                    "payments": [{"id": f"PAY-{o.removeprefix('ORD-')}", "amount": total}],
                },
            )
        if tk:
            patch = merge(patch, ticket(tk[0], c, o, "product", "Item arrived scratched", tk[1]))
        else:
            assert_no_open_ticket(o)
        amount = pct(units * item["unit_price"], 20)
        over = amount > limits[level]
        golden = [*ident(c, o)]
        if not over:
            golden.append(call("issue_refund", order_id=o, amount=amount, reason="damaged_item"))
            if tk:
                golden += [
                    call("list_customer_tickets", customer_id=c),
                    call("update_ticket", ticket_id=tk[0], status="solved"),
                ]
            invariants = [
                inv(f"select sum(amount) from refunds where order_id = '{o}'", amount, "20% refund")
            ]
        else:
            tid = tk[0] if tk else "501"
            golden.append(call("list_customer_tickets", customer_id=c))
            if not tk:
                golden.append(
                    call(
                        "create_ticket",
                        customer_id=c,
                        subject=f"{o}: partial refund request above agent limit",
                        category="billing",
                        order_id=o,
                    )
                )
            golden += [
                call("escalate_ticket", ticket_id=tid, team="billing", reason="refund_over_limit"),
                call(
                    "add_ticket_comment",
                    ticket_id=tid,
                    body=(
                        f"{o}: customer keeps {units} x {pname} with cosmetic damage; 20% partial "
                        f"refund = ${amount:.2f}, above the {level} limit of "
                        f"${limits[level]:.0f}."
                    ),
                    public=False,
                ),
            ]
            invariants = [
                no_refund(o),
                inv(
                    f"select team || ':' || escalation_reason from tickets where id = '{tid}'",
                    "billing:refund_over_limit",
                    "escalated to billing",
                ),
            ]
        tasks.add(
            f,
            "over-limit" if over else "within-limit",
            customer=c,
            order=o,
            description=(
                f"{level} member keeps {units} x {pname} with cosmetic damage: 20% = {amount} vs "
                f"limit {limits[level]:.0f} -> "
                + ("escalate to billing, no refund." if over else "refund.")
            ),
            opening=(
                f"The {pname} I received has scratches all over it. I'll keep it, but I'd like "
                "some money back."
            ),
            goal="Get a partial refund for the scratched item, keeping it",
            facts={"quantity": {"value": units, "say": "It's {value} unit(s) that are scratched."}},
            patch=patch,
            golden=golden,
            invariants=invariants,
            tags=["threshold"],
            text=[note("ticket_comments", "body", {"ticket_id": tid}, amount)] if over else None,
        )
