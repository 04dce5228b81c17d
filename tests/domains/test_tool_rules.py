"""The built-in domains' tool rules, one parametrised suite over all five domains.

Each rule refuses the natural first attempt with the kind and the words the policy points
to, and writes nothing; then the way out the policy gives succeeds. Each domain also
refuses a refund to an expired card. Rules with more to say than that keep their own
tests in tests/domains/test_<domain>_tools.py; all of them drive the tools through
`statebox.testing.Desk`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from fixtures.domain_desks import (
    NEOBANK_NOW,
    RETAIL_NOW,
    auto_desk,
    card_order,
    consulting_desk,
    domain,
    golden,
    task_desk,
)
from statebox.testing import Desk

Call = tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class Opened:
    """A rule's world and the calls the rule makes on it."""

    desk: Desk
    first: Call
    """The natural first attempt, refused."""
    way_out: tuple[Call, ...] = ()
    """The calls the policy's way out makes, each succeeding."""
    then: Call | None = None
    """The call that succeeds afterwards; None: none (the rule only refuses)."""
    words: tuple[str, ...] = ()
    """Words the refusal's message names (beyond the rule's own)."""


@dataclass(frozen=True)
class Rule:
    """A tool rule: how its world opens, the refusal it gives, what the success answers."""

    name: str
    open: Callable[[], Opened]
    kind: str
    words: tuple[str, ...] = ()
    gives: Callable[[Any], bool] = field(default=lambda out: True)
    """A property of the final call's output."""
    after: tuple[str, Any] | None = None
    """A query and its one value once the way out is done."""


def _auto(
    intent: str,
    first: str,
    way_out: tuple[str, ...] = (),
    then: str | None = None,
    *,
    k: tuple[int, int] = (0, 0),
    words_from: str | None = None,
    then_args: dict[str, Any] | None = None,
) -> Callable[[], Opened]:
    """An auto_insurance rule played from its task's golden calls (tool names; k: which call)."""

    def open_() -> Opened:
        desk, task = auto_desk(intent)
        final = None
        if then is not None:
            final = (then, {**golden(task, then, k[1]), **(then_args or {})})
        words = (golden(task, way_out[0])[words_from],) if words_from else ()
        return Opened(
            desk,
            (first, golden(task, first, k[0])),
            tuple((t, golden(task, t)) for t in way_out),
            final,
            words,
        )

    return open_


def _neobank_expired_grant() -> Opened:
    desk = Desk.seeded(domain("neobank_it"), NEOBANK_NOW)
    desk.set("access_grants", {"id": "GR-00001"}, {"expires_on": "2026-02-27"})
    extend = {"grant_id": "GR-00001", "expires_on": "2026-04-01"}
    return Opened(
        desk, ("extend_access", extend), (), ("extend_access", {**extend, "grant_id": "GR-00002"})
    )


def _neobank_grants_first() -> Opened:
    desk = Desk.seeded(domain("neobank_it"), NEOBANK_NOW)
    grants = [
        str(g["id"])
        for g in desk.rows(
            "SELECT id FROM access_grants WHERE employee_id = 'EMP-0045' AND status = 'active' "
            "ORDER BY id"
        )
    ]
    assert grants
    disable = ("disable_account", {"employee_id": "EMP-0045"})
    revokes = tuple(("revoke_access", {"grant_id": g, "reason": "offboarding"}) for g in grants)
    return Opened(desk, disable, revokes, disable, tuple(grants))


def _consulting(first: Call, way_out: tuple[Call, ...], words: str) -> Callable[[], Opened]:
    return lambda: Opened(consulting_desk(), first, way_out, first, (words,))


def _travel_escalation() -> Opened:
    desk = task_desk("travel", "travel.cancel.escalated-stay.001")
    cancel = ("cancel_booking", {"booking_id": "BK-100501", "reason": "customer_request", "fee": 0})
    resolve = (
        "resolve_hotel_escalation",
        {"escalation_id": "ESC-0401", "resolution": "guest_cancelled"},
    )
    return Opened(desk, cancel, (resolve,), cancel, ("ESC-0401",))


_LAPTOP = ("assign_equipment", {"employee_id": "EMP-0016", "asset_id": "AST-0102"})

