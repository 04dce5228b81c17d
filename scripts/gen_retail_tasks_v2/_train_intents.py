"""The train split's intents: other branches of the same policy, none used by a test task."""

from __future__ import annotations

from scripts._checks import says
from scripts.gen_retail_tasks._build import PRODUCTS, SEED, call, pct, stock

from ._intents import Builder, escalation, failing, lost_order, order_total, solve
from ._scenario import LIMIT, TIERS, WINDOW, Ctx, Part, pick_products

__all__ = ["REFUSALS", "WRITES"]


def defective_return(ctx: Ctx, ticket: bool) -> Part:
    """A defective item without a serial: open the return and approve it."""
    tier = ctx.need_tier(*TIERS)
    days = ctx.rng.randint(3, WINDOW[tier] - 2)
    product = pick_products(ctx.rng, warranty=False, min_price=20)[0]
    o, items = ctx.order("delivered", [product], days_ago=days)
    rma = ctx.next_id("returns")
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
        call("approve_return", rma_id=rma),
        *solve(ctx, o, "returns", ticket),
    ]
    return Part(
        intent="returns.defective-approve",
        opening=f"the {product['name']} from {ctx.mention(o)} is defective; I want to return it",
        goal="Return the defective item for a refund",
        calls=calls,
        description=f"{tier}, {days} days: defective return opened and approved.",
    )


def final_sale_review(ctx: Ctx, ticket: bool) -> Part:
    """A requested return of a final-sale item for a change of mind: reject it."""
    product = pick_products(ctx.rng, returnable=0)[0]
    o, items = ctx.order("delivered", [product], days_ago=ctx.rng.randint(5, 20))
    rma = f"RMA-{200 + ctx.serial % 250:05d}"
    ctx.add(
        "returns",
        {
            "id": rma,
            "order_id": o,
            "customer_id": ctx.customer,
            "status": "requested",
            "reason": "no_longer_needed",
            "created_at": "2025-09-28T15:00:00+00:00",
            "decided_at": None,
            "reject_reason": None,
            "serial_checked": 0,
        },
    )
    ctx.add("return_items", {"rma_id": rma, "order_item_id": items[0]["id"], "quantity": 1})
    calls = [
        *ctx.open_order(o),
        call("get_return", rma_id=rma),
        *ctx.disclose(o),
        call("reject_return", rma_id=rma, reason="final_sale"),
        *solve(ctx, o, "returns", ticket),
    ]
    return Part(
        intent="returns.final-sale-review",
        opening=f"what is happening with my return {rma} for {ctx.mention(o, product['name'])}?",
        goal="Know the outcome of the return",
        calls=calls,
        behaviour={"accept": "That's disappointing. Okay."},
        description="Requested return of a final-sale item (no_longer_needed): reject.",
    )


def damage_partial(ctx: Ctx, ticket: bool) -> Part:
    """Minor damage kept: 20% partial refund within the tier's limit."""
    tier = ctx.need_tier(*TIERS)
    product = pick_products(ctx.rng, min_price=30, max_price=240)[0]
    o, _ = ctx.order("delivered", [product], days_ago=ctx.rng.randint(2, 15))
    amount = pct(product["price"], 20)
    assert amount <= LIMIT[tier]
    calls = [
        *ctx.open_order(o),
        *ctx.profile(),
        *ctx.disclose(o),
        call("issue_refund", order_id=o, amount=amount, reason="damaged_item"),
        *solve(ctx, o, "returns", ticket),
    ]
    return Part(
        intent="refunds.damage-kept",
        opening=f"the {product['name']} from {ctx.mention(o)} has a small "
        "scratch; I'll keep it, but I'd like a partial refund",
        goal="Get a partial refund for the cosmetic damage",
        calls=calls,
        description=f"{tier}: 20% of {product['price']} = {amount}, within the limit.",
    )


