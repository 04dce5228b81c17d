"""Billing tools: read an account, take payments, extend due dates, waive fees, change plans.

The tools enforce the ledger's consistency (pay only what is unpaid or charged, move a
due date only forward) and refuse, naming the rule, what policy.md forbids outright: an
extension past the grace period, past 14 days from the original due date, a second one
within 365 days or on a policy pending cancellation (§5.3); a courtesy waiver beyond the
waiver history's allowance or of a returned-payment fee (§5.4); a switch to an
installment plan while anything is past due (§5.5). Which alternative to offer instead
is policy. Changing the payment plan voids the unpaid installments not yet due and
re-spreads their balance (less the old per-installment fee) over the new schedule up to
the end of the term, adding the new plan's fee to each new installment.
"""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from datetime import date, timedelta
from typing import Any, Literal

from statebox.domains.auto_insurance.seed import add_months
from statebox.domains.auto_insurance.tools._records import (
    iso_date,
    past_due_items,
    policy_row,
    require_active,
)
from statebox.kit import (
    Row,
    Table,
    Transition,
    cents,
    days_between,
    integer,
    money,
    new_id,
    stamp,
    text,
)
from statebox.tools import ToolError, tool
from statebox.world import WorldTx

__all__ = [
    "change_payment_plan",
    "get_billing",
    "grant_payment_extension",
    "pay_fee",
    "pay_installment",
    "waive_fee",
]

Method = Literal["card_on_file", "bank_on_file"]
_PLANS = {"pay_in_full": (12, 0.0), "quarterly": (3, 3.0), "monthly": (1, 5.0)}
_GRACE_DAYS = 10
_EXTENSION_MAX_DAYS = 14
_YEAR_DAYS = 365
_LOYAL_YEARS = 5


def _years_before(day: date, years: int) -> date:
    try:
        return day.replace(year=day.year - years)
    except ValueError:  # 29 February
        return day.replace(year=day.year - years, day=28)


def _extension_allowed(tx: WorldTx, row: Row, new: date) -> None:
    """Refuse an extension the policy does not allow (§5.3), saying which rule and the fix."""
    policy_id = text(row["policy_id"])
    policy = policy_row(tx, policy_id)
    if policy["status"] == "pending_cancellation":
        raise ToolError(
            "invalid_state", f"policy {policy_id} has a scheduled cancellation: no extension"
        )
    if days_between(row["due_date"], tx.today) > _GRACE_DAYS:
        raise ToolError(
            "invalid_state",
            f"installment {row['id']} is past its {_GRACE_DAYS}-day grace period: no extension",
        )
    recent = tx.query(
        "SELECT id, created_at FROM payment_extensions WHERE policy_id = ? ORDER BY id",
        [policy_id],
    )
    for ext in recent:
        if days_between(ext["created_at"], tx.today) <= _YEAR_DAYS:
            raise ToolError(
                "invalid_state",
                f"extension {ext['id']} was granted on this policy in the last {_YEAR_DAYS} days",
            )
    latest = date.fromisoformat(text(row["original_due_date"])) + timedelta(
        days=_EXTENSION_MAX_DAYS
    )
    if new > latest:
        raise ToolError(
            "invalid_state",
            f"the new due date may be at most {_EXTENSION_MAX_DAYS} days after the original due "
            f"date {row['original_due_date']}: the latest is {latest.isoformat()}",
        )


def _waiver_allowed(tx: WorldTx, row: Row, reason: str) -> None:
    """Refuse a waiver the policy does not allow (§5.4)."""
    if row["kind"] == "returned_payment_fee":
        raise ToolError(
            "not_permitted", "returned-payment fees are not waived; a dispute goes to billing"
        )
    if reason == "billing_error":
        return
    # A waiver is dated by its fee's charge (created_at), as the waiver history reads.
    waived = [
        r
        for r in tx.query(
            "SELECT created_at FROM fees WHERE policy_id = ? AND kind = 'late_fee' "
            "AND status = 'waived'",
            [row["policy_id"]],
        )
        if days_between(r["created_at"], tx.today) <= _YEAR_DAYS
    ]
    if reason == "first_time_courtesy" and waived:
        raise ToolError(
            "invalid_state",
            f"a late fee on this policy was already waived in the last {_YEAR_DAYS} days",
        )
    if reason == "loyalty_courtesy":
        policy = policy_row(tx, text(row["policy_id"]))
        customer = tx.one(
            "SELECT customer_since FROM customers WHERE id = ?", [policy["customer_id"]]
        )
        assert customer is not None  # foreign key
        since = date.fromisoformat(text(customer["customer_since"]))
        if since > _years_before(tx.today, _LOYAL_YEARS):
            raise ToolError(
                "invalid_state", f"a loyalty courtesy needs {_LOYAL_YEARS} years as a customer"
            )
        if len(waived) >= 2:
            raise ToolError("invalid_state", "two late fees were already waived this year")


