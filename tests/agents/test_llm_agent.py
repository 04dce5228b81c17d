"""The LLM agent on the toy domain, against the loopback protocol server."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from fixtures.protocol_server import Script, call, config_for, hub, serve
from fixtures.support import Played, calls_of, play, task_from
from statebox.agents import (
    AGENT_INSTRUCTIONS,
    SEARCH_GUIDANCE,
    THINK_GUIDANCE,
    LLMAgentFactory,
    TrialContext,
)
from statebox.domains import Domain
from statebox.episode import TerminationReason
from statebox.llm import Reply
from statebox.records import TrialStatus, read_results
from statebox.registry import Registry
from statebox.runner import Campaign, run_campaign
from statebox.tasks import Task


def _play(
    toy_domain: Domain, task: Task, script: Script, provider: str = "openai", **opts: object
) -> tuple[Played, list[str]]:
    async def go() -> tuple[Played, list[str]]:
        h = hub()
        factory = LLMAgentFactory(h, config_for(server, provider), **opts)  # type: ignore[arg-type]
        agent = factory(TrialContext(task, 0, 0))
        try:
            played = await play(toy_domain, task, agent)
        finally:
            await h.aclose()
        return played, list(getattr(agent, "thoughts", []))

    with serve(script) as server:
        return asyncio.run(go())


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_parallel_calls_then_done_pass_the_task(
    toy_domain: Domain, task: Task, provider: str
) -> None:
    script = Script(
        [
            Reply(
                calls=(
                    call("get_account", account_id="A1"),
                    call("transfer", src="A1", dst="A2", amount=40),
                )
            ),
            Reply(text="I moved 40 dollars to Bo. <DONE>"),
        ]
    )
    played, _ = _play(toy_domain, task, script, provider)
    assert played.verdict.passed
    assert played.termination == TerminationReason.AGENT_END
    assert calls_of(played.transcript) == [
        ("get_account", {"account_id": "A1"}),
        ("transfer", {"src": "A1", "dst": "A2", "amount": 40}),
    ]
    assert played.transcript[-1].text == "I moved 40 dollars to Bo."
    first, second = script.seen
    assert first.system.startswith(AGENT_INSTRUCTIONS)
    assert toy_domain.policy.strip()[:40] in first.system
    assert sorted(first.tools) == list(toy_domain.offered())
    assert [m["role"] for m in second.messages] == ["user", "assistant", "tool", "tool"]
    assert json.loads(second.messages[2]["text"])["id"] == "A1"


@pytest.mark.parametrize("mode", ["prompt", "search", "both"])
def test_the_system_prompt_carries_the_policy_as_the_mode_serves_it(
    toy_domain: Domain, task: Task, mode: str
) -> None:
    script = Script(
        [
            Reply(calls=(call("search_policy", query="freeze accounts"),)),
            Reply(text="Nothing to do. <DONE>"),
        ]
    )
    played, _ = _play(toy_domain, task_from(task, policy_mode=mode), script)
    first, second = script.seen
    policy_in_prompt = toy_domain.policy in first.system
    assert policy_in_prompt == (mode != "search")
    assert (SEARCH_GUIDANCE in first.system) == (mode == "search")
    assert ("search_policy" in first.tools) == (mode != "prompt")
    searched = next(e.result for e in played.transcript if e.result is not None)
    assert searched is not None and searched.ok == (mode != "prompt")
    if mode != "prompt":
        assert toy_domain.policy in second.messages[-1]["text"]  # the article came back


def test_malformed_json_and_unknown_tool_return_errors_to_the_model(
    toy_domain: Domain, task: Task
) -> None:
    script = Script(
        [
            Reply(calls=(("transfer", '{"src": "A1",'), call("wire_money", to="Bo"))),
            Reply(text="Sorry, I could not do it. <DONE>"),
        ]
    )
    played, _ = _play(toy_domain, task, script)
    results = [e.result for e in played.transcript if e.result is not None]
    assert [(r.tool, r.ok, r.error.kind if r.error else None) for r in results] == [
        ("transfer", False, "invalid_arguments"),
        ("wire_money", False, "unknown_tool"),
    ]
    tool_texts = [m["text"] for m in script.seen[1].messages if m["role"] == "tool"]
    assert "arguments are not valid JSON" in tool_texts[0]
    assert "no tool named 'wire_money'" in tool_texts[1]
    assert not played.verdict.passed
    assert played.verdict.signature is not None
    assert played.verdict.signature.value == "no_state_change"


def test_arguments_python_cannot_read_are_invalid_json_not_a_system_error(
    toy_domain: Domain, task: Task
) -> None:
    # An integer of 5,000 digits raises ValueError and 3,000 levels of nesting
    # RecursionError in json.loads, not JSONDecodeError: both ended the trial as a
    # system error (a re-run) instead of the model's refused call.
    huge = '{"account_id": ' + "9" * 5000 + "}"
    deep = '{"account_id": ' + "[" * 3000 + "]" * 3000 + "}"
    script = Script(
        [
            Reply(calls=(("get_account", huge), ("get_account", deep))),
            Reply(text="Sorry, I could not do it. <DONE>"),
        ]
    )
    played, _ = _play(toy_domain, task, script)
    results = [e.result for e in played.transcript if e.result is not None]
    assert [(r.ok, r.error.kind if r.error else None) for r in results] == [
        (False, "invalid_arguments"),
        (False, "invalid_arguments"),
    ]
    tool_texts = [m["text"] for m in script.seen[1].messages if m["role"] == "tool"]
    assert all("arguments are not valid JSON" in t for t in tool_texts)
    assert played.termination == TerminationReason.AGENT_END
    assert not played.verdict.passed


def test_text_without_marker_is_a_message_to_the_user(toy_domain: Domain, task: Task) -> None:
    script = Script(
        [
            Reply(text="What is your account number?"),
            Reply(calls=(call("transfer", src="A1", dst="A2", amount=40),)),
            Reply(text="Done. <DONE>"),
        ]
    )
    played, _ = _play(toy_domain, task, script)
    kinds = [e.kind for e in played.transcript]
    assert kinds == ["user_message", "agent_message", "user_message", "tool_call", "end"]
    # The rule user answers what was asked (its account id fact, by a default phrase).
    assert script.seen[1].messages[-1] == {
        "role": "user",
        "text": "My account id is A1.",
        "calls": 0,
    }
    assert played.verdict.passed


def test_think_tool_records_thoughts_and_changes_nothing(toy_domain: Domain, task: Task) -> None:
    script = Script(
        [
            Reply(
                calls=(
                    call("think", thought="Policy allows transfers between open accounts."),
                    call("transfer", src="A1", dst="A2", amount=40),
                )
            ),
            Reply(text="Done. <DONE>"),
        ]
    )
    played, thoughts = _play(toy_domain, task, script, think=True)
    assert thoughts == ["Policy allows transfers between open accounts."]
    assert calls_of(played.transcript) == [("transfer", {"src": "A1", "dst": "A2", "amount": 40})]
    assert "think" in script.seen[0].tools
    assert THINK_GUIDANCE in script.seen[0].system
    assert played.verdict.passed


def test_tool_call_limit_ends_the_trial_with_its_reason(
    registry: Registry, task: Task, results_dir: Path
) -> None:
    script = Script([], then=Reply(calls=(call("get_account", account_id="A1"),)))

    async def go() -> None:
        h = hub()
        factory = LLMAgentFactory(h, config_for(server), max_tool_calls=3)
        try:
            await run_campaign(Campaign([task], [factory], 1, results_dir), registry)
        finally:
            await h.aclose()

    with serve(script) as server:
        asyncio.run(go())
    (record,) = read_results(results_dir)
    assert record.termination == TerminationReason.MAX_TOOL_CALLS
    assert record.status == TrialStatus.FAILED
    assert len(calls_of(record.transcript)) == 3
    assert record.usage["agent"].calls == 4
