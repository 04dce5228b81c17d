"""The test split's intents: each a branch no train task uses.

Recovery intents carry a golden call the task expects refused (``fails``): the natural
first attempt (approve the return, refund the card, reship, apply the code, redeem the
whole balance, escalate the ticket named, return every unit) and then what the policy
says to do instead.
"""

from __future__ import annotations

from scripts._checks import says
from scripts.gen_retail_tasks._build import PRODUCTS, TODAY, call, pct, stock

from ._intents import Builder, escalation, failing, lost_order, order_total, solve
from ._scenario import LIMIT, TIERS, WINDOW, Ctx, Incompatible, Part, past_month, pick_products

__all__ = ["REFUSALS", "WRITES"]


def serial_return(ctx: Ctx, ticket: bool) -> Part:
    """A serial-tracked item returned as defective: approve needs the serial first."""
    tier = ctx.need_tier(*TIERS)
    days = ctx.rng.randint(4, WINDOW[tier] - 3)
    product = pick_products(ctx.rng, category="electronics", min_price=100, warranty=True)[0]
    serial = f"SN-{ctx.rng.randrange(16**6):06X}"
    o, items = ctx.order("delivered", [product], days_ago=days, serials={0: serial})
    other = pick_products(ctx.rng, category="kitchen")[0]
    ctx.order("delivered", [other], days_ago=days + 12)
    rma = ctx.next_id("returns")
    name = product["name"]
    calls = [
        *ctx.open_order(o),
        *ctx.profile(),
        *ctx.disclose(o),
        call(
            "create_return",
            order_id=o,
            items=[{"order_item_id": items[0]["id"], "quantity": 1}],
            reason="defective",
        ),
        failing("approve_return", rma_id=rma),
        call("record_return_serial", rma_id=rma, serial_number=serial),
        call("approve_return", rma_id=rma),
        *solve(ctx, o, "returns", ticket),
    ]
    return Part(
        intent="returns.serial-check",
        opening=f"the {name} from {ctx.mention(o)} stopped working after a few days "
        "and I want to return it for a refund",
        goal=f"Return the faulty {name} for a refund",
        calls=calls,
        facts={"serial_number": serial},
        description=f"{tier}, delivered {days} days ago: a defective serial-tracked {name}; "
        "approve is refused until the serial is recorded.",
    )


def expired_card_refund(ctx: Ctx, ticket: bool) -> Part:
    """A lost package refunded: the card has expired, so store credit instead."""
    product = pick_products(ctx.rng, min_price=40, max_price=300)[0]
    expired = past_month(TODAY, ctx.rng.randint(1, 9))
    o, items = lost_order(ctx, [product], card_expires=expired)
    ctx.distractor(product)
    total = order_total(items)
    calls = [
        *ctx.open_order(o),
        call("get_shipment_tracking", order_id=o),
        *ctx.disclose(o),
        failing("issue_refund", order_id=o, amount=total, reason="lost_package"),
        call(
            "issue_store_credit",
            customer_id=ctx.customer,
            amount=total,
            reason="refund_fallback",
            order_id=o,
        ),
        *solve(ctx, o, "shipping", ticket),
    ]
    return Part(
        intent="refunds.expired-card",
        opening=f"the carrier says {ctx.mention(o, product['name'])} was lost, "
        "so I'd like my money back",
        goal="Get the money for the lost package back",
        calls=calls,
        behaviour={"alternative": True},
        description=f"Lost package, card expired {expired}: the refund is refused; "
        f"store credit of {total} (refund_fallback).",
    )


def reship_out_of_stock(ctx: Ctx, ticket: bool) -> Part:
    """A lost package: the replacement is out of stock, so the refund."""
    product = pick_products(ctx.rng, min_price=30, max_price=350)[0]
    o, items = lost_order(ctx, [product], card_expires="2028-04")
    for table, rows in stock(product["id"], 0).items():
        ctx.add(table, *rows)
    total = order_total(items)
    calls = [
        *ctx.open_order(o),
        call("get_shipment_tracking", order_id=o),
        *ctx.disclose(o),
        failing("reship_order", order_id=o, reason="lost_package"),
        call("issue_refund", order_id=o, amount=total, reason="lost_package"),
        *solve(ctx, o, "shipping", ticket),
    ]
    return Part(
        intent="delivery.reship-unavailable",
        opening=f"{ctx.mention(o, product['name'])} never arrived and the carrier says it is "
        "lost; please send me a replacement",
        goal="Get the lost order replaced (a refund is acceptable if it cannot be)",
        calls=calls,
        behaviour={"alternative": True},
        description=f"Lost package, {product['name']} out of stock: reship refused; "
        f"refund {total}.",
    )