_INSTALLMENTS = Table("installments", "installment", "INS-300001-03")
_FEES = Table("fees", "fee", "FEE-00001")
_PAY_INSTALLMENT = Transition(_INSTALLMENTS, allowed=("unpaid",), to="paid", stamp="paid_at")
_PAY_FEE = Transition(
    _FEES,
    allowed=("charged",),
    to="paid",
    stamp="resolved_at",
    refusal="{noun} {id} is already {status}",
)


def _installment(tx: WorldTx, installment_id: str) -> Row:
    """An unpaid installment (its customer verified)."""
    row = _INSTALLMENTS.row(tx, installment_id)
    policy_row(tx, text(row["policy_id"]))
    return _PAY_INSTALLMENT.check(row)


def _fee(tx: WorldTx, fee_id: str) -> Row:
    """A charged fee (its customer verified)."""
    row = _FEES.row(tx, fee_id)
    policy_row(tx, text(row["policy_id"]))
    return _PAY_FEE.check(row)


def _pay(
    tx: WorldTx,
    row: Row,
    method: str,
    *,
    installment_id: str | None = None,
    fee_id: str | None = None,
) -> Row:
    """Record a payment of ``row``'s amount (an installment or a fee) with a method on file."""
    return tx.insert(
        "payments",
        {
            "id": new_id(tx, "payments", "PMT-"),
            "policy_id": row["policy_id"],
            "installment_id": installment_id,
            "fee_id": fee_id,
            "amount": money(row["amount"]),
            "method": method,
            "created_at": stamp(tx),
        },
    )


@tool(mutates=False)
def get_billing(tx: WorldTx, policy_id: str) -> dict[str, Any]:
    """Get a policy's billing: plan, installments, fees, payments and payment extensions.

    Args:
        policy_id: Policy number, such as 'POL-300001'.
    """
    policy_row(tx, policy_id)
    by = [policy_id]
    return {
        "policy_id": policy_id,
        "as_of": tx.today.isoformat(),
        "plan": tx.one("SELECT * FROM installment_plans WHERE policy_id = ?", by),
        "installments": tx.query("SELECT * FROM installments WHERE policy_id = ? ORDER BY seq", by),
        "fees": tx.query("SELECT * FROM fees WHERE policy_id = ? ORDER BY id", by),
        "payments": tx.query("SELECT * FROM payments WHERE policy_id = ? ORDER BY id", by),
        "extensions": tx.query(
            "SELECT * FROM payment_extensions WHERE policy_id = ? ORDER BY id", by
        ),
    }


@tool(mutates=True)
def pay_installment(tx: WorldTx, installment_id: str, method: Method) -> dict[str, Any]:
    """Pay one unpaid installment in full with a payment method on file.

    Args:
        installment_id: Installment id, such as 'INS-300001-03'.
        method: The payment method on file to charge.
    """
    row = _installment(tx, installment_id)
    payment = _pay(tx, row, method, installment_id=installment_id)
    _PAY_INSTALLMENT.write(tx, row)
    return {"installment_id": installment_id, "status": "paid", "payment": payment}


@tool(mutates=True)
def pay_fee(tx: WorldTx, fee_id: str, method: Method) -> dict[str, Any]:
    """Pay a charged fee with a payment method on file.

    Args:
        fee_id: Fee id, such as 'FEE-00001'.
        method: The payment method on file to charge.
    """
    row = _fee(tx, fee_id)
    payment = _pay(tx, row, method, fee_id=fee_id)
    _PAY_FEE.write(tx, row)
    return {"fee_id": fee_id, "status": "paid", "payment": payment}


