"""Billing intents: extensions, payments, plan changes, fee waivers, nonpayment rescission.

Each intent patches the state it turns on (a past-due installment, a charged fee, a
nonpayment cancellation) over the seed and ends in writes; the recovery intents start
with the call a careless agent makes first, which the tools refuse (`fails`).
"""

from __future__ import annotations

from datetime import date, timedelta

from scripts.gen_auto_insurance_tasks._build import (
    SEED,
    TODAY,
    Row,
    call,
    cancellation,
    customer_of,
    day,
    fee,
    fmt,
    inv,
    late_paid,
    merge,
    next_unpaid,
    past_due,
    plan_of,
)

from ._compose import Ctx, Intent, Part

__all__ = ["TEST", "TRAIN"]

_METHODS = (("card_on_file", "my card on file"), ("bank_on_file", "the bank account on file"))


def _method(n: int) -> tuple[str, Row]:
    code, said = _METHODS[n % 2]
    return code, {"method": {"value": said, "say": "Please use {value}."}}


def _installment_plan(pid: str) -> bool:
    return plan_of(pid)["plan"] in ("monthly", "quarterly")


def _extended(pid: str) -> bool:
    return any(e["policy_id"] == pid for e in SEED["payment_extensions"])


def _future(pid: str) -> bool:
    try:
        return next_unpaid(pid)["due_date"] >= fmt(TODAY)
    except StopIteration:
        return False


def _waived_this_year(pid: str) -> bool:
    return any(
        f["policy_id"] == pid and f["status"] == "waived" and f["resolved_at"] >= fmt(day(-365))
        for f in SEED["fees"]
    )


def _loyal(pid: str) -> bool:
    since = date.fromisoformat(customer_of(pid)["customer_since"])
    return since <= TODAY.replace(year=TODAY.year - 5)


def _billing(ctx: Ctx) -> Row:
    return call("get_billing", policy_id=ctx.policy)


def _due(inst: str, due: str) -> Row:
    return inv(f"select due_date from installments where id = '{inst}'", due, "due date")


def _paid(inst: str, method: str) -> Row:
    return inv(
        f"select status || ':' || (select method from payments where installment_id = '{inst}') "
        f"from installments where id = '{inst}'",
        f"paid:{method}",
        "installment paid with the chosen method",
    )


# ----------------------------------------------------------------------------- test


def _extension_capped(ctx: Ctx, n: int) -> Part:
    late = 2 + n % 5
    patch, delete, inst = past_due(ctx.policy, late)
    due = day(-late)
    wanted, latest = fmt(due + timedelta(days=18 + n % 6)), fmt(due + timedelta(days=14))
    return Part(
        opening="I can't make my car insurance payment right now and need more time.",
        goal="Move the payment date as late as allowed",
        description=f"Installment {late} days late; the customer's date is past the 14-day cap: "
        f"the grant with it is refused; the latest date {latest} is offered and accepted.",
        facts={"pay_date": {"value": wanted, "say": "I get paid on {value}, I can pay then."}},
        reacts={"alternative": True, "agree": "Okay, that latest date works for me."},
        patch=patch,
        delete=delete,
        golden=[
            _billing(ctx),
            {**call("grant_payment_extension", installment_id=inst, new_due_date=wanted)}
            | {"fails": "invalid_state"},
            call("grant_payment_extension", installment_id=inst, new_due_date=latest),
        ],
        invariants=[_due(inst, latest)],
        says=f"The due date of {inst} is now {latest}, the latest the policy allows.",
        tags=["alternative"],
    )


def _pay_installment(ctx: Ctx, n: int) -> Part:
    late = 3 + n % 6
    patch, delete, inst = past_due(ctx.policy, late)
    method, facts = _method(n)
    return Part(
        opening="I want to pay the installment I missed.",
        goal="Pay the missed installment",
        description=f"Installment {late} days past due (within grace): pay it with {method}.",
        facts=facts,
        patch=patch,
        delete=delete,
        golden=[_billing(ctx), call("pay_installment", installment_id=inst, method=method)],
        invariants=[_paid(inst, method)],
        says=f"Installment {inst} is paid.",
    )


