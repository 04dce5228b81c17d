"""OpenEnv's whole interface: its MCP tool-calling client, its generic client, its task
API, its idle-session reaper, and one verdict whichever path drove the episode."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

pytest.importorskip("openenv")

from openenv.core import GenericEnvClient
from openenv.core.mcp_client import MCPToolClient
from serving import auth, catalog, create, mcp_session, serve_tasks, serving, text_of

from statebox.episode import CallTool, End, MessageUser
from statebox.serve import StateboxAction, StateboxEnvClient
from statebox.tools import ToolCall, tool
from statebox.world import WorldTx

TASK = "toy.transfer.train.001"
ALLOWLIST = ["add_note", "delete_note", "get_account", "set_status", "transfer"]

Step = tuple[str, str, dict[str, Any]]
"""("call", tool, args), ("say", text, {}) or ("end", text, {})."""
Run = tuple[list[Any], dict[str, Any], float | None]
"""A path's tool-call outcomes, its verdict as JSON, and its reward (None: no reward)."""

GOLDEN: list[Step] = [
    ("call", "get_account", {"account_id": "A1"}),
    ("call", "transfer", {"src": "A1", "dst": "A2", "amount": "forty"}),  # refused
    ("call", "no_such_tool", {}),  # refused: not on the allowlist
    ("call", "transfer", {"src": "A1", "dst": "A2", "amount": 40}),
    ("say", "I moved 40 dollars from A1 to A2.", {}),
    ("end", "Done: 40 dollars moved.", {}),
]
WRONG: list[Step] = [
    ("call", "transfer", {"src": "A1", "dst": "A2", "amount": 41}),
    ("call", "add_note", {"account_id": "A1", "text": "moved"}),
    ("end", "Done.", {}),
]


def _outcome(result: Any) -> tuple[bool, str | None]:
    """(ok, error kind) of a statebox tool result dict or an MCP-shaped result."""
    if isinstance(result, dict) and "error" in result and result.get("ok") is not True:
        err = result["error"]
        return (False, err["kind"]) if err else (True, None)
    return (True, None)


# The four paths. Each returns (tool-call outcomes, verdict as JSON, reward or None).


async def _in_process(steps: list[Step]) -> Run:
    cat = catalog()
    task = cat.task(TASK)
    episode = cat.episode(task)
    await episode.reset()
    outcomes = []
    for kind, text, args in steps:
        if kind == "call":
            obs = await episode.step(CallTool(call=ToolCall(tool=text, args=args)))
            r = episode.tool_results[-1]
            outcomes.append((r.ok, None if r.error is None else r.error.kind))
        else:
            obs = await episode.step(MessageUser(text=text) if kind == "say" else End(text=text))
        if obs.done:
            break
    verdict = await cat.judge(task, episode)
    episode.close()
    return outcomes, verdict.model_dump(mode="json"), None


async def _websocket(url: str, steps: list[Step]) -> Run:
    outcomes = []
    async with StateboxEnvClient(base_url=url) as env:
        await env.reset(task_id=TASK)
        for kind, text, args in steps:
            if kind == "call":
                action = StateboxAction(kind="call_tool", tool=text, args=args)
            elif kind == "say":
                action = StateboxAction(kind="message_user", text=text)
            else:
                action = StateboxAction(kind="end", text=text)
            r = await env.step(action)
            if kind == "call":
                outcomes.append(_outcome(r.observation.tool_result))
            if r.done:
                return outcomes, r.metadata["verdict"], r.reward
    raise AssertionError("the episode never ended")


async def _openenv_mcp(url: str, steps: list[Step]) -> Run:
    outcomes = []
    async with MCPToolClient(base_url=url) as env:
        await env.reset(task_id=TASK)
        assert sorted(t.name for t in await env.list_tools(use_cache=False)) == ALLOWLIST
        for kind, text, args in steps:
            if kind == "call":
                outcomes.append(_outcome(await env.call_tool(text, **args)))
                continue
            action = StateboxAction(kind="message_user" if kind == "say" else "end", text=text)
            r = await env.step(action)
            if r.done:
                return outcomes, r.metadata["verdict"], r.reward
    raise AssertionError("the episode never ended")


