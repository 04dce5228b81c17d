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
    # Requests failing the SDK's `ClientRequest` validation: its INVALID_PARAMS error.
    (_call(29, 5, {}), {}),  # a name that is not a string
    (_call(30, "get_account", [1]), {}),  # arguments not an object
    ({"jsonrpc": "2.0", "id": 31, "method": "tools/call"}, {}),  # no params
    ({"jsonrpc": "2.0", "id": 26, "method": "initialize"}, {}),
    ({"jsonrpc": "2.0", "id": 27, "method": "initialize", "params": {}}, {}),
    ({"jsonrpc": "2.0", "id": "27b", "method": "tools/list", "params": {"cursor": 5}}, {}),
    ({"jsonrpc": "2.0", "id": 32, "method": "no/such/method", "params": {"x": "y" * 1000}}, {}),
    ({"jsonrpc": "2.0", "id": 33, "method": "ping", "params": {"_meta": 5}}, {}),
    # Notifications, valid or not, and messages that are no request: 202, no body.
    ({"jsonrpc": "2.0", "method": "notifications/cancelled"}, {}),  # no params: invalid
    ({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}}, {}),
    ({"jsonrpc": "2.0", "method": "notifications/whatever", "params": {"x": "y" * 100_000}}, {}),
    ({"jsonrpc": "2.0", "method": "initialize"}, {}),  # a notification named initialize
    ({"jsonrpc": "2.0", "id": 34, "result": {"x": 1}}, {}),  # a response to no request
    ({"jsonrpc": "2.0", "id": 35, "error": {"code": 1, "message": "m"}}, {}),
    # A float id makes the SDK read the request as a notification (202, no answer).
    (_call(1.0, "get_account", {"account_id": "A1"}), {}),
    ({"jsonrpc": "2.0", "id": None, "method": "tools/list"}, {}),  # so does a null id
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
    (
        json.dumps({"jsonrpc": "2.0", "method": "notifications/whatever"}).encode(),
        {"MCP-Protocol-Version": "1999-01-01"},
    ),
    (json.dumps({"jsonrpc": "2.0", "method": "initialize"}).encode(), {"Accept": "text/html"}),
    (json.dumps({"jsonrpc": "2.0", "id": 36, "method": "resources/list"}).encode(), {}),
    (json.dumps(_call(37, 5, {})).encode(), {"MCP-Protocol-Version": "1999-01-01"}),
    (json.dumps({"jsonrpc": "2.0", "id": 38, "method": "no/such"}).encode(), {"Accept": "x/y"}),
    (json.dumps(_init(28)).encode(), {"Content-Type": "text/plain"}),
    (json.dumps([_call(23, "get_account", {"account_id": "A1"})]).encode(), {}),
    (b'{"jsonrpc": "2.0", "id": 24, "method": "tools/call", "params": "transfer"}', {}),
    (b'{"jsonrpc": "1.0", "id": 25, "method": "tools/list"}', {}),
]


async def _post(s: Served, info: dict[str, Any], body: bytes, extra: dict[str, str]) -> Any:
    h = {**H, **auth(info["mcp_token"]), **extra}
    r = await s.http.post(info["mcp_url"], content=body, headers=h)
    return (r.status_code, [kv for kv in r.headers.multi_items() if kv[0] != "date"], r.content)


def _is_request(body: dict[str, Any]) -> bool:
    """Whether the SDK reads the message as a request (it has a string or integer id)."""
    return "method" in body and isinstance(body.get("id"), int | str)


async def _transcript(s: Served, info: dict[str, Any]) -> list[dict[str, Any]]:
    r = await s.http.get(f"/control/sessions/{info['session_id']}", headers=auth())
    events: list[dict[str, Any]] = r.json()["transcript"]
    return events


def test_direct_answers_equal_the_sdk_transports(monkeypatch: pytest.MonkeyPatch) -> None:
    answered: list[str] = []

    async def spy(*args: Any) -> Any:
        reply = await direct_reply(*args)
        if reply is not None:
            answered.append(json.loads(args[3]).get("method", "-"))
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
            # every one, none of LEFT
            assert answered == [b.get("method", "-") for b, _ in ANSWERED]
            for (body, _), direct, sdk in zip(
                [*ANSWERED, *LEFT], out["direct"], out["sdk"], strict=True
            ):
                assert direct == sdk, body
            statuses = [status for status, _, _ in out["sdk"]]
            assert statuses[: len(ANSWERED)] == [
                200 if _is_request(b) else 202 for b, _ in ANSWERED
            ]
            invalid = [json.loads(body) for _, _, body in out["sdk"][: len(ANSWERED)] if body]
            assert sum("error" in r and r["error"]["code"] == -32602 for r in invalid) == 8
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


MARK = "agent-says-fill-the-log"
# What an agent can send any number of times that the SDK's session cannot validate:
# it logs a warning (or an error) per message, the agent's content in it.
FLOOD: dict[str, dict[str, Any]] = {
    "tools/call, name not a string": _call(1, 5, {"account_id": MARK}),
    "tools/call, no name": {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {}},
    "initialize, bad params": _init(3) | {"params": {"protocolVersion": MARK}},
    "unknown method": {"jsonrpc": "2.0", "id": 4, "method": MARK, "params": {"x": MARK}},
    "unknown notification, large": {
        "jsonrpc": "2.0",
        "method": f"notifications/{MARK}",
        "params": {"x": MARK * 8000},  # ~190 KB, under the body limit
    },
    "a response to no request": {"jsonrpc": "2.0", "id": 5, "result": {"x": MARK}},
    "an error to no request": {"jsonrpc": "2.0", "id": 6, "error": {"code": 1, "message": MARK}},
}


def test_bad_messages_from_an_agent_log_nothing_of_theirs(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # The server must not let an agent fill its log: N bad messages of each kind give
    # no record at WARNING or above, and no record at any level carries their content.
    n = 5

    async def go() -> dict[str, list[Any]]:
        async with serving() as s:
            info = await create(s, TASK)
            caplog.clear()
            answers: dict[str, list[Any]] = {}
            with caplog.at_level("DEBUG"):
                for kind, body in FLOOD.items():
                    data = json.dumps(body).encode()
                    answers[kind] = [await _post(s, info, data, {}) for _ in range(n)]
            return answers

    answers = asyncio.run(go())
    loud = [(r.name, r.getMessage()[:80]) for r in caplog.records if r.levelno >= 30]
    assert loud == []
    assert [r.name for r in caplog.records if MARK in r.getMessage()] == []
    for kind, replies in answers.items():
        assert len(replies) == n
        status, _, body = replies[0]
        if "id" in FLOOD[kind] and "method" in FLOOD[kind]:
            assert status == 200, kind
            assert json.loads(body)["error"] == {
                "code": -32602,
                "message": "Invalid request parameters",
                "data": "",
            }
        else:
            assert (status, body) == (202, b""), kind