def _plan_after_arrears(ctx: Ctx, n: int) -> Part:
    target = "quarterly" if plan_of(ctx.policy)["plan"] == "monthly" else "monthly"
    late = 4 + n % 5
    patch, delete, inst = past_due(ctx.policy, late)
    method, facts = _method(n + 1)
    return Part(
        opening="I'd like to change how often I pay my premium.",
        goal=f"Switch to the {target} plan",
        description=f"Switch to {target} while installment {inst} is past due: the switch is "
        "refused; the customer pays the past-due installment, then the switch goes through.",
        facts={**facts, "wanted_plan": f"pay {target}"},
        reacts={"alternative": True, "agree": "Fine, I'll pay that one now."},
        patch=patch,
        delete=delete,
        golden=[
            _billing(ctx),
            call("change_payment_plan", policy_id=ctx.policy, plan=target)
            | {"fails": "invalid_state"},
            call("pay_installment", installment_id=inst, method=method),
            ctx.disclose(),
            call("change_payment_plan", policy_id=ctx.policy, plan=target),
        ],
        invariants=[
            _paid(inst, method),
            inv(
                f"select plan from installment_plans where policy_id = '{ctx.policy}'",
                target,
                "plan switched",
            ),
        ],
        says=f"Installment {inst} is paid and your plan is now {target}.",
        tags=["alternative"],
    )


def _nonpayment_rescind(ctx: Ctx, n: int) -> Part:
    late = 24 + n % 4
    patch, delete, inst = past_due(ctx.policy, late)
    due = day(-late)
    can, fee_id = "CAN-00421", "FEE-00421"
    patch = merge(
        patch,
        fee(ctx.policy, fee_id, inst, due + timedelta(days=11)),
        cancellation(ctx.policy, can, day(4 + n % 5), "nonpayment", due + timedelta(days=21)),
    )
    method, facts = _method(n)
    return Part(
        opening="I got a letter saying my policy will be cancelled and I want to keep it.",
        goal="Keep the policy",
        description="Nonpayment cancellation with a past-due installment and a late fee: the "
        "rescission is refused until both are paid; pay them, then rescind.",
        facts=facts,
        reacts={"alternative": True, "agree": "Yes, I'll pay everything now."},
        patch=patch,
        delete=delete,
        golden=[
            _billing(ctx),
            call("rescind_cancellation", cancellation_id=can) | {"fails": "invalid_state"},
            call("pay_installment", installment_id=inst, method=method),
            call("pay_fee", fee_id=fee_id, method=method),
            ctx.disclose(),
            call("rescind_cancellation", cancellation_id=can),
        ],
        invariants=[
            inv(f"select status from cancellations where id = '{can}'", "rescinded", "rescinded"),
            inv(f"select status from fees where id = '{fee_id}'", "paid", "late fee paid"),
            _paid(inst, method),
        ],
        says=f"Everything past due is paid and cancellation {can} is rescinded.",
    )


def _waive_loyalty(ctx: Ctx, n: int) -> Part:
    patch, inst = late_paid(ctx.policy, 20 + n % 5, 13 + n % 3)
    paid_on = date.fromisoformat(patch["installments"][0]["due_date"]) + timedelta(days=11)
    fee_id = "FEE-00432"
    patch = merge(patch, fee(ctx.policy, fee_id, inst, paid_on))
    if not _waived_this_year(ctx.policy):
        patch = merge(
            patch,
            fee(
                ctx.policy,
                "FEE-00431",
                None,
                day(-150 - n % 30),
                status="waived",
                waive_reason="first_time_courtesy",
            ),
        )
    return Part(
        opening="There's a late fee on my account and I'd like it removed.",
        goal="Have the late fee waived",
        description="A charged late fee (paid past grace); a late fee was already waived this "
        "year, so a first-time courtesy is refused; a customer of 5+ years gets the "
        "loyalty courtesy.",
        golden=[
            _billing(ctx),
            call("waive_fee", fee_id=fee_id, reason="first_time_courtesy")
            | {"fails": "invalid_state"},
            call("get_customer", customer_id=ctx.customer),
            call("waive_fee", fee_id=fee_id, reason="loyalty_courtesy"),
        ],
        patch=patch,
        invariants=[
            inv(
                f"select waive_reason from fees where id = '{fee_id}'",
                "loyalty_courtesy",
                "waived as a loyalty courtesy",
            )
        ],
        says=f"As a long-standing customer, late fee {fee_id} is waived.",
    )


