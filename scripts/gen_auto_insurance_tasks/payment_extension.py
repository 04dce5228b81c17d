"""Payment extension tasks: grace period, 14-day limit, prior extensions, hardship escalation."""

from __future__ import annotations

from datetime import date, timedelta

from ._build import (
    SEED,
    TaskSet,
    call,
    cancellation,
    customer_of,
    day,
    fee,
    fmt,
    inv,
    merge,
    next_unpaid,
    past_due,
    pick,
    plan_of,
    verify,
)


def _extended(policy_id: str) -> bool:
    return any(e["policy_id"] == policy_id for e in SEED["payment_extensions"])


def _eligible(p: dict[str, object]) -> bool:
    pid = str(p["id"])
    return plan_of(pid)["plan"] in ("monthly", "quarterly") and not _extended(pid)


def _billing(policy: str) -> list[dict[str, object]]:
    return [verify(policy), call("get_billing", policy_id=policy)]


def _due(inst: str, due: str) -> dict[str, object]:
    return inv(f"select due_date from installments where id = '{inst}'", due, "due date")


def _no_extension(policy: str, inst: str, due: str) -> list[dict[str, object]]:
    return [
        _due(inst, due),
        inv(
            f"select count(*) from payment_extensions where policy_id = '{policy}' "
            "and created_at >= '2025-11-03'",
            0,
            "no extension granted",
        ),
    ]


