"""Review of pending expense claims: late submission, duplicates, limits, receipts, decided."""

from __future__ import annotations

from ._build import (
    EMP,
    LIMIT,
    Row,
    TaskSet,
    active_assignments,
    call,
    day,
    find,
    inv,
    ts,
)

_OK = "within_policy"


def _claim(
    emp: str,
    category: str,
    amount: float,
    incurred: int,
    submitted: int,
    receipt: bool,
    status: str = "submitted",
    reason: str | None = None,
    claim_id: str = "EXP-00100",
) -> Row:
    (asg,) = active_assignments(emp)
    decided = status not in ("submitted",)
    return {
        "id": claim_id,
        "employee_id": emp,
        "engagement_id": asg["engagement_id"],
        "category": category,
        "amount": amount,
        "incurred_on": day(incurred),
        "receipt": int(receipt),
        "description": f"{category.replace('_', ' ')} for client work",
        "status": status,
        "decision_reason": reason,
        "submitted_at": ts(submitted),
        "decided_at": ts(submitted + 1) if decided else None,
    }


def build(tasks: TaskSet) -> None:
    """Add pending claims decided by the review rules, and a decided claim left alone."""
    f = "expense-review"
    cases: list[tuple[str, str, list[Row], str, str]] = [
        # employee, variant, claim rows (the last is EXP-00100), decision, reason
        ("EMP-0014", "approve", [_claim("EMP-0014", "meals", 58.0, -9, -6, True)],
         "approved", "within_policy"),
        ("EMP-0023", "approve", [_claim("EMP-0023", "airfare", 1120.0, -20, -18, True)],
         "approved", "within_policy"),
        ("EMP-0005", "approve", [_claim("EMP-0005", "lodging", 420.0, -7, -5, True)],
         "approved", "within_policy"),
        ("EMP-0020", "late-submission",
         [_claim("EMP-0020", "meals", 41.0, -70, -4, True)], "rejected",
         "late_submission"),
        ("EMP-0037", "late-submission",
         [_claim("EMP-0037", "ground_transport", 22.0, -64, -2, False)], "rejected",
         "late_submission"),
        ("EMP-0030", "duplicate", [
            _claim("EMP-0030", "lodging", 265.0, -25, -22, True, "paid", _OK, "EXP-00099"),
            _claim("EMP-0030", "lodging", 265.0, -25, -3, True)],
         "rejected", "duplicate"),
        ("EMP-0041", "duplicate", [
            _claim("EMP-0041", "meals", 33.9, -12, -10, True, "approved", _OK, "EXP-00099"),
            _claim("EMP-0041", "meals", 33.9, -12, -1, True)],
         "rejected", "duplicate"),
        ("EMP-0031", "over-limit",
         [_claim("EMP-0031", "airfare", 1480.0, -14, -12, True)], "on_hold",
         "over_limit"),
        ("EMP-0038", "missing-receipt",
         [_claim("EMP-0038", "home_office", 180.0, -10, -8, False)], "on_hold",
         "missing_receipt"),
    ]  # fmt: skip
    for emp, variant, claims, status, reason in cases:
        claim = claims[-1]
        decision = {
            "approved": call("approve_expense_claim", claim_id="EXP-00100"),
            "rejected": call("reject_expense_claim", claim_id="EXP-00100", reason=reason),
            "on_hold": call("hold_expense_claim", claim_id="EXP-00100", reason=reason),
        }[status]
        limit = LIMIT[claim["category"]] * (
            1.5 if EMP[emp]["grade"] in ("manager", "partner") else 1
        )
        tasks.add(
            f,
            variant,
            requester=emp,
            description=(
                f"Pending {claim['category']} claim {claim['amount']:.2f} (limit {limit:.2f}), "
                f"incurred {claim['incurred_on']}, submitted {claim['submitted_at'][:10]}, "
                f"receipt {claim['receipt']}: {status} ({reason})."
            ),
            opening="Could you check on my pending expense claim? It hasn't been decided yet.",
            goal="Get the pending claim decided",
            reacts={
                "thanks": "Okay, thanks for looking. Bye.",
                "accept": "Okay, thanks for looking. Bye.",
            },
            facts={"claim_id": "EXP-00100"},
            patch={"expense_claims": claims},
            golden=[
                find(emp),
                call("list_expense_claims", employee_id=emp),
                call("get_expense_limits"),
                decision,
            ],
            invariants=[
                inv(
                    "select status || ':' || decision_reason from expense_claims "
                    "where id = 'EXP-00100'",
                    f"{status}:{reason}",
                    "decided by the review rules",
                )
            ],
            refusal=status != "approved",
        )
    emp = "EMP-0024"
    claim = _claim(emp, "lodging", 180.0, -90, -20, True, "rejected", "late_submission")
    tasks.add(
        f,
        "decided",
        requester=emp,
        description="Claim already rejected (late_submission), asked to approve anyway: no change.",
        opening="My hotel claim got rejected. Can you approve it anyway? It was a real expense.",
        goal="Have the rejected claim approved",
        reacts={"pushback": 1, "push": "Really? Nothing at all?", "accept": "Fine. Bye."},
        facts={"claim_id": "EXP-00100"},
        patch={"expense_claims": [claim]},
        golden=[find(emp), call("list_expense_claims", employee_id=emp)],
        invariants=[
            inv("select status from expense_claims where id = 'EXP-00100'", "rejected", "unchanged")
        ],
        read_only=True,
        reply={"must_contain": [["already", "decided", "rejected"]]},
        rubric=["Does the reply say a decided claim cannot be changed? (yes/no)"],
        reference=(
            "I'm sorry, claim EXP-00100 was already rejected because it was submitted more than "
            "60 days after the expense, and a decided claim cannot be changed."
        ),
    )
