"""Intent building blocks: one customer request each, on bookings the block adds itself.

Each builder takes the task under construction and a variant number, adds the rows the
request needs (the target booking, ``dis`` similar distractor bookings, tickets,
escalations) and returns the `Part` and the distractors. Fees, points and priorities
come from the same functions the tools and v1 tasks use (`scripts.gen_travel_tasks`).
"""

from __future__ import annotations

from collections.abc import Callable
from math import floor

from scripts._checks import says
from scripts.gen_travel_tasks._build import (
    MULTIPLIER,
    call,
    cancellation_fee,
    change_fee,
    day,
    inv,
    refunds_on,
    status_is,
    ts,
    usd,
)

from ._compose import Part
from ._world import EXPIRED_CARD, Booking, Ctx, later, payment, plain

Builder = Callable[[Ctx, int, int], tuple[Part, list[Booking]]]

_COMPANIONS = (
    ("Lucia", "Lucie"),
    ("Tomas", "Tomsa"),
    ("Annika", "Anika"),
    ("Rafael", "Rafeal"),
    ("Helena", "Helene"),
    ("Matteo", "Mateo"),
)
_SHIFTS = (21, 35, 49, 63)


def _distract(ctx: Ctx, b: Booking, dis: int) -> list[Booking]:
    """``dis`` bookings of the same kind and place as ``b``, some weeks later.

    The second one is cancelled: customers keep old bookings in their history.
    """
    return [
        ctx.distractor(b, _SHIFTS[(ctx.seq + i) % len(_SHIFTS)], "cancelled" if i else "confirmed")
        for i in range(dis)
    ]


def _waived(ctx: Ctx, plan: str) -> bool:
    """Platinum members pay no cancellation fee on standard fares and semi_flex rates."""
    return ctx.tier == "platinum" and plan in ("standard", "semi_flex")


def _fee(ctx: Ctx, b: Booking) -> float:
    if _waived(ctx, b.plan):
        return 0.0
    return cancellation_fee(b.kind, b.plan, b.start, b.total, b.nightly)


def _told(c: str, topic: str, b: Booking) -> list[dict[str, object]]:
    return [call("record_disclosure", customer_id=c, topic=topic, related_id=b.id)]


def _yes(c: str, topic: str, b: Booking) -> list[dict[str, object]]:
    return [call("record_confirmation", customer_id=c, topic=topic, related_id=b.id)]


def _agreed(c: str, b: Booking, told: str, yes: str) -> list[dict[str, object]]:
    """Read and quote the booking, tell the fee (``told``), record the customer's yes."""
    return [
        call("get_booking", booking_id=b.id),
        call("quote_booking_change", booking_id=b.id),
        *_told(c, told, b),
        *_yes(c, yes, b),
    ]


def _fails(tool: str, kind: str, **args: object) -> dict[str, object]:
    return {**call(tool, **args), "fails": kind}


def _credit_is(b: Booking, amount: float, reason: str) -> dict[str, object]:
    return inv(
        f"select coalesce(sum(amount), 0) from travel_credits where booking_id = '{b.id}' "
        f"and reason = '{reason}'",
        amount,
        f"a {reason} travel credit of {usd(amount)} on {b.id}",
    )


def _hold(ticket_id: str) -> list[dict[str, object]]:
    return [call("hold_ticket", ticket_id=ticket_id, reason="awaiting_hotel")]


# ----------------------------------------------------------------------------- cancellations


def cancel_flight_fare(ctx: Ctx, v: int, dis: int, plan: str, days: tuple[int, ...]) -> Part:
    """Cancel a flight at its scheduled fee (Platinum waiver where it applies)."""
    c = ctx.customer
    b = ctx.booking("flight", plan, days[v % len(days)])
    fee = _fee(ctx, b)
    refund = round(b.total - fee, 2)
    return Part(
        intent=f"cancel.{plan}-flight",
        ask=f"I need to cancel my {b.named}.",
        goal=f"Cancel the {b.named}",
        target=b,
        golden=[
            *_agreed(c, b, "cancellation_fee_and_refund", "cancellation"),
            call("cancel_booking", booking_id=b.id, reason="customer_request", fee=fee),
        ],
        invariants=[
            status_is(b.id, "cancelled"),
            inv(f"select cancel_fee from bookings where id = '{b.id}'", fee, f"fee {usd(fee)}"),
        ],
        reference=(
            f"Your {b.named} is cancelled: the fee is {usd(fee)} and {usd(refund)} goes back "
            "to your card."
        ),
        ticket_category="cancellation",
        description=f"Cancel {b.id} ({plan} flight, {b.start} days, {ctx.tier}): fee {usd(fee)}.",
    )


def cancel_standard_flight(ctx: Ctx, v: int, dis: int) -> tuple[Part, list[Booking]]:
    """Test: a standard fare, $150 or $75 by the day band, waived for Platinum."""
    part = cancel_flight_fare(ctx, v, dis, "standard", (5, 16, 9, 21, 11))
    assert part.target
    return part, _distract(ctx, part.target, dis)


def cancel_flex_flight(ctx: Ctx, v: int, dis: int) -> tuple[Part, list[Booking]]:
    """Train: a flex fare ($0, or $50 on the day of departure)."""
    part = cancel_flight_fare(ctx, v, dis, "flex", (4, 0, 12, 7))
    assert part.target
    return part, _distract(ctx, part.target, dis)


def cancel_semi_flex_stay(ctx: Ctx, v: int, dis: int) -> tuple[Part, list[Booking]]:
    """Train: a semi_flex stay 2-6 days out (one night), waived for Platinum."""
    c = ctx.customer
    b = ctx.booking("hotel", "semi_flex", (3, 5, 2, 6)[v % 4])
    fee = _fee(ctx, b)
    refund = round(b.total - fee, 2)
    return Part(
        intent="cancel.semi-flex-stay",
        ask=f"Please cancel my {b.named}.",
        goal=f"Cancel the {b.named}",
        target=b,
        golden=[
            *_agreed(c, b, "cancellation_fee_and_refund", "cancellation"),
            call("cancel_booking", booking_id=b.id, reason="customer_request", fee=fee),
        ],
        invariants=[status_is(b.id, "cancelled"), refunds_on(b.id, 1)],
        reference=f"Your stay is cancelled with a fee of {usd(fee)}; {usd(refund)} is refunded.",
        ticket_category="cancellation",
        description=f"Cancel {b.id} (semi_flex, {b.start} days, {ctx.tier}): fee {usd(fee)}.",
    ), _distract(ctx, b, dis)