# ----------------------------------------------------------------------------- train


def _extension_grant(ctx: Ctx, n: int) -> Part:
    late = 1 + n % 7
    patch, delete, inst = past_due(ctx.policy, late)
    new = fmt(day(-late) + timedelta(days=7 + n % 7))
    return Part(
        opening="Could I get a few more days to pay my car insurance?",
        goal="Move the payment date",
        description=f"Installment {late} days late, no extension this year: grant {new}.",
        facts={"pay_date": {"value": new, "say": "I can pay on {value}."}},
        patch=patch,
        delete=delete,
        golden=[
            _billing(ctx),
            call("grant_payment_extension", installment_id=inst, new_due_date=new),
        ],
        invariants=[_due(inst, new)],
        says=f"The due date of {inst} is now {new}.",
    )


def _extension_past_grace(ctx: Ctx, n: int) -> Part:
    late = 12 + n % 6
    patch, delete, inst = past_due(ctx.policy, late)
    fee_id = "FEE-00425"
    patch = merge(patch, fee(ctx.policy, fee_id, inst, day(-late + 11)))
    method, facts = _method(n)
    return Part(
        opening="I need an extension on my auto insurance payment.",
        goal="Pay later, or settle the bill",
        description="Past the grace period: the extension is refused; the customer pays the "
        "installment and the late fee instead.",
        facts=facts,
        info={"pay_date": fmt(day(5))},
        reacts={"alternative": True, "agree": "Alright, I'll just pay it all now."},
        patch=patch,
        delete=delete,
        golden=[
            _billing(ctx),
            call("grant_payment_extension", installment_id=inst, new_due_date=fmt(day(5)))
            | {"fails": "invalid_state"},
            call("pay_installment", installment_id=inst, method=method),
            call("pay_fee", fee_id=fee_id, method=method),
        ],
        invariants=[_paid(inst, method)],
        says="The installment and the late fee are paid.",
    )


def _plan_to_full(ctx: Ctx, n: int) -> Part:
    return Part(
        opening="I'd rather pay the rest of my premium in one go.",
        goal="Switch to paying in full",
        description="Switch an installment plan to pay_in_full (always allowed).",
        golden=[
            _billing(ctx),
            ctx.disclose(),
            call("change_payment_plan", policy_id=ctx.policy, plan="pay_in_full"),
        ],
        invariants=[
            inv(
                f"select plan from installment_plans where policy_id = '{ctx.policy}'",
                "pay_in_full",
                "plan switched",
            )
        ],
        says="Your plan is now pay in full.",
    )


def _charged_fee(ctx: Ctx, n: int, paid_after: int, fee_id: str) -> tuple[Row, str]:
    patch, inst = late_paid(ctx.policy, 18 + n % 5, paid_after)
    charged = date.fromisoformat(patch["installments"][0]["due_date"]) + timedelta(days=11)
    return merge(patch, fee(ctx.policy, fee_id, inst, charged)), inst


def _waive_first(ctx: Ctx, n: int) -> Part:
    fee_id = "FEE-00433"
    patch, _ = _charged_fee(ctx, n, 12 + n % 4, fee_id)
    return Part(
        opening="Can you take the late fee off my bill?",
        goal="Have the late fee waived",
        description="A late fee, no waiver this year: waive it as a first-time courtesy.",
        patch=patch,
        golden=[_billing(ctx), call("waive_fee", fee_id=fee_id, reason="first_time_courtesy")],
        invariants=[inv(f"select status from fees where id = '{fee_id}'", "waived", "fee waived")],
        says=f"Late fee {fee_id} is waived.",
    )


def _waive_error(ctx: Ctx, n: int) -> Part:
    fee_id = "FEE-00434"
    patch, inst = _charged_fee(ctx, n, 3 + n % 7, fee_id)
    return Part(
        opening="I was charged a late fee but I paid on time.",
        goal="Remove the wrong late fee",
        description=f"A late fee on {inst}, paid within grace: waive it as a billing error.",
        patch=patch,
        golden=[_billing(ctx), call("waive_fee", fee_id=fee_id, reason="billing_error")],
        invariants=[
            inv(f"select waive_reason from fees where id = '{fee_id}'", "billing_error", "error")
        ],
        says=f"Late fee {fee_id} was charged in error and is waived.",
    )


