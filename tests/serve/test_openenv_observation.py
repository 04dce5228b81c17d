"""The OpenEnv server's per-reset shortcuts answer exactly what the plain path answers."""

from __future__ import annotations

import asyncio
import copy
import inspect
import types
from typing import Any

import pytest

pytest.importorskip("openenv")

from serving import catalog

from statebox.serve._openenv import (
    OpenEnvServer,
    StateboxEnvironment,
    _mode,
    _observation,
    _tool_json,
)
from statebox.serve._openenv_types import StateboxObservation


def _uncached_signature(f: Any) -> inspect.Signature:
    """``f``'s signature worked out from its code, ignoring any ``__signature__``."""
    bare = types.FunctionType(f.__code__, f.__globals__, f.__name__, f.__defaults__)
    bare.__kwdefaults__ = f.__kwdefaults__
    bare.__annotations__ = f.__annotations__
    return inspect.signature(bare)


def test_the_reset_signature_openenv_reads_is_the_handles_own() -> None:
    env = StateboxEnvironment(OpenEnvServer(catalog))
    whole = _uncached_signature(StateboxEnvironment.reset_async)
    assert inspect.signature(StateboxEnvironment.reset_async) == whole
    # Bound, as openenv reads it: the same parameters less ``self``.
    bound = inspect.signature(env.reset_async)
    assert list(bound.parameters.values()) == list(whole.parameters.values())[1:]
    assert list(bound.parameters) == ["seed", "episode_id", "task_id", "split", "index"]


def _plain(s: Any, obs: Any, result: Any = None) -> StateboxObservation:
    """The observation as built before the shortcuts: tools dumped, metadata assigned."""
    from statebox.serve._openenv import _agent_result

    result = result or obs.tool_result
    out = StateboxObservation(
        kind=obs.kind,
        episode_id=s.id,
        task_id=s.task.id,
        step=obs.step,
        user_message=obs.user_message,
        tool_result=None if result is None else _agent_result(result),
        tools=[t.model_dump(mode="json") for t in obs.tools],
        policy=obs.policy,
        policy_mode=obs.policy_mode,
        termination=None if obs.termination is None else str(obs.termination),
        done=obs.done,
    )
    out.metadata = _mode(s)
    if obs.kind == "start":
        out.metadata |= {
            "episode_id": s.id,
            "task_id": s.task.id,
            "user_message": obs.user_message,
            "policy": obs.policy,
            "policy_mode": obs.policy_mode,
        }
    elif obs.user_message is not None:
        out.metadata |= {"user_message": obs.user_message}
    return out


def test_observations_serialise_byte_for_byte_as_the_plain_path_does() -> None:
    from openenv.core.env_server.serialization import serialize_observation

    from statebox.episode import CallTool, End, MessageUser
    from statebox.tools import ToolCall

    cat = catalog()
    server = OpenEnvServer(lambda: cat)

    async def go() -> int:
        compared = 0
        for task_id in sorted(cat.tasks):
            task = cat.task(task_id)
            if task.split != "train":
                continue
            for _ in range(2):  # the second reset is served from the tool cache
                s = server.open(task)
                steps = [await s.reset()]
                steps += [
                    await s.step(CallTool(call=ToolCall(tool=c.tool, args=c.args)))
                    for c in task.golden
                ]
                steps.append(await s.step(MessageUser(text="thanks")))
                steps.append(await s.step(End(text="done")))
                for obs in steps:
                    fast, plain = _observation(s, obs), _plain(s, obs)
                    assert fast.model_dump_json() == plain.model_dump_json()
                    assert serialize_observation(fast) == serialize_observation(plain)
                    compared += 1
                server.drop(s.id)
        return compared

    assert asyncio.run(go()) > 10


def test_a_tools_cached_wire_form_is_its_dump_and_every_call_gets_its_own() -> None:
    cat = catalog()
    server = OpenEnvServer(lambda: cat)

    async def go() -> None:
        s = server.open(cat.task("toy.transfer.train.001"))
        obs = await s.reset()
        for t in obs.tools:
            one, two = _tool_json(t), _tool_json(t)
            assert one == two == t.model_dump(mode="json")
            assert one is not two and one["input_schema"] is not two["input_schema"]
        server.drop(s.id)

    asyncio.run(go())


def test_editing_one_observations_tool_schema_leaves_the_next_episodes_alone() -> None:
    # Found in review: the cached wire form was handed out with its nested schema shared,
    # so a caller editing what it was handed edited every later episode's tools.
    cat = catalog()
    server = OpenEnvServer(lambda: cat)

    async def go() -> None:
        task = cat.task("toy.transfer.train.001")
        first = server.open(task)
        seen = _observation(first, await first.reset())
        pristine = copy.deepcopy(seen.tools)
        for tool in seen.tools:  # a caller edits what it was handed
            tool["input_schema"]["properties"] = {"injected": {"type": "string"}}
        server.drop(first.id)

        second = server.open(task)
        again = _observation(second, await second.reset())
        server.drop(second.id)
        assert again.tools == pristine

    asyncio.run(go())