async def _gateway(s: Any, steps: list[Step]) -> Run:
    info = await create(s, TASK)
    sid = info["session_id"]
    outcomes = []
    async with mcp_session(info["mcp_url"], info["mcp_token"]) as m:
        assert sorted(t.name for t in (await m.list_tools()).tools) == ALLOWLIST
        final = ""
        for kind, text, args in steps:
            if kind == "call":
                r = await m.call_tool(text, args)
                data = json.loads(text_of(r))
                outcomes.append((False, data["error"]["kind"]) if r.isError else (True, None))
            elif kind == "say":
                r2 = await s.http.post(
                    f"/control/sessions/{sid}/message", json={"text": text}, headers=auth()
                )
                if r2.json()["observation"]["done"]:
                    break
            else:
                final = text
                break
    v = await s.http.post(f"/control/sessions/{sid}/verdict", json={"text": final}, headers=auth())
    return outcomes, v.json()["verdict"], None


def test_four_paths_give_identical_verdicts_for_the_same_trajectory() -> None:
    async def go() -> None:
        async with serving(openenv=True) as s:
            url = s.url + "/openenv"
            for steps, passed in ((GOLDEN, True), (WRONG, False)):
                runs = {
                    "in-process": await _in_process(steps),
                    "openenv-websocket": await _websocket(url, steps),
                    "openenv-mcp": await _openenv_mcp(url, steps),
                    "mcp-gateway": await _gateway(s, steps),
                }
                base_outcomes, base_verdict, _ = runs["in-process"]
                assert base_verdict["passed"] is passed
                for name, (outcomes, verdict, reward) in runs.items():
                    assert outcomes == base_outcomes, name
                    assert verdict == base_verdict, name
                    if reward is not None:
                        assert reward == (1.0 if passed else 0.0), name
            golden = (await _in_process(GOLDEN))[0]
            assert golden == [
                (True, None),
                (False, "invalid_arguments"),
                (False, "unknown_tool"),
                (True, None),
            ]
            assert not s.app._openenv.live  # every path's episode is gone

    asyncio.run(go())


def test_mcp_tool_client_lists_only_the_allowlist_and_refuses_lifecycle_names() -> None:
    async def go() -> None:
        async with serving(openenv=True) as s, MCPToolClient(base_url=s.url + "/openenv") as env:
            assert await env.list_tools(use_cache=False) == []  # nothing before reset
            start = await env.reset(task_id="toy.freeze.secret.001")
            meta = start.observation.metadata
            assert meta["task_id"] == "toy.freeze.secret.001"
            assert meta["user_message"] == "Please freeze account A2."
            names = sorted(t.name for t in await env.list_tools(use_cache=False))
            assert names == ["add_note", "get_account", "set_status"]  # the task's allowlist
            for lifecycle in ("reset", "verdict", "__reserved__init"):
                r = await env.call_tool(lifecycle)
                assert r["error"]["kind"] == "not_allowed", lifecycle
            r = await env.call_tool("transfer", src="A1", dst="A2", amount=1)
            assert r["error"]["kind"] == "unknown_tool"  # not on this task's allowlist
            session = next(iter(s.app._openenv.live.values()))
            calls = [e for e in session.episode.transcript if e.kind == "tool_call"]
            assert len(calls) == 4  # every refusal is a recorded step
            r = await env.call_tool("set_status", account_id="A2", status="frozen")
            assert r == "frozen"  # the tool's own output
            end = await env.step(StateboxAction(kind="end", text="Frozen."))
            assert end.done and end.reward == 1.0 and end.metadata["verdict"]["passed"] is True
            with pytest.raises(RuntimeError, match="ended"):
                await env.call_tool("get_account", account_id="A2")
        assert not s.app._openenv.live  # closing the client closed its session

    asyncio.run(go())


def test_generic_env_client_runs_a_whole_episode_with_dict_actions() -> None:
    async def go() -> None:
        async with serving(openenv=True) as s, GenericEnvClient(base_url=s.url + "/openenv") as g:
            r = await g.reset(task_id="toy.freeze.train.001")
            assert r.observation["task_id"] == "toy.freeze.train.001" and not r.done
            step = {"kind": "call_tool", "tool": "set_status", "args": {"account_id": "A2"}}
            r = await g.step(step)
            assert r.observation["tool_result"]["error"]["kind"] == "invalid_arguments"
            step["args"] = {"account_id": "A2", "status": "frozen"}
            assert (await g.step(step)).observation["tool_result"]["ok"] is True
            r = await g.step({"kind": "end", "text": "Frozen."})
            assert r.done and r.reward == 1.0 and r.metadata["verdict"]["passed"] is True
            await g.reset(task_id="toy.freeze.train.001")
            r = await g.step({"kind": "end", "text": "I did nothing."})
            assert r.done and r.reward == 0.0

    asyncio.run(go())


