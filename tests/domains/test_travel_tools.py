"""Travel's suite-2.0 preconditions beyond the rules of test_tool_rules.py: what an expired
card gets instead of a refund, and resolving a hotel escalation (policy §3.5, §3.6, §7.6).

Each test plays tool calls on the world of a generated v2 task, whose initial state holds
the expired card or the open escalation.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from fixtures.domain_desks import task_desk
from statebox.testing import Desk


@pytest.fixture
def expired_stay() -> Iterator[Desk]:
    """BK-100501: a flexible stay 9 days out, paid by a card that expired in January."""
    with task_desk("travel", "travel.cancel.expired-card-stay.001") as desk:
        yield desk


@pytest.fixture
def escalated_stay() -> Iterator[Desk]:
    """BK-100501: a flexible stay with the open escalation ESC-0401."""
    with task_desk("travel", "travel.cancel.escalated-stay.001") as desk:
        yield desk


def test_a_cancellation_to_travel_credit_issues_the_refund_as_an_expired_card_credit(
    expired_stay: Desk,
) -> None:
    total = expired_stay.value("select total from bookings where id = 'BK-100501'")
    expired_stay(
        "cancel_booking",
        booking_id="BK-100501",
        reason="customer_request",
        fee=0,
        refund_to="travel_credit",
    ).succeeded()
    credit = expired_stay.one(
        "select amount, reason, expires_on from travel_credits where booking_id = 'BK-100501'"
    )
    assert credit == {"amount": total, "reason": "expired_card", "expires_on": "2027-03-10"}
    assert expired_stay.rows("select id from refunds where booking_id = 'BK-100501'") == []
    assert expired_stay.value("select status from payments where id = 'PAY-100501'") == "captured"


def test_issue_refund_takes_a_card_valid_this_month(expired_stay: Desk) -> None:
    # Expired (2026-01): refused (test_tool_rules.py). A card whose last valid month is the
    # current one still takes a refund.
    refund = {"payment_id": "PAY-100501", "amount": 10, "reason": "goodwill"}
    expired_stay("issue_refund", **refund).refused("invalid_state")
    expired_stay.set("payments", {"id": "PAY-100501"}, {"card_expires": "2026-03"})
    expired_stay("issue_refund", **refund).succeeded()


def test_resolving_an_escalation_twice_or_an_unknown_one_is_refused(escalated_stay: Desk) -> None:
    resolve = "resolve_hotel_escalation"
    escalated_stay(resolve, escalation_id="ESC-9999", resolution="withdrawn").refused("not_found")
    escalated_stay(resolve, escalation_id="ESC-0401", resolution="withdrawn").succeeded()
    again = escalated_stay(resolve, escalation_id="ESC-0401", resolution="fixed_by_hotel")
    again.refused("invalid_state")
    resolution = "select resolution from hotel_escalations where id = 'ESC-0401'"
    assert escalated_stay.value(resolution) == "withdrawn"
