"""`statebox.rl.skyrl` against skyrl-gym's real code (0.4.0, installed with the dev extra).

skyrl-gym itself (``BaseTextEnv``, ``register``, ``make``) is the real package. SkyRL's
generator (skyrl-train) needs Ray, vLLM and torch, so `_agent_loop` is the minimal
contract of its ``skyrl_train/generators/skyrl_gym_generator.py`` ``agent_loop``:
``extras["max_turns"] = max_turns``; ``env = skyrl_gym.make(env_class,
env_config=..., extras=extras)``; ``prompt, _ = env.init(prompt)``; each generated text
goes to ``env.step(text)``; the trajectory's reward is the last step's; then
``env.get_metrics()`` and ``env.close()``. Exceptions from ``step`` are not caught there.
The policy is scripted: it writes the task's golden trajectory as Hermes tool calls.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import skyrl_gym
from omegaconf import DictConfig

from fixtures.rl_support import explode, served_tasks
from fixtures.toy import SCHEMA, SEED, TOOLS, make_domain
from statebox.domains import Domain
from statebox.errors import ConfigError
from statebox.llm import DONE_MARKER
from statebox.rl import TrialSystemError
from statebox.rl.skyrl import (
    ENV_ID,
    SKYRL_GYM_VERSION,
    StateboxSkyRLEnv,
    parse_turn,
    register,
    rows,
)
from statebox.rl.trl import environment_class

Policy = Callable[[list[dict[str, Any]]], str]


@pytest.fixture
def registered() -> Iterator[None]:
    register(rollout_class=environment_class(served_tasks(), {"toy": make_domain()}))
    yield
    skyrl_gym.envs.registration.registry.pop(ENV_ID, None)


def _call(name: str, **args: Any) -> str:
    return f"<tool_call>{json.dumps({'name': name, 'arguments': args})}</tool_call>"


def _scripted(turns: list[str]) -> Policy:
    todo = list(turns)
    return lambda conversation: todo.pop(0)


def _agent_loop(
    policy: Policy, row: dict[str, Any], max_turns: int = 10, env_config: Any = None
) -> tuple[float, list[dict[str, Any]], dict[str, Any], StateboxSkyRLEnv]:
    """SkyRL's agent_loop (see the module docstring), with a scripted policy."""
    extras = {k: v for k, v in row.items() if k not in ("prompt", "env_class")}
    extras["max_turns"] = max_turns
    env = skyrl_gym.make(row["env_class"], env_config=env_config or DictConfig({}), extras=extras)
    conversation, _ = env.init([dict(m) for m in row["prompt"]])
    reward, done, last = 0.0, False, {}
    while not done:
        text = policy(conversation)
        out = env.step(text)
        conversation.append({"role": "assistant", "content": text})
        conversation.extend(out["observations"])
        reward, done, last = out["reward"], out["done"], out
    env.get_metrics()
    env.close()
    return reward, conversation, last, env


def _row(task_id: str) -> dict[str, Any]:
    return {
        "prompt": [{"role": "system", "content": "Be helpful."}, {"role": "user", "content": ""}],
        "env_class": ENV_ID,
        "task_id": task_id,
    }


GOLDEN = [
    _call("get_account", account_id="A1")
    + _call("transfer", src="A1", dst="A2", amount="forty"),  # refused, recorded
    _call("transfer", src="A1", dst="A2", amount=40),
    f"I moved 40 dollars from A1 to A2. {DONE_MARKER}",
]


def test_the_contract_followed_is_named() -> None:
    assert SKYRL_GYM_VERSION == "0.4.0"
    assert issubclass(StateboxSkyRLEnv, skyrl_gym.envs.base_text_env.BaseTextEnv)