@tool(mutates=True)
def waive_fee(
    tx: WorldTx,
    fee_id: str,
    reason: Literal["first_time_courtesy", "loyalty_courtesy", "billing_error"],
) -> dict[str, Any]:
    """Waive a charged fee.

    Args:
        fee_id: Fee id, such as 'FEE-00001'.
        reason: Why the fee is waived.
    """
    row = _fee(tx, fee_id)
    _waiver_allowed(tx, row, reason)
    values = {"status": "waived", "waive_reason": reason, "resolved_at": stamp(tx)}
    _FEES.update(tx, row, values)
    return {"fee_id": fee_id, **values}


@tool(mutates=True)
def grant_payment_extension(tx: WorldTx, installment_id: str, new_due_date: str) -> dict[str, Any]:
    """Move an unpaid installment's due date later; the extension is recorded.

    Args:
        installment_id: Installment id, such as 'INS-300001-03'.
        new_due_date: The new due date, 'YYYY-MM-DD'; later than the current one.
    """
    row = _installment(tx, installment_id)
    day = iso_date(new_due_date, "new_due_date")
    new = day.isoformat()
    if new <= text(row["due_date"]):
        raise ToolError("invalid_state", f"the new due date must be after {row['due_date']}")
    _extension_allowed(tx, row, day)
    ext = tx.insert(
        "payment_extensions",
        {
            "id": new_id(tx, "payment_extensions", "EXT-"),
            "policy_id": row["policy_id"],
            "installment_id": installment_id,
            "old_due_date": row["due_date"],
            "new_due_date": new,
            "created_at": stamp(tx),
        },
    )
    _INSTALLMENTS.update(tx, row, {"due_date": new})
    return {"installment_id": installment_id, "due_date": new, "extension": ext}


@tool(mutates=True)
def change_payment_plan(
    tx: WorldTx, policy_id: str, plan: Literal["pay_in_full", "quarterly", "monthly"]
) -> dict[str, Any]:
    """Switch a policy's payment plan; unpaid installments not yet due are re-spread over it.

    Args:
        policy_id: Policy number, such as 'POL-300001'.
        plan: The new plan.
    """
    policy = policy_row(tx, policy_id)
    require_active(policy)
    current = tx.one("SELECT * FROM installment_plans WHERE policy_id = ?", [policy_id])
    assert current is not None  # every policy has a plan
    if current["plan"] == plan:
        raise ToolError("invalid_state", f"the policy is already on the {plan} plan")
    owed = past_due_items(tx, policy_id)
    if plan != "pay_in_full" and owed:
        raise ToolError(
            "invalid_state",
            f"past-due items must be paid before a switch to {plan}: {', '.join(owed)}",
        )
    today = tx.today.isoformat()
    future = tx.query(
        "SELECT * FROM installments WHERE policy_id = ? AND status = 'unpaid' AND due_date >= ? "
        "ORDER BY seq",
        [policy_id, today],
    )
    if not future:
        raise ToolError("invalid_state", "no installment is left to re-spread in this term")
    old_fee = money(current["installment_fee"])
    balance = cents(sum(money(r["amount"]) - old_fee for r in future))
    step, fee = _PLANS[plan]
    first = date.fromisoformat(text(future[0]["due_date"]))
    end = text(policy["term_end"])
    dues = []
    k = 0
    while add_months(first, k * step).isoformat() < end and (k == 0 or plan != "pay_in_full"):
        dues.append(add_months(first, k * step))
        k += 1
    last_seq = tx.one("SELECT max(seq) AS n FROM installments WHERE policy_id = ?", [policy_id])
    seq = integer(last_seq["n"]) if last_seq else 0
    tx.execute(
        "UPDATE installments SET status = 'void' WHERE policy_id = ? AND status = 'unpaid' "
        "AND due_date >= ?",
        [policy_id, today],
    )
    share = cents(balance / len(dues))
    created = []
    for n, due in enumerate(dues):
        part = share if n < len(dues) - 1 else cents(balance - share * (len(dues) - 1))
        seq += 1
        created.append(
            tx.insert(
                "installments",
                {
                    "id": f"INS-{policy_id.removeprefix('POL-')}-{seq:02d}",
                    "policy_id": policy_id,
                    "seq": seq,
                    "original_due_date": due.isoformat(),
                    "due_date": due.isoformat(),
                    "amount": cents(part + fee),
                    "status": "unpaid",
                    "paid_at": None,
                },
            )
        )
    tx.update(
        "installment_plans",
        {"policy_id": policy_id},
        {"plan": plan, "installment_fee": fee, "changed_at": stamp(tx)},
    )
    return {"policy_id": policy_id, "plan": plan, "installments": created}