def cancel_schedule_change(ctx: Ctx, v: int, dis: int) -> tuple[Part, list[Booking]]:
    """Train: the airline moved the flight by 120+ minutes: no fee, whatever the fare."""
    c = ctx.customer
    plan = ("basic", "standard")[v % 2]
    b = ctx.booking("flight", plan, (6, 10, 3)[v % 3])
    minutes = (150, 135, 240)[v % 3]
    ctx.add({"flight_segments": [{"id": f"SEG-{b.id[3:]}-1", "schedule_change_minutes": minutes}]})
    return Part(
        intent="cancel.schedule-change-waiver",
        ask=f"The airline changed the time of my {b.named}, so I want to cancel it.",
        goal="Cancel the flight without paying a fee",
        target=b,
        golden=[
            *_agreed(c, b, "cancellation_fee_and_refund", "cancellation"),
            call("cancel_booking", booking_id=b.id, reason="airline_schedule_change", fee=0.0),
        ],
        invariants=[status_is(b.id, "cancelled"), refunds_on(b.id, 1)],
        reference=f"The {minutes}-minute schedule change waives the fee; {usd(b.total)} is back.",
        ticket_category="cancellation",
        description=f"Cancel {b.id} ({plan}, schedule change {minutes} min): fee waived.",
    ), _distract(ctx, b, dis)


def cancel_expired_card_stay(ctx: Ctx, v: int, dis: int) -> tuple[Part, list[Booking]]:
    """Test, recovery: the refund cannot reach the expired card, so it becomes a credit."""
    c = ctx.customer
    plan = ("flexible", "semi_flex", "flexible", "semi_flex")[v % 4]
    b = ctx.booking("hotel", plan, (9, 4, 12, 15)[v % 4], card=EXPIRED_CARD)
    fee = _fee(ctx, b)
    refund = round(b.total - fee, 2)
    return Part(
        intent="cancel.expired-card-stay",
        ask=f"I have to cancel my {b.named}.",
        goal=f"Cancel the {b.named} and get the money back",
        target=b,
        golden=[
            *_agreed(c, b, "cancellation_fee_and_refund", "cancellation"),
            _fails(
                "cancel_booking",
                "invalid_state",
                booking_id=b.id,
                reason="customer_request",
                fee=fee,
            ),
            *_told(c, "refund_as_travel_credit", b),
            call(
                "cancel_booking",
                booking_id=b.id,
                reason="customer_request",
                fee=fee,
                refund_to="travel_credit",
            ),
        ],
        invariants=[
            status_is(b.id, "cancelled"),
            refunds_on(b.id, 0),
            _credit_is(b, refund, "expired_card"),
        ],
        reply_contain=[refund],
        reference=(
            f"Your stay is cancelled with a fee of {usd(fee)}. The card you paid with has "
            f"expired, so the {usd(refund)} refund is a travel credit valid for 365 days."
        ),
        ticket_category="cancellation",
        description=(
            f"Cancel {b.id} ({plan}, {b.start} days, {ctx.tier}, card expired): fee {usd(fee)}; "
            f"the refund to the card is refused, so {usd(refund)} becomes an expired_card credit."
        ),
    ), _distract(ctx, b, dis)


def cancel_escalated_stay(ctx: Ctx, v: int, dis: int) -> tuple[Part, list[Booking]]:
    """Test, recovery: an open hotel escalation blocks the cancellation until resolved."""
    c = ctx.customer
    b = ctx.booking("hotel", "flexible", (6, 10, 20, 8)[v % 4])
    esc = ctx.escalation(
        b, "room_not_as_booked", "Guest reports the booked room type is unavailable"
    )
    return Part(
        intent="cancel.escalated-stay",
        ask=(
            f"I complained about the room at my {b.named} and nothing happened, so I'd rather "
            "cancel it."
        ),
        goal=f"Cancel the {b.named}",
        target=b,
        golden=[
            *_agreed(c, b, "cancellation_fee_and_refund", "cancellation"),
            _fails(
                "cancel_booking",
                "invalid_state",
                booking_id=b.id,
                reason="customer_request",
                fee=0.0,
            ),
            call("resolve_hotel_escalation", escalation_id=esc, resolution="guest_cancelled"),
            call("cancel_booking", booking_id=b.id, reason="customer_request", fee=0.0),
        ],
        invariants=[
            status_is(b.id, "cancelled"),
            inv(
                f"select resolution from hotel_escalations where id = '{esc}'",
                "guest_cancelled",
                f"{esc} resolved as guest_cancelled",
            ),
        ],
        reference=f"I closed the complaint and cancelled at no fee; {usd(b.total)} is refunded.",
        ticket_category="hotel",
        description=(
            f"Cancel {b.id} (flexible, {b.start} days): open escalation {esc} blocks it; resolve "
            "it as guest_cancelled, then cancel at $0."
        ),
    ), _distract(ctx, b, dis)


