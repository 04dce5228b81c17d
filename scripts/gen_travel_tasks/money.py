"""Refunds: duplicate charges, service-failure refunds within and over the agent limit, credits."""

from __future__ import annotations

from ._build import (
    BOOKINGS,
    Patch,
    Picker,
    TaskSet,
    call,
    day,
    ident,
    inv,
    merge,
    owner,
    refunds_on,
    tier,
    total_of,
    trip,
    ts,
    usd,
    where,
)

_FLIGHTS = Picker("flight", skip=7)
_HOTELS = Picker("hotel", skip=7)


def _duplicate_payment(bk: str, amount: float) -> Patch:
    return {
        "payments": [
            {
                "id": f"PAY-{bk[3:]}-D",
                "booking_id": bk,
                "amount": amount,
                "method": "card",
                "status": "captured",
                "refunded_amount": 0.0,
                "created_at": ts(day(-3), 9),
            }
        ]
    }


def build(tasks: TaskSet) -> None:
    """Add the refunds family."""
    f = "refunds"
    for pick, days, dup in (
        (_FLIGHTS, 12, True),
        (_HOTELS, 25, True),
        (_HOTELS, 6, True),
        (_FLIGHTS, 9, False),
    ):
        bk = pick()
        c = owner(bk)
        patch = trip(bk, days)
        total = total_of(bk, patch)
        stated = total if dup else round(total + 37.0, 2)
        if dup:
            patch = merge(patch, _duplicate_payment(bk, total))
            golden = [
                *ident(c, bk),
                call(
                    "issue_refund",
                    payment_id=f"PAY-{bk[3:]}-D",
                    amount=total,
                    reason="duplicate_charge",
                ),
            ]
            invariants = [
                refunds_on(bk, 1),
                inv(
                    f"select status from payments where id = 'PAY-{bk[3:]}-D'",
                    "refunded",
                    "duplicate refunded",
                ),
            ]
        else:
            golden = [
                *ident(c, bk),
                call(
                    "create_ticket",
                    customer_id=c,
                    category="billing",
                    subject=f"Reported second charge of {usd(stated)}",
                    priority="normal",
                    booking_id=bk,
                ),
            ]
            invariants = [
                refunds_on(bk, 0),
                inv(
                    (
                        f"select count(*) from tickets where booking_id = '{bk}' and category "
                        f"= 'billing'"
                    ),
                    1,
                    "billing ticket opened",
                ),
            ]
        tasks.add(
            f,
            "duplicate-charge" if dup else "duplicate-unmatched",
            customer=c,
            description=(
                f"Customer reports a second charge of {usd(stated)} on {bk}; "
                + (
                    "a -D payment of that amount exists: refund it in full."
                    if dup
                    else "no duplicate payment exists: no refund, open a billing ticket."
                )
            ),
            opening=f"I was charged twice for my {where(bk)}!",
            goal="Get the double charge refunded",
            reacts={"thanks": "Okay, thanks. Bye.", "accept": "Okay, thanks. Bye."},
            facts={"charged_amount": usd(stated)},
            golden=golden,
            patch=patch,
            invariants=invariants,
            refusal=not dup,
        )
    for pick, amount, level in (
        (_HOTELS, 120.0, "silver"),
        (_FLIGHTS, 300.0, "blue"),
        (_HOTELS, 300.01, "gold"),
        (_FLIGHTS, 450.0, "platinum"),
    ):
        bk = pick()
        c = owner(bk)
        patch = merge(trip(bk, -6, status="completed"), tier(c, level))
        patch["bookings"][0]["end_date"] = (
            day(-3).isoformat() if BOOKINGS[bk]["kind"] == "hotel" else day(-6).isoformat()
        )
        within = amount <= 300.0
        if within:
            golden = [
                *ident(c, bk),
                call(
                    "issue_refund",
                    payment_id=f"PAY-{bk[3:]}",
                    amount=amount,
                    reason="service_failure",
                ),
            ]
            invariants = [
                inv(
                    f"select sum(amount) from refunds where booking_id = '{bk}'",
                    amount,
                    f"refund {usd(amount)}",
                )
            ]
        else:
            golden = [
                *ident(c, bk),
                call(
                    "create_ticket",
                    customer_id=c,
                    category="billing",
                    subject=f"Service-failure refund request of {usd(amount)}",
                    priority="normal",
                    booking_id=bk,
                ),
                call("escalate_ticket", ticket_id="TKT-0501", reason="refund_over_limit"),
            ]
            invariants = [
                refunds_on(bk, 0),
                inv(
                    "select status || ':' || escalation_reason from tickets where id = 'TKT-0501'",
                    "escalated:refund_over_limit",
                    "escalated over the limit",
                ),
            ]
        tasks.add(
            f,
            "service-failure" if within else "over-limit",
            customer=c,
            description=(
                f"Service failure on a completed trip; the customer asks {usd(amount)}: "
                + (
                    "within the $300 limit, refund it."
                    if within
                    else "over the $300 limit: escalate, no refund."
                )
            ),
            opening=f"My {where(bk)} was a disaster and I want part of my money back.",
            goal="Get a refund for the poor service",
            reacts={"agree": "Alright.", "accept": "Alright. Thanks."},
            facts={"requested_amount": usd(amount)},
            golden=golden,
            patch=patch,
            invariants=invariants,
            refusal=not within,
            rubric=None
            if within
            else [
                (
                    "Does the reply say the request was escalated for review rather "
                    "than refunded now? (yes/no)"
                )
            ],
            reference=""
            if within
            else (
                f"A refund of {usd(amount)} is above what I can approve, so I've escalated your "
                "request to our billing team; they will contact you."
            ),
        )
    for pick, asked, level, granted in (
        (_HOTELS, 80.0, "silver", 80.0),
        (_FLIGHTS, 150.0, "gold", 150.0),
        (_HOTELS, 150.0, "blue", 100.0),
    ):
        bk = pick()
        c = owner(bk)
        patch = merge(trip(bk, -6, status="completed"), tier(c, level))
        patch["bookings"][0]["end_date"] = day(-4).isoformat()
        capped = granted < asked
        tasks.add(
            f,
            "credit-capped" if capped else "credit",
            customer=c,
            description=(
                f"{level} customer prefers a travel credit of {usd(asked)} for a service failure: "
                f"grant {usd(granted)}" + (" (the cap)." if capped else ".")
            ),
            opening=f"The service on my {where(bk)} was poor. I'd take a travel credit for it.",
            goal="Get a travel credit",
            reacts={"agree": f"Okay, {usd(granted)} is fine then.", "alternative": True}
            if capped
            else {"agree": "Great."},
            facts={"requested_credit": usd(asked)},
            golden=[
                *ident(c, bk),
                call(
                    "issue_travel_credit",
                    customer_id=c,
                    amount=granted,
                    reason="service_failure",
                    booking_id=bk,
                ),
            ],
            patch=patch,
            invariants=[
                inv(
                    f"select amount from travel_credits where customer_id = '{c}'",
                    granted,
                    f"credit {usd(granted)}",
                )
            ],
            rubric=[f"Does the reply confirm a travel credit of {usd(granted)}? (yes/no)"]
            if capped
            else None,
            reference=f"I've issued a travel credit of {usd(granted)}, valid for 365 days."
            if capped
            else "",
        )
    bk = _FLIGHTS()
    c = owner(bk)
    patch = trip(bk, 4, status="cancelled", plan="standard")
    patch["bookings"][0].update(
        cancel_reason="customer_request", cancel_fee=150.0, cancelled_at=ts(day(-2))
    )
    tasks.add(
        f,
        "fee-compensation",
        customer=c,
        description=(
            "The customer wants the correctly charged $150 cancellation fee "
            "back: refuse. No change."
        ),
        opening="I cancelled my flight and you kept $150. I want that back.",
        goal="Get the cancellation fee refunded",
        reacts={"accept": "That's unfair, but fine. Bye."},
        golden=ident(c, bk),
        patch=patch,
        invariants=[refunds_on(bk, 0)],
        read_only=True,
        reply={"must_contain": [150]},
        rubric=[
            (
                "Does the reply explain that the fee was charged according to "
                "the fare's cancellation schedule? (yes/no)"
            )
        ],
        reference=(
            "The $150 fee was charged under your standard fare's cancellation "
            "schedule, so I can't refund it."
        ),
    )
