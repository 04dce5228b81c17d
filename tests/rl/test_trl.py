"""`statebox.rl.trl` against TRL's documented ``environment_factory`` contract.

TRL cannot be installed in CI without GPU packages (``trl`` needs ``accelerate``,
which needs ``torch``), so this test runs the contract of TRL `TRL_VERSION` (1.16.0):
`_TrlLoop` does what ``GRPOTrainer`` does in ``trl/trainer/grpo_trainer.py`` of that
release — probe one instance at init (``inspect.getmembers(type(env),
inspect.isfunction)``: ``reset`` required, ``get_reward`` the reward, every other public
function a tool), ``reset(**row)`` before each rollout (a returned string appended to
the last user message), each tool called as ``fn(**arguments)`` with an exception
shown as ``{"error": str(e)}`` and a result as ``str(result)``, an unknown name as
``ValueError("Tool X not found.")``, then ``get_reward()`` once per rollout; instances
are pooled and reused across batches.
"""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path
from typing import Any, get_type_hints

import pytest

from fixtures.rl_support import explode, served_tasks
from fixtures.toy import SCHEMA, SEED, TOOLS, make_domain
from statebox.domains import Domain
from statebox.errors import ConfigError
from statebox.rl import TrialSystemError
from statebox.rl.trl import TRL_VERSION, USER_TOOL, environment_class, rows
from statebox.serve import TaskCatalog

Call = tuple[str, dict[str, Any]]


class _TrlLoop:
    """TRL 1.16.0's environment-tool loop, with a scripted policy instead of a model."""

    def __init__(self, factory: Any) -> None:
        probe = factory()
        self.methods: list[str] = []
        has_reset = has_reward = False
        for name, _ in inspect.getmembers(type(probe), predicate=inspect.isfunction):
            if name == "reset":
                has_reset = True
            elif name == "get_reward":
                has_reward = True
            elif not name.startswith("_"):
                self.methods.append(name)
        assert has_reset and has_reward
        self.factory = factory
        self.pool = [probe]

    def rollouts(self, batch: list[tuple[dict[str, Any], list[Call]]]) -> list[Any]:
        """One batch: reset each pooled instance, run its scripted calls, score it."""
        while len(self.pool) < len(batch):
            self.pool.append(self.factory())
        out = []
        for env, (row, calls) in zip(self.pool, batch, strict=False):
            prompt = [dict(m) for m in row["prompt"]]
            observation = env.reset(**row)
            if observation is not None:
                prompt[-1]["content"] += observation
            tools = {
                n: getattr(env, n)
                for n, _ in inspect.getmembers(type(env), predicate=inspect.isfunction)
                if n not in ("reset", "get_reward") and not n.startswith("_")
            }
            messages = []
            for name, arguments in calls:
                try:
                    if name not in tools:
                        raise ValueError(f"Tool {name} not found.")
                    result = tools[name](**arguments)
                except Exception as e:
                    result = {"error": str(e)}
                messages.append({"role": "tool", "name": name, "content": str(result)})
            out.append((prompt, messages, env))
        return out


def _env_class(domain: Domain | None = None, **kwargs: Any) -> Any:
    return environment_class(served_tasks(), {"toy": domain or make_domain()}, **kwargs)


GOLDEN_TRANSFER: list[Call] = [
    ("get_account", {"account_id": "A1"}),
    ("transfer", {"src": "A1", "dst": "A2", "amount": "forty"}),  # refused, recorded
    ("transfer", {"src": "A1", "dst": "A2", "amount": 40}),
    (USER_TOOL, {"message": "I moved 40 dollars from A1 to A2."}),
]
WRONG_TRANSFER: list[Call] = [("transfer", {"src": "A1", "dst": "A2", "amount": 41})]
GOLDEN_FREEZE: list[Call] = [("set_status", {"account_id": "A2", "status": "frozen"})]


def _row(task_id: str) -> dict[str, Any]:
    (row,) = [r for r in rows(served_tasks()) if r["task_id"] == task_id]
    return row


def test_the_contract_followed_is_named() -> None:
    assert TRL_VERSION == "1.16.0"