def cancel_duplicate_booking(ctx: Ctx, v: int, dis: int) -> tuple[Part, list[Booking]]:
    """Test: the same stay booked twice by mistake: cancel the later one, without fee."""
    c = ctx.customer
    b = ctx.booking("hotel", ("semi_flex", "non_refundable", "flexible")[v % 3], 5 + v % 10)
    dup = ctx.booking(
        "hotel",
        b.plan,
        b.start,
        place_of=b,
        nights=b.nights,
        nightly=b.nightly,
        created=ts(day(-1), 18),
    )
    return Part(
        intent="cancel.duplicate-booking",
        ask=f"I think I booked my {b.named} twice by mistake.",
        goal="Keep one of the two bookings and get the other refunded",
        target=b,
        golden=[
            call("get_booking", booking_id=b.id),
            call("get_booking", booking_id=dup.id),
            *_told(c, "cancellation_fee_and_refund", dup),
            *_yes(c, "cancellation", dup),
            call("cancel_booking", booking_id=dup.id, reason="duplicate_booking", fee=0.0),
        ],
        invariants=[status_is(dup.id, "cancelled"), status_is(b.id, "confirmed")],
        reference=(
            f"You had two identical bookings; I cancelled the later one, {dup.id}, without a "
            f"fee and refunded {usd(dup.total)}. {b.id} stays as it is."
        ),
        ticket_category="cancellation",
        description=(
            f"{b.id} and {dup.id} ({b.plan}) are the same stay; cancel the later-created "
            f"{dup.id} at $0, reason duplicate_booking."
        ),
    ), _distract(ctx, b, dis)


def cancel_nonrefundable_insists(ctx: Ctx, v: int, dis: int) -> tuple[Part, list[Booking]]:
    """Train: a non_refundable stay cancelled at 100% because the customer insists."""
    c = ctx.customer
    b = ctx.booking("hotel", "non_refundable", 6 + v % 12)
    return Part(
        intent="cancel.nonrefundable-insists",
        ask=f"I know it's non-refundable, but please cancel my {b.named} anyway.",
        goal="Cancel the stay even without a refund",
        target=b,
        golden=[
            *_agreed(c, b, "cancellation_fee_and_refund", "cancellation"),
            call("cancel_booking", booking_id=b.id, reason="customer_request", fee=b.total),
        ],
        invariants=[status_is(b.id, "cancelled"), refunds_on(b.id, 0)],
        reference=f"Your stay is cancelled; the fee is the full {usd(b.total)}, nothing refunded.",
        ticket_category="cancellation",
        description=f"Cancel non_refundable {b.id} at the full fee {usd(b.total)}.",
    ), _distract(ctx, b, dis)


# ----------------------------------------------------------------------------- date changes


def _move(
    ctx: Ctx, v: int, dis: int, intent: str, plan: str, when: tuple[tuple[int, int], ...]
) -> tuple[Part, list[Booking]]:
    """Move a booking to the date the customer gives, after telling the change fee."""
    c = ctx.customer
    kind = "flight" if plan == "standard" else "hotel"
    days, shift = when[v % len(when)]
    b = ctx.booking(kind, plan, days)
    new = later(b, shift)
    fee = 0.0 if ctx.tier == "platinum" else change_fee(kind, plan, days) or 0.0
    return Part(
        intent=intent,
        ask=f"I'd like to move my {b.named} to another date.",
        goal=f"Move the {b.named} to {new}",
        target=b,
        facts={"new_date": new},
        golden=[
            *_agreed(c, b, "change_fee", "date_change"),
            call("change_booking_dates", booking_id=b.id, new_start_date=new, fee=fee),
        ],
        invariants=[
            inv(f"select start_date from bookings where id = '{b.id}'", new, f"{b.id} moved"),
        ],
        reference=f"Your booking now starts on {new}; the change fee is {usd(fee)}.",
        ticket_category="change",
        description=f"Move {b.id} ({plan}, {days} days, {ctx.tier}) to {new}: fee {usd(fee)}.",
    ), _distract(ctx, b, dis)


def change_standard_flight(ctx: Ctx, v: int, dis: int) -> tuple[Part, list[Booking]]:
    """Test: move a standard fare ($75; Platinum $0), after telling the fee."""
    return _move(
        ctx, v, dis, "change.standard-flight", "standard", ((8, 4), (15, 7), (25, 10), (6, 2))
    )


def change_semi_flex_stay(ctx: Ctx, v: int, dis: int) -> tuple[Part, list[Booking]]:
    """Train: move a semi_flex stay 7+ days out ($40; Platinum $0)."""
    return _move(
        ctx, v, dis, "change.semi-flex-stay", "semi_flex", ((9, 3), (14, 5), (30, 12), (7, 1))
    )


def _unchangeable(
    ctx: Ctx, v: int, dis: int, intent: str, kind: str, plan: str, words: list[str]
) -> tuple[Part, list[Booking]]:
    b = ctx.booking(kind, plan, (10, 14, 5, 18)[v % 4])
    return Part(
        intent=intent,
        ask=f"Can my {b.named} be moved one week later?",
        goal="Move the booking one week later",
        target=b,
        golden=[
            call("get_booking", booking_id=b.id),
            call("quote_booking_change", booking_id=b.id),
        ],
        invariants=[
            inv(
                f"select start_date from bookings where id = '{b.id}'",
                b.start_date,
                f"{b.id} keeps its dates",
            )
        ],
        reply_contain=[words],
        refusal=True,
        reference=(
            f"Your {b.named} is {plain(plan)}, which cannot be changed, so I have left it as it is."
        ),
        ticket_category="change",
        description=f"{b.id} is {plan}: not changeable; refuse and change nothing.",
    ), _distract(ctx, b, dis)


def change_nonrefundable_refused(ctx: Ctx, v: int, dis: int) -> tuple[Part, list[Booking]]:
    """Test, refusal: a non_refundable stay cannot be moved."""
    return _unchangeable(
        ctx,
        v,
        dis,
        "change.nonrefundable-stay-refused",
        "hotel",
        "non_refundable",
        ["non-refundable", "non refundable", "nonrefundable", "non_refundable"],
    )


def change_basic_refused(ctx: Ctx, v: int, dis: int) -> tuple[Part, list[Booking]]:
    """Train, refusal: a basic fare cannot be moved."""
    return _unchangeable(ctx, v, dis, "change.basic-flight-refused", "flight", "basic", ["basic"])


# ----------------------------------------------------------------------------- money


