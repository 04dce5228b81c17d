"""The built-in suite's judge cannot be fooled by written text or by doing nothing.

Issue 13: text the agent wrote into the database was not judged although the field
policy said "judged by rubric" (finding 1), and an agent doing nothing passed every
read-only task (finding 4).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from fixtures.support import ScriptAgent, call, play
from statebox.agents import FaultInjectionFactory, FaultRates, TrialContext
from statebox.episode import Episode
from statebox.judge import Judge, YesJudge
from statebox.registry import default_registry
from statebox.tasks import GoldenCall, Task, WorldCache
from statebox.users import RuleUser
from statebox.world import effects


@pytest.fixture(scope="module")
def suite() -> dict[str, Task]:
    return {t.id: t for t in default_registry().suite("all@1.0")}


def replay_with(task: Task, tool: str, **changes: Any) -> ScriptAgent:
    """The golden calls as actions, with one tool's arguments changed."""
    calls = [
        GoldenCall(tool=c.tool, args={**c.args, **changes}) if c.tool == tool else c
        for c in task.golden
    ]
    return ScriptAgent([call(c.tool, **c.args) for c in calls], final=task.reference_response)


def verdict(task: Task, agent: ScriptAgent) -> Any:
    domain = default_registry().domain(task.domain)
    judge = Judge(domain, WorldCache(), skip_rubric=True)
    return asyncio.run(play(domain, task, agent, judge=judge)).verdict


def test_a_crm_note_that_records_nothing_fails(suite: dict[str, Task]) -> None:
    task = suite["auto_insurance.fnol.below-deductible.001"]
    assert verdict(task, replay_with(task, "add_crm_note")).passed  # the golden note
    v = verdict(task, replay_with(task, "add_crm_note", body="x"))
    assert not v.passed
    assert [c.name for c in v.checks if not c.passed] == ["text[0]"]
    assert v.comparison.matches  # the state check alone still says yes: the text is free
    # Other words, same facts: passes.
    (note,) = [c for c in task.golden if c.tool == "add_crm_note"]
    estimate = task.checks.text[0].must_contain[0]
    loss = task.checks.text[0].must_contain[1]
    body = f"Customer reported {loss} damage, shop estimate USD {estimate}.00; no claim filed."
    assert verdict(task, replay_with(task, "add_crm_note", body=body)).passed
    assert note.args["body"] != body


def test_an_internal_comment_with_a_wrong_refund_amount_fails(suite: dict[str, Task]) -> None:
    task = suite["retail.refunds.over-limit.001"]
    (comment,) = [c for c in task.golden if c.tool == "add_ticket_comment"]
    right = comment.args["body"]
    assert verdict(task, replay_with(task, "add_ticket_comment", body=right)).passed
    wrong = right.replace("$57.80", "$75.80")
    assert wrong != right
    v = verdict(task, replay_with(task, "add_ticket_comment", body=wrong))
    assert not v.passed
    assert any("lacks 57.8" in c.detail for c in v.checks if c.name.startswith("text"))


@pytest.mark.slow
def test_field_policy_reasons_are_true(suite: dict[str, Task]) -> None:
    # "judged by rubric" was printed for columns no check read. Every built-in excluded
    # column a golden run writes is read by that task's text check or declared dont_care.
    registry = default_registry()
    for name in registry.domain_names():
        for e in registry.domain(name).field_policy.excluded:
            assert "rubric" not in e.reason, (name, e)
            assert "text checks" in e.reason or "dont_care" in e.reason, (name, e)
    judges = {n: Judge(registry.domain(n), WorldCache()) for n in registry.domain_names()}
    for t in suite.values():
        judge = judges[t.domain]
        policy = judge.domain.field_policy
        initial = judge.worlds.initial_state(judge.domain, t)
        written = {
            (e.table, c)
            for e in effects(initial, judge.golden_states(t)[0])
            for c in e.changed
            if policy.is_excluded(e.table, c)
        }
        read = {(c.table, c.column) for c in t.checks.text}
        read |= {(d.table, d.column) for d in t.checks.dont_care}
        assert written <= read, (t.id, written - read)


async def _stop_at_once(task: Task, judge: Judge, rubric: object) -> bool:
    agent = FaultInjectionFactory(FaultRates(stop_early=1.0))(TrialContext(task, 0, 0))
    episode = Episode(judge.domain, task, RuleUser(task), worlds=judge.worlds)
    try:
        obs = await episode.reset()
        while not obs.done:
            obs = await episode.step(await agent.act(obs))
        return (await judge.judge(task, episode.outcome(), rubric=rubric)).passed  # type: ignore[arg-type]
    finally:
        episode.close()


def test_doing_nothing_passes_no_built_in_task(suite: dict[str, Task]) -> None:
    # Finding 4: the fault agent with stop_early=1.0 passed 95 of 573 tasks with no judge
    # (every read-only one). Run on those (the rest change the state, and fail on it).
    registry = default_registry()
    judges = {
        n: Judge(registry.domain(n), WorldCache(), skip_rubric=True)
        for n in registry.domain_names()
    }
    read_only = [t for t in suite.values() if t.read_only]
    assert len(read_only) == 95

    async def go() -> tuple[int, int]:
        without = sum([await _stop_at_once(t, judges[t.domain], None) for t in read_only])
        with_yes = sum([await _stop_at_once(t, judges[t.domain], YesJudge()) for t in read_only])
        return without, with_yes

    assert asyncio.run(go()) == (0, 0)


def test_asking_about_a_reason_is_not_telling_it() -> None:
    # Merge of issues 13 and 14: an agent that asks for the facts with their phrases ("Are
    # you their manager?") and stops passed the reply check of a refusal whose reason is
    # "manager" (8 read-only built-in tasks with a judge that says yes, 3 without).
    from statebox.judge import reply_checks
    from statebox.tasks import ReplyCheck

    def ok(check: ReplyCheck, *messages: str) -> bool:
        return all(c.passed for c in reply_checks(check, messages))

    reason = ReplyCheck(must_contain=("manager",))
    assert not ok(reason, "Happy to help. Could you tell me your email? Are you their manager?")
    assert not ok(reason, "Are you their manager?\nAll done: your request has been handled.")
    assert ok(reason, "Are you their manager? Only their manager can ask for this.")
    assert ok(reason, "I can't do that: only the employee's manager may. Anything else?")
    # A forbidden value is found in a question too: asking leaks it as much as saying it.
    assert not ok(ReplyCheck(must_not_contain=("Iyer",)), "Is the order Ms Iyer's?")