def test_the_domain_tools_are_typed_documented_methods_and_the_user_is_a_tool() -> None:
    loop = _TrlLoop(_env_class())
    assert loop.methods == sorted(
        [
            "add_note",
            "delete_note",
            "get_account",
            "search_policy",
            "set_status",
            "transfer",
            USER_TOOL,
        ]
    )
    env = loop.pool[0]
    for name in loop.methods:
        method = getattr(env, name)
        # What transformers' get_json_schema (TRL renders tools with it) needs: a type for
        # every parameter and a Google-style ``Args:`` line for each.
        sig = inspect.signature(method)
        hints = get_type_hints(method)
        doc = inspect.getdoc(method) or ""
        summary, _, rest = doc.partition("\n\n")
        assert summary.strip(), name
        documented = set(re.findall(r"^\s{4}(\w+):", rest.split("Returns:")[0], re.M))
        assert documented == set(sig.parameters), name
        assert set(hints) == set(sig.parameters) | {"return"}, name
    transfer = inspect.signature(env.transfer)
    assert [(p.name, p.annotation) for p in transfer.parameters.values()] == [
        ("src", str),
        ("dst", str),
        ("amount", float),
    ]
    assert inspect.getdoc(env.transfer) == (
        "Move money between two active accounts.\n\n"
        "Args:\n"
        "    src: Paying account id.\n"
        "    dst: Receiving account id.\n"
        "    amount: Dollars, positive.\n\n"
        "Returns:\n"
        '    The tool\'s result as JSON, or {"error": {"kind", "message"}}.'
    )


def test_golden_trajectories_get_reward_1_and_wrong_ones_0_in_trl_s_loop() -> None:
    loop = _TrlLoop(_env_class())
    batch = [
        (_row("toy.transfer.train.001"), GOLDEN_TRANSFER),
        (_row("toy.transfer.train.001"), WRONG_TRANSFER),
        (_row("toy.freeze.train.001"), GOLDEN_FREEZE),
        (_row("toy.freeze.train.001"), []),  # did nothing
    ]
    done = loop.rollouts(batch)
    assert [env.get_reward() for _, _, env in done] == [1.0, 0.0, 1.0, 0.0]
    prompt, messages, _env = done[0]
    assert prompt[-1]["content"].endswith(
        "User: Please move 40 dollars from account A1 to account A2."
    )
    assert "Policy:" in prompt[-1]["content"]
    assert json.loads(messages[0]["content"])["balance"] == 100
    refusal = json.loads(messages[1]["content"])
    assert refusal["error"]["kind"] == "invalid_arguments"  # recorded, not raised
    assert messages[3]["content"] == "Okay."  # the rule user's reply: the work reported done
    assert done[1][2].verdict.signature == "wrong_state_update"
    # The pool is reused: a second batch resets the same instances to fresh worlds.
    again = loop.rollouts(batch)
    assert [e for _, _, e in again] == [e for _, _, e in done]
    assert [env.get_reward() for _, _, env in again] == [1.0, 0.0, 1.0, 0.0]


def test_the_reward_is_the_verdict_of_the_in_process_episode() -> None:
    import asyncio

    from statebox.episode import CallTool, End, MessageUser
    from statebox.tools import ToolCall

    (_prompt, _, env) = _TrlLoop(_env_class()).rollouts(
        [(_row("toy.transfer.train.001"), GOLDEN_TRANSFER)]
    )[0]
    env.get_reward()
    cat = TaskCatalog(served_tasks(), {"toy": make_domain()})

    async def direct() -> Any:
        task = cat.task("toy.transfer.train.001")
        ep = cat.episode(task)
        await ep.reset()
        for name, args in GOLDEN_TRANSFER[:-1]:
            await ep.step(CallTool(call=ToolCall(tool=name, args=args)))
        await ep.step(MessageUser(text=GOLDEN_TRANSFER[-1][1]["message"]))
        await ep.step(End(text=GOLDEN_TRANSFER[-1][1]["message"]))
        verdict = await cat.judge(task, ep)
        ep.close()
        return verdict

    assert env.verdict.model_dump(mode="json") == asyncio.run(direct()).model_dump(mode="json")


