"""Booking families: flight and hotel cancellations, date changes, name corrections."""

from __future__ import annotations

from datetime import timedelta

from ._build import (
    BOOKINGS,
    CUSTOMERS,
    STAYS,
    Picker,
    TaskSet,
    call,
    cancellation_fee,
    change_fee,
    day,
    ident,
    inv,
    merge,
    nightly_of,
    owner,
    refunds_on,
    status_is,
    tier,
    total_of,
    trip,
    ts,
    usd,
    where,
)

_FLIGHTS = Picker("flight")
_HOTELS = Picker("hotel")


def _cancel(
    tasks: TaskSet,
    family: str,
    variant: str,
    bk: str,
    days: int,
    plan: str,
    level: str,
    *,
    accept: bool = True,
    schedule_change: int = 0,
    waive: str | None = None,
    rubric: bool = False,
) -> None:
    c = owner(bk)
    kind = str(BOOKINGS[bk]["kind"])
    patch = merge(trip(bk, days, plan=plan), tier(c, level))
    if schedule_change:
        seg = f"SEG-{bk[3:]}-1"
        patch = merge(
            patch, {"flight_segments": [{"id": seg, "schedule_change_minutes": schedule_change}]}
        )
    total = total_of(bk, patch)
    scheduled = cancellation_fee(
        kind, plan, days, total, nightly_of(bk, patch) if kind == "hotel" else 0.0
    )
    fee = 0.0 if waive else scheduled
    reason = "airline_schedule_change" if waive == "schedule" else "customer_request"
    start = day(days).isoformat()
    opening = f"I need to cancel my {where(bk)} starting {start}."
    reads = [*ident(c, bk), call("quote_booking_change", booking_id=bk)]
    refund = round(total - fee, 2)
    if accept:
        golden = [*reads, call("cancel_booking", booking_id=bk, reason=reason, fee=fee)]
        reacts = {
            "agree": "Yes, I understand the fee. Please cancel it.",
            "thanks": "Thank you, that's all.",
        }
        invariants = [
            status_is(bk, "cancelled"),
            inv(f"select cancel_fee from bookings where id = '{bk}'", fee, f"fee {usd(fee)} kept"),
            refunds_on(bk, 1 if refund > 0 else 0),
        ]
        reference = (
            f"Your booking is cancelled. The cancellation fee is {usd(fee)} and {usd(refund)} "
            "is refunded to your original payment."
        )
        questions = [
            f"Does the reply tell the customer that the cancellation fee is {usd(fee)}? (yes/no)",
            f"Does the reply say that {usd(refund)} will be refunded? (yes/no)",
        ]
    else:
        golden = reads
        reacts = {
            "confirm": False,
            "decline": "No, I won't pay that fee. Please leave the booking as it is.",
            "thanks": "Goodbye.",
        }
        invariants = [status_is(bk, "confirmed"), refunds_on(bk, 0)]
        reference = (
            f"Under your {plan.replace('_', ' ')} terms the cancellation fee would be {usd(fee)}, "
            "and no waiver applies. As you asked, I have left the booking unchanged."
        )
        questions = [
            f"Does the reply state that the cancellation fee would be {usd(fee)}? (yes/no)",
            "Does the reply confirm the booking was left unchanged? (yes/no)",
        ]
    tasks.add(
        family,
        variant,
        customer=c,
        description=(
            f"{kind} {plan}, {days} day(s) before start, {level}"
            + (f", airline schedule change {schedule_change} min" if schedule_change else "")
            + f": scheduled fee {usd(scheduled)}, applied {usd(fee)}"
            + ("" if accept else "; the customer declines the fee, so nothing changes")
            + "."
        ),
        opening=opening,
        goal="Cancel the booking" + (" at the lowest fee possible" if waive else ""),
        reacts=reacts,
        golden=golden,
        patch=patch,
        invariants=invariants,
        read_only=not accept,
        rubric=questions if rubric else None,
        reference=reference,
        reply={"must_contain": [fee, refund] if accept and refund > 0 else [fee]},
    )


def _started(tasks: TaskSet, family: str, bk: str, plan: str) -> None:
    c = owner(bk)
    patch = trip(bk, -1, plan=plan)
    tasks.add(
        family,
        "started",
        customer=c,
        description="The booking started yesterday: it cannot be cancelled. No change.",
        opening=f"Please cancel my {where(bk)}, I couldn't make it.",
        goal="Cancel the booking and get money back",
        reacts={"accept": "So nothing can be done? Okay. Bye."},
        golden=ident(c, bk),
        patch=patch,
        invariants=[status_is(bk, "confirmed"), refunds_on(bk, 0)],
        read_only=True,
        reply={"must_contain": [["started", "begun", "in progress", "already"]]},
        rubric=[
            (
                "Does the reply explain that a booking that has already started "
                "cannot be cancelled? (yes/no)"
            )
        ],
        reference="Your booking started yesterday, so it can no longer be cancelled or refunded.",
    )


