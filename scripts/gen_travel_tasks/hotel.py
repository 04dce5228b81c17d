"""Hotel partner channel: special requests (complimentary or not) and escalations."""

from __future__ import annotations

from ._build import (
    STAYS,
    Picker,
    TaskSet,
    call,
    day,
    ident,
    inv,
    merge,
    nightly_of,
    owner,
    says,
    ticket,
    tier,
    trip,
    ts,
    usd,
    where,
)

_HOTELS = Picker("hotel", skip=11)
_ALWAYS = ("accessible_room", "crib", "quiet_room")
_DETAIL = {
    "early_check_in": "Arriving on an early flight, would like the room from 9:00.",
    "late_checkout": "Would like to keep the room until 15:00 on departure day.",
    "accessible_room": "Guest uses a wheelchair; needs a roll-in shower.",
    "crib": "Travelling with an infant; please put a crib in the room.",
    "extra_bed": "Third guest; please add an extra bed.",
    "quiet_room": "Light sleeper; a room away from the lift, please.",
}
# What the detail passes on to the hotel (any one spelling of each).
_WANTS: dict[str, list[object]] = {
    "early_check_in": ["9:00"],
    "late_checkout": ["15:00"],
    "accessible_room": [["roll-in", "wheelchair"]],
    "crib": ["crib"],
    "extra_bed": ["bed"],
    "quiet_room": [["quiet", "lift", "elevator"]],
}
_ASK = {
    "early_check_in": "Could I check in early, around 9 in the morning?",
    "late_checkout": "Could I have a late checkout, around 3 pm?",
    "accessible_room": "I need an accessible room with a roll-in shower.",
    "crib": "We're bringing our baby. Can the hotel put a crib in the room?",
    "extra_bed": "We'll be three. Can you add an extra bed?",
    "quiet_room": "I'm a light sleeper. Can I get a quiet room?",
}


def requests(tasks: TaskSet) -> None:
    """Special requests with the right complimentary flag; refusals for closed or repeated ones."""
    f = "hotel-requests"
    for kind, level in (
        ("late_checkout", "gold"),
        ("late_checkout", "silver"),
        ("early_check_in", "platinum"),
        ("early_check_in", "blue"),
        ("accessible_room", "blue"),
        ("extra_bed", "gold"),
        ("crib", "silver"),
        ("quiet_room", "blue"),
        ("extra_bed", "platinum"),
    ):
        bk = _HOTELS()
        c = owner(bk)
        comp = kind in _ALWAYS or (
            kind in ("early_check_in", "late_checkout") and level in ("gold", "platinum")
        )
        tasks.add(
            f,
            kind.replace("_", "-") + ("-free" if comp else "-paid"),
            customer=c,
            description=f"{level} member asks {kind}: send it with complimentary={comp}.",
            opening=f"I have a {where(bk)} coming up. {_ASK[kind]}",
            goal="Have the request passed to the hotel",
            reacts={"agree": "Yes, please send it."},
            golden=[
                *ident(c, bk),
                call(
                    "add_special_request",
                    booking_id=bk,
                    kind=kind,
                    complimentary=comp,
                    detail=_DETAIL[kind],
                ),
            ],
            patch=merge(trip(bk, 9), tier(c, level)),
            invariants=[
                inv(
                    (
                        f"select kind || ':' || complimentary from special_requests where "
                        f"booking_id = '{bk}'"
                    ),
                    f"{kind}:{int(comp)}",
                    "request sent with the right complimentary flag",
                )
            ],
            text=[says("special_requests", "detail", {"booking_id": bk}, *_WANTS[kind])],
            rubric=None
            if comp
            else [
                "Does the reply tell the customer the hotel may charge for this request? (yes/no)"
            ],
            reference=""
            if comp
            else "I've sent your request to the hotel; note that the hotel may charge for it.",
        )
    bk = _HOTELS()
    c = owner(bk)
    patch = trip(bk, 9, status="cancelled")
    patch["bookings"][0].update(
        cancel_reason="customer_request", cancel_fee=0.0, cancelled_at=ts(day(-1))
    )
    tasks.add(
        f,
        "cancelled-stay",
        customer=c,
        description="The stay is cancelled: no request can be sent. No change.",
        opening=f"For my {where(bk)}: {_ASK['quiet_room']}",
        goal="Have the request passed to the hotel",
        reacts={"accept": "Oh right, I cancelled that. Never mind. Bye."},
        golden=ident(c, bk),
        patch=patch,
        invariants=[
            inv(f"select count(*) from special_requests where booking_id = '{bk}'", 0, "none sent")
        ],
        read_only=True,
        reply={"must_contain": [["cancelled", "canceled"]]},
        reference="That stay is cancelled, so I can't send a request to the hotel for it.",
    )