def missed_code(ctx: Ctx, ticket: bool) -> Part:
    """A code forgotten on a shipped order: store credit for the discount it would give."""
    code = ctx.rng.choice(("FALL15", "WELCOME10"))
    products = pick_products(ctx.rng, 2, min_price=45, max_price=200)
    o, items = ctx.order("shipped", products, days_ago=ctx.rng.randint(2, 6))
    ctx.distractor(products[0], "processing", 2)
    subtotal = round(sum(i["unit_price"] for i in items), 2)
    discount = pct(subtotal, 15) if code == "FALL15" else 10.0
    calls = [
        *ctx.open_order(o),
        *ctx.disclose(o),
        failing("apply_coupon", order_id=o, code=code),
        call("validate_promotion", code=code, order_id=o),
        call(
            "issue_store_credit",
            customer_id=ctx.customer,
            amount=discount,
            reason="price_adjustment",
            order_id=o,
        ),
        *solve(ctx, o, "billing", ticket),
    ]
    return Part(
        intent="promotions.missed-code-shipped",
        opening=f"I forgot to enter the code {code} on {ctx.mention(o, products[0]['name'])}; "
        "can you still apply it?",
        goal=f"Get the {code} discount on the order",
        calls=calls,
        behaviour={"alternative": True},
        description=f"{code} forgotten on a shipped order placed within 14 days: "
        f"apply refused; credit {discount} (price_adjustment).",
    )


def redeem_all(ctx: Ctx, ticket: bool) -> Part:
    """Redeem every point: the balance is not a multiple of 100."""
    ctx.set_points(ctx.rng.randint(6, 38) * 100 + ctx.rng.choice((25, 50, 75, 40)))
    whole = ctx.points // 100 * 100
    calls = [
        call("get_points_history", customer_id=ctx.customer),
        *ctx.disclose(ctx.customer),
        failing("redeem_points", customer_id=ctx.customer, points=ctx.points),
        call("redeem_points", customer_id=ctx.customer, points=whole),
    ]
    return Part(
        intent="loyalty.redeem-balance",
        opening="I'd like to turn all of my loyalty points into store credit",
        goal="Convert the loyalty points into store credit",
        calls=calls,
        description=f"Balance {ctx.points}: redeeming it all is refused; redeem {whole}.",
    )


def cancel_one(ctx: Ctx, ticket: bool) -> Part:
    """Cancel one of two open orders (the other is a distractor)."""
    a, b = pick_products(ctx.rng, 2, max_price=250)
    other, _ = ctx.order("processing", [b], days_ago=2)
    o, _ = ctx.order(ctx.rng.choice(("pending", "processing")), [a], days_ago=1)
    calls = [
        *ctx.open_order(o),
        *ctx.disclose(o),
        call("cancel_order", order_id=o, reason="customer_request"),
        *solve(ctx, o, "shipping", ticket),
    ]
    return Part(
        intent="orders.cancel-one-of-two",
        opening=f"please cancel {ctx.mention(o, a['name'])}, I don't need the {a['name']} "
        "anymore (keep my other order)",
        goal=f"Cancel the order with the {a['name']} and keep the other one",
        calls=calls,
        description=f"Two open orders; cancel {o} only ({other} stays).",
    )


_NEW_PLACES = (
    ("118 Birch St", "Reno", "NV", "89501"),
    ("77 Quarry Rd", "Burlington", "VT", "05401"),
    ("2450 Pine Ave", "Spokane", "WA", "99201"),
    ("9 Orchard Ln", "Savannah", "GA", "31401"),
    ("601 Mill St", "Duluth", "MN", "55802"),
)


def new_address(ctx: Ctx, ticket: bool) -> Part:
    """Ship an unshipped order to an address not on file: save it, then re-address."""
    product = pick_products(ctx.rng)[0]
    o, _ = ctx.order("processing", [product], days_ago=2)
    ctx.distractor(product, "pending", 1)
    line1, city, state, postal = ctx.rng.choice(_NEW_PLACES)
    where = f"{line1}, {city}, {state} {postal}"
    calls = [
        *ctx.open_order(o),
        *ctx.profile(),
        *ctx.disclose(o),
        call(
            "add_address",
            customer_id=ctx.customer,
            label="other",
            line1=line1,
            city=city,
            state=state,
            postal_code=postal,
        ),
        call("update_shipping_address", order_id=o, address_id="ADR-0501"),
        *solve(ctx, o, "shipping", ticket),
    ]
    return Part(
        intent="orders.readdress-new",
        opening=f"I need {ctx.mention(o, product['name'])} shipped to a different address",
        goal="Have the order delivered to the new address",
        calls=calls,
        facts={"new_address": where, "place": "It's my sister's place."},
        description="Processing order re-addressed to a new address (saved as 'other').",
    )