def _charged_twice(ctx: Ctx, v: int, card: str) -> Booking:
    b = ctx.booking(
        ("flight", "hotel")[v % 2], ("standard", "flexible")[v % 2], 8 + v % 9, card=card
    )
    ctx.add(
        {"payments": [payment(f"{b.payment}-D", b.id, b.total, card, "2026-03-07T09:00:00+00:00")]}
    )
    return b


def refund_duplicate_expired_card(ctx: Ctx, v: int, dis: int) -> tuple[Part, list[Booking]]:
    """Test, recovery: a duplicate capture on an expired card is returned as a credit."""
    c = ctx.customer
    b = _charged_twice(ctx, v, EXPIRED_CARD)
    return Part(
        intent="refund.duplicate-expired-card",
        ask=f"I was charged twice for my {b.named}.",
        goal="Get the second charge back",
        target=b,
        facts={"charged_amount": usd(b.total)},
        golden=[
            call("get_booking", booking_id=b.id),
            _fails(
                "issue_refund",
                "invalid_state",
                payment_id=f"{b.payment}-D",
                amount=b.total,
                reason="duplicate_charge",
            ),
            *_told(c, "refund_as_travel_credit", b),
            call(
                "issue_travel_credit",
                customer_id=c,
                amount=b.total,
                reason="expired_card",
                booking_id=b.id,
            ),
        ],
        invariants=[_credit_is(b, b.total, "expired_card"), refunds_on(b.id, 0)],
        reply_contain=[b.total],
        reference=(
            f"The second charge of {usd(b.total)} cannot go back to your expired card, so I "
            "issued it as a travel credit valid for 365 days."
        ),
        ticket_category="billing",
        description=(
            f"Duplicate capture {b.payment}-D ({usd(b.total)}) on an expired card: the refund is "
            "refused; issue an expired_card credit of the same amount."
        ),
    ), _distract(ctx, b, dis)


def refund_duplicate_charge(ctx: Ctx, v: int, dis: int) -> tuple[Part, list[Booking]]:
    """Train: a duplicate capture refunded in full to a valid card."""
    b = _charged_twice(ctx, v, "2029-04")
    return Part(
        intent="refund.duplicate-charge",
        ask=f"My card shows two charges for my {b.named}.",
        goal="Get the second charge refunded",
        target=b,
        facts={"charged_amount": usd(b.total)},
        golden=[
            call("get_booking", booking_id=b.id),
            call(
                "issue_refund",
                payment_id=f"{b.payment}-D",
                amount=b.total,
                reason="duplicate_charge",
            ),
        ],
        invariants=[refunds_on(b.id, 1)],
        reference=f"I refunded the second charge of {usd(b.total)} to your card.",
        ticket_category="billing",
        description=f"Duplicate capture {b.payment}-D ({usd(b.total)}): refund it in full.",
    ), _distract(ctx, b, dis)


def _service_failure(ctx: Ctx, v: int, card: str | None) -> Booking:
    return ctx.booking("hotel", "flexible", -(8 + v % 20), status="completed", card=card)


def refund_over_limit(ctx: Ctx, v: int, dis: int) -> tuple[Part, list[Booking]]:
    """Test: a service-failure refund above $300 is escalated on a new billing ticket."""
    c = ctx.customer
    b = _service_failure(ctx, v, "2028-11")
    amount = (420.0, 380.0, 510.0, 650.0, 335.0)[v % 5]
    ticket = "TKT-0501"
    return Part(
        intent="refund.over-limit",
        ask=f"The air conditioning was broken during my whole {b.named}; I want money back.",
        goal=f"Get {usd(amount)} back for the broken air conditioning",
        target=b,
        facts={"requested_amount": usd(amount)},
        golden=[
            call("get_booking", booking_id=b.id),
            call(
                "create_ticket",
                customer_id=c,
                category="billing",
                subject=f"Service-failure refund request of {usd(amount)} for {b.id}",
                priority="normal",
                booking_id=b.id,
            ),
            call("escalate_ticket", ticket_id=ticket, reason="refund_over_limit"),
        ],
        invariants=[refunds_on(b.id, 0)],
        text=[says("tickets", "subject", {"customer_id": c}, amount)],
        reference=(
            f"{usd(amount)} is above the $300.00 I can refund, so I escalated it on ticket "
            f"{ticket} to the team that can approve it."
        ),
        description=f"Service-failure refund {usd(amount)} on {b.id} (> $300): ticket, escalate.",
    ), _distract(ctx, b, dis)


def refund_service_expired_card(ctx: Ctx, v: int, dis: int) -> tuple[Part, list[Booking]]:
    """Train, recovery: a service-failure refund within the limit to an expired card."""
    c = ctx.customer
    b = _service_failure(ctx, v, EXPIRED_CARD)
    amount = (80.0, 120.0, 250.0, 60.0)[v % 4]
    return Part(
        intent="refund.service-expired-card",
        ask=f"There was no hot water during my {b.named}; I'd like part of my money back.",
        goal=f"Get {usd(amount)} back for the missing hot water",
        target=b,
        facts={"requested_amount": usd(amount)},
        golden=[
            call("get_booking", booking_id=b.id),
            _fails(
                "issue_refund",
                "invalid_state",
                payment_id=b.payment,
                amount=amount,
                reason="service_failure",
            ),
            *_told(c, "refund_as_travel_credit", b),
            call(
                "issue_travel_credit",
                customer_id=c,
                amount=amount,
                reason="expired_card",
                booking_id=b.id,
            ),
        ],
        invariants=[_credit_is(b, amount, "expired_card")],
        reply_contain=[amount],
        reference=f"Your card has expired, so the {usd(amount)} is a travel credit instead.",
        ticket_category="billing",
        description=f"Service-failure refund {usd(amount)} to an expired card: credit instead.",
    ), _distract(ctx, b, dis)


_CREDIT_CAP = {"blue": 100.0, "silver": 100.0, "gold": 150.0, "platinum": 150.0}