def cancel_flight(tasks: TaskSet) -> None:
    """Flight cancellations across fare classes, day bands, waivers and declines."""
    f = "cancel-flight"
    for variant, plan, days, level, kw in (
        ("standard-early", "standard", 20, "silver", {}),
        ("standard-early", "standard", 14, "blue", {}),
        ("standard-mid", "standard", 13, "gold", {"rubric": True}),
        ("standard-mid", "standard", 3, "silver", {}),
        ("standard-late", "standard", 2, "blue", {}),
        ("flex", "flex", 10, "silver", {}),
        ("flex-today", "flex", 0, "gold", {}),
        ("basic-insists", "basic", 15, "silver", {}),
        ("basic-declines", "basic", 15, "gold", {"accept": False, "rubric": True}),
        ("schedule-change", "standard", 5, "blue", {"schedule_change": 150, "waive": "schedule"}),
        ("schedule-change", "basic", 9, "silver", {"schedule_change": 180, "waive": "schedule"}),
        ("minor-schedule-change", "standard", 5, "silver", {"schedule_change": 90}),
        ("platinum-waiver", "standard", 5, "platinum", {"waive": "platinum"}),
        ("platinum-basic-declines", "basic", 8, "platinum", {"accept": False, "rubric": True}),
        ("gold-no-waiver", "standard", 6, "gold", {"accept": False}),
    ):
        _cancel(tasks, f, variant, _FLIGHTS(), days, plan, level, **kw)
    _started(tasks, f, _FLIGHTS(), "flex")


def _duplicate(tasks: TaskSet, f: str, bk: str) -> None:
    c = owner(bk)
    dup = f"BK-{100000 + 200 + int(bk[3:]) - 100000}"
    src = BOOKINGS[bk]
    patch = merge(trip(bk, 12, plan="semi_flex"), tier(c, "silver"))
    booking = {
        **src,
        **patch["bookings"][0],
        "id": dup,
        "reference": "DUP" + str(src["reference"])[3:],
    }
    booking["created_at"] = ts(day(-1), 9)
    stay = {**STAYS[bk], "booking_id": dup}
    cust = CUSTOMERS[c]
    patch = merge(
        patch,
        {
            "bookings": [booking],
            "hotel_stays": [stay],
            "passengers": [
                {
                    "id": f"PAX-{dup[3:]}-1",
                    "booking_id": dup,
                    "first_name": cust["first_name"],
                    "last_name": cust["last_name"],
                    "name_corrections": 0,
                }
            ],
            "payments": [
                {
                    "id": f"PAY-{dup[3:]}",
                    "booking_id": dup,
                    "amount": booking["total"],
                    "method": "card",
                    "status": "captured",
                    "refunded_amount": 0.0,
                    "created_at": ts(day(-1), 9),
                }
            ],
        },
    )
    tasks.add(
        f,
        "duplicate",
        customer=c,
        description=(
            f"Two identical semi_flex stays ({bk}, {dup}) booked by mistake: cancel the later one "
            f"({dup}) without fee, reason duplicate_booking; keep {bk}."
        ),
        opening=f"I think I booked my {where(bk)} twice by mistake. Can you fix that?",
        goal="Keep one booking and get the duplicate refunded",
        reacts={"agree": "Yes, please cancel the extra one."},
        golden=[
            *ident(c, bk),
            call("get_booking", booking_id=dup),
            call("cancel_booking", booking_id=dup, reason="duplicate_booking", fee=0.0),
        ],
        patch=patch,
        invariants=[
            status_is(dup, "cancelled"),
            status_is(bk, "confirmed"),
            inv(
                f"select cancel_fee from bookings where id = '{dup}'",
                0.0,
                "no fee on the duplicate",
            ),
        ],
    )


