"""Payment tasks: past-due installments, reinstating a nonpayment cancellation, partial payment."""

from __future__ import annotations

from ._build import (
    TaskSet,
    call,
    cancellation,
    day,
    fee,
    inv,
    merge,
    past_due,
    pick,
    plan_of,
    verify,
)

_CAN = "CAN-00401"
_FEE = "FEE-00401"


def _installments(p: dict[str, object]) -> bool:
    return plan_of(str(p["id"]))["plan"] in ("monthly", "quarterly")


def build(tasks: TaskSet) -> None:
    """Add payments, reinstatements and a partial payment without reinstatement."""
    f = "payments"
    pols = pick(_installments, 8, skip=10)
    methods = ("card_on_file", "bank_on_file")
    for k, policy in enumerate(pols[:3]):
        method = methods[k % 2]
        patch, delete, inst = past_due(policy, 4 + k)
        said = "my card on file" if method == "card_on_file" else "the bank account on file"
        tasks.add(
            f,
            "pay-installment",
            policy=policy,
            description=f"A past-due installment (within grace); the customer pays with {method}.",
            opening="I missed my car insurance payment. I'd like to pay it now.",
            goal="Pay the missed installment",
            facts={"method": {"value": said, "say": "Please use {value}."}},
            patch=patch,
            delete=delete,
            golden=[
                verify(policy),
                call("get_billing", policy_id=policy),
                call("pay_installment", installment_id=inst, method=method),
            ],
            invariants=[
                inv(f"select status from installments where id = '{inst}'", "paid", "paid"),
                inv(
                    f"select method from payments where installment_id = '{inst}'",
                    method,
                    "paid with the chosen method",
                ),
            ],
        )

    def delinquent(
        policy: str,
    ) -> tuple[dict[str, list[dict[str, object]]], dict[str, list[dict[str, object]]], str]:
        patch, delete, inst = past_due(policy, 22)
        patch = merge(
            patch,
            fee(policy, _FEE, inst, day(-11)),
            cancellation(policy, _CAN, day(8), "nonpayment", day(-2)),
        )
        return patch, delete, inst

    for k, policy in enumerate(pols[3:6]):
        method = methods[k % 2]
        said = "my card on file" if method == "card_on_file" else "the bank account on file"
        patch, delete, inst = delinquent(policy)
        tasks.add(
            f,
            "reinstate",
            policy=policy,
            description="Installment 22 days past due, late fee charged, nonpayment cancellation "
            "effective in 8 days: the customer pays both; rescind the cancellation.",
            opening="I got a notice that my car insurance will be cancelled. I want to fix that.",
            goal="Keep the policy",
            facts={"method": {"value": said, "say": "I'll pay everything now with {value}."}},
            reacts={"agree": "Yes, I'll pay everything now.", "thanks": "Phew, thanks."},
            patch=patch,
            delete=delete,
            golden=[
                verify(policy),
                call("get_billing", policy_id=policy),
                call("pay_installment", installment_id=inst, method=method),
                call("pay_fee", fee_id=_FEE, method=method),
                call("get_policy", policy_id=policy),
                call("rescind_cancellation", cancellation_id=_CAN),
            ],
            invariants=[
                inv(f"select status from policies where id = '{policy}'", "active", "reinstated"),
                inv(
                    f"select status from cancellations where id = '{_CAN}'",
                    "rescinded",
                    "cancellation rescinded",
                ),
            ],
        )
    for policy in pols[6:8]:
        patch, delete, inst = delinquent(policy)
        tasks.add(
            f,
            "partial",
            policy=policy,
            description="Delinquent with a nonpayment cancellation; the customer pays the "
            "installment but not the late fee: take the payment, do not rescind.",
            opening="I want to pay my overdue car insurance so it doesn't get cancelled.",
            goal="Keep the policy without paying the fee",
            facts={
                "pays_fee": {
                    "value": "not paying that late fee",
                    "say": "I'll pay the installment with my card on file, but I'm not paying "
                    "that late fee.",
                }
            },
            info={"method": {"value": "my card on file", "say": "With {value}."}},
            reacts={
                "accept": "Then I'll call back about the rest.",
                "thanks": "Then I'll call back about the rest.",
            },
            patch=patch,
            delete=delete,
            golden=[
                verify(policy),
                call("get_billing", policy_id=policy),
                call("pay_installment", installment_id=inst, method="card_on_file"),
            ],
            invariants=[
                inv(
                    f"select status from cancellations where id = '{_CAN}'",
                    "scheduled",
                    "cancellation still scheduled",
                ),
                inv(f"select status from fees where id = '{_FEE}'", "charged", "fee unpaid"),
            ],
            refusal=True,
            rubric=[
                "Does the agent explain that the cancellation stays scheduled until the late "
                "fee is paid too? (yes/no)"
            ],
            reference_response="I've taken the installment payment. The cancellation stays "
            "scheduled until the $15.00 late fee is paid as well, before its effective date.",
        )
