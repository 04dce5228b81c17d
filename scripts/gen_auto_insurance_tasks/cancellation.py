"""Cancellation tasks: effective dates (backdating), reasons, open claims, rescinding."""

from __future__ import annotations

from ._build import (
    TaskSet,
    call,
    cancellation,
    customer_of,
    day,
    fmt,
    ident,
    inv,
    open_claims,
    pick,
    vehicles_of,
)


def _scheduled(policy: str, effective: str, reason: str) -> dict[str, object]:
    return inv(
        f"select effective_date || ':' || reason from cancellations where policy_id = '{policy}' "
        "and status = 'scheduled'",
        f"{effective}:{reason}",
        "cancellation date and reason",
    )


def build(tasks: TaskSet) -> None:
    """Add cancellations whose date and reason turn on what the customer says, and refusals."""
    f = "cancellation"
    # Single-vehicle policies, so "sold my only car" is true wherever it is said.
    pols = pick(
        lambda p: (
            not open_claims(p["id"])
            and len(vehicles_of(p["id"])) == 1
            and str(p["term_end"]) > fmt(day(40))
            and str(p["term_start"]) <= fmt(day(-30))
        ),
        12,
    )
    cases = (
        # variant, effective date, reason, what the customer says, fact
        (
            "future-date",
            fmt(day(12)),
            "customer_request",
            f"I'd like it to end on {fmt(day(12))}. No particular reason.",
            fmt(day(12)),
        ),
        (
            "future-date",
            fmt(day(30)),
            "customer_request",
            f"Please end it on {fmt(day(30))}; I just don't need it.",
            fmt(day(30)),
        ),
        (
            "replaced-backdate",
            fmt(day(-10)),
            "replaced_coverage",
            f"I bought a policy with another company; it started on {fmt(day(-10))}.",
            fmt(day(-10)),
        ),
        (
            "replaced-backdate",
            fmt(day(-30)),
            "replaced_coverage",
            f"My new insurer's policy began {fmt(day(-30))}.",
            fmt(day(-30)),
        ),
        (
            "replaced-too-old",
            fmt(day(0)),
            "replaced_coverage",
            f"I've had coverage with another insurer since {fmt(day(-45))}.",
            fmt(day(-45)),
        ),
        (
            "vehicle-sold",
            fmt(day(0)),
            "vehicle_sold",
            "I sold my only car and I'm not getting another one. End it today.",
            "sold my only car",
        ),
        (
            "moved",
            fmt(day(7)),
            "moved_out_of_state",
            f"I'm moving out of state for good on {fmt(day(7))}, somewhere you don't insure.",
            fmt(day(7)),
        ),
        (
            "no-backdate",
            fmt(day(0)),
            "customer_request",
            f"I stopped driving on {fmt(day(-6))}, can you cancel from then? "
            "I have no other insurance.",
            fmt(day(-6)),
        ),
    )
    for (variant, effective, reason, line, fact), policy in zip(cases, pols, strict=False):
        tasks.add(
            f,
            variant,
            policy=policy,
            description=f"Cancel effective {effective} with reason {reason}.",
            opening="I want to cancel my auto insurance policy.",
            goal="Cancel the policy",
            facts={"key_fact": {"value": fact, "say": line}},
            golden=[
                *ident(policy),
                call("list_claims", policy_id=policy),
                call(
                    "schedule_cancellation",
                    policy_id=policy,
                    effective_date=effective,
                    reason=reason,
                ),
            ],
            invariants=[_scheduled(policy, effective, reason)],
            tags=["dates"],
        )
    claimed = pick(lambda p: bool(open_claims(p["id"])), 2)
    for policy in claimed:
        cid = customer_of(policy)["id"]
        tasks.add(
            f,
            "open-claim",
            policy=policy,
            description="An open claim on the policy: no cancellation; a policy ticket escalated "
            "to claims (cancellation_with_open_claim).",
            opening="Please cancel my car insurance.",
            goal="Cancel the policy",
            info={"end_date": fmt(day(14))},
            reacts={"accept": "Okay, I'll wait for the call."},
            golden=[
                *ident(policy),
                call("list_claims", policy_id=policy),
                call("list_customer_tickets", customer_id=cid),
                call(
                    "create_ticket",
                    customer_id=cid,
                    category="policy",
                    subject=f"{policy}: cancellation request with an open claim",
                    policy_id=policy,
                ),
                call(
                    "escalate_ticket",
                    ticket_id="TCK-0501",
                    team="claims",
                    reason="cancellation_with_open_claim",
                ),
            ],
            invariants=[
                inv(
                    f"select count(*) from cancellations where policy_id = '{policy}'",
                    0,
                    "no cancellation",
                ),
                inv(
                    "select team || ':' || escalation_reason from tickets where id = 'TCK-0501'",
                    "claims:cancellation_with_open_claim",
                    "escalated to claims",
                ),
            ],
            refusal=True,
            tags=["escalation"],
            rubric=[
                "Does the agent say the claims team will contact the customer before the "
                "policy can be cancelled? (yes/no)"
            ],
            reference_response="Because you have an open claim, I can't cancel the policy now. "
            "I've passed your request to our claims team, who will call you back.",
        )
    for k, policy in enumerate(pols[8:11]):
        when = day((12, 3, -1)[k])
        patch = cancellation(policy, "CAN-00401", when, "customer_request", day(-9))
        ok = when > day(0)
        tasks.add(
            f,
            "rescind" if ok else "rescind-too-late",
            policy=policy,
            description=f"A cancellation scheduled for {fmt(when)}: "
            + ("rescind before it takes effect." if ok else "already in effect; cannot rescind."),
            opening="I changed my mind about cancelling my car insurance. Can I keep it?",
            goal="Keep the policy",
            reacts={"agree": "Yes, please keep it going.", "thanks": "Thank you."},
            patch=patch,
            golden=[
                *ident(policy),
                *([call("rescind_cancellation", cancellation_id="CAN-00401")] if ok else []),
            ],
            invariants=[
                inv(
                    f"select status from policies where id = '{policy}'",
                    "active" if ok else "pending_cancellation",
                    "policy status",
                )
            ],
            refusal=not ok,
            tags=["dates"],
        )
