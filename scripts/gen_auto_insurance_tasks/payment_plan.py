"""Payment plan tasks: switching plans; installment plans refused while anything is past due."""

from __future__ import annotations

from ._build import (
    TaskSet,
    call,
    day,
    fee,
    inv,
    late_paid,
    merge,
    next_unpaid,
    past_due,
    pick,
    plan_of,
    verify,
)

_LABEL = {
    "pay_in_full": "pay the rest in full",
    "quarterly": "pay quarterly",
    "monthly": "pay monthly",
}


def _with_future(plan: str) -> list[str]:
    def ok(p: dict[str, object]) -> bool:
        pid = str(p["id"])
        if plan_of(pid)["plan"] != plan:
            return False
        try:
            nxt = next_unpaid(pid)
        except StopIteration:
            return False
        return str(nxt["due_date"]) < str(p["term_end"])

    return pick(ok, 4)


def _plan(policy: str, plan: str) -> dict[str, object]:
    return inv(f"select plan from installment_plans where policy_id = '{policy}'", plan, "plan")


def build(tasks: TaskSet) -> None:
    """Add allowed switches and refusals while an installment is past due or a fee is charged."""
    f = "payment-plan"
    monthly, quarterly = _with_future("monthly"), _with_future("quarterly")
    cases = [
        (monthly[0], "pay_in_full"),
        (monthly[1], "quarterly"),
        (quarterly[0], "monthly"),
        (quarterly[1], "pay_in_full"),
    ]
    for policy, plan in cases:
        tasks.add(
            f,
            "switch",
            policy=policy,
            description=f"Nothing past due, no charged fee: switch {plan_of(policy)['plan']} → "
            f"{plan}.",
            opening="I'd like to change how I pay for my car insurance.",
            goal="Change the payment plan",
            reacts={"thanks": "Great."},
            facts={"wanted_plan": _LABEL[plan]},
            golden=[
                verify(policy),
                call("get_billing", policy_id=policy),
                call("change_payment_plan", policy_id=policy, plan=plan),
            ],
            invariants=[_plan(policy, plan)],
        )
    # Past due: to pay in full is still fine; to an installment plan is refused.
    for policy, plan in ((monthly[2], "quarterly"), (quarterly[2], "monthly")):
        patch, delete, _ = past_due(policy, 5)
        tasks.add(
            f,
            "past-due-refused",
            policy=policy,
            description=f"An installment is 5 days past due: a switch to {plan} is refused.",
            opening="Can I change my payment schedule?",
            goal="Change the payment plan",
            reacts={"accept": "Okay, I'll pay first then."},
            facts={"wanted_plan": _LABEL[plan]},
            patch=patch,
            delete=delete,
            golden=[verify(policy), call("get_billing", policy_id=policy)],
            invariants=[_plan(policy, plan_of(policy)["plan"])],
            refusal=True,
            rubric=[
                "Does the agent say the past-due installment must be paid before switching? "
                "(yes/no)"
            ],
            reference_response="You have an installment past due, so I can't switch you to an "
            "installment plan right now. Once it's paid, I can make the change.",
        )
    policy = monthly[3]
    patch, delete, _ = past_due(policy, 6)
    tasks.add(
        f,
        "past-due-pay-in-full",
        policy=policy,
        description="An installment is past due, but a switch to pay in full is always allowed.",
        opening="I'm tired of monthly bills on my car insurance.",
        goal="Change the payment plan",
        facts={"wanted_plan": _LABEL["pay_in_full"]},
        patch=patch,
        delete=delete,
        golden=[
            verify(policy),
            call("get_billing", policy_id=policy),
            call("change_payment_plan", policy_id=policy, plan="pay_in_full"),
        ],
        invariants=[_plan(policy, "pay_in_full")],
    )
    policy = quarterly[3]
    patch, inst = late_paid(policy, 25, 14)
    patch = merge(patch, fee(policy, "FEE-00401", inst, day(-14)))
    tasks.add(
        f,
        "fee-refused",
        policy=policy,
        description="A late fee is still charged: a switch to monthly is refused.",
        opening="Could I move to a different payment plan?",
        goal="Change the payment plan",
        reacts={"accept": "Alright."},
        facts={"wanted_plan": _LABEL["monthly"]},
        patch=patch,
        golden=[verify(policy), call("get_billing", policy_id=policy)],
        invariants=[_plan(policy, "quarterly")],
        refusal=True,
    )
