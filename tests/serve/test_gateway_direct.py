"""The gateway's direct answers equal the SDK transport's, request for request.

Each request goes to two fresh sessions of the same task: one answered the direct way
(`direct_reply`), one with the direct way switched off (every request through the
SDK's stateless transport). Status, content type, body and the episode's transcript
must be the same; a spy checks the direct way really answered.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from serving import Served, auth, create, mcp_session, serving

import statebox.serve._gateway as gateway_module
from statebox.serve._mcp_direct import direct_reply

TASK = "toy.transfer.train.001"
H = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def _call(rid: Any, name: str, arguments: Any = None, **params: Any) -> dict[str, Any]:
    p: dict[str, Any] = {"name": name, **params}
    if arguments is not None:
        p["arguments"] = arguments
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": p}


def _init(rid: Any, version: str = "2025-06-18", **params: Any) -> dict[str, Any]:
    p = {
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }
    return {"jsonrpc": "2.0", "id": rid, "method": "initialize", "params": p | params}


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}

# One episode's worth of requests, answered in order on one session each way.
ANSWERED: list[tuple[dict[str, Any], dict[str, str]]] = [
    (_init(0), {}),
    (_init("i1", "1999-01-01"), {}),  # unsupported: the server answers with its latest
    (_init(2, capabilities={"roots": {"listChanged": True}}, extra=1), {}),
    (_init(3), {"MCP-Protocol-Version": "1999-01-01"}),  # not checked on initialize
    (INITIALIZED, {}),
    (INITIALIZED | {"params": {}}, {"MCP-Protocol-Version": "2025-06-18"}),
    ({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, {}),
    ({"jsonrpc": "2.0", "id": "list-2", "method": "tools/list", "params": {}}, {}),
    (_call(3, "get_account", {"account_id": "A1"}), {"MCP-Protocol-Version": "2025-06-18"}),
    (_call("c4", "transfer", {"src": "A1", "dst": "A2", "amount": 40}), {}),
    (_call(5, "transfer", {"src": "A1", "dst": "A2", "amount": "lots"}), {}),  # bad type
    (_call(6, "get_account", {}), {}),  # missing argument
    (_call(7, "get_account"), {}),  # no arguments at all
    (_call(8, "no_such_tool", {"x": 1}), {}),  # outside the allowlist
    (_call(9, "reset", {"task_id": "toy.freeze.train.001"}), {}),  # lifecycle name
    (_call(10, "__reserved__init", {}), {}),
    (_call(11, "get_account", {"account_id": "A1"}, _meta={"progressToken": 7}), {}),
    (_call(12, "get_account", {"account_id": "A2"}), {"Accept": "application/json"}),
    (_call(13, "get_account", {"account_id": None}), {}),  # a null argument stays null
    (_call(14, "get_account", {"account_id": "A1", "extra": [1, None, "é"]}), {}),
    (_call(15, "get_account", {"account_id": 7}), {}),  # wrong type: statebox's error
    (_call(16, "get_account", {"account_id": "A1"}) | {"extra": True}, {}),
    (_call(17, "transfer", {"src": "A1", "dst": "A2", "amount": 1e400}), {}),  # inf
]

# Requests the direct way must leave to the SDK (it refuses them or answers them itself).
LEFT: list[tuple[bytes, dict[str, str]]] = [
    (json.dumps(_call(20, "get_account", {"account_id": "A1"})).encode(), {"Accept": "text/html"}),
    (
        json.dumps(_call(21, "get_account", {"account_id": "A1"})).encode(),
        {"MCP-Protocol-Version": "1999-01-01"},
    ),
    (json.dumps({"jsonrpc": "2.0", "id": 22, "method": "ping"}).encode(), {}),
    (json.dumps(INITIALIZED).encode(), {"MCP-Protocol-Version": "1999-01-01"}),
    (json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled"}).encode(), {}),
    (json.dumps({"jsonrpc": "2.0", "id": 26, "method": "initialize"}).encode(), {}),
    (json.dumps({"jsonrpc": "2.0", "id": 27, "method": "initialize", "params": {}}).encode(), {}),
    (json.dumps(_init(28)).encode(), {"Content-Type": "text/plain"}),
    (json.dumps(_call(29, 5, {})).encode(), {}),  # a name that is not a string
    (json.dumps(_call(30, "get_account", [1])).encode(), {}),  # arguments not an object
    (b'{"jsonrpc": "2.0", "id": 31, "method": "tools/call"}', {}),  # no params
    # A float id makes the SDK read the request as a notification (202, no answer).
    (json.dumps(_call(1.0, "get_account", {"account_id": "A1"})).encode(), {}),
    (json.dumps([_call(23, "get_account", {"account_id": "A1"})]).encode(), {}),
    (b'{"jsonrpc": "2.0", "id": 24, "method": "tools/call", "params": "transfer"}', {}),
    (b'{"jsonrpc": "1.0", "id": 25, "method": "tools/list"}', {}),
    (b'{"jsonrpc": "2.0", "id": null, "method": "tools/list"}', {}),
]


async def _post(s: Served, info: dict[str, Any], body: bytes, extra: dict[str, str]) -> Any:
    h = {**H, **auth(info["mcp_token"]), **extra}
    r = await s.http.post(info["mcp_url"], content=body, headers=h)
    return (r.status_code, r.headers.get("content-type"), r.content)


async def _transcript(s: Served, info: dict[str, Any]) -> list[dict[str, Any]]:
    r = await s.http.get(f"/control/sessions/{info['session_id']}", headers=auth())
    events: list[dict[str, Any]] = r.json()["transcript"]
    return events


def test_direct_answers_equal_the_sdk_transports(monkeypatch: pytest.MonkeyPatch) -> None:
    answered: list[str] = []

    async def spy(*args: Any) -> Any:
        reply = await direct_reply(*args)
        if reply is not None:
            answered.append(json.loads(args[3])["method"])
        return reply

    async def sdk_only(*args: Any) -> None:
        return None

    async def go() -> None:
        async with serving() as s:
            out: dict[str, list[Any]] = {}
            transcripts: dict[str, list[dict[str, Any]]] = {}
            for way, fn in (("direct", spy), ("sdk", sdk_only)):
                monkeypatch.setattr(gateway_module, "direct_reply", fn)
                info = await create(s, TASK)
                out[way] = [await _post(s, info, json.dumps(b).encode(), h) for b, h in ANSWERED]
                out[way] += [await _post(s, info, b, h) for b, h in LEFT]
                transcripts[way] = await _transcript(s, info)
            assert answered == [b["method"] for b, _ in ANSWERED]  # every one, none of LEFT
            for (body, _), direct, sdk in zip(
                [*ANSWERED, *LEFT], out["direct"], out["sdk"], strict=True
            ):
                assert direct == sdk, body
            statuses = [status for status, _, _ in out["sdk"]]
            assert statuses[: len(ANSWERED)] == [202 if "id" not in b else 200 for b, _ in ANSWERED]
            assert 406 in statuses and 400 in statuses and 202 in statuses
            assert transcripts["direct"] == transcripts["sdk"]
            steps = [e for e in transcripts["direct"] if e["kind"] == "tool_call"]
            assert len(steps) == 15  # every call, refusals included, is a step
            assert [e["result"]["ok"] for e in steps[:2]] == [True, True]

    asyncio.run(go())


def test_direct_answers_refuse_an_ended_episode_as_the_sdk_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def sdk_only(*args: Any) -> None:
        return None

    async def go() -> None:
        async with serving() as s:
            out = []
            for fn in (direct_reply, sdk_only):
                monkeypatch.setattr(gateway_module, "direct_reply", fn)
                info = await create(s, TASK)
                r = await s.http.post(
                    f"/control/sessions/{info['session_id']}/verdict",
                    json={"text": "done"},
                    headers=auth(),
                )
                assert r.status_code == 200
                body = json.dumps(_call(1, "transfer", {"src": "A1", "dst": "A2", "amount": 1}))
                out.append(await _post(s, info, body.encode(), {}))
            assert out[0] == out[1]
            assert json.loads(out[0][2])["result"]["isError"] is True
            assert b"invalid_state" in out[0][2]

    asyncio.run(go())


def test_the_official_clients_steps_are_answered_directly(monkeypatch: pytest.MonkeyPatch) -> None:
    answered: list[str] = []

    async def spy(*args: Any) -> Any:
        reply = await direct_reply(*args)
        answered.append(json.loads(args[3]).get("method", "?") if reply is not None else "sdk")
        return reply

    monkeypatch.setattr(gateway_module, "direct_reply", spy)

    async def go() -> None:
        async with serving() as s:
            info = await create(s, TASK)
            async with mcp_session(info["mcp_url"], info["mcp_token"]) as m:
                await m.call_tool("get_account", {"account_id": "A1"})
                await m.call_tool("get_account", {"account_id": "A2"})
            # initialize, its notification, the client's own tools/list (before its
            # first call_tool) and every call are direct.
            assert answered == [
                "initialize",
                "notifications/initialized",
                "tools/call",
                "tools/list",
                "tools/call",
            ]

    asyncio.run(go())


@pytest.mark.parametrize("direct", [True, False])
def test_an_unlisted_tool_name_logs_nothing_and_is_a_structured_refusal(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, direct: bool
) -> None:
    # The SDK's own call_tool handler logs a warning per call of a name it has not
    # listed (an agent could fill the server's log) and rebuilds its tool cache.
    async def sdk_only(*args: Any) -> None:
        return None

    if not direct:
        monkeypatch.setattr(gateway_module, "direct_reply", sdk_only)

    async def go() -> list[Any]:
        async with serving() as s:
            info = await create(s, TASK)
            caplog.clear()
            with caplog.at_level("DEBUG", logger="mcp"):
                return [
                    await _post(s, info, json.dumps(_call(i, "no_such_tool", {})).encode(), {})
                    for i in range(3)
                ]

    answers = asyncio.run(go())
    assert [r.getMessage() for r in caplog.records if r.levelname == "WARNING"] == []
    for status, _, body in answers:
        result = json.loads(body)["result"]
        assert status == 200 and result["isError"] is True
        assert result["structuredContent"]["error"]["kind"] == "unknown_tool"
