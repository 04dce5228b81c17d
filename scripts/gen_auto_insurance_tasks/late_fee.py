"""Late fee tasks: first-time and loyalty courtesy waivers, billing errors, refusals, disputes."""

from __future__ import annotations

from datetime import timedelta

from ._build import (
    SEED,
    TODAY,
    TaskSet,
    call,
    customer_of,
    day,
    fee,
    inv,
    late_paid,
    merge,
    pick,
    plan_of,
    verify,
)

_FEE = "FEE-00401"


def _waived_within_year(policy_id: str) -> int:
    cutoff = (TODAY - timedelta(days=365)).isoformat()
    return sum(
        1
        for f in SEED["fees"]
        if f["policy_id"] == policy_id and f["status"] == "waived" and f["created_at"] >= cutoff
    )


def _loyal(policy_id: str) -> bool:
    since = str(customer_of(policy_id)["customer_since"])
    return since <= (TODAY - timedelta(days=5 * 365 + 1)).isoformat()


def _installments(p: dict[str, object]) -> bool:
    return plan_of(str(p["id"]))["plan"] in ("monthly", "quarterly")


def _status(status: str) -> dict[str, object]:
    return inv(f"select status from fees where id = '{_FEE}'", status, "fee status")


def build(tasks: TaskSet) -> None:
    """Add waivers and refusals by waiver history, tenure and payment date."""
    f = "late-fee"
    opening = "I was charged a late fee on my car insurance. Can you take it off?"

    def base(policy: str, paid_after: int) -> tuple[dict[str, list[dict[str, object]]], str]:
        patch, inst = late_paid(policy, 20, paid_after)
        return merge(patch, fee(policy, _FEE, inst, day(-20 + 11))), inst

    def reads(policy: str) -> list[dict[str, object]]:
        return [verify(policy), call("get_billing", policy_id=policy)]

    first = pick(lambda p: _installments(p) and _waived_within_year(p["id"]) == 0, 3)
    for policy in first:
        patch, _ = base(policy, 13)
        tasks.add(
            f,
            "first-time",
            policy=policy,
            description="Late fee; no waiver on the policy in the last 365 days: waive "
            "(first_time_courtesy).",
            opening=opening,
            goal="Get the late fee removed",
            info={"which": "Yes, that's the one."},
            reacts={"thanks": "Thanks!"},
            patch=patch,
            golden=[*reads(policy), call("waive_fee", fee_id=_FEE, reason="first_time_courtesy")],
            invariants=[_status("waived")],
        )
    loyal = pick(
        lambda p: _installments(p) and _waived_within_year(p["id"]) == 1 and _loyal(p["id"]), 2
    )
    for policy in loyal:
        patch, _ = base(policy, 14)
        tasks.add(
            f,
            "loyalty",
            policy=policy,
            description="Late fee; one waiver this year, customer for 5+ years: waive "
            "(loyalty_courtesy).",
            opening=opening,
            goal="Get the late fee removed",
            info={"loyalty": "I've been with you for years."},
            reacts={"thanks": "Thank you."},
            patch=patch,
            golden=[*reads(policy), call("waive_fee", fee_id=_FEE, reason="loyalty_courtesy")],
            invariants=[_status("waived")],
        )
    recent = pick(
        lambda p: _installments(p) and _waived_within_year(p["id"]) == 1 and not _loyal(p["id"]), 2
    )
    for policy in recent:
        patch, _ = base(policy, 15)
        tasks.add(
            f,
            "refused",
            policy=policy,
            description="Late fee; a waiver this year and under 5 years with us: refuse.",
            opening=opening,
            goal="Get the late fee removed",
            reacts={"accept": "That's not fair, but okay."},
            patch=patch,
            golden=reads(policy),
            invariants=[_status("charged")],
            refusal=True,
            rubric=[
                "Does the agent explain that a late fee was already waived in the last year? "
                "(yes/no)"
            ],
            reference_response="I'm sorry, a late fee on this policy was already waived within "
            "the last 12 months, so I can't waive this one.",
        )
    policy = loyal[0]
    patch, _ = base(policy, 13)
    patch = merge(
        patch, fee(policy, "FEE-00402", None, day(-40), "waived", waive_reason="loyalty_courtesy")
    )
    tasks.add(
        f,
        "loyalty-spent",
        policy=policy,
        description="Customer for 5+ years but already two waivers this year: refuse.",
        opening=opening,
        goal="Get the late fee removed",
        reacts={"accept": "Even after all these years? Fine."},
        patch=patch,
        golden=reads(policy),
        invariants=[_status("charged")],
        refusal=True,
    )
    for policy in recent[:1] + loyal[1:]:
        patch, _ = base(policy, 8)
        tasks.add(
            f,
            "billing-error",
            policy=policy,
            description="The installment was paid 8 days after its due date (within grace) yet a "
            "late fee was charged: waive as billing_error, whatever the history.",
            opening="You charged me a late fee but I paid on time!",
            goal="Get the wrong late fee removed",
            info={"which": "Check the payment date, it was within the grace period."},
            patch=patch,
            golden=[*reads(policy), call("waive_fee", fee_id=_FEE, reason="billing_error")],
            invariants=[
                inv(
                    f"select status || ':' || waive_reason from fees where id = '{_FEE}'",
                    "waived:billing_error",
                    "waived as a billing error",
                )
            ],
        )
    old = recent[1]
    patch, _ = base(old, 12)
    seed_fee = next(x for x in SEED["fees"] if x["policy_id"] == old and x["status"] == "waived")
    patch = merge(
        patch,
        {"fees": [{"id": seed_fee["id"], "created_at": f"{day(-400).isoformat()}T10:00:00+00:00"}]},
    )
    tasks.add(
        f,
        "old-waiver",
        policy=old,
        description="The only previous waiver is 400 days old (outside 365 days): waive "
        "(first_time_courtesy).",
        opening=opening,
        goal="Get the late fee removed",
        reacts={"thanks": "Great, thanks."},
        patch=patch,
        golden=[*reads(old), call("waive_fee", fee_id=_FEE, reason="first_time_courtesy")],
        invariants=[_status("waived")],
    )
    for policy in first[:2]:
        patch, inst = late_paid(policy, 20, 2)
        patch = merge(patch, fee(policy, _FEE, inst, day(-15), kind="returned_payment_fee"))
        cid = customer_of(policy)["id"]
        tasks.add(
            f,
            "returned-payment-dispute",
            policy=policy,
            description="A returned-payment fee the customer disputes: never waived by the agent; "
            "billing ticket escalated to billing (fee_dispute).",
            opening="There's a $25 returned payment fee on my account and I don't think "
            "it's right.",
            goal="Get the returned payment fee removed",
            info={"which": "My bank says the payment went through. Please have someone look."},
            reacts={"thanks": "Thank you.", "accept": "Thank you."},
            patch=patch,
            golden=[
                *reads(policy),
                call("list_customer_tickets", customer_id=cid),
                call(
                    "create_ticket",
                    customer_id=cid,
                    category="billing",
                    subject=f"{policy}: disputed returned payment fee",
                    policy_id=policy,
                ),
                call("escalate_ticket", ticket_id="TCK-0501", team="billing", reason="fee_dispute"),
            ],
            invariants=[
                _status("charged"),
                inv(
                    "select team || ':' || escalation_reason from tickets where id = 'TCK-0501'",
                    "billing:fee_dispute",
                    "escalated to billing",
                ),
            ],
            tags=["escalation"],
        )