def carrier_hold(ctx: Ctx, ticket: bool) -> Part:
    """An open carrier exception: hold the ticket about it (open one first if none)."""
    product = pick_products(ctx.rng)[0]
    o, _ = ctx.order("shipped", [product], days_ago=ctx.rng.randint(6, 9), shipment="exception")
    ctx.exception(o, "delay", "open", None)
    calls = [*ctx.open_order(o), call("get_shipment_tracking", order_id=o), *ctx.tickets()]
    if ticket:
        tid = ctx.ticket(o, "shipping", "Where is my package?")
    else:
        tid = ctx.next_id("tickets")
        calls.append(
            call(
                "create_ticket",
                customer_id=ctx.customer,
                subject=f"{o}: carrier exception, package delayed",
                category="shipping",
                order_id=o,
            )
        )
    calls.append(call("hold_ticket", ticket_id=tid, reason="carrier"))
    return Part(
        intent="delivery.carrier-investigating",
        opening=f"{ctx.mention(o, product['name'])} is stuck in transit; I want a refund",
        goal="Get the delayed order sorted out",
        calls=calls,
        description="Open carrier exception: no refund; the ticket is held for the carrier.",
    )


def cancel_duplicate(ctx: Ctx, ticket: bool) -> Part:
    """The same order placed twice: cancel the duplicate (reason duplicate_order)."""
    product = pick_products(ctx.rng, max_price=200)[0]
    keep, _ = ctx.order("processing", [product], days_ago=2)
    o, _ = ctx.order("pending", [product], days_ago=1)
    calls = [
        *ctx.open_order(o),
        *ctx.disclose(o),
        call("cancel_order", order_id=o, reason="duplicate_order"),
        *solve(ctx, o, "shipping", ticket),
    ]
    return Part(
        intent="orders.cancel-duplicate",
        opening=f"I ordered the {product['name']} twice by mistake; please cancel "
        f"{ctx.mention(o, product['name'] + ' placed yesterday')} and keep {keep}",
        goal="Cancel the duplicate order",
        calls=calls,
        description=f"Duplicate of {keep}: cancel {o} (duplicate_order).",
    )


def saved_address(ctx: Ctx, ticket: bool) -> Part:
    """Re-address an unshipped order to the work address on file."""
    product = pick_products(ctx.rng)[0]
    o, _ = ctx.order("processing", [product], days_ago=2)
    work = [
        a["id"]
        for a in SEED["addresses"]
        if a["customer_id"] == ctx.customer and a["label"] == "work"
    ]
    if work:
        address = work[0]
    else:
        address = f"ADR-{400 + ctx.serial % 90:04d}"
        ctx.add(
            "addresses",
            {
                "id": address,
                "customer_id": ctx.customer,
                "label": "work",
                "line1": "350 Commerce Blvd",
                "line2": "Suite 210",
                "city": "Dayton",
                "state": "OH",
                "postal_code": "45402",
                "country": "US",
                "is_default": 0,
            },
        )
    calls = [
        *ctx.open_order(o),
        *ctx.profile(),
        *ctx.disclose(o),
        call("update_shipping_address", order_id=o, address_id=address),
        *solve(ctx, o, "shipping", ticket),
    ]
    return Part(
        intent="orders.readdress-saved",
        opening=f"please send {ctx.mention(o, product['name'])} to my work address instead",
        goal="Have the order delivered to the work address on file",
        calls=calls,
        facts={"saved_address": "The work address you have on file."},
        description="Processing order re-addressed to the saved work address.",
    )


def apply_code(ctx: Ctx, ticket: bool) -> Part:
    """A valid code on an unshipped order: validate and apply it."""
    code = ctx.rng.choice(("FALL15", "WELCOME10"))
    products = pick_products(ctx.rng, 2, min_price=45, max_price=200)
    o, _ = ctx.order("pending", products, days_ago=1)
    calls = [
        *ctx.open_order(o),
        call("validate_promotion", code=code, order_id=o),
        *ctx.disclose(o),
        call("apply_coupon", order_id=o, code=code),
        *solve(ctx, o, "billing", ticket),
    ]
    return Part(
        intent="promotions.apply-open-order",
        opening=f"can you apply the code {code} to {ctx.mention(o, products[0]['name'])}?",
        goal=f"Get {code} applied",
        calls=calls,
        description=f"{code} eligible on a pending order: apply it.",
    )


def late_points(ctx: Ctx, ticket: bool) -> Part:
    """Late delivery compensation for Basic: 500 points."""
    ctx.need_tier("basic")
    product = pick_products(ctx.rng, min_price=20)[0]
    late = ctx.rng.randint(4, 9)
    o, _ = ctx.order("delivered", [product], days_ago=ctx.rng.randint(2, 10), late=late)
    calls = [
        *ctx.open_order(o),
        *ctx.profile(),
        call("get_shipment_tracking", order_id=o),
        *ctx.disclose(o),
        call(
            "add_loyalty_points",
            customer_id=ctx.customer,
            points=500,
            reason="late_delivery",
            order_id=o,
        ),
        *solve(ctx, o, "shipping", ticket),
    ]
    return Part(
        intent="delivery.late-points",
        opening=f"{ctx.mention(o, product['name'])} was {late} days late; what can you do?",
        goal="Get compensation for the late delivery",
        calls=calls,
        description=f"Basic, {late} days late: 500 points.",
    )


