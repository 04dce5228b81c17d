"""Think configurations against the loopback protocol server: the published tau-bench
tool, per-domain think prompts, Anthropic thinking budgets (blocks sent back) and OpenAI
reasoning effort, and where each thought fell among the tool calls."""

from __future__ import annotations

import asyncio
from typing import Any

from fixtures.protocol_server import Script, call, config_for, hub, serve
from fixtures.support import play
from statebox.agents import (
    TAU_BENCH_THINK_DESCRIPTION,
    THINK_GUIDANCE,
    LLMAgentFactory,
    TrialContext,
)
from statebox.domains import Domain
from statebox.llm import Reply
from statebox.registry import default_registry
from statebox.tasks import Task

PASSING = [
    Reply(calls=(call("think", thought="Rules: A1 must hold 40."),)),
    Reply(calls=(call("get_account", account_id="A1"),)),
    Reply(calls=(call("think", thought="Balance is enough."),)),
    Reply(calls=(call("transfer", src="A1", dst="A2", amount=40),)),
    Reply(text="I moved 40 dollars to Bo. <DONE>"),
]


def _run(
    toy_domain: Domain, task: Task, replies: list[Reply], provider: str = "openai", **opts: Any
) -> tuple[Any, Script, Any]:
    script = Script(replies)

    async def go() -> tuple[Any, Any]:
        h = hub()
        model = {
            k: opts.pop(k) for k in ("thinking_budget_tokens", "reasoning_effort") if k in opts
        }
        factory = LLMAgentFactory(h, config_for(server, provider, **model), **opts)
        agent = factory(TrialContext(task, 0, 0))
        try:
            played = await play(toy_domain, task, agent)
        finally:
            await h.aclose()
        return played, (agent, factory)

    with serve(script) as server:
        played, made = asyncio.run(go())
    return played, script, made


def test_the_published_think_tool_is_offered_verbatim(toy_domain: Domain, task: Task) -> None:
    played, script, (agent, factory) = _run(toy_domain, task, PASSING, think_tool="tau-bench")
    assert played.verdict.passed
    body = script.seen[0].body
    (think,) = [t["function"] for t in body["tools"] if t["function"]["name"] == "think"]
    assert think["description"] == TAU_BENCH_THINK_DESCRIPTION
    assert think["description"].startswith("Use the tool to think about something.")
    assert think["parameters"]["required"] == ["thought"]
    assert list(think["parameters"]["properties"]) == ["thought"]
    assert THINK_GUIDANCE not in script.seen[0].system  # the published config: tool only
    assert agent.thoughts == ["Rules: A1 must hold 40.", "Balance is enough."]
    assert agent.thought_steps == [0, 1]  # before any call, then after get_account
    assert factory.config["think_tool"] == "tau-bench"


def test_statebox_think_keeps_its_config_and_id(toy_domain: Domain, task: Task) -> None:
    _, script, (_, factory) = _run(toy_domain, task, PASSING, think=True)
    assert THINK_GUIDANCE in script.seen[0].system
    # Nothing new in the config of an agent configured as before: its id is unchanged.
    assert not {"think_tool", "think_prompts_sha256", "thinking_budget_tokens"} & set(
        factory.config
    )


def test_think_prompt_of_the_task_domain_goes_in_the_system_prompt(
    toy_domain: Domain, task: Task
) -> None:
    prompts = {"toy": "## Using the think tool\nExample: check A1's balance.", "other": "NOPE"}
    _, script, (_, factory) = _run(
        toy_domain, task, PASSING, think_tool="tau-bench", think_prompts=prompts
    )
    system = script.seen[0].system
    assert "Example: check A1's balance." in system and "NOPE" not in system
    assert system.index("Example: check A1") < system.index("# Policy")
    assert len(factory.config["think_prompts_sha256"]) == 12


def test_every_built_in_domain_ships_a_think_prompt_with_examples() -> None:
    registry = default_registry()
    for name in ("retail", "travel", "auto_insurance", "neobank_it", "consulting_hr"):
        prompt = registry.domain(name).think_prompt
        assert prompt is not None, name
        assert "<think_tool_example_1>" in prompt and "<think_tool_example_2>" in prompt
        assert "list the specific rules" in prompt


def test_anthropic_thinking_budget_is_sent_and_blocks_come_back(
    toy_domain: Domain, task: Task
) -> None:
    replies = [
        Reply(thinking="I should look up A1 first.", calls=(call("get_account", account_id="A1"),)),
        Reply(calls=(call("transfer", src="A1", dst="A2", amount=40),)),
        Reply(text="Done. <DONE>"),
    ]
    played, script, (_, factory) = _run(
        toy_domain, task, replies, "anthropic", thinking_budget_tokens=2048
    )
    assert played.verdict.passed
    first = script.seen[0].body
    assert first["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert first["max_tokens"] == 4096 + 2048 and "temperature" not in first
    # The signed thinking block goes back before the tool call it came with.
    assistant = next(m for m in script.seen[1].body["messages"] if m["role"] == "assistant")
    assert assistant["content"][0] == {
        "type": "thinking",
        "thinking": "I should look up A1 first.",
        "signature": "sig-1",
    }
    assert assistant["content"][1]["type"] == "tool_use"
    assert factory.config["thinking_budget_tokens"] == 2048


def test_openai_reasoning_effort_is_sent(toy_domain: Domain, task: Task) -> None:
    _, script, (_, factory) = _run(
        toy_domain, task, PASSING[1:2] + PASSING[3:], reasoning_effort="high"
    )
    assert script.seen[0].body["reasoning_effort"] == "high"
    assert factory.config["reasoning_effort"] == "high"