def closed_ticket_escalation(ctx: Ctx, ticket: bool) -> Part:
    """A partial refund over the limit: the ticket the customer names is closed."""
    tier = ctx.need_tier("basic", "plus")
    if tier == "basic":
        product = pick_products(ctx.rng, min_price=260)[0]
        qty = 1
    else:
        product = pick_products(ctx.rng, min_price=400)[0]
        qty = 2
    o, _ = ctx.order("delivered", [product], days_ago=ctx.rng.randint(3, 12), quantities=[qty])
    amount = pct(product["price"] * qty, 20)
    assert amount > LIMIT[tier], (product, tier)
    closed = ctx.ticket(o, "returns", "Item arrived scratched", status="closed")
    thing, it = (
        (f"both {product['name']} units", "them")
        if qty == 2
        else (
            f"the {product['name']}",
            "it",
        )
    )
    esc, text = escalation(
        ctx,
        o,
        None,
        "billing",
        "billing",
        "refund_over_limit",
        "partial refund request above agent limit",
        f"{o}: customer keeps {qty} x {product['name']} with cosmetic damage; 20% partial "
        f"refund = ${amount:.2f}, above the {tier} limit of ${LIMIT[tier]:.0f}.",
        (amount,),
    )
    calls = [
        *ctx.open_order(o),
        *ctx.profile(),
        failing("escalate_ticket", ticket_id=closed, team="billing", reason="refund_over_limit"),
        *esc,
    ]
    return Part(
        intent="tickets.closed-ticket-escalation",
        opening=f"{thing} from {ctx.mention(o)} arrived scratched. I'll keep {it}, but I "
        f"want the usual 20% partial refund; I already wrote about it in ticket {closed}",
        goal="Get a partial refund for the scratched item",
        calls=calls,
        text=text,
        description=f"{tier}: 20% = {amount} over the {LIMIT[tier]} limit; ticket {closed} "
        "is closed, so escalation is refused; open a billing ticket and escalate it.",
    )


def late_credit(ctx: Ctx, ticket: bool) -> Part:
    """Late delivery compensation for Plus and Premium: 10% store credit."""
    tier = ctx.need_tier("plus", "premium")
    product = pick_products(ctx.rng, min_price=30)[0]
    late = ctx.rng.randint(4, 9)
    o, items = ctx.order("delivered", [product], days_ago=ctx.rng.randint(2, 10), late=late)
    ctx.distractor(product, days_ago=30)
    amount = pct(order_total(items), 10)
    calls = [
        *ctx.open_order(o),
        *ctx.profile(),
        call("get_shipment_tracking", order_id=o),
        *ctx.disclose(o),
        call(
            "issue_store_credit",
            customer_id=ctx.customer,
            amount=amount,
            reason="late_delivery",
            order_id=o,
        ),
        *solve(ctx, o, "shipping", ticket),
    ]
    return Part(
        intent="delivery.late-credit",
        opening=f"{ctx.mention(o, product['name'])} arrived days after the promised date; "
        "I'd like some compensation",
        goal="Get compensation for the late delivery",
        calls=calls,
        description=f"{tier}, delivered {late} days late: store credit {amount}.",
    )


def inspect_hold(ctx: Ctx, ticket: bool) -> Part:
    """A change-of-mind return (warehouse decides); an open ticket about it goes on hold."""
    tier = ctx.need_tier(*TIERS)
    days = ctx.rng.randint(3, WINDOW[tier] - 2)
    product = pick_products(ctx.rng, returnable=1, warranty=False)[0]
    o, items = ctx.order("delivered", [product], days_ago=days)
    ctx.distractor(product, days_ago=days + 40)
    calls = [
        *ctx.open_order(o),
        *ctx.profile(),
        *ctx.disclose(o),
        call(
            "create_return",
            order_id=o,
            items=[{"order_item_id": items[0]["id"], "quantity": 1}],
            reason="no_longer_needed",
        ),
    ]
    if ticket:
        tid = ctx.ticket(o, "returns", "I want to send something back")
        calls += [*ctx.tickets(), call("hold_ticket", ticket_id=tid, reason="warehouse")]
    return Part(
        intent="returns.change-of-mind",
        opening=f"I'd like to send back the {product['name']} from "
        f"{ctx.mention(o)}; I changed my mind about it",
        goal=f"Return the {product['name']}",
        calls=calls,
        description=f"{tier}, {days} days after delivery: no_longer_needed return stays "
        "requested" + ("; the open ticket is held for the warehouse." if ticket else "."),
    )