def cancel_hotel(tasks: TaskSet) -> None:
    """Hotel cancellations across rate plans, day bands, waivers and declines."""
    f = "cancel-hotel"
    for variant, plan, days, level, kw in (
        ("flexible-free", "flexible", 5, "silver", {}),
        ("flexible-free", "flexible", 2, "blue", {}),
        ("flexible-late", "flexible", 1, "gold", {"rubric": True}),
        ("semi-flex-free", "semi_flex", 10, "blue", {}),
        ("semi-flex-free", "semi_flex", 7, "silver", {}),
        ("semi-flex-night", "semi_flex", 4, "gold", {}),
        ("semi-flex-late", "semi_flex", 1, "silver", {}),
        ("non-refundable-insists", "non_refundable", 20, "blue", {}),
        (
            "non-refundable-declines",
            "non_refundable",
            20,
            "gold",
            {"accept": False, "rubric": True},
        ),
        ("platinum-waiver", "semi_flex", 4, "platinum", {"waive": "platinum"}),
        ("platinum-non-refundable", "non_refundable", 9, "platinum", {"accept": False}),
    ):
        _cancel(tasks, f, variant, _HOTELS(), days, plan, level, **kw)
    _duplicate(tasks, f, _HOTELS())
    _started(tasks, f, _HOTELS(), "flexible")


def change_dates(tasks: TaskSet) -> None:
    """Date changes: allowed with the right fee, or refused by fare / rate plan."""
    f = "change-dates"
    for pick, plan, days, level, shift in (
        (_FLIGHTS, "standard", 20, "silver", 7),
        (_FLIGHTS, "flex", 10, "blue", 3),
        (_FLIGHTS, "basic", 12, "gold", 2),
        (_FLIGHTS, "standard", 9, "platinum", -4),
        (_FLIGHTS, "standard", 4, "gold", 10),
        (_HOTELS, "flexible", 10, "silver", 5),
        (_HOTELS, "flexible", 1, "gold", 7),
        (_HOTELS, "semi_flex", 10, "blue", 14),
        (_HOTELS, "semi_flex", 5, "silver", 3),
        (_HOTELS, "non_refundable", 15, "blue", 2),
        (_HOTELS, "semi_flex", 12, "platinum", 6),
    ):
        bk = pick()
        c = owner(bk)
        kind = str(BOOKINGS[bk]["kind"])
        patch = merge(trip(bk, days, plan=plan), tier(c, level))
        new = (day(days) + timedelta(days=shift)).isoformat()
        scheduled = change_fee(kind, plan, days)
        allowed = scheduled is not None
        fee = 0.0 if level == "platinum" else (scheduled or 0.0)
        reads = [*ident(c, bk), call("quote_booking_change", booking_id=bk)]
        variant = f"{plan.replace('_', '-')}-{'ok' if allowed else 'refused'}"
        if level == "platinum" and allowed:
            variant = "platinum"
        start = day(days).isoformat()
        reacts = {} if allowed else {"accept": "I see. Then leave it as it is. Thanks."}
        if allowed:
            tasks.add(
                f,
                variant,
                customer=c,
                description=(
                    f"{kind} {plan}, {days} days out, {level}: move to {new} for {usd(fee)}."
                ),
                opening=f"I need to move my {where(bk)} that starts on {start} to another date.",
                goal="Move the booking to the new date",
                facts={"new_date": new},
                golden=[
                    *reads,
                    call("change_booking_dates", booking_id=bk, new_start_date=new, fee=fee),
                ],
                patch=patch,
                invariants=[
                    inv(f"select start_date from bookings where id = '{bk}'", new, "moved"),
                    inv(
                        f"select fee from booking_changes where booking_id = '{bk}'",
                        fee,
                        f"change fee {usd(fee)}",
                    ),
                ],
            )
        else:
            tasks.add(
                f,
                variant,
                customer=c,
                description=f"{kind} {plan}, {days} days out: not changeable. No change.",
                opening=f"I need to move my {where(bk)} that starts on {start} to another date.",
                goal="Move the booking to the new date",
                info={"new_date": new},
                reacts=reacts,
                golden=reads,
                patch=patch,
                invariants=[
                    inv(f"select start_date from bookings where id = '{bk}'", start, "kept")
                ],
                read_only=True,
                reply={"must_contain": [_NOT_CHANGEABLE[plan]]},
                rubric=[
                    "Does the reply say that this booking's dates cannot be changed? (yes/no)",
                    "Does the reply avoid offering to cancel and rebook as a workaround? (yes/no)",
                ],
                reference=(
                    f"I'm sorry: under the {plan.replace('_', ' ')} terms this booking cannot be "
                    "moved to another date, so I have left it unchanged."
                ),
            )


# Why a booking's dates cannot move (policy §4.1): any one of these says it.
_NOT_CHANGEABLE: dict[str, list[object]] = {
    "basic": ["basic"],
    "flexible": [2, "two", "48 hours", "flexible"],
    "semi_flex": [7, "seven", "semi-flex", "semi flex"],
    "non_refundable": ["non-refundable", "non refundable", "nonrefundable"],
}