def credit_service_preferred(ctx: Ctx, v: int, dis: int) -> tuple[Part, list[Booking]]:
    """Test: a service failure compensated by the credit the customer prefers (tier cap)."""
    b = _service_failure(ctx, v, "2028-06")
    cap = _CREDIT_CAP[ctx.tier]
    amount = cap - (0.0, 15.0, 30.0, 45.0)[v % 4]
    return Part(
        intent="credit.service-preferred",
        ask=(
            f"The shuttle the hotel promised never came during my {b.named}. I'd rather have "
            "a travel credit than money back."
        ),
        goal=f"Get a travel credit of {usd(amount)}",
        target=b,
        facts={"requested_credit": usd(amount)},
        golden=[
            call("get_booking", booking_id=b.id),
            call(
                "issue_travel_credit",
                customer_id=ctx.customer,
                amount=amount,
                reason="service_failure",
                booking_id=b.id,
            ),
        ],
        invariants=[_credit_is(b, amount, "service_failure"), refunds_on(b.id, 0)],
        reference=f"I issued a travel credit of {usd(amount)}, valid for 365 days.",
        ticket_category="billing",
        description=(
            f"Service failure on {b.id}: the {ctx.tier} customer prefers a {usd(amount)} credit "
            f"(cap {usd(cap)})."
        ),
    ), _distract(ctx, b, dis)


def hotel_second_problem_refused(ctx: Ctx, v: int, dis: int) -> tuple[Part, list[Booking]]:
    """Test, refusal: the stay already has an open escalation: no second one (§8.5)."""
    b = ctx.booking("hotel", "flexible", (2, 5, 0, 8)[v % 4])
    esc = ctx.escalation(b, "billing_dispute", "Guest disputes the city tax charged at booking")
    for stay in ctx.patch["hotel_stays"]:
        if stay["booking_id"] == b.id:
            stay["room_type"] = "deluxe"  # the room the guest says was downgraded
    return Part(
        intent="hotel.second-problem-refused",
        ask=(
            f"Besides the tax dispute on my {b.named}, the hotel now says my deluxe room is "
            "downgraded to a standard one; please raise that with them too."
        ),
        goal="Have the hotel told about the room downgrade too",
        target=b,
        golden=[call("get_booking", booking_id=b.id)],
        invariants=[
            inv(
                f"select count(*) from hotel_escalations where booking_id = '{b.id}'",
                1,
                f"only {esc} on {b.id}",
            )
        ],
        reply_contain=[["already", "still open", "open escalation", "working on"]],
        refusal=True,
        reference=(
            "The hotel is already working on your open escalation for this stay, so I can't "
            "open a second one now."
        ),
        ticket_category="hotel",
        close=_hold,
        description=f"{b.id} has open escalation {esc}: no second escalation; explain.",
    ), _distract(ctx, b, dis)


def hotel_old_dispute_refused(ctx: Ctx, v: int, dis: int) -> tuple[Part, list[Booking]]:
    """Train, refusal: a billing dispute about a stay that ended over 60 days ago."""
    b = ctx.booking("hotel", "flexible", -(70 + 5 * (v % 6)), status="completed")
    return Part(
        intent="hotel.old-dispute-refused",
        ask=f"The hotel overcharged me the minibar on my {b.named}; please dispute it with them.",
        goal="Have the minibar charge disputed with the hotel",
        target=b,
        golden=[call("get_booking", booking_id=b.id)],
        invariants=[
            inv(
                f"select count(*) from hotel_escalations where booking_id = '{b.id}'",
                0,
                "no escalation",
            )
        ],
        reply_contain=[["60 days", "sixty days"]],
        refusal=True,
        reference="That stay ended more than 60 days ago, so I can no longer dispute it.",
        ticket_category="hotel",
        description=f"Billing dispute on {b.id}, ended over 60 days ago: refuse.",
    ), _distract(ctx, b, dis)


# ----------------------------------------------------------------------------- hotel channel


def hotel_walked_guest(ctx: Ctx, v: int, dis: int) -> tuple[Part, list[Booking]]:
    """Test: walked guest: urgent overbooked escalation and a one-night credit."""
    c = ctx.customer
    b = ctx.booking("hotel", ("flexible", "semi_flex")[v % 2], 0)
    return Part(
        intent="hotel.walked-guest",
        ask=f"I'm at the front desk for my {b.named} and they say they have no room for me!",
        goal="Get the hotel to sort it out and be compensated",
        target=b,
        golden=[
            call("get_booking", booking_id=b.id),
            call(
                "escalate_to_hotel",
                booking_id=b.id,
                reason="overbooked",
                priority="urgent",
                detail=f"Hotel overbooked: no room for confirmed reservation {b.id} arriving today",
            ),
            call(
                "issue_travel_credit",
                customer_id=c,
                amount=b.nightly,
                reason="walked_guest",
                booking_id=b.id,
            ),
        ],
        invariants=[_credit_is(b, b.nightly, "walked_guest")],
        text=[
            says(
                "hotel_escalations",
                "detail",
                {"booking_id": b.id},
                ["overbook", "no room", "walked"],
            )
        ],
        reference=(
            f"I escalated this to the hotel as urgent and added a travel credit of "
            f"{usd(b.nightly)}, one night of your stay."
        ),
        ticket_category="hotel",
        close=_hold,
        description=f"Walked guest {b.id}: urgent overbooked escalation, {usd(b.nightly)} credit.",
    ), _distract(ctx, b, dis)


def _priority(b: Booking) -> str:
    """Policy §8.2: urgent when check-in is today or tomorrow or the guest is staying now."""
    return "urgent" if b.start <= 1 and b.start + b.nights > 0 else "normal"