def test_task_api_serves_the_splits_and_reset_by_split_and_index() -> None:
    async def go() -> None:
        async with serving(openenv=True) as s:
            r = await s.http.get("/openenv/statebox/splits")
            assert r.status_code == 200 and r.json() == [{"name": "train", "type": "train"}]
            assert (await s.http.get("/openenv/list_environments")).json() == ["statebox"]
            r = await s.http.post("/openenv/statebox/tasks", json={"split": "train"})
            tasks = r.json()["tasks"]
            assert [t["id"] for t in tasks] == [
                "toy.freeze.secret.001",
                "toy.freeze.train.001",
                "toy.transfer.train.001",
            ]
            assert set(tasks[0]) == {"id", "index", "split", "domain"}  # no evaluator data
            assert "SECRET" not in r.text
            r = await s.http.post("/openenv/statebox/num_tasks", json={"split": "train"})
            assert r.json() == {"num_tasks": 3}
            r = await s.http.post("/openenv/statebox/task", json={"split": "train", "index": 2})
            assert r.json()["task"]["id"] == "toy.transfer.train.001"
            r = await s.http.post("/openenv/statebox/task", json={"split": "train", "index": 3})
            assert r.status_code == 400
            body = {"split": "train", "start": 1, "stop": 3}
            r = await s.http.post("/openenv/statebox/task_range", json=body)
            assert [t["index"] for t in r.json()["tasks"]] == [1, 2]
            for route in ("tasks", "num_tasks"):
                r = await s.http.post(f"/openenv/statebox/{route}", json={"split": "test"})
                assert r.status_code == 403 and "not served" in r.text
            async with StateboxEnvClient(base_url=s.url + "/openenv") as env:
                r = await env.reset(split="train", index=2)
                assert r.observation.task_id == "toy.transfer.train.001"
                with pytest.raises(RuntimeError, match="no task 3"):
                    await env.reset(split="train", index=3)
                with pytest.raises(RuntimeError, match="not served"):
                    await env.reset(split="test", index=0)
        async with serving(openenv=True, allow_test_split=True) as s:
            r = await s.http.get("/openenv/statebox/splits")
            assert [x["name"] for x in r.json()] == ["train", "test"]
            r = await s.http.post("/openenv/statebox/tasks", json={"split": "test"})
            assert [t["id"] for t in r.json()["tasks"]] == ["toy.transfer.ask.001"]

    asyncio.run(go())


class _FastSleep:
    """openenv's ``asyncio`` with its reaper's ≥ 5 s poll shortened (the reaper is real)."""

    def __getattr__(self, name: str) -> Any:
        return getattr(asyncio, name)

    @staticmethod
    async def sleep(delay: float) -> None:
        await asyncio.sleep(min(delay, 0.05))


def test_an_idle_mcp_session_is_reaped_and_its_episode_dropped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from openenv.core.env_server import http_server

    monkeypatch.setattr(http_server, "asyncio", _FastSleep())

    async def go() -> None:
        async with serving(openenv=True, idle_timeout_s=0.3) as s:
            server = s.app._openenv
            async with MCPToolClient(base_url=s.url + "/openenv") as env:
                await env.reset(task_id=TASK)
                sid = env._production_session_id
                assert sid is not None and server.http.get_session_info(sid) is not None
                await env._disconnect_async()  # the WebSocket goes; the MCP session stays, idle
                assert len(server.live) == 1
                for _ in range(100):
                    if server.http.get_session_info(sid) is None and not server.live:
                        break
                    await asyncio.sleep(0.05)
                assert server.http.get_session_info(sid) is None  # reaped by openenv
                assert not server.live  # and its episode with it
                r = await s.http.post(
                    "/openenv/mcp",
                    json={
                        "jsonrpc": "2.0",
                        "id": 1,
                        "method": "tools/list",
                        "params": {"session_id": sid},
                    },
                )
                assert "Unknown session_id" in r.json()["error"]["message"]

    asyncio.run(go())


