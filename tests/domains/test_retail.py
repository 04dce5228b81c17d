"""The built-in retail domain: its size, its tasks' validity and the key delivery case."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from fixtures.support import ScriptAgent, call, play
from statebox.domains.retail import DOMAIN
from statebox.judge import FailureSignature, Judge, validate_task
from statebox.registry import default_registry
from statebox.tasks import Task, WorldCache

KEY_TASK = "retail.delivery-exception.hold-ticket.001"


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    return default_registry().suite("retail")


def test_retail_has_the_promised_breadth(tasks: list[Task]) -> None:
    tables = DOMAIN.template().tables
    assert len(tables) >= 12
    mutating = [t for t in DOMAIN.tools.values() if t.mutates]
    assert len(DOMAIN.tools) >= 25
    assert 0 < len(mutating) < len(DOMAIN.tools)
    assert len(tasks) >= 40
    families = Counter(t.family for t in tasks)
    assert len(families) >= 8
    assert "delivery-exception" in families
    assert any(t.split == "train" for t in tasks)
    # Nothing but free text is left out of comparison.
    assert {(e.table, e.column) for e in DOMAIN.field_policy.excluded} == {
        ("ticket_comments", "body"),
        ("tickets", "subject"),
        ("warranty_claims", "description"),
    }


def test_refunding_while_the_carrier_exception_is_open_fails(tasks: list[Task]) -> None:
    task = next(t for t in tasks if t.id == KEY_TASK)
    refunding = ScriptAgent(
        [
            call("get_order", order_id="ORD-10000020"),
            call("hold_ticket", ticket_id="20", reason="carrier"),
            call("issue_refund", order_id="ORD-10000020", amount=10.0, reason="late_delivery"),
        ],
        final="I've put your ticket on hold and refunded $10.",
    )
    played = asyncio.run(play(DOMAIN, task, refunding))
    assert not played.verdict.passed
    assert played.verdict.signature == FailureSignature.WRONG_STATE_UPDATE
    extra = {d.table for d in played.verdict.comparison.extra}
    assert "refunds" in extra
    # A tool-call grader sees a clean end after successful writes: it would be fooled.
    assert played.verdict.tool_grader_fooled

    holding = ScriptAgent(
        [call("hold_ticket", ticket_id="20", reason="carrier")],
        final="Your ticket is on hold until the carrier resolves the delay.",
    )
    assert asyncio.run(play(DOMAIN, task, holding)).verdict.passed


@pytest.mark.slow
def test_every_retail_task_is_valid_with_full_check_strength(tasks: list[Task]) -> None:
    judge = Judge(DOMAIN, WorldCache())

    async def go() -> list[tuple[str, bool, float | None, tuple[str, ...]]]:
        out = []
        for t in tasks:
            v = await validate_task(DOMAIN, t, judge)
            out.append((t.id, v.ok, v.check_strength, v.problems))
        return out

    results = asyncio.run(go())
    assert [r for r in results if not r[1]] == []
    assert {r[2] for r in results} == {1.0}