def hotel_reopened_ticket(ctx: Ctx, v: int, dis: int) -> tuple[Part, list[Booking]]:
    """Test, recovery: the room problem is back on a solved ticket: reopen it, then hold it."""
    b = ctx.booking("hotel", "flexible", (-1, 3, 1, 6)[v % 4], nights=3)
    tid = ctx.ticket(b, "hotel", f"Twin room instead of king at {b.place}", status="solved")
    priority = _priority(b)
    return Part(
        intent="hotel.reopened-ticket",
        ask=(
            f"My ticket about the room for my {b.named} was closed, but they still have me in "
            "a twin room instead of the king I booked."
        ),
        goal="Get the hotel to give the king room and keep the ticket open",
        target=b,
        golden=[
            call("list_customer_tickets", customer_id=ctx.customer),
            call("get_ticket", ticket_id=tid),
            call("get_booking", booking_id=b.id),
            call(
                "escalate_to_hotel",
                booking_id=b.id,
                reason="room_not_as_booked",
                priority=priority,
                detail=f"Guest booked a king room but is given a twin room ({b.id})",
            ),
            _fails("hold_ticket", "invalid_state", ticket_id=tid, reason="awaiting_hotel"),
            call("update_ticket", ticket_id=tid, status="open"),
            call("hold_ticket", ticket_id=tid, reason="awaiting_hotel"),
        ],
        invariants=[
            inv(f"select hold_reason from tickets where id = '{tid}'", "awaiting_hotel", "held"),
        ],
        text=[says("hotel_escalations", "detail", {"booking_id": b.id}, ["twin"], ["king"])],
        reference=(
            f"I reopened ticket {tid}, escalated the room to the hotel ({priority}) and put the "
            "ticket on hold while the hotel fixes it."
        ),
        description=(
            f"Solved ticket {tid} about {b.id} comes back: escalate room_not_as_booked "
            f"({priority}); holding the solved ticket is refused, reopen it, then hold."
        ),
    ), _distract(ctx, b, dis)


def hotel_safety(ctx: Ctx, v: int, dis: int) -> tuple[Part, list[Booking]]:
    """Train: a safety issue: urgent hotel ticket escalated for safety, and the hotel told."""
    c = ctx.customer
    b = ctx.booking("hotel", "flexible", -1, nights=3)
    ticket = "TKT-0501"
    return Part(
        intent="hotel.safety",
        ask=f"The smoke alarm in my room for my {b.named} keeps failing; the fire door is jammed.",
        goal="Get the safety problem handled right away",
        target=b,
        golden=[
            call("get_booking", booking_id=b.id),
            call(
                "create_ticket",
                customer_id=c,
                category="hotel",
                subject=f"Safety: fire door jammed and smoke alarm failing ({b.id})",
                priority="urgent",
                booking_id=b.id,
            ),
            call("escalate_ticket", ticket_id=ticket, reason="safety"),
            call(
                "escalate_to_hotel",
                booking_id=b.id,
                reason="safety",
                priority="urgent",
                detail="Fire door jammed and smoke alarm failing in the guest's room",
            ),
        ],
        text=[
            says("hotel_escalations", "detail", {"booking_id": b.id}, ["fire door"]),
            says("tickets", "subject", {"customer_id": c}, ["fire door", "smoke alarm"]),
        ],
        reference="I escalated the safety issue to our team and to the hotel as urgent.",
        description=f"Safety issue on {b.id}: urgent ticket escalated (safety), hotel escalation.",
    ), _distract(ctx, b, dis)


def hotel_room_not_as_booked(ctx: Ctx, v: int, dis: int) -> tuple[Part, list[Booking]]:
    """Train: room not as booked: escalate to the hotel (priority by dates)."""
    b = ctx.booking("hotel", "semi_flex", (4, 1, 0, 9)[v % 4], nights=2)
    priority = _priority(b)
    return Part(
        intent="hotel.room-not-as-booked",
        ask=f"The hotel for my {b.named} says my sea-view room is now a courtyard room.",
        goal="Get the sea-view room I booked",
        target=b,
        golden=[
            call("get_booking", booking_id=b.id),
            call(
                "escalate_to_hotel",
                booking_id=b.id,
                reason="room_not_as_booked",
                priority=priority,
                detail="Guest booked a sea-view room; the hotel offers a courtyard room",
            ),
        ],
        text=[says("hotel_escalations", "detail", {"booking_id": b.id}, ["sea"])],
        reference=f"I escalated the room to the hotel ({priority}).",
        ticket_category="hotel",
        close=_hold,
        description=f"Room not as booked on {b.id}: escalate ({priority}).",
    ), _distract(ctx, b, dis)


def _request(
    ctx: Ctx, v: int, dis: int, intent: str, kind: str, free: bool, ask: str, words: list[str]
) -> tuple[Part, list[Booking]]:
    b = ctx.booking("hotel", ("flexible", "semi_flex", "non_refundable")[v % 3], 5 + v % 20)
    detail = f"{plain(kind).capitalize()}: {ask} ({b.id})"
    return Part(
        intent=intent,
        ask=f"For my {b.named}, could you ask the hotel for {ask}?",
        goal=f"Have the hotel arrange {ask}",
        target=b,
        golden=[
            call("get_booking", booking_id=b.id),
            call(
                "add_special_request",
                booking_id=b.id,
                kind=kind,
                complimentary=free,
                detail=detail,
            ),
        ],
        text=[says("special_requests", "detail", {"booking_id": b.id}, list(words))],
        reference="I sent the request to the hotel; "
        + ("it is complimentary." if free else "it is not complimentary: the hotel may charge."),
        ticket_category="hotel",
        description=f"{kind} request on {b.id} ({ctx.tier}): complimentary {free}.",
    ), _distract(ctx, b, dis)


_REQUESTS: dict[str, tuple[str, frozenset[str], str, list[str]]] = {
    "request.late-checkout": (
        "late_checkout",
        frozenset({"gold", "platinum"}),
        "a late checkout at 14:00",
        ["14:00", "2 pm", "2pm"],
    ),
    "request.accessible-room": (
        "accessible_room",
        frozenset({"blue", "silver", "gold", "platinum"}),
        "a wheelchair-accessible room",
        ["wheelchair"],
    ),
    "request.early-check-in": (
        "early_check_in",
        frozenset({"gold", "platinum"}),
        "an early check-in at 10:00",
        ["10:00", "10 am", "10am"],
    ),
}
"""Special requests: kind, the tiers it is complimentary for (§8.1), the ask, its words."""


