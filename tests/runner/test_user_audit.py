"""Every trial records its user and the grounding audit; a user that invents an id is flagged."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from statebox.agents import OracleFactory
from statebox.episode import UserReply
from statebox.records import RESULTS_FILE, read_results, read_trial_rows
from statebox.registry import Registry
from statebox.report import summarize
from statebox.runner import Campaign, run_campaign
from statebox.tasks import Task


class _Inventor:
    """A user that makes up an order id and volunteers its account before it is asked."""

    def __init__(self, task: Task) -> None:
        self.task = task

    async def opening(self) -> str:
        return self.task.user.opening

    async def reply(self, agent_message: str) -> UserReply:
        return UserReply("My account id is A1, and the order is ORD-55555.", False)


def test_a_user_that_invents_an_order_id_is_flagged_in_the_results(
    registry: Registry, toy_tasks: list[Task], results_dir: Path
) -> None:
    c = Campaign(
        toy_tasks[:1],
        [OracleFactory()],
        2,
        results_dir,
        users=lambda task, trial: _Inventor(task),
        models={"user": "test:inventor"},
    )
    asyncio.run(run_campaign(c, registry))
    records = read_results(results_dir)
    assert len(records) == 2
    for r in records:
        assert r.user is not None and r.user.player == "test:inventor"
        audit = r.user.audit
        # The oracle asks three times for Bo's account, which never comes.
        assert (audit.user_turns, audit.ungrounded_turns) == (3, 3)
        assert {(u.kind, u.value) for u in audit.ungrounded} == {("identifier", "ord-55555")}
        # The oracle's first question asked for both facts: the account id was asked for.
        assert audit.volunteered == ()
    line = json.loads((results_dir / RESULTS_FILE).read_text().splitlines()[0])
    assert line["user"]["audit"]["ungrounded_turns"] == 3  # the flag is in results.jsonl
    rows = read_trial_rows(results_dir)  # the lean reader sees it too
    assert [(r.user_turns, r.ungrounded_turns) for r in rows] == [(3, 3), (3, 3)]
    users = summarize(rows)["users"]
    assert users["ungrounded_turn_share"] == 1.0 and users["trials_with_ungrounded"] == 2
    assert users["by_domain"]["toy"]["ungrounded_turns"] == 6


def test_the_rule_user_of_an_oracle_campaign_is_grounded(
    registry: Registry, toy_tasks: list[Task], results_dir: Path
) -> None:
    asyncio.run(run_campaign(Campaign(toy_tasks, [OracleFactory()], 1, results_dir), registry))
    records = read_results(results_dir)
    assert all(
        r.user and r.user.player == "rule" and r.user.behaviour == "cooperative" for r in records
    )
    assert sum(r.user.audit.user_turns for r in records if r.user) == 3
    assert all(
        r.user and not r.user.audit.ungrounded and not r.user.audit.volunteered for r in records
    )