RULES = [
    Rule(
        "auto_insurance: a plan switch waits for past-due items",
        _auto(
            "billing.plan-after-arrears",
            "change_payment_plan",
            ("pay_installment",),
            "change_payment_plan",
            words_from="installment_id",
        ),
        "invalid_state",
    ),
    Rule(
        "auto_insurance: a second waiver needs five years",
        _auto("billing.waive-loyalty", "waive_fee", then="waive_fee", k=(0, 1)),
        "invalid_state",
        ("365 days",),
        after=("select waive_reason from fees where id = 'FEE-00432'", "loyalty_courtesy"),
    ),
    Rule(
        "auto_insurance: the fifth vehicle is refused until the sold one is removed",
        _auto("policy.vehicle-replace", "add_vehicle", ("remove_vehicle",), "add_vehicle"),
        "invalid_state",
        ("4 vehicles",),
    ),
    Rule(
        "auto_insurance: a vehicle with an open claim stays",
        _auto("policy.vehicle-open-claim", "remove_vehicle"),
        "invalid_state",
        ("CLM-00441",),
    ),
    Rule(
        "auto_insurance: a high-risk driver is not added",
        _auto(
            "policy.driver-high-risk",
            "add_driver",
            then="add_driver",
            then_args={"accidents_3y": 1, "violations_3y": 2},
        ),
        "invalid_state",
        ("underwriting",),
    ),
    Rule(
        "auto_insurance: a financed car keeps at most a $1000 deductible",
        _auto(
            "policy.deductible-lien-cap", "change_deductible", then="change_deductible", k=(0, 1)
        ),
        "invalid_state",
        ("$1000",),
    ),
    Rule(
        "auto_insurance: a young driver keeps liability at 50/100",
        _auto(
            "policy.limit-youth-floor",
            "change_liability_limit",
            then="change_liability_limit",
            k=(0, 1),
        ),
        "invalid_state",
        ("50/100",),
    ),
    Rule(
        "auto_insurance: an open claim blocks a cancellation",
        _auto("cancellation.open-claim-escalate", "schedule_cancellation"),
        "invalid_state",
        ("claims team",),
    ),
    Rule(
        "auto_insurance: a claim with injuries is not withdrawn",
        _auto("claims.withdraw-injury", "withdraw_claim", then="withdraw_claim", k=(0, 1)),
        "invalid_state",
        ("injuries",),
    ),
    Rule(
        "consulting_hr: a second laptop is refused until the first is taken back",
        _consulting(
            _LAPTOP,
            (
                ("assign_equipment", {"employee_id": "EMP-0016", "asset_id": "AST-0201"}),
                ("return_equipment", {"asset_id": "AST-0016"}),
            ),
            "AST-0016",
        ),
        "invalid_state",
        gives=lambda out: out["employee_id"] == "EMP-0016",
    ),
    Rule(
        "consulting_hr: accounts are disabled only once a last day is recorded",
        _consulting(
            ("disable_all_accounts", {"employee_id": "EMP-0022"}),
            (("offboard_employee", {"employee_id": "EMP-0022", "last_day": "2026-03-01"}),),
            "offboard_employee",
        ),
        "invalid_state",
        gives=lambda out: bool(out["disabled"]),
    ),
    Rule(
        "neobank_it: an expired grant is not extended but a current one is",
        _neobank_expired_grant,
        "invalid_state",
        ("expired on 2026-02-27", "new access request"),
        gives=lambda out: out["expires_on"] == "2026-04-01",
    ),
    Rule(
        "neobank_it: an account is disabled only after its grants are revoked",
        _neobank_grants_first,
        "invalid_state",
        gives=lambda out: out["sso_status"] == "disabled",
    ),
    Rule(
        "travel: an open hotel escalation blocks cancelling until it is resolved",
        _travel_escalation,
        "invalid_state",
        after=(
            "select status || '/' || resolution from hotel_escalations where id = 'ESC-0401'",
            "resolved/guest_cancelled",
        ),
    ),
]


@pytest.fixture
def opened(request: pytest.FixtureRequest) -> Iterator[Opened]:
    rule: Rule = request.param
    o = rule.open()
    try:
        yield o
    finally:
        o.desk.close()


@pytest.mark.parametrize(
    ("rule", "opened"), [(r, r) for r in RULES], ids=[r.name for r in RULES], indirect=["opened"]
)
def test_a_rule_refuses_the_first_attempt_and_lets_the_way_out_through(
    rule: Rule, opened: Opened
) -> None:
    desk = opened.desk
    before = desk.world.state()
    tool, args = opened.first
    refused = desk(tool, **args).refused(rule.kind, *rule.words, *opened.words)
    assert not refused.wrote and desk.world.state() == before
    for step, step_args in opened.way_out:
        desk(step, **step_args).succeeded()
    if opened.then is not None:
        final, final_args = opened.then
        assert rule.gives(desk(final, **final_args).succeeded())
    if rule.after is not None:
        sql, value = rule.after
        assert desk.value(sql) == value


def _retail_expired_refund() -> tuple[Desk, Call, str]:
    desk = Desk.seeded(domain("retail"), RETAIL_NOW)
    order = card_order(desk)
    desk.set("payments", {"id": order["payment_id"]}, {"card_expires": "2025-09"})
    call = (
        "issue_refund",
        {"order_id": order["order_id"], "amount": 10.0, "reason": "lost_package"},
    )
    return desk, call, order["payment_id"]


def _travel_expired(call: Call) -> Callable[[], tuple[Desk, Call, str]]:
    """BK-100501: a flexible stay 9 days out, paid by PAY-100501, a card expired in January."""

    def open_() -> tuple[Desk, Call, str]:
        desk = task_desk("travel", "travel.cancel.expired-card-stay.001")
        assert desk.value("select card_expires from payments where id = 'PAY-100501'") == "2026-01"
        return desk, call, "PAY-100501"

    return open_


EXPIRED_CARD = {
    "retail issue_refund": _retail_expired_refund,
    "travel cancel_booking": _travel_expired(
        ("cancel_booking", {"booking_id": "BK-100501", "reason": "customer_request", "fee": 0})
    ),
    "travel issue_refund": _travel_expired(
        ("issue_refund", {"payment_id": "PAY-100501", "amount": 10, "reason": "goodwill"})
    ),
}


@pytest.mark.parametrize("case", list(EXPIRED_CARD))
def test_a_refund_to_an_expired_card_is_refused_and_changes_nothing(case: str) -> None:
    desk, (tool, args), payment = EXPIRED_CARD[case]()
    with desk:
        before = desk.world.state()
        refused = desk(tool, **args).refused("invalid_state", "expired", payment)
        assert not refused.wrote and desk.world.state() == before