_SCREENS = ("Nimbus Tablet 10", "Orbit Smartwatch", "Vista 27in Monitor")


def warranty_screen(ctx: Ctx, ticket: bool) -> Part:
    """A cracked screen under an extended plan, past 90 days: a repair claim."""
    name = ctx.rng.choice(_SCREENS)
    product = next(p for p in PRODUCTS.values() if p["name"] == name)
    started = ctx.rng.randint(100, 300)
    o, _ = ctx.order(
        "delivered", [product], days_ago=started, warranty={0: ("extended", started, "active")}
    )
    other = next(
        p
        for p in pick_products(ctx.rng, 2, category="electronics", warranty=True)
        if p["id"] != product["id"]
    )
    ctx.order("delivered", [other], days_ago=40, warranty={0: ("standard", 40, "active")})
    wid = f"WAR-{int(o.removeprefix('ORD-')) - 10000000}0"
    description = f"{name}: the screen cracked and no longer displays properly."
    calls = [
        *ctx.open_order(o),
        call("list_customer_warranties", customer_id=ctx.customer),
        *ctx.disclose(o),
        call(
            "file_warranty_claim",
            warranty_id=wid,
            issue="screen",
            resolution="repair",
            description=description,
        ),
        *solve(ctx, o, "product", ticket),
    ]
    return Part(
        intent="warranty.extended-screen",
        opening=f"the screen of the {name} from {ctx.mention(o)} cracked; "
        "I have the extended warranty",
        goal=f"Get the {name} fixed under the warranty",
        calls=calls,
        text=[says("warranty_claims", "description", {"warranty_id": wid}, name)],
        description=f"Extended plan started {started} days ago: screen claim, repair.",
    )


def tier_upgrade(ctx: Ctx, ticket: bool) -> Part:
    """An upgrade on spend: Plus with over $1,500 delivered this year becomes Premium."""
    if ctx.tier_fixed and ctx.tier != "plus":
        raise Incompatible("upgrade needs a plus member")
    ctx.need_tier("plus")
    big = [p for p in PRODUCTS.values() if p["price"] >= 280]
    picks = sorted(big, key=lambda p: p["id"])
    for k in range(3):
        ctx.order("delivered", [picks[(ctx.serial + 2 * k) % len(picks)]], days_ago=40 + 70 * k,
                  quantities=[2])  # fmt: skip
    calls = [
        *ctx.profile(),
        *ctx.disclose(ctx.customer),
        call(
            "update_membership_tier",
            customer_id=ctx.customer,
            tier="premium",
            reason="spend_threshold",
        ),
    ]
    ctx.tier_fixed = True
    ctx.done.add("tier-changed")
    return Part(
        intent="loyalty.upgrade-on-spend",
        opening="I've spent a lot with you this year; do I qualify for a higher membership "
        "tier? If so, please upgrade me",
        goal="Be upgraded to the highest tier the spend allows",
        calls=calls,
        description="Plus with three large delivered orders this year: upgrade to premium.",
    )


