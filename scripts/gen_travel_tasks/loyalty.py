"""Loyalty: missing-credit claims by tier and age, tier upgrades at the thresholds."""

from __future__ import annotations

import math

from ._build import (
    CREDITED,
    MULTIPLIER,
    SEED,
    Patch,
    Picker,
    TaskSet,
    call,
    day,
    ident,
    inv,
    merge,
    owner,
    tier,
    total_of,
    trip,
    ts,
    where,
)

_HOTELS = Picker("hotel", skip=17)
_FLIGHTS = Picker("flight", skip=17)
_LTX = {str(r["booking_id"]): str(r["id"]) for r in SEED["loyalty_transactions"]}
# A refused claim (policy §9.2): what the reply must carry, and the reference reply.
_REFUSED = {
    "credited": (
        ["already"],
        "That booking was already credited with its points, so there is nothing to add.",
    ),
    "too-old": (
        90,
        "Missing points can only be claimed within 90 days after the trip ends, so I can't "
        "add them.",
    ),
}


def _completed(bk: str, ended: int) -> Patch:
    patch = trip(bk, ended - 2, status="completed")
    patch["bookings"][0]["end_date"] = day(ended).isoformat()
    return patch


def build(tasks: TaskSet) -> None:
    """Add the loyalty family."""
    f = "loyalty"
    for pick, level, ended, state in (
        (_HOTELS, "blue", -20, "ok"),
        (_FLIGHTS, "silver", -30, "ok"),
        (_HOTELS, "gold", -89, "ok"),
        (_FLIGHTS, "platinum", -5, "ok"),
        (_HOTELS, "silver", -15, "credited"),
        (_FLIGHTS, "gold", -120, "too-old"),
        (_HOTELS, "blue", -92, "too-old"),
    ):
        bk = pick()
        c = owner(bk)
        patch = merge(_completed(bk, ended), tier(c, level))
        delete: Patch = {}
        if state == "credited":
            patch = merge(
                patch,
                {
                    "loyalty_transactions": [
                        {
                            "id": "LTX-0900",
                            "customer_id": c,
                            "booking_id": bk,
                            "points": 300,
                            "kind": "earned",
                            "created_at": ts(day(ended + 1)),
                        }
                    ]
                },
            )
        if bk in CREDITED:
            delete = {"loyalty_transactions": [{"id": _LTX[bk]}]}
        points = math.floor(math.floor(total_of(bk, patch)) * MULTIPLIER[level])
        reads = [*ident(c, bk), call("get_loyalty_account", customer_id=c)]
        ok = state == "ok"
        tasks.add(
            f,
            f"missing-credit-{level}" if ok else state,
            customer=c,
            description=(
                f"{level} member, stay/flight ended {-ended} days ago, "
                + (f"not credited: {points} points." if ok else f"{state}: refuse. No change.")
            ),
            opening=f"I never got my loyalty points for my {where(bk)}.",
            goal="Get the missing points credited",
            reacts={"agree": "Yes, that's the one."}
            if ok
            else {"accept": "Oh. Okay then. Thanks."},
            golden=[
                *reads,
                call(
                    "add_loyalty_points",
                    customer_id=c,
                    points=points,
                    kind="missing_credit",
                    booking_id=bk,
                ),
            ]
            if ok
            else reads,
            patch=patch,
            delete=delete or None,
            invariants=[
                inv(
                    (
                        f"select count(*) from loyalty_transactions where booking_id = "
                        f"'{bk}' and kind = 'missing_credit'"
                    ),
                    1 if ok else 0,
                    "missing credit posted" if ok else "no credit",
                )
            ]
            + (
                [
                    inv(
                        (
                            f"select points from loyalty_transactions where booking_id = '{bk}' "
                            f"and kind = 'missing_credit'"
                        ),
                        points,
                        f"{points} points",
                    )
                ]
                if ok
                else []
            ),
            read_only=not ok,
            rubric=[f"Does the reply state that {points} points were added? (yes/no)"]
            if ok and level == "gold"
            else (
                ["Does the reply explain why the points cannot be credited? (yes/no)"]
                if state == "too-old" and level == "gold"
                else None
            ),
            reference=(
                f"I've added {points} points for that stay."
                if ok and level == "gold"
                else _REFUSED.get(state, ("", ""))[1]
            ),
            reply=None if ok else {"must_contain": [_REFUSED[state][0]]},
        )
    for level, nights, new in (
        ("silver", 27, "gold"),
        ("blue", 12, "silver"),
        ("gold", 52, "platinum"),
        ("gold", 40, None),
    ):
        bk = _HOTELS()
        c = owner(bk)
        patch = tier(c, level, nights)
        reads = [*ident(c), call("get_loyalty_account", customer_id=c)]
        tasks.add(
            f,
            f"upgrade-{new}" if new else "upgrade-not-reached",
            customer=c,
            description=(
                f"{level} with {nights} qualifying nights asks for an upgrade: "
                + (f"update to {new}." if new else "Platinum needs 50: refuse. No change.")
            ),
            opening="I think I've stayed enough nights this year for a higher loyalty tier.",
            goal="Get the higher tier",
            reacts={"thanks": "Great, thanks! Bye."}
            if new
            else {"accept": "Ah, I'll keep travelling then. Bye."},
            golden=[*reads, call("update_loyalty_tier", customer_id=c, tier=new)] if new else reads,
            patch=patch,
            invariants=[
                inv(
                    f"select tier from loyalty_accounts where customer_id = '{c}'",
                    new or level,
                    "tier",
                )
            ],
            read_only=new is None,
            rubric=["Does the reply say how many qualifying nights Platinum requires? (yes/no)"]
            if new is None
            else None,
            reference=(
                "Platinum requires 50 qualifying nights; you have 40, so your tier stays Gold."
            )
            if new is None
            else "",
            reply={"must_contain": [50]} if new is None else None,
        )