def _distance(a: str, b: str) -> int:
    """Levenshtein distance (policy §5.1 counts characters added, removed or replaced)."""
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def name_correction(tasks: TaskSet) -> None:
    """Name corrections by booking reference: typos fixed, transfers and repeats refused."""
    f = "name-correction"
    for pick, booked_first, new_first, new_last, corrections, ok in (
        (_FLIGHTS, "drop", None, None, 0, True),
        (_FLIGHTS, "swap", None, None, 0, True),
        (_FLIGHTS, "drop", None, None, 1, False),
        (_FLIGHTS, "same", "Marguerite", "Okonkwo-Baines", 0, False),
        (_FLIGHTS, "double", None, None, 0, True),
        (_HOTELS, "same", "Theodora", "Quillfeather", 0, True),
        (_HOTELS, "drop", None, None, 0, True),
        (_FLIGHTS, "same", "Rupert", None, 0, False),
    ):
        bk = pick()
        c = owner(bk)
        cust = CUSTOMERS[c]
        kind = str(BOOKINGS[bk]["kind"])
        first, last = str(cust["first_name"]), str(cust["last_name"])
        wrong = {
            "drop": first[:-1],
            "swap": first[0] + first[2] + first[1] + first[3:],
            "double": first + first[-1],
            "same": first,
        }[booked_first]
        target_first = new_first or first
        target_last = new_last or last
        dist = _distance(f"{wrong} {last}", f"{target_first} {target_last}")
        assert ok == (kind == "hotel" or (dist <= 3 and corrections == 0)), (bk, dist)
        pax = f"PAX-{bk[3:]}-1"
        patch = merge(
            trip(bk, 18),
            {"passengers": [{"id": pax, "first_name": wrong, "name_corrections": corrections}]},
        )
        ref = str(BOOKINGS[bk]["reference"])
        target = f"{target_first} {target_last}"
        reacts = {"agree": "Yes, please."} if ok else {"accept": "Oh well, I understand. Thanks."}
        reads = [
            call("validate_booking_reference", reference=ref, last_name=last),
            call("get_booking", booking_id=bk),
        ]
        kind_text = "transfer" if dist > 3 else "repeat" if corrections else "typo"
        variant = f"{kind}-{kind_text if kind == 'flight' else 'guest'}"
        if ok:
            tasks.add(
                f,
                variant,
                customer=c,
                description=(
                    f"{kind}: booked as {wrong} {last}, correct to {target} "
                    f"({dist} character(s)); allowed."
                ),
                opening="There's a mistake in the traveller's name on my booking. Can you fix it?",
                goal=f"Have the name read {target}",
                facts={"reference": ref, "last_name": last, "correct_name": target},
                reacts=reacts,
                golden=[
                    *reads,
                    call(
                        "update_passenger_name",
                        passenger_id=pax,
                        first_name=target_first,
                        last_name=target_last,
                    ),
                ],
                patch=patch,
                invariants=[
                    inv(
                        f"select first_name || ' ' || last_name from passengers where id = '{pax}'",
                        target,
                        "name corrected",
                    )
                ],
            )
        else:
            tasks.add(
                f,
                variant,
                customer=c,
                description=(
                    f"flight: booked as {wrong} {last}, asked {target} ({dist} character(s), "
                    f"{corrections} earlier correction(s)): refused. No change."
                ),
                opening="There's a mistake in the traveller's name on my booking. Can you fix it?",
                goal=f"Have the name read {target}",
                facts={"reference": ref, "last_name": last, "correct_name": target},
                reacts=reacts,
                golden=reads,
                patch=patch,
                invariants=[
                    inv(f"select first_name from passengers where id = '{pax}'", wrong, "unchanged")
                ],
                read_only=True,
                reply={
                    "must_contain": [
                        ["already", "once", "again"]
                        if corrections
                        else ["transfer", "another person", "different person", "3 characters"]
                    ]
                },
                rubric=["Does the reply explain why the name cannot be changed? (yes/no)"],
                reference=(
                    "I'm sorry, I can't make that change: "
                    + (
                        "this traveller's name was already corrected once."
                        if corrections
                        else "it would transfer the ticket to another person, which is not allowed."
                    )
                ),
            )


def build(tasks: TaskSet) -> None:
    """Add every booking family."""
    cancel_flight(tasks)
    cancel_hotel(tasks)
    change_dates(tasks)
    name_correction(tasks)
