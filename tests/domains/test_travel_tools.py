"""Travel's suite-2.0 preconditions: refunds cannot reach an expired card, and an open hotel
escalation blocks a cancellation until it is resolved (policy §3.5, §3.6, §7.6).

Each test plays tool calls on the world of a generated v2 task, whose initial state holds
the expired card or the open escalation.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from statebox.domains.travel import DOMAIN
from statebox.tasks import Task, WorldCache, load_tasks
from statebox.tools import Dispatcher, ToolCall, ToolResult
from statebox.world import World

FOLDER = Path(__file__).resolve().parents[2] / "src/statebox/domains/travel/tasks_v2/test"


@pytest.fixture(scope="module")
def tasks() -> dict[str, Task]:
    return {t.id: t for t in load_tasks(FOLDER)}


@pytest.fixture(scope="module")
def worlds() -> WorldCache:
    return WorldCache()


class Desk:
    """A world of one task and a dispatcher over every travel tool."""

    def __init__(self, world: World) -> None:
        self.world = world
        self._dispatch = Dispatcher(world, DOMAIN.tools, None)

    def __call__(self, tool: str, **args: Any) -> ToolResult:
        return self._dispatch.call(ToolCall(tool=tool, args=args))

    def one(self, sql: str) -> dict[str, Any]:
        row = self.world.query(sql)
        assert row, sql
        return dict(row[0])


def _desk(tasks: dict[str, Task], worlds: WorldCache, task_id: str) -> Iterator[Desk]:
    world = worlds.clone(DOMAIN, tasks[task_id])
    try:
        yield Desk(world)
    finally:
        world.close()


@pytest.fixture
def expired_stay(tasks: dict[str, Task], worlds: WorldCache) -> Iterator[Desk]:
    """BK-100501: a flexible stay 9 days out, paid by a card that expired in January."""
    yield from _desk(tasks, worlds, "travel.cancel.expired-card-stay.001")


@pytest.fixture
def escalated_stay(tasks: dict[str, Task], worlds: WorldCache) -> Iterator[Desk]:
    """BK-100501: a flexible stay with the open escalation ESC-0401."""
    yield from _desk(tasks, worlds, "travel.cancel.escalated-stay.001")


def test_a_cancellation_refund_to_an_expired_card_is_refused_and_changes_nothing(
    expired_stay: Desk,
) -> None:
    pay = expired_stay.one("select card_expires from payments where id = 'PAY-100501'")
    assert pay["card_expires"] == "2026-01"
    refused = expired_stay(
        "cancel_booking", booking_id="BK-100501", reason="customer_request", fee=0
    )
    assert not refused.ok and refused.error is not None
    assert refused.error.kind == "invalid_state"
    assert "expired" in refused.error.message
    assert expired_stay.one("select status from bookings where id = 'BK-100501'") == {
        "status": "confirmed"
    }


def test_a_cancellation_to_travel_credit_issues_the_refund_as_an_expired_card_credit(
    expired_stay: Desk,
) -> None:
    total = expired_stay.one("select total from bookings where id = 'BK-100501'")["total"]
    done = expired_stay(
        "cancel_booking",
        booking_id="BK-100501",
        reason="customer_request",
        fee=0,
        refund_to="travel_credit",
    )
    assert done.ok, done.error
    credit = expired_stay.one(
        "select amount, reason, expires_on from travel_credits where booking_id = 'BK-100501'"
    )
    assert credit == {"amount": total, "reason": "expired_card", "expires_on": "2027-03-10"}
    refunds = expired_stay.world.query("select id from refunds where booking_id = 'BK-100501'")
    assert refunds == []
    assert expired_stay.one("select status from payments where id = 'PAY-100501'") == {
        "status": "captured"
    }


def test_issue_refund_refuses_an_expired_card_but_not_a_card_valid_this_month(
    expired_stay: Desk,
) -> None:
    refused = expired_stay("issue_refund", payment_id="PAY-100501", amount=10, reason="goodwill")
    assert not refused.ok and refused.error is not None
    assert refused.error.kind == "invalid_state"
    # A card whose last valid month is the current one still takes a refund.
    with expired_stay.world.transaction() as tx:
        tx.execute("update payments set card_expires = '2026-03' where id = 'PAY-100501'")
    assert expired_stay("issue_refund", payment_id="PAY-100501", amount=10, reason="goodwill").ok


def test_an_open_hotel_escalation_blocks_cancelling_until_it_is_resolved(
    escalated_stay: Desk,
) -> None:
    args = {"booking_id": "BK-100501", "reason": "customer_request", "fee": 0}
    refused = escalated_stay("cancel_booking", **args)
    assert not refused.ok and refused.error is not None
    assert refused.error.kind == "invalid_state"
    assert "ESC-0401" in refused.error.message
    resolved = escalated_stay(
        "resolve_hotel_escalation", escalation_id="ESC-0401", resolution="guest_cancelled"
    )
    assert resolved.ok, resolved.error
    assert escalated_stay.one(
        "select status, resolution from hotel_escalations where id = 'ESC-0401'"
    ) == {"status": "resolved", "resolution": "guest_cancelled"}
    assert escalated_stay("cancel_booking", **args).ok


def test_resolving_an_escalation_twice_or_an_unknown_one_is_refused(
    escalated_stay: Desk,
) -> None:
    missing = escalated_stay(
        "resolve_hotel_escalation", escalation_id="ESC-9999", resolution="withdrawn"
    )
    assert missing.error is not None and missing.error.kind == "not_found"
    assert escalated_stay(
        "resolve_hotel_escalation", escalation_id="ESC-0401", resolution="withdrawn"
    ).ok
    again = escalated_stay(
        "resolve_hotel_escalation", escalation_id="ESC-0401", resolution="fixed_by_hotel"
    )
    assert again.error is not None and again.error.kind == "invalid_state"
    assert escalated_stay.one("select resolution from hotel_escalations where id = 'ESC-0401'") == {
        "resolution": "withdrawn"
    }