# What the guest reports, as the golden detail words it, and what any wording must carry.
_REPORTS: dict[str, tuple[str, list[str]]] = {
    "overbooked": (
        "Overbooked: the hotel has no room for the guest tonight.",
        ["overbooked", "no room", "full"],
    ),
    "room_not_as_booked": (
        "The room the hotel is giving is not the room the guest booked.",
        ["booked", "booking", "downgrade", "different room", "wrong room"],
    ),
    "billing_dispute": (
        "The hotel charged the guest for a minibar they never used.",
        ["minibar", "mini-bar", "mini bar"],
    ),
}


def escalations(tasks: TaskSet) -> None:
    """Escalations to the hotel with the right priority; walked guests; safety; stale disputes."""
    f = "hotel-escalations"
    for reason, start, nights_left, level in (
        ("overbooked", 0, None, "silver"),
        ("overbooked", 0, None, "platinum"),
        ("room_not_as_booked", -1, 2, "blue"),
        ("room_not_as_booked", 10, None, "gold"),
        ("room_not_as_booked", 1, None, "silver"),
        ("billing_dispute", -24, -20, "blue"),
    ):
        bk = _HOTELS()
        c = owner(bk)
        patch = merge(trip(bk, start), tier(c, level))
        if nights_left is not None:
            patch["bookings"][0]["end_date"] = day(nights_left).isoformat()
            if nights_left < 0:
                patch["bookings"][0]["status"] = "completed"
        in_house = start <= 0 and (nights_left is None or nights_left > 0)
        urgent = reason in ("overbooked", "safety") or start in (0, 1) or in_house
        priority = "urgent" if urgent else "normal"
        golden = [
            *ident(c, bk),
            call(
                "escalate_to_hotel",
                booking_id=bk,
                reason=reason,
                priority=priority,
                detail=_REPORTS[reason][0],
            ),
        ]
        invariants = [
            inv(
                (
                    f"select reason || ':' || priority from hotel_escalations where "
                    f"booking_id = '{bk}'"
                ),
                f"{reason}:{priority}",
                "escalated with the right priority",
            ),
        ]
        if reason == "overbooked":
            nightly = nightly_of(bk, patch)
            golden.append(
                call(
                    "issue_travel_credit",
                    customer_id=c,
                    amount=nightly,
                    reason="walked_guest",
                    booking_id=bk,
                )
            )
            invariants.append(
                inv(
                    f"select amount from travel_credits where booking_id = '{bk}'",
                    nightly,
                    "one night credited",
                )
            )
        opening = {
            "overbooked": (
                "I'm at the front desk and the hotel says they have no room for me tonight!"
            ),
            "room_not_as_booked": "The room I booked is not what the hotel is giving me.",
            "billing_dispute": "The hotel charged my card for a minibar I never used.",
        }[reason]
        tasks.add(
            f,
            reason.replace("_", "-") + ("" if reason == "overbooked" else f"-{priority}"),
            customer=c,
            description=(
                f"{reason} on a stay starting {start} day(s) from today: escalate as {priority}"
                + (
                    f"; walked guest gets one night ({usd(nightly_of(bk, patch))}) as credit."
                    if reason == "overbooked"
                    else "."
                )
            ),
            opening=f"{opening} It's my {where(bk)}.",
            goal="Have the hotel fix the problem",
            reacts={"agree": "Yes, please escalate it.", "thanks": "Thank you."},
            golden=golden,
            patch=patch,
            invariants=invariants,
            text=[says("hotel_escalations", "detail", {"booking_id": bk}, _REPORTS[reason][1])],
            rubric=["Does the reply confirm a travel credit worth one night was issued? (yes/no)"]
            if reason == "overbooked"
            else None,
            reference=(
                f"I've escalated this to the hotel as urgent and issued a travel credit of "
                f"{usd(nightly_of(bk, patch))}, one night of your stay."
                if reason == "overbooked"
                else ""
            ),
        )
    bk = _HOTELS()
    c = owner(bk)
    patch = trip(bk, -80, status="completed")
    patch["bookings"][0]["end_date"] = day(-80 + int(STAYS[bk]["nights"])).isoformat()
    tasks.add(
        f,
        "stale-dispute",
        customer=c,
        description=(
            "Billing dispute about a stay that ended more than 60 days ago: refuse. No change."
        ),
        opening=f"The hotel overcharged me on my {where(bk)} a while ago.",
        goal="Have the hotel refund the overcharge",
        info={"when": "It was a couple of months ago, yes."},
        reacts={"accept": "Alright."},
        golden=ident(c, bk),
        patch=patch,
        invariants=[
            inv(
                f"select count(*) from hotel_escalations where booking_id = '{bk}'",
                0,
                "not escalated",
            )
        ],
        read_only=True,
        reply={"must_contain": [60]},
        rubric=[
            (
                "Does the reply explain that disputes about stays that ended "
                "over 60 days ago cannot be escalated? (yes/no)"
            )
        ],
        reference=(
            "I'm sorry, billing disputes for stays that ended more than 60 "
            "days ago can no longer be escalated to the hotel."
        ),
    )
    bk = _HOTELS()
    c = owner(bk)
    patch = trip(bk, -1)
    tasks.add(
        f,
        "safety",
        customer=c,
        description=(
            "Guest in-house reports a safety issue: urgent hotel escalation "
            "plus a safety ticket escalated."
        ),
        opening=(
            f"There's a gas smell in my room at my {where(bk)} and nobody "
            f"at the desk is doing anything."
        ),
        goal="Get the hotel to act on the safety problem",
        reacts={"agree": "Yes, please, urgently.", "thanks": "Thank you."},
        golden=[
            *ident(c, bk),
            call(
                "escalate_to_hotel",
                booking_id=bk,
                reason="safety",
                priority="urgent",
                detail="Gas smell in the room.",
            ),
            call(
                "create_ticket",
                customer_id=c,
                category="hotel",
                subject="Gas smell in room",
                priority="urgent",
                booking_id=bk,
            ),
            call("escalate_ticket", ticket_id="TKT-0501", reason="safety"),
        ],
        patch=patch,
        invariants=[
            inv(
                f"select priority from hotel_escalations where booking_id = '{bk}'",
                "urgent",
                "urgent escalation",
            ),
            inv(
                "select escalation_reason from tickets where id = 'TKT-0501'",
                "safety",
                "safety ticket",
            ),
        ],
        text=[
            says("hotel_escalations", "detail", {"booking_id": bk}, "gas"),
            says("tickets", "subject", {"customer_id": c}, "gas"),
        ],
    )
    bk = _HOTELS()
    c = owner(bk)
    patch = merge(trip(bk, 5), ticket("TKT-0301", c, bk, "hotel", "Suite downgraded by hotel"))
    tasks.add(
        f,
        "with-ticket",
        customer=c,
        description=(
            "Room not as booked, check-in in 5 days, open ticket: escalate "
            "(normal) and hold the ticket awaiting_hotel."
        ),
        opening=(
            "I have a ticket open because the hotel told me they're downgrading my room. Any news?"
        ),
        goal="Have the hotel honour the booked room",
        reacts={"agree": "Yes, please push the hotel."},
        golden=[
            *ident(c, bk),
            call("list_customer_tickets", customer_id=c),
            call(
                "escalate_to_hotel",
                booking_id=bk,
                reason="room_not_as_booked",
                priority="normal",
                detail="Hotel announced a downgrade.",
            ),
            call("hold_ticket", ticket_id="TKT-0301", reason="awaiting_hotel"),
        ],
        patch=patch,
        invariants=[
            inv(
                "select hold_reason from tickets where id = 'TKT-0301'",
                "awaiting_hotel",
                "ticket waits on the hotel",
            )
        ],
        text=[
            says(
                "hotel_escalations",
                "detail",
                {"booking_id": bk},
                ["downgrade", "downgraded", "downgrading"],
            )
        ],
    )


def build(tasks: TaskSet) -> None:
    """Add both hotel families."""
    requests(tasks)
    escalations(tasks)