def special_request(intent: str) -> Builder:
    """The builder of one `_REQUESTS` entry."""
    kind, free_for, ask, words = _REQUESTS[intent]

    def build(ctx: Ctx, v: int, dis: int) -> tuple[Part, list[Booking]]:
        return _request(ctx, v, dis, intent, kind, ctx.tier in free_for, ask, words)

    build.__doc__ = f"{kind}: complimentary for {', '.join(sorted(free_for))}."
    return build


# ----------------------------------------------------------------------------- loyalty, CRM, names


def loyalty_missing_credit(ctx: Ctx, v: int, dis: int) -> tuple[Part, list[Booking]]:
    """Test: a completed stay that earned nothing, credited at the tier multiplier."""
    b = ctx.booking("hotel", "flexible", -(15 + 9 * (v % 7)), status="completed")
    points = floor(floor(b.total) * MULTIPLIER[ctx.tier])
    return Part(
        intent="loyalty.missing-credit",
        ask=f"I never got my loyalty points for my {b.named}.",
        goal="Get the missing points credited",
        target=b,
        golden=[
            call("get_booking", booking_id=b.id),
            call("get_loyalty_account", customer_id=ctx.customer),
            call(
                "add_loyalty_points",
                customer_id=ctx.customer,
                points=points,
                kind="missing_credit",
                booking_id=b.id,
            ),
        ],
        invariants=[
            inv(
                "select coalesce(sum(points), 0) from loyalty_transactions "
                f"where booking_id = '{b.id}'",
                points,
                f"{points} points for {b.id}",
            )
        ],
        reference=f"I credited {points} points for that stay.",
        ticket_category="loyalty",
        description=f"Missing credit for {b.id} ({usd(b.total)}, {ctx.tier}): {points} points.",
    ), _distract(ctx, b, dis)


def loyalty_tier_upgrade(ctx: Ctx, v: int, dis: int) -> tuple[Part, list[Booking]]:
    """Train: qualifying nights passed the next threshold but the tier was not updated."""
    nxt = {"blue": "silver", "silver": "gold", "gold": "platinum"}.get(ctx.tier, "")
    assert nxt, "a Platinum member has no tier to reach"
    nights = {"silver": 11, "gold": 27, "platinum": 52}[nxt] + v % 3
    for row in ctx.patch["loyalty_accounts"]:
        if row["customer_id"] == ctx.customer:
            row["qualifying_nights"] = nights
    return Part(
        intent="loyalty.tier-upgrade",
        ask="I think I have enough nights for the next loyalty tier by now.",
        goal=f"Be moved up to {nxt.capitalize()}",
        golden=[
            call("get_loyalty_account", customer_id=ctx.customer),
            call("update_loyalty_tier", customer_id=ctx.customer, tier=nxt),
        ],
        invariants=[
            inv(
                f"select tier from loyalty_accounts where customer_id = '{ctx.customer}'",
                nxt,
                f"now {nxt}",
            )
        ],
        reference=f"With {nights} qualifying nights you are now {nxt.capitalize()}.",
        description=f"{nights} qualifying nights, {ctx.tier}: upgrade to {nxt}.",
    ), []


def loyalty_goodwill_refused(ctx: Ctx, v: int, dis: int) -> tuple[Part, list[Booking]]:
    """Train, refusal: support grants no goodwill points."""
    b = ctx.booking("flight", "standard", -(3 + v % 10), status="completed")
    return Part(
        intent="loyalty.goodwill-refused",
        ask=f"My {b.named} was a miserable trip; could you add some bonus points as a gesture?",
        goal="Get some goodwill points",
        target=b,
        golden=[call("get_loyalty_account", customer_id=ctx.customer)],
        reply_contain=[["goodwill", "bonus", "gesture"]],
        refusal=True,
        reference="I'm sorry, goodwill or bonus points are not something support can grant.",
        ticket_category="loyalty",
        description="Goodwill points asked for: refuse (§9.3).",
    ), _distract(ctx, b, dis)


def crm_phone_change(ctx: Ctx, v: int, dis: int) -> tuple[Part, list[Booking]]:
    """Test: a phone change and its contact_change note."""
    phone = f"+1-555-0{140 + ctx.seq % 60:03d}"
    return Part(
        intent="crm.phone-change",
        ask="I have a new phone number for my account.",
        goal="Update the phone number",
        facts={"new_phone": phone},
        golden=[
            call("update_customer_contact", customer_id=ctx.customer, phone=phone),
            call(
                "add_customer_note",
                customer_id=ctx.customer,
                category="contact_change",
                body=f"Phone number changed to {phone} at the customer's request.",
            ),
        ],
        invariants=[
            inv(f"select phone from customers where id = '{ctx.customer}'", phone, "new phone"),
        ],
        text=[says("customer_notes", "body", {"customer_id": ctx.customer}, [phone, phone[3:]])],
        reference=f"Your phone number is now {phone}.",
        description=f"Phone change to {phone} and a contact_change note.",
    ), []


def crm_email_change(ctx: Ctx, v: int, dis: int) -> tuple[Part, list[Booking]]:
    """Train: an email change, proved by a booking reference (the task verifies by it)."""
    b = ctx.booking("flight", "flex", 12 + v % 9)
    new = f"{ctx.first.lower()}.{ctx.last.lower()}.{ctx.seq}@example.org"
    return Part(
        intent="crm.email-change",
        ask="I need to change the email address on my account.",
        goal="Change the account's email address",
        target=b,
        facts={"new_email": new},
        golden=[
            call("update_customer_contact", customer_id=ctx.customer, email=new),
            call(
                "add_customer_note",
                customer_id=ctx.customer,
                category="contact_change",
                body=f"Email changed to {new}, proved by booking reference {b.reference}.",
            ),
        ],
        invariants=[
            inv(f"select email from customers where id = '{ctx.customer}'", new, "new email"),
        ],
        text=[says("customer_notes", "body", {"customer_id": ctx.customer}, new)],
        reference=f"Your email address is now {new}.",
        description=f"Email change to {new}, proved by the reference of {b.id}.",
    ), []