def _fee_dispute(ctx: Ctx, n: int) -> Part:
    fee_id = "FEE-00435"
    patch = fee(ctx.policy, fee_id, None, day(-6 - n % 9), kind="returned_payment_fee")
    ticket = ctx.ticket(fee_id)
    return Part(
        opening="I'm disputing a returned-payment fee, my bank says the payment went through.",
        goal="Get the returned-payment fee removed",
        description="A disputed returned-payment fee: the waiver is refused; a billing ticket "
        "escalated to billing (fee_dispute).",
        patch=patch,
        golden=[
            _billing(ctx),
            call("waive_fee", fee_id=fee_id, reason="billing_error") | {"fails": "not_permitted"},
            call("list_customer_tickets", customer_id=ctx.customer),
            call(
                "create_ticket",
                customer_id=ctx.customer,
                category="billing",
                subject=f"{ctx.policy}: disputed returned-payment fee {fee_id}",
                policy_id=ctx.policy,
            ),
            call("escalate_ticket", ticket_id=ticket, team="billing", reason="fee_dispute"),
        ],
        invariants=[
            inv(f"select status from fees where id = '{fee_id}'", "charged", "fee not waived")
        ],
        says="Billing will review the disputed fee.",
        tags=["escalation"],
    )


def _pay_fee(ctx: Ctx, n: int) -> Part:
    late = 13 + n % 5
    patch, delete, inst = past_due(ctx.policy, late)
    fee_id = "FEE-00426"
    patch = merge(patch, fee(ctx.policy, fee_id, inst, day(-late + 11)))
    method, facts = _method(n + 1)
    return Part(
        opening="I want to pay everything I owe on my policy today.",
        goal="Pay what is owed",
        description="A past-due installment and its late fee: pay both.",
        facts=facts,
        patch=patch,
        delete=delete,
        golden=[
            _billing(ctx),
            call("pay_installment", installment_id=inst, method=method),
            call("pay_fee", fee_id=fee_id, method=method),
        ],
        invariants=[_paid(inst, method)],
        says="The installment and the late fee are paid.",
    )


def _any(pid: str) -> bool:
    return True


TEST = (
    Intent(
        "billing",
        "extension-capped",
        "installment",
        lambda p: _installment_plan(p) and not _extended(p),
        _extension_capped,
        excludes=("cancellation",),
        changed_from="Hi, I'd like to switch to monthly payments.",
    ),
    Intent(
        "billing",
        "pay-missed",
        "installment",
        _any,
        _pay_installment,
        excludes=("cancellation",),
    ),
    Intent(
        "billing",
        "plan-after-arrears",
        "installment",
        lambda p: _installment_plan(p) and _future(p),
        _plan_after_arrears,
        excludes=("cancellation",),
        changed_from="Hi, I'd like a few more days to pay my bill.",
    ),
    Intent(
        "billing",
        "nonpayment-rescind",
        "installment",
        _installment_plan,
        _nonpayment_rescind,
        excludes=("cancellation",),
    ),
    Intent(
        "billing",
        "waive-loyalty",
        "installment",
        _loyal,
        _waive_loyalty,
        excludes=("cancellation",),
        changed_from="Hi, I'd like to pay a late fee.",
    ),
)
TRAIN = (
    Intent(
        "billing",
        "extension-grant",
        "installment",
        lambda p: _installment_plan(p) and not _extended(p),
        _extension_grant,
        excludes=("cancellation",),
    ),
    Intent(
        "billing",
        "extension-past-grace",
        "installment",
        lambda p: _installment_plan(p) and not _extended(p),
        _extension_past_grace,
        excludes=("cancellation",),
    ),
    Intent(
        "billing",
        "plan-to-full",
        "installment",
        lambda p: _installment_plan(p) and _future(p),
        _plan_to_full,
        excludes=("cancellation",),
    ),
    Intent(
        "billing",
        "waive-first-time",
        "installment",
        lambda p: not _waived_this_year(p),
        _waive_first,
        excludes=("cancellation",),
    ),
    Intent("billing", "waive-billing-error", "installment", _any, _waive_error),
    Intent("billing", "fee-dispute", "fee", _any, _fee_dispute),
    Intent("billing", "pay-with-fee", "installment", _any, _pay_fee, excludes=("cancellation",)),
)