@pytest.mark.usefixtures("registered")
def test_golden_trajectory_gets_reward_1_and_a_wrong_one_0_in_skyrl_s_loop() -> None:
    reward, conversation, last, env = _agent_loop(_scripted(GOLDEN), _row("toy.transfer.train.001"))
    assert reward == 1.0 and last["metadata"]["passed"] is True
    assert last["metadata"]["trial_id"] == env.trial_id
    system, user = conversation[0]["content"], conversation[1]["content"]
    assert "<tools>" in system and '"name": "transfer"' in system
    assert user.endswith("User: Please move 40 dollars from account A1 to account A2.")
    tool_out = [m["content"] for m in conversation if m["role"] == "tool"]
    assert json.loads(tool_out[0])["balance"] == 100
    assert json.loads(tool_out[1])["error"]["kind"] == "invalid_arguments"
    wrong = [_call("transfer", src="A1", dst="A2", amount=41), f"Done. {DONE_MARKER}"]
    reward, _, last, _ = _agent_loop(_scripted(wrong), _row("toy.transfer.train.001"))
    assert reward == 0.0 and last["metadata"]["signature"] == "wrong_state_update"


@pytest.mark.usefixtures("registered")
def test_intermediate_steps_have_reward_0_and_max_turns_ends_with_the_verdict() -> None:
    seen: list[float] = []
    env = skyrl_gym.make(
        ENV_ID,
        env_config=DictConfig({}),
        extras={"task_id": "toy.freeze.train.001", "max_turns": 2},
    )
    env.init([{"role": "user", "content": ""}])
    first = env.step(_call("set_status", account_id="A2", status="frozen"))
    seen.append(first["reward"])
    assert first["done"] is False
    second = env.step("Is there anything else?")  # a message to the user; the last turn
    assert seen == [0.0] and second["done"] is True and second["reward"] == 1.0
    assert second["observations"][0]["role"] == "user"
    env.close()


@pytest.mark.usefixtures("registered")
def test_the_policy_s_bad_calls_are_refusals_it_reads_never_errors() -> None:
    turns = [
        "<tool_call>{not json</tool_call>",
        _call("reset"),  # lifecycle names are not tools
        _call("get_account", account_id="A1", sudo=True),
        f"Sorry. {DONE_MARKER}",
    ]
    reward, conversation, _, _ = _agent_loop(_scripted(turns), _row("toy.transfer.train.001"))
    kinds = [json.loads(m["content"])["error"]["kind"] for m in conversation if m["role"] == "tool"]
    assert kinds == ["unknown_tool", "unknown_tool", "invalid_arguments"]
    assert reward == 0.0


def test_a_trajectory_statebox_cannot_run_raises_with_the_trial_id_never_minus_1() -> None:
    domain = Domain(name="toy", schema_sql=SCHEMA, seed=SEED, tools=[*TOOLS, explode], policy="")
    register(rollout_class=environment_class(served_tasks(), {"toy": domain}))
    try:
        turns = [_call("explode", account_id="A1"), f"Done. {DONE_MARKER}"]
        with pytest.raises(
            TrialSystemError, match=r"system_error in trial toy\.freeze\.train\.001/"
        ):
            _agent_loop(_scripted(turns), _row("toy.freeze.train.001"))
    finally:
        skyrl_gym.envs.registration.registry.pop(ENV_ID, None)


@pytest.mark.usefixtures("registered")
def test_test_tasks_are_refused_and_rows_come_from_trainserved_tasks() -> None:
    with pytest.raises(ConfigError, match="test task"):
        _agent_loop(_scripted([]), _row("toy.transfer.ask.001"))
    with pytest.raises(ConfigError, match="no task_id"):
        skyrl_gym.make(ENV_ID, env_config=DictConfig({}), extras={})
    built = rows("retail:train@1.0")
    assert built and {r["env_class"] for r in built} == {ENV_ID}
    assert all(r["task_id"].startswith("retail.") for r in built)
    with pytest.raises(ConfigError, match="train tasks only"):
        rows("retail:test@1.0")


def test_parse_turn_reads_hermes_calls() -> None:
    text = 'Let me look.<tool_call>{"name": "a", "arguments": {"x": 1}}</tool_call>' + _call("b")
    assert parse_turn(text) == [("a", {"x": 1}), ("b", {})]
    assert parse_turn('<tool_call>{"name": "a", "arguments": "{\\"x\\": 2}"}</tool_call>') == [
        ("a", {"x": 2})
    ]
    assert parse_turn("no calls") == []
