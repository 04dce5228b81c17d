"""The auto insurance tools' preconditions that suite 2.0's recovery tasks turn on.

Each test plays a built-in v2 task's world: the natural first attempt is refused with
the rule in its message (and writes nothing), and the policy's alternative goes through.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from statebox.domains.auto_insurance import DOMAIN
from statebox.tasks import Task, WorldCache, load_tasks
from statebox.tools import Dispatcher, ToolCall
from statebox.world import World

_ROOT = Path(__file__).resolve().parents[2] / "src/statebox/domains/auto_insurance/tasks_v2"


@pytest.fixture(scope="module")
def tasks() -> dict[str, Task]:
    return {t.id: t for t in load_tasks(_ROOT / "test")}


@pytest.fixture(scope="module")
def worlds() -> WorldCache:
    return WorldCache()


class Played:
    """A task's world with a dispatcher; the verification call already made."""

    def __init__(self, world: World, task: Task) -> None:
        self.world = world
        self.task = task
        self.dispatcher = Dispatcher(world, DOMAIN.tools, None)
        assert self.call(task.golden[0].tool, **task.golden[0].args).ok

    def call(self, tool: str, **args: Any) -> Any:
        return self.dispatcher.call(ToolCall(tool=tool, args=args))

    def one(self, sql: str) -> Any:
        rows = self.world.query(sql)
        assert len(rows) == 1
        return next(iter(rows[0].values()))


def _first(tasks: dict[str, Task], intent: str) -> Task:
    """The task that makes only this request."""
    return next(
        t
        for t in tasks.values()
        if [x for x in t.tags if x.startswith("intent:")] == [f"intent:{intent}"]
    )


@pytest.fixture
def play(tasks: dict[str, Task], worlds: WorldCache) -> Iterator[Any]:
    opened: list[World] = []

    def start(intent: str) -> Played:
        task = _first(tasks, intent)
        world = worlds.clone(DOMAIN, task)
        opened.append(world)
        return Played(world, task)

    yield start
    for w in opened:
        w.close()


def _refused(result: Any, kind: str, *words: str) -> None:
    assert not result.ok
    assert result.error.kind == kind
    for w in words:
        assert w in result.error.message


def _golden(p: Played, tool: str, n: int = 0) -> dict[str, Any]:
    return [c.args for c in p.task.golden if c.tool == tool][n]


def test_an_extension_past_14_days_names_the_latest_date(play: Any) -> None:
    p = play("billing.extension-capped")
    wanted, latest = (_golden(p, "grant_payment_extension", k) for k in (0, 1))
    inst = wanted["installment_id"]
    before = p.one(f"select due_date from installments where id = '{inst}'")
    _refused(p.call("grant_payment_extension", **wanted), "invalid_state", latest["new_due_date"])
    assert p.one(f"select due_date from installments where id = '{inst}'") == before
    assert p.call("grant_payment_extension", **latest).ok
    # One extension per 365 days: a second one is refused.
    later = {**latest, "new_due_date": "2025-11-16"}
    _refused(p.call("grant_payment_extension", **later), "invalid_state", "365 days")


def test_a_plan_switch_waits_for_past_due_items(play: Any) -> None:
    p = play("billing.plan-after-arrears")
    switch = _golden(p, "change_payment_plan")
    pay = _golden(p, "pay_installment")
    _refused(p.call("change_payment_plan", **switch), "invalid_state", pay["installment_id"])
    assert p.call("pay_installment", **pay).ok
    assert p.call("change_payment_plan", **switch).ok


def test_a_nonpayment_cancellation_is_rescinded_only_once_all_is_paid(play: Any) -> None:
    p = play("billing.nonpayment-rescind")
    rescind = _golden(p, "rescind_cancellation")
    _refused(p.call("rescind_cancellation", **rescind), "invalid_state", "FEE-00421")
    assert p.call("pay_installment", **_golden(p, "pay_installment")).ok
    # Part paid: still refused, now naming only the fee.
    _refused(p.call("rescind_cancellation", **rescind), "invalid_state", "FEE-00421")
    assert p.call("pay_fee", **_golden(p, "pay_fee")).ok
    assert p.call("rescind_cancellation", **rescind).ok


def test_a_second_waiver_needs_five_years(play: Any) -> None:
    p = play("billing.waive-loyalty")
    first, loyal = (_golden(p, "waive_fee", k) for k in (0, 1))
    _refused(p.call("waive_fee", **first), "invalid_state", "365 days")
    assert p.call("waive_fee", **loyal).ok
    assert p.one("select waive_reason from fees where id = 'FEE-00432'") == "loyalty_courtesy"


def test_the_fifth_vehicle_is_refused_until_the_sold_one_is_removed(play: Any) -> None:
    p = play("policy.vehicle-replace")
    add = _golden(p, "add_vehicle")
    _refused(p.call("add_vehicle", **add), "invalid_state", "4 vehicles")
    assert p.call("remove_vehicle", **_golden(p, "remove_vehicle")).ok
    assert p.call("add_vehicle", **add).ok


def test_a_vehicle_with_an_open_claim_stays(play: Any) -> None:
    p = play("policy.vehicle-open-claim")
    _refused(p.call("remove_vehicle", **_golden(p, "remove_vehicle")), "invalid_state", "CLM-00441")


def test_a_high_risk_driver_is_not_added(play: Any) -> None:
    p = play("policy.driver-high-risk")
    _refused(p.call("add_driver", **_golden(p, "add_driver")), "invalid_state", "underwriting")
    ok = {**_golden(p, "add_driver"), "accidents_3y": 1, "violations_3y": 2}
    assert p.call("add_driver", **ok).ok


def test_a_financed_car_keeps_at_most_a_1000_deductible(play: Any) -> None:
    p = play("policy.deductible-lien-cap")
    high, allowed = (_golden(p, "change_deductible", k) for k in (0, 1))
    _refused(p.call("change_deductible", **high), "invalid_state", "$1000")
    assert p.call("change_deductible", **allowed).ok


def test_a_young_driver_keeps_liability_at_50_100(play: Any) -> None:
    p = play("policy.limit-youth-floor")
    low, floor = (_golden(p, "change_liability_limit", k) for k in (0, 1))
    _refused(p.call("change_liability_limit", **low), "invalid_state", "50/100")
    assert p.call("change_liability_limit", **floor).ok


def test_a_backdate_goes_back_at_most_30_days(play: Any) -> None:
    p = play("cancellation.backdate-capped")
    old, today = (_golden(p, "schedule_cancellation", k) for k in (0, 1))
    _refused(p.call("schedule_cancellation", **old), "invalid_state", "30 days")
    # Only a replaced coverage may be backdated at all.
    other = {**today, "effective_date": "2025-11-01", "reason": "customer_request"}
    _refused(p.call("schedule_cancellation", **other), "invalid_state", "before today")
    assert p.call("schedule_cancellation", **today).ok


def test_an_open_claim_blocks_cancellation(play: Any) -> None:
    p = play("cancellation.open-claim-escalate")
    _refused(
        p.call("schedule_cancellation", **_golden(p, "schedule_cancellation")),
        "invalid_state",
        "claims team",
    )


def test_a_claim_with_injuries_is_not_withdrawn(play: Any) -> None:
    p = play("claims.withdraw-injury")
    hurt, other = (_golden(p, "withdraw_claim", k) for k in (0, 1))
    _refused(p.call("withdraw_claim", **hurt), "invalid_state", "injuries")
    assert p.call("withdraw_claim", **other).ok
