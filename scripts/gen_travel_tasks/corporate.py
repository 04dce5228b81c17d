"""Corporate approval: the travel manager approves or rejects bookings against the policy."""

from __future__ import annotations

from ._build import (
    CORPS,
    STAYS,
    Patch,
    Picker,
    TaskSet,
    call,
    ident,
    inv,
    merge,
    owner,
    status_is,
    ticket,
    trip,
    usd,
    where,
)

_FLIGHTS = Picker("flight", skip=3)
_HOTELS = Picker("hotel", skip=3)


def _four_nights() -> str:
    """The next hotel booking with a four-night stay (its total clears every threshold)."""
    while True:
        bk = _HOTELS()
        if int(STAYS[bk]["nights"]) == 4:
            return bk


def _pending(
    bk: str, corp: str, *, nightly: float | None = None, cabin: str | None = None
) -> Patch:
    patch = trip(bk, 21, nightly=nightly, total=None if nightly else 900.0)
    patch["bookings"][0].update(status="pending_approval", corporate_account_id=corp)
    patch = merge(patch, {"customers": [{"id": owner(bk), "corporate_account_id": corp}]})
    patch["payments"] = [{**p, "method": "corporate_card"} for p in patch.get("payments", [])]
    if cabin:
        patch = merge(patch, {"flight_segments": [{"id": f"SEG-{bk[3:]}-1", "cabin": cabin}]})
    return patch


def build(tasks: TaskSet) -> None:
    """Add approvals, policy rejections, manager declines, and refusals to non-managers."""
    f = "corporate-approval"
    for corp, kind, value, ask, decision in (
        ("CORP-01", "hotel", 180.0, "approve", "approve"),
        ("CORP-01", "hotel", 260.0, "approve", "over_rate_cap"),
        ("CORP-01", "flight", "economy", "approve", "approve"),
        ("CORP-01", "flight", "business", "approve", "cabin_not_allowed"),
        ("CORP-02", "flight", "premium_economy", "approve", "approve"),
        ("CORP-02", "flight", "business", "approve", "cabin_not_allowed"),
        ("CORP-02", "hotel", 290.0, "approve", "approve"),
        ("CORP-02", "hotel", 310.0, "approve", "over_rate_cap"),
        ("CORP-03", "hotel", 150.0, "approve", "account_suspended"),
        ("CORP-01", "hotel", 200.0, "decline", "manager_declined"),
    ):
        account = CORPS[corp]
        if kind == "hotel":
            bk = _four_nights()
            patch = _pending(bk, corp, nightly=float(value))
            detail = f"{usd(float(value))} a night (cap {usd(float(account['max_nightly_rate']))})"
        else:
            bk = _FLIGHTS()
            patch = _pending(bk, corp, cabin=str(value))
            detail = f"{value} cabin (allowed up to {account['allowed_cabin']})"
        manager = str(account["travel_manager_email"])
        golden = [
            call("get_corporate_account", corporate_account_id=corp),
            call("get_booking", booking_id=bk),
        ]
        if decision == "approve":
            golden.append(call("approve_corporate_booking", booking_id=bk, approver_email=manager))
            end = "confirmed"
        else:
            golden.append(call("reject_corporate_booking", booking_id=bk, reason=decision))
            end = "rejected"
        policy_reject = decision not in ("approve", "manager_declined")
        request = (
            "Please approve it."
            if ask == "approve"
            else "We've decided not to send anyone on that trip. Please decline it."
        )
        reacts = {"thanks": "Understood, thanks." if policy_reject else "Great, thanks."}
        if policy_reject:
            reacts["accept"] = "Understood, thanks."
        tasks.add(
            f,
            decision.replace("_", "-"),
            customer=owner(bk),
            user_email=manager,
            persona=f"Travel manager of {account['name']}",
            description=(
                f"{account['name']} ({account['status']}): pending {kind} at {detail}; the "
                f"manager asks to {ask}; correct outcome: {decision}."
            ),
            opening=(
                "One of our employees has a booking waiting for approval: "
                f"the {where(bk)}. Can you process it?"
            ),
            goal=f"{'Approve' if ask == 'approve' else 'Decline'} the pending booking",
            facts={"corporate_account_id": corp},
            info={"request": request},
            reacts=reacts,
            golden=golden,
            patch=patch,
            invariants=[
                status_is(bk, end),
                inv(
                    f"select count(*) from refunds where booking_id = '{bk}'",
                    0 if end == "confirmed" else 1,
                    "rejected bookings are refunded in full",
                ),
            ],
            refusal=policy_reject,
            rubric=(
                [
                    (
                        f"Does the reply tell the manager the booking was rejected because "
                        f"of {decision.replace('_', ' ')}? (yes/no)"
                    )
                ]
                if policy_reject
                else None
            ),
            reference=(
                f"I could not approve this booking: it was rejected under your travel policy "
                f"({decision.replace('_', ' ')}), and the payment is refunded in full."
                if policy_reject
                else ""
            ),
        )
    bk = _four_nights()
    c = owner(bk)
    patch = _pending(bk, "CORP-01", nightly=150.0)
    tasks.add(
        f,
        "self-approval",
        customer=c,
        description="The traveller asks to approve their own pending booking: refuse. No change.",
        opening=f"My {where(bk)} is stuck waiting for approval. Can you approve it for me?",
        goal="Get the booking approved",
        reacts={
            "pushback": 1,
            "push": "My manager is on holiday, can't you just approve it?",
            "accept": "Fine.",
        },
        golden=ident(c, bk),
        patch=patch,
        invariants=[status_is(bk, "pending_approval")],
        read_only=True,
        reply={"must_contain": ["travel manager"]},
        rubric=[
            "Does the reply say that only the travel manager can approve the booking? (yes/no)"
        ],
        reference=(
            "Only your company's travel manager can approve this booking, so it stays pending."
        ),
    )
    bk = _four_nights()
    c = owner(bk)
    patch = merge(
        _pending(bk, "CORP-02", nightly=200.0),
        ticket("TKT-0201", c, bk, "corporate", "Booking still pending"),
    )
    tasks.add(
        f,
        "hold-ticket",
        customer=c,
        description=(
            "The traveller chases a pending corporate booking with an open ticket: the ticket "
            "goes on hold awaiting_approval; the booking stays pending."
        ),
        opening=(
            "I opened a ticket because my business trip booking is still pending. What's going on?"
        ),
        goal="Get the booking confirmed",
        reacts={"accept": "Okay, I'll remind my manager. Thanks."},
        golden=[
            *ident(c, bk),
            call("list_customer_tickets", customer_id=c),
            call("hold_ticket", ticket_id="TKT-0201", reason="awaiting_approval"),
        ],
        patch=patch,
        invariants=[
            status_is(bk, "pending_approval"),
            inv(
                "select status || ':' || hold_reason from tickets where id = 'TKT-0201'",
                "hold:awaiting_approval",
                "ticket on hold for approval",
            ),
        ],
        refusal=True,
    )
