"""New expense claims: the 60-day window, receipts, limits by category and grade."""

from __future__ import annotations

from ._build import (
    EMP,
    LIMIT,
    RECEIPT_OVER,
    TaskSet,
    active_assignments,
    call,
    count_new,
    day,
    find,
    inv,
    says,
)

# What the claim's description must pass on (any one word of each list).
_WHAT = {
    "meals": ["dinner", "meal"],
    "ground_transport": ["taxi", "cab"],
    "lodging": ["hotel", "night"],
    "client_entertainment": ["entertainment", "workshop"],
    "airfare": ["flight"],
    "home_office": ["chair", "desk"],
    "training_materials": ["books", "exam"],
}
_WORDS = {
    "meals": ("a team dinner with the client", "meals"),
    "ground_transport": ("a taxi to the client site", "ground transport"),
    "lodging": ("a hotel night near the client", "lodging"),
    "client_entertainment": ("client entertainment at a workshop", "client entertainment"),
    "airfare": ("a flight to the client", "airfare"),
    "home_office": ("a desk chair for home working", "home office"),
    "training_materials": ("exam books for a certification", "training materials"),
}


def _limit(emp: str, category: str) -> float:
    factor = 1.5 if EMP[emp]["grade"] in ("manager", "partner") else 1.0
    return round(LIMIT[category] * factor, 2)


def build(tasks: TaskSet) -> None:
    """Add approvals, over-limit and missing-receipt holds, and late refusals."""
    f = "expense-claims"
    cases = [
        # employee, category, amount, days ago, receipt
        ("EMP-0016", "meals", 62.4, 5, True),
        ("EMP-0021", "ground_transport", 18.0, 12, False),
        ("EMP-0026", "lodging", 289.0, 20, True),
        ("EMP-0006", "meals", 104.0, 3, True),
        ("EMP-0028", "meals", 75.0, 60, True),
        ("EMP-0010", "meals", 96.1, 8, True),
        ("EMP-0027", "lodging", 340.0, 15, True),
        ("EMP-0007", "client_entertainment", 650.0, 9, True),
        ("EMP-0019", "ground_transport", 48.0, 4, False),
        ("EMP-0022", "meals", 80.0, 2, False),
        ("EMP-0039", "training_materials", 140.0, 30, True),
    ]
    for emp, category, amount, ago, receipt in cases:
        limit = _limit(emp, category)
        needs_receipt = amount > RECEIPT_OVER[category]
        if needs_receipt and not receipt:
            variant, decision = (
                "missing-receipt",
                call("hold_expense_claim", claim_id="EXP-00501", reason="missing_receipt"),
            )
            status, reason = "on_hold", "missing_receipt"
        elif amount > limit:
            variant, decision = (
                "over-limit",
                call("hold_expense_claim", claim_id="EXP-00501", reason="over_limit"),
            )
            status, reason = "on_hold", "over_limit"
        else:
            variant, decision = "approve", call("approve_expense_claim", claim_id="EXP-00501")
            status, reason = "approved", "within_policy"
        (asg,) = active_assignments(emp)
        eng = asg["engagement_id"]
        what, _ = _WORDS[category]
        incurred = day(-ago)
        receipt_line = "I have the itemised receipt." if receipt else "I don't have a receipt."
        tasks.add(
            f,
            variant,
            requester=emp,
            description=(
                f"{EMP[emp]['grade']} claims {amount:.2f} for {category} (limit {limit:.2f}, "
                f"receipt over {RECEIPT_OVER[category]:.2f}, has receipt: {receipt}), "
                f"{ago} days ago: {status} ({reason})."
            ),
            opening=f"I'd like to file an expense claim for {what}.",
            goal="Get the expense reimbursed",
            info={"receipt": receipt_line},
            reacts={"thanks": "Okay, thanks.", "accept": "Okay, thanks."},
            facts={"amount": f"{amount:.2f}", "incurred_on": incurred, "engagement_id": eng},
            golden=[
                find(emp),
                call("get_expense_limits"),
                call(
                    "submit_expense_claim",
                    employee_id=emp,
                    category=category,
                    amount=amount,
                    incurred_on=incurred,
                    receipt=receipt,
                    description=what,
                    engagement_id=eng,
                ),
                decision,
            ],
            invariants=[
                inv(
                    "select status || ':' || decision_reason from expense_claims "
                    "where id = 'EXP-00501'",
                    f"{status}:{reason}",
                    "decided by policy",
                ),
                inv("select amount from expense_claims where id = 'EXP-00501'", amount, "amount"),
            ],
            refusal=status == "on_hold",
            text=[says("expense_claims", "description", {"employee_id": emp}, _WHAT[category])],
            rubric=(
                [
                    f"Does the reply say the claim is on hold for {reason.replace('_', ' ')}? "
                    "(yes/no)"
                ]
                if status == "on_hold"
                else None
            ),
            reference=(
                f"I've submitted claim EXP-00501 for ${amount:.2f}; it is on hold for "
                f"{reason.replace('_', ' ')}"
                + (
                    ": please upload the receipt."
                    if reason == "missing_receipt"
                    else f": it is above your ${limit:.2f} limit, so your manager must approve it."
                )
                if status == "on_hold"
                else ""
            ),
        )
    for emp, category, amount, ago in (
        ("EMP-0029", "lodging", 210.0, 61),
        ("EMP-0035", "meals", 44.5, 75),
    ):
        (asg,) = active_assignments(emp)
        what, _ = _WORDS[category]
        incurred = day(-ago)
        tasks.add(
            f,
            "late",
            requester=emp,
            description=f"Expense incurred {ago} days ago (window 60): refuse, no claim.",
            opening=f"Can I still claim {what} from a while back?",
            goal="Get the expense reimbursed",
            info={"engagement_id": asg["engagement_id"]},
            reacts={"accept": "That's a shame. Okay."},
            facts={"amount": f"{amount:.2f}", "incurred_on": incurred},
            golden=[find(emp)],
            invariants=[count_new("expense_claims", "no claim submitted")],
            read_only=True,
            reply={"must_contain": [60]},
            rubric=["Does the reply say claims must be filed within 60 days? (yes/no)"],
            reference=(
                f"I'm sorry, that expense from {incurred} is more than 60 days old, and claims "
                "must be submitted within 60 days of the expense, so I can't file it."
            ),
        )
