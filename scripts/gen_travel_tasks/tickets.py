"""Ticket triage: act on open tickets and bring each to the right status."""

from __future__ import annotations

import math

from ._build import (
    MULTIPLIER,
    SEED,
    Picker,
    Row,
    TaskSet,
    call,
    cancellation_fee,
    day,
    ident,
    inv,
    merge,
    nightly_of,
    owner,
    says,
    status_is,
    ticket,
    tier,
    total_of,
    trip,
    usd,
    where,
)

_FLIGHTS = Picker("flight", skip=29)
_HOTELS = Picker("hotel", skip=29)
_LTX = {str(r["booking_id"]): str(r["id"]) for r in SEED["loyalty_transactions"]}


def _ticket_status(tid: str, value: str) -> Row:
    return inv(f"select status from tickets where id = '{tid}'", value, f"ticket {value}")


def build(tasks: TaskSet) -> None:
    """Add the ticket-triage family."""
    f = "ticket-triage"
    n = 400

    def tid() -> str:
        nonlocal n
        n += 1
        return f"TKT-{n:04d}"

    # cancel a flex flight free, solve the ticket
    bk, t = _FLIGHTS(), tid()
    c = owner(bk)
    patch = merge(
        trip(bk, 10, plan="flex"),
        tier(c, "silver"),
        ticket(t, c, bk, "cancellation", "Please cancel my flight"),
    )
    tasks.add(
        f,
        "cancel-solve",
        customer=c,
        description=(
            "Open cancellation ticket on a flex flight 10 days out: cancel free, solve the ticket."
        ),
        opening="I sent a ticket asking to cancel my flight. Can you take care of it?",
        goal="Cancel the flight",
        reacts={"agree": "Yes, cancel it please."},
        golden=[
            *ident(c, bk),
            call("list_customer_tickets", customer_id=c),
            call("quote_booking_change", booking_id=bk),
            call("cancel_booking", booking_id=bk, reason="customer_request", fee=0.0),
            call("update_ticket", ticket_id=t, status="solved"),
        ],
        patch=patch,
        invariants=[status_is(bk, "cancelled"), _ticket_status(t, "solved")],
    )
    # waiver asked and refused; customer declines; solve
    bk, t = _FLIGHTS(), tid()
    c = owner(bk)
    patch = merge(
        trip(bk, 5, plan="standard"),
        tier(c, "gold"),
        ticket(t, c, bk, "cancellation", "Waive my fee, I'm ill"),
    )
    fee = cancellation_fee("flight", "standard", 5, total_of(bk, patch), 0.0)
    tasks.add(
        f,
        "waiver-refused",
        customer=c,
        description=(
            f"Ticket asks a fee waiver for illness (standard, 5 days, gold): "
            f"no waiver; fee {usd(fee)} declined; solve the ticket, booking "
            f"unchanged."
        ),
        opening="I'm sick and can't fly. My ticket asks you to cancel without a fee.",
        goal="Cancel without a fee",
        reacts={"confirm": False, "decline": "If there's a fee, don't cancel.", "accept": "Okay."},
        golden=[
            *ident(c, bk),
            call("list_customer_tickets", customer_id=c),
            call("quote_booking_change", booking_id=bk),
            call("update_ticket", ticket_id=t, status="solved"),
        ],
        patch=patch,
        invariants=[status_is(bk, "confirmed"), _ticket_status(t, "solved")],
        refusal=True,
        rubric=[
            "Does the reply explain that illness does not waive the cancellation fee? (yes/no)",
            f"Does the reply mention the {usd(fee)} fee? (yes/no)",
        ],
        reference=(
            f"I'm sorry you're unwell. Illness does not waive the fee: cancelling "
            f"now costs {usd(fee)}. As you asked, the booking stays as it "
            f"is and I've closed the ticket."
        ),
    )
    # over-limit refund ticket: escalate
    bk, t = _HOTELS(), tid()
    c = owner(bk)
    patch = trip(bk, -8, status="completed")
    patch["bookings"][0]["end_date"] = day(-5).isoformat()
    patch = merge(patch, ticket(t, c, bk, "billing", "Refund for broken air conditioning"))
    tasks.add(
        f,
        "over-limit",
        customer=c,
        description=(
            "Ticket asks a $420 service-failure refund: over the limit, escalate "
            "refund_over_limit; no refund."
        ),
        opening="My ticket about the broken air conditioning hasn't been answered.",
        goal="Get a refund",
        facts={"requested_amount": {"value": "$420.00", "say": "I want {value} back."}},
        reacts={"accept": "Okay, I'll wait.", "thanks": "Okay, I'll wait."},
        golden=[
            *ident(c, bk),
            call("list_customer_tickets", customer_id=c),
            call("escalate_ticket", ticket_id=t, reason="refund_over_limit"),
        ],
        patch=patch,
        invariants=[
            _ticket_status(t, "escalated"),
            inv(f"select count(*) from refunds where booking_id = '{bk}'", 0, "no refund"),
        ],
        refusal=True,
    )
    # safety ticket
    bk, t = _HOTELS(), tid()
    c = owner(bk)
    patch = merge(trip(bk, -1), ticket(t, c, bk, "hotel", "Broken lock on my room door"))
    tasks.add(
        f,
        "safety",
        customer=c,
        description=(
            "In-house guest's ticket about a broken door lock: escalate the "
            "ticket (safety) and the hotel (safety, urgent)."
        ),
        opening=(
            "My ticket about the broken door lock at my hotel is still open and I don't feel safe."
        ),
        goal="Get the lock fixed now",
        reacts={"agree": "Please hurry."},
        golden=[
            *ident(c, bk),
            call("list_customer_tickets", customer_id=c),
            call(
                "escalate_to_hotel",
                booking_id=bk,
                reason="safety",
                priority="urgent",
                detail="Broken room door lock.",
            ),
            call("escalate_ticket", ticket_id=t, reason="safety"),
        ],
        patch=patch,
        invariants=[
            _ticket_status(t, "escalated"),
            inv(
                f"select reason from hotel_escalations where booking_id = '{bk}'",
                "safety",
                "hotel told",
            ),
        ],
        text=[says("hotel_escalations", "detail", {"booking_id": bk}, "lock")],
    )
    # date change via ticket, solve
    bk, t = _FLIGHTS(), tid()
    c = owner(bk)
    patch = merge(
        trip(bk, 12, plan="standard"), tier(c, "blue"), ticket(t, c, bk, "change", "Move my flight")
    )
    new = day(16).isoformat()
    tasks.add(
        f,
        "change-solve",
        customer=c,
        description=(
            f"Ticket asks to move a standard flight: move to {new} for $75, solve the ticket."
        ),
        opening="I opened a ticket to move my flight. Can you do it now?",
        goal="Move the flight",
        facts={"new_date": {"value": new, "say": "The new date is {value}."}},
        reacts={"agree": "Yes, the $75 is fine."},
        golden=[
            *ident(c, bk),
            call("list_customer_tickets", customer_id=c),
            call("quote_booking_change", booking_id=bk),
            call("change_booking_dates", booking_id=bk, new_start_date=new, fee=75.0),
            call("update_ticket", ticket_id=t, status="solved"),
        ],
        patch=patch,
        invariants=[
            inv(f"select start_date from bookings where id = '{bk}'", new, "moved"),
            _ticket_status(t, "solved"),
        ],
    )
    # missing credit via ticket, solve
    bk, t = _HOTELS(), tid()
    c = owner(bk)
    patch = trip(bk, -25, status="completed")
    patch["bookings"][0]["end_date"] = day(-22).isoformat()
    patch = merge(patch, tier(c, "silver"), ticket(t, c, bk, "loyalty", "Missing points"))
    points = math.floor(math.floor(total_of(bk, patch)) * MULTIPLIER["silver"])
    delete = {"loyalty_transactions": [{"id": _LTX[bk]}]} if bk in _LTX else None
    tasks.add(
        f,
        "loyalty-solve",
        customer=c,
        description=(
            f"Ticket about missing points (silver, ended 22 days ago): credit "
            f"{points}, solve the ticket."
        ),
        opening=f"I have a ticket open about missing points for my {where(bk)}.",
        goal="Get the points",
        reacts={"thanks": "Thanks a lot. Bye."},
        golden=[
            *ident(c, bk),
            call("list_customer_tickets", customer_id=c),
            call("get_loyalty_account", customer_id=c),
            call(
                "add_loyalty_points",
                customer_id=c,
                points=points,
                kind="missing_credit",
                booking_id=bk,
            ),
            call("update_ticket", ticket_id=t, status="solved"),
        ],
        patch=patch,
        delete=delete,
        invariants=[_ticket_status(t, "solved")],
    )
    # goodwill points asked: refuse, solve
    bk, t = _HOTELS(), tid()
    c = owner(bk)
    patch = merge(trip(bk, 20), ticket(t, c, None, "loyalty", "Bonus points please"))
    tasks.add(
        f,
        "goodwill-refused",
        customer=c,
        description=(
            "Ticket asks goodwill bonus points: support does not grant them; "
            "solve the ticket, no points."
        ),
        opening="My ticket asks for some bonus points as a loyal customer.",
        goal="Get bonus points",
        reacts={"accept": "Too bad. Bye."},
        golden=[
            *ident(c),
            call("list_customer_tickets", customer_id=c),
            call("update_ticket", ticket_id=t, status="solved"),
        ],
        patch=patch,
        invariants=[
            _ticket_status(t, "solved"),
            inv(
                (
                    f"select count(*) from loyalty_transactions where customer_id "
                    f"= '{c}' and kind = 'goodwill'"
                ),
                0,
                "no goodwill",
            ),
        ],
        refusal=True,
        rubric=["Does the reply say that support cannot grant goodwill points? (yes/no)"],
        reference=(
            "I'm sorry, support cannot grant goodwill points, so I've closed "
            "your ticket without adding any."
        ),
    )
    # customer says resolved: solve
    bk, t = _FLIGHTS(), tid()
    c = owner(bk)
    patch = merge(trip(bk, 20), ticket(t, c, bk, "other", "Seat map question"))
    tasks.add(
        f,
        "resolved",
        customer=c,
        description="The customer says their open ticket's question is answered: solve it.",
        opening="You can close my open ticket about the seat map, I found the answer.",
        goal="Close the ticket",
        reacts={"agree": "Yes, close it."},
        golden=[
            *ident(c),
            call("list_customer_tickets", customer_id=c),
            call("update_ticket", ticket_id=t, status="solved"),
        ],
        patch=patch,
        invariants=[_ticket_status(t, "solved")],
    )
    # walked guest via ticket: escalate, credit, hold awaiting hotel
    bk, t = _HOTELS(), tid()
    c = owner(bk)
    patch = merge(trip(bk, 0), tier(c, "gold"), ticket(t, c, bk, "hotel", "Hotel says it is full"))
    nightly = nightly_of(bk, patch)
    tasks.add(
        f,
        "walked-hold",
        customer=c,
        description=(
            f"Ticket: the hotel has no room tonight. Escalate overbooked (urgent), "
            f"credit one night ({usd(nightly)}), hold the ticket awaiting_hotel."
        ),
        opening="I opened a ticket from the lobby: the hotel says it's full tonight!",
        goal="Get a room and compensation",
        reacts={"agree": "Please do.", "thanks": "Thank you."},
        golden=[
            *ident(c, bk),
            call("list_customer_tickets", customer_id=c),
            call(
                "escalate_to_hotel",
                booking_id=bk,
                reason="overbooked",
                priority="urgent",
                detail="Guest walked, hotel full.",
            ),
            call(
                "issue_travel_credit",
                customer_id=c,
                amount=nightly,
                reason="walked_guest",
                booking_id=bk,
            ),
            call("hold_ticket", ticket_id=t, reason="awaiting_hotel"),
        ],
        patch=patch,
        invariants=[
            _ticket_status(t, "hold"),
            inv(
                f"select amount from travel_credits where booking_id = '{bk}'", nightly, "one night"
            ),
        ],
        text=[
            says(
                "hotel_escalations",
                "detail",
                {"booking_id": bk},
                ["walked", "full", "no room", "overbooked"],
            )
        ],
    )