_HOT = ("Volt Power Bank 20k", "Crisp Air Fryer", "Kettle Gooseneck Electric", "Quiet Air Purifier")


def warranty_safety(ctx: Ctx, ticket: bool) -> Part:
    """An overheating product: a warranty claim and an urgent tier2 escalation."""
    name = ctx.rng.choice(_HOT)
    product = next(p for p in PRODUCTS.values() if p["name"] == name)
    started = ctx.rng.randint(30, 200)
    o, _ = ctx.order(
        "delivered", [product], days_ago=started, warranty={0: ("standard", started, "active")}
    )
    wid = f"WAR-{int(o.removeprefix('ORD-')) - 10000000}0"
    resolution = "replace" if started <= 90 else "repair"
    existing = ctx.ticket(o, "product", "Item not working") if ticket else None
    esc, text = escalation(
        ctx,
        o,
        existing,
        "warranty",
        "tier2",
        "technical_issue",
        "safety issue, product overheats",
        f"{o}: safety issue, the {name} overheats during use; warranty {resolution} claim filed.",
        (),
        priority="urgent",
    )
    calls = [
        *ctx.open_order(o),
        call("list_customer_warranties", customer_id=ctx.customer),
        *ctx.disclose(o),
        call(
            "file_warranty_claim",
            warranty_id=wid,
            issue="defect",
            resolution=resolution,
            description=f"{name} overheats during use.",
        ),
        *esc,
    ]
    return Part(
        intent="warranty.safety-escalation",
        opening=f"the {name} from {ctx.mention(o)} gets very hot and smells of burning",
        goal="Get the dangerous product dealt with",
        calls=calls,
        text=[*text, says("warranty_claims", "description", {"warranty_id": wid}, name)],
        description=f"Overheating {name}, warranty {started} days old: claim ({resolution}), "
        "urgent tier2 escalation.",
    )


def tier_downgrade(ctx: Ctx, ticket: bool) -> Part:
    """A customer asks to move to a lower tier."""
    ctx.need_tier("premium")
    calls = [
        *ctx.profile(),
        *ctx.disclose(ctx.customer),
        call(
            "update_membership_tier",
            customer_id=ctx.customer,
            tier="plus",
            reason="customer_request",
        ),
    ]
    ctx.done.add("tier-changed")
    return Part(
        intent="loyalty.downgrade-request",
        opening="please move my membership down from Premium to Plus",
        goal="Be moved to the Plus tier",
        calls=calls,
        description="Premium asks for Plus: customer_request.",
    )


def lost_refund(ctx: Ctx, ticket: bool) -> Part:
    """A lost package refunded to a valid card."""
    product = pick_products(ctx.rng, min_price=20, max_price=400)[0]
    o, items = lost_order(ctx, [product], card_expires="2029-01")
    total = order_total(items)
    calls = [
        *ctx.open_order(o),
        call("get_shipment_tracking", order_id=o),
        *ctx.disclose(o),
        call("issue_refund", order_id=o, amount=total, reason="lost_package"),
        *solve(ctx, o, "shipping", ticket),
    ]
    return Part(
        intent="refunds.lost-to-card",
        opening=f"{ctx.mention(o, product['name'])} was lost by the carrier; please refund me",
        goal="Get a refund for the lost package",
        calls=calls,
        description=f"Lost package, card valid: refund {total}.",
    )


def reship_lost(ctx: Ctx, ticket: bool) -> Part:
    """A lost package replaced (every item in stock)."""
    product = pick_products(ctx.rng, min_price=20)[0]
    o, _ = lost_order(ctx, [product])
    for table, rows in stock(product["id"], 6).items():
        ctx.add(table, *rows)
    calls = [
        *ctx.open_order(o),
        call("get_shipment_tracking", order_id=o),
        call("check_inventory", product_id=product["id"]),
        *ctx.disclose(o),
        call("reship_order", order_id=o, reason="lost_package"),
        *solve(ctx, o, "shipping", ticket),
    ]
    return Part(
        intent="delivery.reship-in-stock",
        opening=f"{ctx.mention(o, product['name'])} got lost; can you send it again?",
        goal="Get the lost order replaced",
        calls=calls,
        description="Lost package, in stock: reship.",
    )


