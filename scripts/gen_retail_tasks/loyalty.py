"""Loyalty tasks: points redemption and tier changes by 12-month spend."""

from __future__ import annotations

from typing import Any

from ._build import (
    BY_ID,
    SEED,
    TaskSet,
    call,
    day,
    inv,
    name,
    tier,
)


def spend(customer_id: str) -> float:
    """Spend on delivered orders placed in the 365 days up to the clock (as the tool computes)."""
    since = day(365).isoformat()
    return round(
        sum(
            float(o["total"])
            for o in SEED["orders"]
            if o["customer_id"] == customer_id
            and o["status"] == "delivered"
            and o["placed_at"][:10] >= since
        ),
        2,
    )


def build(tasks: TaskSet) -> None:
    """Add points redemption and tier changes by 12-month spend."""
    f = "loyalty"
    for c, points, ask in (
        ("CUS-0027", 1200, "Please turn 1,200 of my points into store credit."),
        ("CUS-0022", None, "I'd like to cash in all my loyalty points for store credit."),
    ):
        balance = BY_ID["memberships"][c]["points_balance"]
        redeem = points if points is not None else balance - balance % 100
        assert (redeem >= 500 and balance % 100 != 0) or points is not None
        tasks.add(
            f,
            "redeem",
            customer=c,
            description=(
                f"Balance {balance}: redeem {redeem} points (multiples of 100) into "
                f"${redeem / 100:.2f} credit."
            ),
            opening=ask,
            goal="Convert points to store credit",
            facts={"name": name(c)},
            golden=[
                call("find_customer_by_email", email=BY_ID["customers"][c]["email"]),
                call("get_customer_profile", customer_id=c),
                call("redeem_points", customer_id=c, points=redeem),
            ],
            invariants=[
                inv(
                    f"select points_balance from memberships where customer_id = '{c}'",
                    balance - redeem,
                    "points deducted",
                )
            ],
        )
    c = "CUS-0033"
    assert BY_ID["memberships"][c]["points_balance"] < 500
    tasks.add(
        f,
        "redeem",
        customer=c,
        description="Balance under 500 points: redemption refused. No change.",
        opening="Can I use my loyalty points as store credit?",
        goal="Convert points to store credit",
        reacts={"accept": "Oh, only that many? Okay. Bye."},
        facts={"name": name(c)},
        golden=[
            call("find_customer_by_email", email=BY_ID["customers"][c]["email"]),
            call("get_customer_profile", customer_id=c),
        ],
        read_only=True,
        reply={"must_contain": [500]},
        reference="Points can be redeemed from 500 points on, and your balance is below that, so "
        "I can't convert them yet.",
    )
    # tier upgrades: (customer, tier to start from, expected new tier or None)
    for c, start in (("CUS-0020", "basic"), ("CUS-0018", "basic"), ("CUS-0031", "basic")):
        amount = spend(c)
        target = "premium" if amount >= 1500 else "plus" if amount >= 500 else None
        common: dict[str, Any] = {
            "customer": c,
            "opening": "I've been shopping with you a lot. Can I get upgraded to a better tier?",
            "goal": "Get a membership upgrade",
            "facts": {"name": name(c)},
            "patch": tier(c, start),
            "tags": ["threshold"],
        }
        reads = [
            call("find_customer_by_email", email=BY_ID["customers"][c]["email"]),
            call("get_customer_profile", customer_id=c),
        ]
        if target is None:
            tasks.add(
                f,
                "upgrade",
                description=f"12-month spend {amount} < 500: no upgrade.",
                reacts={"accept": "I was so close! Okay. Bye."},
                golden=reads,
                read_only=True,
                reply={"must_contain": [500]},
                reference=f"Your spend over the last 12 months is ${amount:.2f}; the Plus tier "
                "needs $500, so your tier stays as it is.",
                **common,
            )
            continue
        tasks.add(
            f,
            "upgrade",
            description=f"12-month spend {amount}: upgrade straight to {target}.",
            reacts={"agree": "Yes, please upgrade me."},
            golden=[
                *reads,
                call(
                    "update_membership_tier", customer_id=c, tier=target, reason="spend_threshold"
                ),
            ],
            invariants=[
                inv(
                    f"select tier from memberships where customer_id = '{c}'",
                    target,
                    f"upgraded to {target}",
                )
            ],
            **common,
        )
    c = "CUS-0035"
    tasks.add(
        f,
        "downgrade",
        customer=c,
        description="Premium member asks to move down to Plus: allowed on request.",
        opening="I'd like to switch my membership from Premium down to Plus.",
        goal="Move to the Plus tier",
        reacts={"agree": "Yes, Plus please."},
        facts={"name": name(c)},
        patch=tier(c, "premium"),
        golden=[
            call("find_customer_by_email", email=BY_ID["customers"][c]["email"]),
            call("get_customer_profile", customer_id=c),
            call("update_membership_tier", customer_id=c, tier="plus", reason="customer_request"),
        ],
    )