def test_a_tool_outside_the_class_and_bad_arguments_are_the_policy_s_failure() -> None:
    loop = _TrlLoop(_env_class())
    calls: list[Call] = [
        ("reset", {}),  # lifecycle: not a tool TRL can find
        ("transfer", {"src": "A1", "dst": "A2", "amount": 40, "memo": "x"}),
        ("get_account", {"account_id": "A1", "sudo": True}),
    ]
    ((_, messages, env),) = loop.rollouts([(_row("toy.transfer.train.001"), calls)])
    assert messages[0]["content"] == str({"error": "Tool reset not found."})
    assert json.loads(messages[1]["content"])["error"]["kind"] == "invalid_arguments"
    assert json.loads(messages[2]["content"])["error"]["kind"] == "invalid_arguments"
    assert env.get_reward() == 0.0  # a reward, not an error: the policy's doing


def test_a_rollout_statebox_cannot_run_raises_with_the_trial_id_never_a_reward() -> None:
    domain = Domain(name="toy", schema_sql=SCHEMA, seed=SEED, tools=[*TOOLS, explode], policy="")
    loop = _TrlLoop(_env_class(domain))
    calls: list[Call] = [
        ("set_status", {"account_id": "A2", "status": "frozen"}),
        ("explode", {"account_id": "A1"}),
        ("get_account", {"account_id": "A1"}),
    ]
    ((_, messages, env),) = loop.rollouts([(_row("toy.freeze.train.001"), calls)])
    assert json.loads(messages[1]["content"])["error"]["kind"] == "episode_ended"
    assert json.loads(messages[2]["content"])["error"]["kind"] == "episode_ended"
    with pytest.raises(TrialSystemError, match=r"system_error in trial toy\.freeze\.train\.001/"):
        env.get_reward()
    assert env.trial_id is not None and env.trial_id.startswith("toy.freeze.train.001/")
    # The next rollout of the same instance is a fresh trial with its own id.
    first = env.trial_id
    ((_, _, env2),) = loop.rollouts([(_row("toy.freeze.train.001"), GOLDEN_FREEZE)])
    assert env2 is env and env.trial_id != first and env.get_reward() == 1.0


def test_test_tasks_are_refused_unless_allowed() -> None:
    env = _env_class()()
    with pytest.raises(ConfigError, match="test task"):
        env.reset(task_id="toy.transfer.ask.001", prompt=[])
    with pytest.raises(ConfigError, match="train tasks only"):
        rows(served_tasks(), "test")
    assert [r["task_id"] for r in rows(served_tasks())] == [
        "toy.freeze.secret.001",
        "toy.freeze.train.001",
        "toy.transfer.train.001",
    ]
    allowed = _env_class(allow_test=True)()
    assert "User: Please move 30 dollars" in allowed.reset(task_id="toy.transfer.ask.001")
    with pytest.raises(ConfigError, match="not in this environment"):
        env.reset(task_id="nope")


def test_the_example_s_dry_run_plays_the_golden_trajectories_for_reward_1() -> None:
    import subprocess
    import sys

    example = Path(__file__).resolve().parents[2] / "examples" / "trl_grpo.py"
    run = subprocess.run(
        [sys.executable, str(example), "--suite", "retail:train@1.0", "--dry-run"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert re.search(r"mean reward 1\.000 over [1-9]\d* train tasks", run.stdout), run.stdout
    assert ": reward 0.0" not in run.stdout


def test_for_suite_takes_suite_names_and_defaults_to_the_train_suite() -> None:
    from statebox.registry import Registry
    from statebox.rl.trl import for_suite

    registry = Registry([make_domain(versioned=True)])
    _, default = for_suite(registry=registry)  # `train` at the default version (2.0)
    assert [r["task_id"] for r in default] == ["toy.account.freeze-lost-card.001"]
    _, named = for_suite("toy", registry=registry)  # a scope's train split by default
    assert [r["task_id"] for r in named] == [r["task_id"] for r in default]
    with pytest.raises(ConfigError, match="no train tasks"):
        for_suite("toy@1.0", registry=registry)  # the toy's 1.0 tasks are all test tasks
    with pytest.raises(ConfigError, match="training rows come from train tasks only"):
        for_suite("toy:test", registry=registry)
