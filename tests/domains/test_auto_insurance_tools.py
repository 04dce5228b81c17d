"""The auto insurance tools' preconditions that suite 2.0's recovery tasks turn on, where a
rule says more than "refused, then the way out succeeds" (test_tool_rules.py has those).

Each test plays a built-in v2 task's world: the natural first attempt is refused with
the rule in its message (and writes nothing), and the policy's alternative goes through.
"""

from __future__ import annotations

from fixtures.domain_desks import auto_desk, golden


def test_an_extension_past_14_days_names_the_latest_date() -> None:
    desk, task = auto_desk("billing.extension-capped")
    with desk:
        wanted, latest = (golden(task, "grant_payment_extension", k) for k in (0, 1))
        due = f"select due_date from installments where id = '{wanted['installment_id']}'"
        before = desk.value(due)
        desk("grant_payment_extension", **wanted).refused("invalid_state", latest["new_due_date"])
        assert desk.value(due) == before
        desk("grant_payment_extension", **latest).succeeded()
        # One extension per 365 days: a second one is refused.
        later = {**latest, "new_due_date": "2025-11-16"}
        desk("grant_payment_extension", **later).refused("invalid_state", "365 days")


def test_a_nonpayment_cancellation_is_rescinded_only_once_all_is_paid() -> None:
    desk, task = auto_desk("billing.nonpayment-rescind")
    with desk:
        rescind = golden(task, "rescind_cancellation")
        desk("rescind_cancellation", **rescind).refused("invalid_state", "FEE-00421")
        desk("pay_installment", **golden(task, "pay_installment")).succeeded()
        # Part paid: still refused, now naming only the fee.
        desk("rescind_cancellation", **rescind).refused("invalid_state", "FEE-00421")
        desk("pay_fee", **golden(task, "pay_fee")).succeeded()
        desk("rescind_cancellation", **rescind).succeeded()


def test_a_backdate_goes_back_at_most_30_days() -> None:
    desk, task = auto_desk("cancellation.backdate-capped")
    with desk:
        old, today = (golden(task, "schedule_cancellation", k) for k in (0, 1))
        desk("schedule_cancellation", **old).refused("invalid_state", "30 days")
        # Only a replaced coverage may be backdated at all.
        other = {**today, "effective_date": "2025-11-01", "reason": "customer_request"}
        desk("schedule_cancellation", **other).refused("invalid_state", "before today")
        desk("schedule_cancellation", **today).succeeded()