def build(tasks: TaskSet) -> None:
    """Add grants, limits, refusals and the hardship escalation."""
    f = "payment-extension"
    ok = pick(_eligible, 10)
    # Within grace, the customer's date within 14 days of the original due date: grant it.
    for policy, days_late, extra in ((ok[0], 3, 10), (ok[1], 6, 12), (ok[2], 0, 7), (ok[3], 5, 14)):
        patch, delete, inst = past_due(policy, days_late)
        due = day(-days_late)
        new = fmt(due + timedelta(days=extra))
        tasks.add(
            f,
            "grant" if extra < 14 else "grant-at-limit",
            policy=policy,
            description=f"Installment {days_late} days past due (within grace), no extension "
            f"this year; the customer can pay {extra} days after the due date: grant.",
            opening="I can't make my car insurance payment right now. Can I get more time?",
            goal="Move the payment date",
            facts={"pay_date": {"value": new, "say": "I get paid on {value}, I can pay then."}},
            reacts={"thanks": "Great, thank you."},
            patch=patch,
            delete=delete,
            golden=[
                *_billing(policy),
                call("grant_payment_extension", installment_id=inst, new_due_date=new),
            ],
            invariants=[_due(inst, new)],
        )
    # Not yet due: the next installment moves, within 14 days.
    for policy, extra in ((ok[4], 9), (ok[5], 13)):
        upcoming = next_unpaid(policy)
        new = fmt(date.fromisoformat(upcoming["due_date"]) + timedelta(days=extra))
        tasks.add(
            f,
            "upcoming",
            policy=policy,
            description="The next installment is not yet due; the customer's date is within 14 "
            "days of it: grant.",
            opening="My next car insurance payment is coming up and I'd like to push it "
            "back a bit.",
            goal="Move the next payment date",
            facts={"pay_date": {"value": new, "say": "Could it be {value} instead?"}},
            reacts={"thanks": "Perfect."},
            golden=[
                *_billing(policy),
                call("grant_payment_extension", installment_id=upcoming["id"], new_due_date=new),
            ],
            invariants=[_due(upcoming["id"], new)],
        )
    # Over the limit: offer the latest date; granted only if accepted.
    for policy, accepts in ((ok[6], True), (ok[7], False)):
        patch, delete, inst = past_due(policy, 4)
        due = day(-4)
        wanted, latest = fmt(due + timedelta(days=21)), fmt(due + timedelta(days=14))
        golden = _billing(policy)
        if accepts:
            golden.append(call("grant_payment_extension", installment_id=inst, new_due_date=latest))
        tasks.add(
            f,
            "over-limit-accepts" if accepts else "over-limit-declines",
            policy=policy,
            description="The customer's date is 21 days after the due date (limit 14): offer "
            + (
                "the latest date; the customer accepts it."
                if accepts
                else "the latest date; the customer declines, so no extension."
            ),
            opening="I need an extension on my auto payment, please.",
            goal="Pay later",
            facts={"pay_date": wanted},
            reacts={"alternative": True, "agree": "Okay, that latest date works for me."}
            if accepts
            else {
                "alternative": False,
                "confirm": False,
                "decline": "No, that's too early for me, I can't do it. Never mind then.",
                "accept": "Never mind then.",
            },
            patch=patch,
            delete=delete,
            golden=golden,
            invariants=[_due(inst, latest if accepts else fmt(due))],
            refusal=not accepts,
            rubric=None
            if accepts
            else [f"Does the agent offer {latest} as the latest possible date? (yes/no)"],
            reference_response=""
            if accepts
            else f"The latest I can move it to is {latest}, "
            "14 days after the due date. Since that doesn't work for you, I haven't made a change.",
        )
    # Hardship beyond the limit: escalate to billing.
    for policy, why in ((ok[8], "I lost my job last week"), (ok[9], "my son was in the hospital")):
        patch, delete, inst = past_due(policy, 2)
        due = day(-2)
        wanted = fmt(due + timedelta(days=30))
        cid = customer_of(policy)["id"]
        tasks.add(
            f,
            "hardship",
            policy=policy,
            description="Hardship and a date 30 days out: no extension; a billing ticket "
            "escalated to billing (extension_over_limit).",
            opening="I'm going through a rough time and need to delay my insurance payment.",
            goal="Get a longer extension",
            facts={
                "pay_date": {"value": wanted, "say": "I can't pay before {value}."},
                "hardship": why,
            },
            reacts={"thanks": "Thank you.", "accept": "Thank you."},
            patch=patch,
            delete=delete,
            golden=[
                *_billing(policy),
                call("list_customer_tickets", customer_id=cid),
                call(
                    "create_ticket",
                    customer_id=cid,
                    category="billing",
                    subject=f"{policy}: hardship payment extension beyond 14 days",
                    policy_id=policy,
                ),
                call(
                    "escalate_ticket",
                    ticket_id="TCK-0501",
                    team="billing",
                    reason="extension_over_limit",
                ),
            ],
            invariants=[
                *_no_extension(policy, inst, fmt(due)),
                inv(
                    "select team || ':' || escalation_reason from tickets where id = 'TCK-0501'",
                    "billing:extension_over_limit",
                    "escalated to billing",
                ),
            ],
            tags=["escalation"],
        )
    # Past the grace period: refuse.
    for k, (policy, days_late) in enumerate(((ok[0], 12), (ok[3], 16))):
        patch, delete, inst = past_due(policy, days_late)
        patch = merge(patch, fee(policy, f"FEE-0040{k + 1}", inst, day(-days_late + 11)))
        due = day(-days_late)
        tasks.add(
            f,
            "past-grace",
            policy=policy,
            description=f"Installment {days_late} days past due: the grace period is over; no "
            "extension.",
            opening="Can I get an extension on my car insurance bill?",
            goal="Pay later",
            info={"pay_date": fmt(due + timedelta(days=14))},
            reacts={"accept": "Oh. Okay."},
            patch=patch,
            delete=delete,
            golden=_billing(policy),
            invariants=_no_extension(policy, inst, fmt(due)),
            refusal=True,
            rubric=["Does the agent say the grace period has already passed? (yes/no)"],
            reference_response="I'm sorry, your installment is past its 10-day grace period, so I "
            "can't extend it. I can take a payment now if you like.",
        )
    # An extension already this year: refuse.
    prior = pick(lambda p: plan_of(p["id"])["plan"] != "pay_in_full" and _extended(p["id"]), 2)
    for policy in prior:
        patch, delete, inst = past_due(policy, 3)
        due = day(-3)
        tasks.add(
            f,
            "prior-extension",
            policy=policy,
            description="An extension was granted within the last 365 days: refuse.",
            opening="I'd like a few more days to pay my auto insurance.",
            goal="Pay later",
            info={"pay_date": fmt(due + timedelta(days=8))},
            reacts={"accept": "I see."},
            patch=patch,
            delete=delete,
            golden=_billing(policy),
            invariants=_no_extension(policy, inst, fmt(due)),
            refusal=True,
        )
    # A scheduled cancellation: refuse.
    policy = ok[2]
    patch, delete, inst = past_due(policy, 4)
    patch = merge(patch, cancellation(policy, "CAN-00401", day(20), "customer_request", day(-5)))
    tasks.add(
        f,
        "pending-cancellation",
        policy=policy,
        description="The policy has a scheduled cancellation: no extension.",
        opening="Can I get a payment extension on my policy?",
        goal="Pay later",
        info={"pay_date": fmt(day(5))},
        reacts={"accept": "Alright."},
        patch=patch,
        delete=delete,
        golden=_billing(policy),
        invariants=_no_extension(policy, inst, fmt(day(-4))),
        refusal=True,
    )