def name_companion_typo(ctx: Ctx, v: int, dis: int) -> tuple[Part, list[Booking]]:
    """Test: the companion's first name has a typo (at most 3 characters): correct it once."""
    right, wrong = _COMPANIONS[(ctx.seq + v) % len(_COMPANIONS)]
    b = ctx.booking("flight", "standard", 9 + v % 12, companion=(wrong, ctx.last))
    full = f"{right} {ctx.last}"
    return Part(
        intent="name.companion-typo",
        ask=f"My partner's first name is misspelled on my {b.named}.",
        goal="Fix the spelling of the partner's name",
        target=b,
        facts={"companion_name": full},
        golden=[
            call("get_booking", booking_id=b.id),
            call(
                "update_passenger_name",
                passenger_id=f"PAX-{b.id[3:]}-2",
                first_name=right,
                last_name=ctx.last,
            ),
        ],
        invariants=[
            inv(
                f"select first_name from passengers where id = 'PAX-{b.id[3:]}-2'",
                right,
                "name corrected",
            )
        ],
        reference=f"The second traveller on that booking now reads {full}.",
        ticket_category="change",
        description=f"Companion on {b.id} booked as {wrong}: correct to {right} (typo, free).",
    ), _distract(ctx, b, dis)


def name_transfer_refused(ctx: Ctx, v: int, dis: int) -> tuple[Part, list[Booking]]:
    """Test, refusal: putting another person on the ticket is a name transfer."""
    b = ctx.booking("flight", ("standard", "flex")[v % 2], 7 + v % 15)
    return Part(
        intent="name.transfer-refused",
        ask=f"I can't travel, so my colleague Morgan Whitfield should fly on my {b.named} instead.",
        goal="Put the colleague's name on the ticket",
        target=b,
        golden=[call("get_booking", booking_id=b.id)],
        invariants=[
            inv(
                f"select name_corrections from passengers where id = 'PAX-{b.id[3:]}-1'",
                0,
                "the traveller is unchanged",
            )
        ],
        reply_contain=[["transfer", "another person", "different person", "someone else"]],
        refusal=True,
        reference=(
            "I'm sorry: putting another person on the ticket is a name transfer, which airlines "
            "do not allow. You can cancel under your fare's terms instead."
        ),
        ticket_category="change",
        description=f"Name transfer on {b.id} to another person: refuse.",
    ), _distract(ctx, b, dis)


def ticket_reopened_escalate(ctx: Ctx, v: int, dis: int) -> tuple[Part, list[Booking]]:
    """Train, recovery: an over-limit refund request on a solved ticket: reopen, escalate."""
    b = _service_failure(ctx, v, "2028-02")
    amount = (360.0, 480.0, 720.0)[v % 3]
    tid = ctx.ticket(b, "billing", f"Refund request of {usd(amount)} for {b.id}", status="solved")
    return Part(
        intent="ticket.reopened-escalate",
        ask=(f"My refund request for my {b.named} was marked solved, but I never got the money."),
        goal=f"Get the {usd(amount)} refund request moving again",
        target=b,
        facts={"requested_amount": usd(amount)},
        golden=[
            call("list_customer_tickets", customer_id=ctx.customer),
            call("get_ticket", ticket_id=tid),
            call("get_booking", booking_id=b.id),
            _fails("escalate_ticket", "invalid_state", ticket_id=tid, reason="refund_over_limit"),
            call("update_ticket", ticket_id=tid, status="open"),
            call("escalate_ticket", ticket_id=tid, reason="refund_over_limit"),
        ],
        invariants=[refunds_on(b.id, 0)],
        reference=(
            f"I reopened ticket {tid} and escalated it: {usd(amount)} is above my $300.00 limit."
        ),
        description=f"Solved ticket {tid} ({usd(amount)} on {b.id}): reopen, escalate.",
    ), _distract(ctx, b, dis)


TEST: dict[str, Builder] = {
    "cancel.standard-flight": cancel_standard_flight,
    "cancel.expired-card-stay": cancel_expired_card_stay,
    "cancel.escalated-stay": cancel_escalated_stay,
    "change.standard-flight": change_standard_flight,
    "change.nonrefundable-stay-refused": change_nonrefundable_refused,
    "refund.duplicate-expired-card": refund_duplicate_expired_card,
    "refund.over-limit": refund_over_limit,
    "hotel.walked-guest": hotel_walked_guest,
    "hotel.reopened-ticket": hotel_reopened_ticket,
    "loyalty.missing-credit": loyalty_missing_credit,
    "name.companion-typo": name_companion_typo,
    "request.late-checkout": special_request("request.late-checkout"),
    "crm.phone-change": crm_phone_change,
    "name.transfer-refused": name_transfer_refused,
    "cancel.duplicate-booking": cancel_duplicate_booking,
    "credit.service-preferred": credit_service_preferred,
    "hotel.second-problem-refused": hotel_second_problem_refused,
}
"""The test split's intent branches."""

TRAIN: dict[str, Builder] = {
    "cancel.flex-flight": cancel_flex_flight,
    "cancel.semi-flex-stay": cancel_semi_flex_stay,
    "cancel.schedule-change-waiver": cancel_schedule_change,
    "change.semi-flex-stay": change_semi_flex_stay,
    "change.basic-flight-refused": change_basic_refused,
    "refund.duplicate-charge": refund_duplicate_charge,
    "refund.service-expired-card": refund_service_expired_card,
    "hotel.safety": hotel_safety,
    "hotel.room-not-as-booked": hotel_room_not_as_booked,
    "ticket.reopened-escalate": ticket_reopened_escalate,
    "loyalty.tier-upgrade": loyalty_tier_upgrade,
    "loyalty.goodwill-refused": loyalty_goodwill_refused,
    "request.accessible-room": special_request("request.accessible-room"),
    "request.early-check-in": special_request("request.early-check-in"),
    "crm.email-change": crm_email_change,
    "cancel.nonrefundable-insists": cancel_nonrefundable_insists,
    "hotel.old-dispute-refused": hotel_old_dispute_refused,
}
"""The train split's intent branches (none of them a test branch)."""