def refund_remaining(ctx: Ctx, ticket: bool) -> Part:
    """A lost package after a partial refund: only what is left can be refunded."""
    product = pick_products(ctx.rng, min_price=60, max_price=400)[0]
    o, items = lost_order(ctx, [product], card_expires="2028-11")
    total = order_total(items)
    earlier = float(ctx.rng.choice((10, 15, 20, 25)))
    ctx.add(
        "refunds",
        {
            "id": f"RFD-{300 + ctx.serial % 200:05d}",
            "order_id": o,
            "payment_id": f"PAY-{o.removeprefix('ORD-')}",
            "amount": earlier,
            "reason": "goodwill",
            "rma_id": None,
            "created_at": "2025-09-27T10:00:00+00:00",
        },
    )
    left = round(total - earlier, 2)
    calls = [
        *ctx.open_order(o),
        call("get_shipment_tracking", order_id=o),
        *ctx.disclose(o),
        failing("issue_refund", order_id=o, amount=total, reason="lost_package"),
        call("issue_refund", order_id=o, amount=left, reason="lost_package"),
        *solve(ctx, o, "shipping", ticket),
    ]
    return Part(
        intent="refunds.lost-after-goodwill",
        opening=f"{ctx.mention(o, product['name'])} never came, the carrier lost it; "
        "I want a full refund",
        goal="Get the rest of the money for the lost package back",
        calls=calls,
        description=f"Lost after a {earlier} goodwill refund: full refund refused, {left} left.",
    )


def redeem_some(ctx: Ctx, ticket: bool) -> Part:
    """Redeem a stated number of points."""
    ctx.set_points(ctx.rng.randint(12, 40) * 100)
    points = ctx.rng.randint(5, ctx.points // 100 - 2) * 100
    calls = [
        call("get_points_history", customer_id=ctx.customer),
        *ctx.disclose(ctx.customer),
        call("redeem_points", customer_id=ctx.customer, points=points),
    ]
    return Part(
        intent="loyalty.redeem-amount",
        opening=f"I'd like to redeem {points} of my points for store credit",
        goal="Redeem the points",
        calls=calls,
        description=f"Redeem {points} of {ctx.points}.",
    )


def code_ineligible(ctx: Ctx, ticket: bool) -> Part:
    """A Premium-only code asked for by a Plus member: refused."""
    ctx.need_tier("basic", "plus")
    products = pick_products(ctx.rng, 2, min_price=150)
    o, _ = ctx.order("pending", products, days_ago=1)
    return Part(
        intent="promotions.tier-ineligible",
        opening=f"please apply PREMIUM50 to {ctx.mention(o, products[0]['name'])}",
        goal="Get PREMIUM50 applied",
        calls=[*ctx.open_order(o), call("validate_promotion", code="PREMIUM50", order_id=o)],
        reply=["Premium"],
        reference="PREMIUM50 is only for Premium members, so I can't apply it to your order.",
        refusal=True,
        description="PREMIUM50 needs premium: refuse.",
    )


def redeem_too_few(ctx: Ctx, ticket: bool) -> Part:
    """Fewer than 500 points: nothing can be redeemed."""
    ctx.set_points(ctx.rng.choice((100, 200, 300, 400)))
    return Part(
        intent="loyalty.redeem-below-minimum",
        opening="I'd like to cash in my loyalty points",
        goal="Redeem the points",
        calls=[call("get_points_history", customer_id=ctx.customer)],
        reply=["500"],
        reference=f"You have {ctx.points} points; redemption starts at 500 points, so I can't "
        "convert them yet.",
        refusal=True,
        description=f"{ctx.points} points: below the 500 minimum.",
    )


WRITES: tuple[Builder, ...] = (
    defective_return,
    final_sale_review,
    damage_partial,
    carrier_hold,
    cancel_duplicate,
    saved_address,
    apply_code,
    late_points,
    warranty_safety,
    tier_downgrade,
    lost_refund,
    reship_lost,
    refund_remaining,
    redeem_some,
)
"""Train intents that change the state."""
REFUSALS: tuple[Builder, ...] = (code_ineligible, redeem_too_few)
"""Train intents the policy refuses."""
