"""How the policy reaches the agent: prompt, search or both; step tools only where recorded."""

from __future__ import annotations

import asyncio

import pytest

from fixtures.support import ScriptAgent, call, play, task_from
from fixtures.toy import FIELD_POLICY, SCHEMA, SEED, TOOLS
from statebox.domains import Domain
from statebox.episode import Episode, Observation
from statebox.kit import POLICY_MODES
from statebox.tasks import Task
from statebox.tools import tool
from statebox.users import RuleUser
from statebox.world import WorldTx

POLICY = """# Toy bank policy

## 1. Transfers

Move money only between active accounts, and only what the owner asks for.

## 2. Freezing

Freeze an account only when its owner asks.
<!-- steps -->
Record the owner's request with `record_request` first.
<!-- /steps -->
"""


@tool(mutates=True)
def record_request(tx: WorldTx, account_id: str) -> str:
    """Record that the owner asked.

    Args:
        account_id: Account id.
    """
    tx.insert("notes", {"id": "N-R", "account_id": account_id, "body": "asked", "created_at": "x"})
    return "recorded"


def _domain() -> Domain:
    return Domain(
        name="toy",
        schema_sql=SCHEMA,
        seed=SEED,
        tools=TOOLS,
        policy=POLICY,
        field_policy=FIELD_POLICY,
        step_tools=[record_request],
    )


def _start(domain: Domain, task: Task, mode: str | None = None) -> Observation:
    ep = Episode(domain, task, RuleUser(task), policy_mode=mode)  # type: ignore[arg-type]
    try:
        return asyncio.run(ep.reset())
    finally:
        ep.close()


def _names(obs: Observation) -> list[str]:
    return [t.name for t in obs.tools]


def test_prompt_is_the_default_and_serves_what_it_always_did(task: Task) -> None:
    d = _domain()
    obs = _start(d, task)
    assert obs.policy_mode == "prompt"
    assert obs.policy == d.policy == POLICY.split("<!-- steps -->")[0]
    assert _names(obs) == ["add_note", "delete_note", "get_account", "set_status", "transfer"]


@pytest.mark.parametrize("mode", POLICY_MODES)
def test_each_mode_changes_what_reaches_the_agent(task: Task, mode: str) -> None:
    d = _domain()
    obs = _start(d, task, mode)
    assert obs.policy_mode == mode
    assert ("search_policy" in _names(obs)) == (mode != "prompt")
    assert ("Move money only between active accounts" in obs.policy) == (mode != "search")
    if mode == "search":
        assert obs.policy.startswith("# Toy bank policy\n")
        assert "search_policy" in obs.policy and "3 articles" in obs.policy
    assert "record_request" not in obs.policy and "record_request" not in _names(obs)


def test_the_task_chooses_unless_the_campaign_does(task: Task) -> None:
    d = _domain()
    searching = task_from(task, policy_mode="search")
    assert _start(d, searching).policy_mode == "search"
    assert _start(d, searching, "both").policy_mode == "both"
    with pytest.raises(ValueError):
        task_from(task, policy_mode="index")


def test_recording_steps_offers_the_step_tools_and_their_policy(task: Task) -> None:
    d = _domain()
    recording = task_from(task, record_steps=True)
    obs = _start(d, recording)
    assert "record_request" in _names(obs)
    assert "Record the owner's request with `record_request` first." in obs.policy
    # The search index serves the same text as the prompt would.
    found = d.knowledge_base(record_steps=True).search("record request")
    assert found[0]["article"] == "2-freezing" and "record_request" in found[0]["text"]
    assert all("record_request" not in a.text for a in d.knowledge_base().articles)
    # An allowlist is the task's own choice: no step tools are added to it.
    narrow = task_from(recording, tools=["get_account", "transfer"])
    assert _names(_start(d, narrow, "both")) == ["get_account", "search_policy", "transfer"]


def test_searching_the_policy_leaves_the_verdict_alone(task: Task) -> None:
    d = _domain()
    searching = task_from(task, policy_mode="search")
    agent = ScriptAgent(
        [
            call("search_policy", query="transfer between active accounts"),
            call("get_account", account_id="A1"),
            call("transfer", src="A1", dst="A2", amount=40),
        ]
    )
    played = asyncio.run(play(d, searching, agent))
    assert played.verdict.passed
    search = played.transcript[1].result
    assert search is not None and search.ok and not search.wrote
    assert search.output["results"][0]["article"] == "1-transfers"
    # Without search mode the tool is not there, and saying its name gets nothing.
    hidden = asyncio.run(play(d, task, ScriptAgent([call("search_policy", query="x")])))
    first = hidden.transcript[1].result
    assert first is not None and first.error is not None and first.error.kind == "unknown_tool"