def test_a_client_holds_at_most_max_per_client_mcp_sessions() -> None:
    rpc = {"jsonrpc": "2.0", "id": 1, "method": "openenv/session/create", "params": {}}

    async def go() -> None:
        async with serving(openenv=True, max_per_client=2) as s:
            made = [await s.http.post("/openenv/mcp", json=rpc) for _ in range(2)]
            sids = [r.json()["result"]["session_id"] for r in made]
            r = await s.http.post("/openenv/mcp", json=rpc)
            assert r.status_code == 429 and "2 MCP sessions" in r.json()["error"]["message"]
            close = {**rpc, "method": "openenv/session/close", "params": {"session_id": sids[0]}}
            assert (await s.http.post("/openenv/mcp", json=close)).json()["result"]["closed"]
            assert (await s.http.post("/openenv/mcp", json=rpc)).status_code == 200

    asyncio.run(go())


def test_a_step_that_breaks_statebox_raises_with_the_episode_id_never_a_reward() -> None:
    from fixtures.toy import SCHEMA, SEED, TOOLS
    from statebox.domains import Domain
    from statebox.serve import TaskCatalog

    @tool(mutates=True)
    def explode(tx: WorldTx, account_id: str) -> None:
        """A tool whose backend dies.

        Args:
            account_id: Account id.
        """
        raise ConnectionError("backend died")

    domain = Domain(name="toy", schema_sql=SCHEMA, seed=SEED, tools=[*TOOLS, explode], policy="")

    def load() -> TaskCatalog:
        return TaskCatalog(serve_tasks(), {"toy": domain})

    async def go() -> None:
        async with serving(load, openenv=True) as s:
            url = s.url + "/openenv"
            async with StateboxEnvClient(base_url=url) as env:
                r = await env.reset(task_id="toy.freeze.train.001")
                eid = r.observation.episode_id
                act = StateboxAction(kind="call_tool", tool="explode", args={"account_id": "A1"})
                with pytest.raises(RuntimeError, match=f"system_error in episode {eid}"):
                    await env.step(act)
                with pytest.raises(RuntimeError, match="no live episode"):
                    await env.step(StateboxAction(kind="end", text="x"))  # dropped, no reward
            async with MCPToolClient(base_url=url) as mcp:
                r = await mcp.reset(task_id="toy.freeze.train.001")
                eid = r.observation.metadata["episode_id"]
                with pytest.raises(RuntimeError, match=f"system_error in episode {eid}"):
                    await mcp.call_tool("explode", account_id="A1")
            assert not s.app._openenv.live

    asyncio.run(go())


def test_a_tool_name_or_arguments_of_the_wrong_type_are_the_agents_refusals() -> None:
    # Found in review: an MCP tools/call over the WebSocket with a name that is a number,
    # true or NaN raised in the server (.strip() of a non-string): a system error, the
    # episode dropped with no reward, a re-run in place of the agent's own failure.
    from websockets.asyncio.client import connect

    async def go() -> list[Any]:
        async with serving(openenv=True) as s:
            ws_url = s.url.replace("http://", "ws://") + "/openenv/ws"
            async with connect(ws_url) as ws:
                reset = {"type": "reset", "data": {"task_id": TASK}}
                await ws.send(json.dumps(reset))
                assert json.loads(await ws.recv())["type"] == "observation"
                answers = []
                for name, arguments in ((1, {}), (True, {}), ("get_account", [1, 2])):
                    params = {"name": name, "arguments": arguments}
                    rpc = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
                    await ws.send(json.dumps({"type": "mcp", "data": rpc}))
                    answers.append(json.loads(await ws.recv()))
                session = next(iter(s.app._openenv.live.values()))  # still live: no drop
                steps = [e for e in session.episode.transcript if e.kind == "tool_call"]
                assert len(steps) == 3  # each a recorded, refused step
                return answers

    answers = asyncio.run(go())
    texts = [json.dumps(a) for a in answers]
    assert not any("system_error" in t for t in texts), texts
    assert (
        '\\"kind\\": \\"unknown_tool\\"' in texts[0]
        and '\\"kind\\": \\"unknown_tool\\"' in texts[1]
    )
    assert '\\"kind\\": \\"invalid_arguments\\"' in texts[2]