def units_left(ctx: Ctx, ticket: bool) -> Part:
    """Return both units when one is already returned: only one can go on the new return."""
    tier = ctx.need_tier(*TIERS)
    days = ctx.rng.randint(6, WINDOW[tier] - 2)
    product = pick_products(ctx.rng, returnable=1, min_price=20, max_price=160)[0]
    o, items = ctx.order("delivered", [product], days_ago=days, quantities=[2])
    ctx.distractor(product, days_ago=days + 25)
    items[0]["returned_qty"] = 1
    old = f"RMA-{100 + ctx.serial % 300:05d}"
    ctx.add(
        "returns",
        {
            "id": old,
            "order_id": o,
            "customer_id": ctx.customer,
            "status": "approved",
            "reason": "defective",
            "created_at": f"{TODAY.isoformat()}T08:00:00+00:00",
            "decided_at": f"{TODAY.isoformat()}T08:05:00+00:00",
            "reject_reason": None,
            "serial_checked": 0,
        },
    )
    ctx.add("return_items", {"rma_id": old, "order_item_id": items[0]["id"], "quantity": 1})
    ctx.add(
        "refunds",
        {
            "id": f"RFD-{100 + ctx.serial % 300:05d}",
            "order_id": o,
            "payment_id": f"PAY-{o.removeprefix('ORD-')}",
            "amount": product["price"],
            "reason": "return",
            "rma_id": old,
            "created_at": f"{TODAY.isoformat()}T08:05:00+00:00",
        },
    )
    rma = ctx.next_id("returns")
    line = items[0]["id"]
    calls = [
        *ctx.open_order(o),
        *ctx.profile(),
        *ctx.disclose(o),
        failing(
            "create_return",
            order_id=o,
            items=[{"order_item_id": line, "quantity": 2}],
            reason="defective",
        ),
        call(
            "create_return",
            order_id=o,
            items=[{"order_item_id": line, "quantity": 1}],
            reason="defective",
        ),
        call("approve_return", rma_id=rma),
        *solve(ctx, o, "returns", ticket),
    ]
    return Part(
        intent="returns.units-left",
        opening=f"both {product['name']} units from {ctx.mention(o)} are "
        "faulty and I want to return both of them",
        goal=f"Return the faulty {product['name']} units",
        calls=calls,
        description=f"Two units, one already returned on {old}: returning two is refused; "
        "return and approve the one left.",
    )


# ----------------------------------------------------------------------------- refusals


def window_closed(ctx: Ctx, ticket: bool) -> Part:
    """A change-of-mind return after the tier's window: refused, nothing written."""
    tier = ctx.need_tier(*TIERS)
    days = WINDOW[tier] + ctx.rng.randint(3, 20)
    product = pick_products(ctx.rng, returnable=1)[0]
    o, _ = ctx.order("delivered", [product], days_ago=days)
    window = WINDOW[tier]
    return Part(
        intent="returns.window-closed",
        opening=f"I'd like to return the {product['name']} from "
        f"{ctx.mention(o)}; I don't need it anymore",
        goal=f"Return the {product['name']}",
        calls=[*ctx.open_order(o), *ctx.profile()],
        reply=[(f"{window} days", f"{window}-day")],
        reference=f"The {product['name']} was delivered {days} days ago and your return "
        f"window is {window} days, so I can't accept that return.",
        refusal=True,
        description=f"{tier}, {days} days after delivery (window {window}): refuse the return.",
    )


def cancel_shipped(ctx: Ctx, ticket: bool) -> Part:
    """Cancel an order that has shipped: refused, nothing written."""
    product = pick_products(ctx.rng)[0]
    o, _ = ctx.order("shipped", [product], days_ago=2)
    return Part(
        intent="orders.cancel-after-shipment",
        opening=f"please cancel {ctx.mention(o, product['name'])}",
        goal="Cancel the order",
        calls=[*ctx.open_order(o), call("get_shipment_tracking", order_id=o)],
        reply=["shipped"],
        reference=f"Order {o} has already shipped, so it can no longer be cancelled; once it "
        "is delivered you can return it.",
        refusal=True,
        description="Shipped order: cancellation refused.",
    )


def barely_late(ctx: Ctx, ticket: bool) -> Part:
    """Compensation asked for a delivery 1 to 3 days late: none is due."""
    product = pick_products(ctx.rng)[0]
    late = ctx.rng.randint(1, 3)
    o, _ = ctx.order("delivered", [product], days_ago=ctx.rng.randint(2, 9), late=late)
    return Part(
        intent="delivery.late-within-grace",
        opening=f"{ctx.mention(o, product['name'])} came late; I expect compensation",
        goal="Get compensation for the late delivery",
        calls=[*ctx.open_order(o), call("get_shipment_tracking", order_id=o)],
        reply=[("3 days", "three days")],
        reference=f"Your order arrived {late} day(s) after the estimate; compensation is given "
        "only for deliveries more than 3 days late, so none is due.",
        refusal=True,
        description=f"Delivered {late} days late: no compensation.",
    )


WRITES: tuple[Builder, ...] = (
    serial_return,
    expired_card_refund,
    reship_out_of_stock,
    missed_code,
    redeem_all,
    cancel_one,
    new_address,
    closed_ticket_escalation,
    late_credit,
    inspect_hold,
    warranty_screen,
    tier_upgrade,
    units_left,
)
"""Test intents that change the state."""
REFUSALS: tuple[Builder, ...] = (window_closed, cancel_shipped, barely_late)
"""Test intents the policy refuses (a reply check says so)."""
