"""`statebox.rl.verifiers` against verifiers' documented OpenEnv taskset contract.

verifiers 0.4.0 pins ``mcp==2.0.0``, which cannot be installed beside statebox's
``mcp<2``, so it is not in CI. `_verifiers_run` is the minimal contract of
``OpenEnvEnv.run`` in ``verifiers/v1/tasksets/openenv/taskset.py`` of that release
(`VERIFIERS_VERSION`): ``GenericEnvClient(base_url=data.base_url)``; ``GET
{base}/schema``'s ``action`` schema (an MCP ``CallToolAction`` schema takes another
path, not statebox's); ``reset(**data.reset)``; then each model reply is parsed with
``parse_action`` (JSON object, or fenced JSON) and sent to ``client.step``, the rewards
summed (``result.reward or 0.0``) until ``done``; an exception propagates (the rollout
is an error). It runs here against a real ``statebox serve --openenv`` on loopback with
openenv's own ``GenericEnvClient``, the policy scripted.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest

pytest.importorskip("openenv")

from openenv.core.generic_client import GenericEnvClient

from fixtures.rl_support import explode, served_tasks
from fixtures.toy import SCHEMA, SEED, TOOLS, make_domain
from statebox.domains import Domain
from statebox.errors import ConfigError
from statebox.rl.verifiers import VERIFIERS_VERSION, openenv_taskset
from statebox.serve import BackgroundServer, ServeApp, TaskCatalog

Player = Callable[[str], str]


@asynccontextmanager
async def _served(domain: Domain | None = None) -> AsyncIterator[str]:
    app = ServeApp(
        lambda: TaskCatalog(served_tasks(), {"toy": domain or make_domain()}), openenv=True
    )
    async with BackgroundServer(app.app) as server:
        for _ in range(600):
            if (await asyncio.to_thread(_ready, server.url)) == 200:
                break
            await asyncio.sleep(0.02)
        yield server.url + "/openenv"


def _ready(url: str) -> int:
    import httpx

    return httpx.get(url + "/ready").status_code


def _parse_action(message: str, action_schema: dict[str, Any]) -> dict[str, Any]:
    message = message.strip()
    if message.startswith("```") and message.endswith("```"):
        message = "\n".join(message.splitlines()[1:-1]).strip()
    action = json.loads(message)
    assert isinstance(action, dict)
    return action


async def _verifiers_run(data: dict[str, Any], player: Player) -> tuple[float, list[str]]:
    """verifiers 0.4.0's OpenEnvEnv.run (see the module docstring)."""
    import httpx

    client = GenericEnvClient(base_url=data["base_url"])
    total = 0.0
    payloads: list[str] = []
    async with client:
        async with httpx.AsyncClient(timeout=10) as http:
            response = await http.get(f"{data['base_url']}/schema")
            response.raise_for_status()
        action_schema = response.json()["action"]
        assert action_schema.get("title") not in {"Action", "CallToolAction", "ListToolsAction"}
        result = await client.reset(**data["reset"])

        def payload() -> str:
            return json.dumps({"observation": result.observation, "action_schema": action_schema})

        while not result.done:
            payloads.append(payload())
            result = await client.step(_parse_action(player(payloads[-1]), action_schema))
            total += result.reward or 0.0
    return total, payloads


def _scripted(actions: list[dict[str, Any]]) -> Player:
    todo = [json.dumps(a) for a in actions]
    todo[0] = f"```json\n{todo[0]}\n```"  # verifiers also reads fenced JSON
    return lambda payload: todo.pop(0)


GOLDEN = [
    {"kind": "call_tool", "tool": "get_account", "args": {"account_id": "A1"}},
    {"kind": "call_tool", "tool": "transfer", "args": {"src": "A1", "dst": "A2", "amount": 40}},
    {"kind": "end", "text": "I moved 40 dollars from A1 to A2."},
]


def test_the_contract_followed_is_named() -> None:
    assert VERIFIERS_VERSION == "0.4.0"


def test_the_taskset_is_the_served_train_split_and_plays_to_the_verdict() -> None:
    async def go() -> None:
        async with _served() as url:
            config = await asyncio.to_thread(openenv_taskset, url)
            assert config == {
                "base_url": url,
                "resets": [
                    {"task_id": "toy.freeze.secret.001"},
                    {"task_id": "toy.freeze.train.001"},
                    {"task_id": "toy.transfer.train.001"},
                ],
            }
            with pytest.raises(ConfigError, match="split 'test'"):
                await asyncio.to_thread(openenv_taskset, url, "test")  # not served
            data = {"base_url": url, "reset": {"task_id": "toy.transfer.train.001"}}
            total, payloads = await _verifiers_run(data, _scripted(GOLDEN))
            assert total == 1.0
            first = json.loads(payloads[0])
            assert first["observation"]["user_message"].startswith("Please move 40 dollars")
            assert "kind" in first["action_schema"]["properties"]
            wrong = [{**GOLDEN[1], "args": {"src": "A1", "dst": "A2", "amount": 41}}, GOLDEN[2]]
            assert (await _verifiers_run(data, _scripted(wrong)))[0] == 0.0

    asyncio.run(go())


def test_a_step_statebox_cannot_run_fails_the_rollout_never_a_reward_of_0() -> None:
    domain = Domain(name="toy", schema_sql=SCHEMA, seed=SEED, tools=[*TOOLS, explode], policy="")

    async def go() -> None:
        async with _served(domain) as url:
            data = {"base_url": url, "reset": {"task_id": "toy.freeze.train.001"}}
            boom = [{"kind": "call_tool", "tool": "explode", "args": {"account_id": "A1"}}]
            with pytest.raises(RuntimeError, match="system_error in episode"):
                await _verifiers_run(data, _scripted(boom))

    asyncio.run(go())
