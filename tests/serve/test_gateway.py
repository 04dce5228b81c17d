"""The MCP gateway, end to end with the official ``mcp`` client, and its refusals.

Every security test asserts a refusal and no state change: the episode is ended and
judged afterwards, and its actual effects must be empty.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from serving import Served, auth, create, error_kind, mcp_session, serving, text_of

from statebox.serve import is_reserved_name

RESERVED = [
    "reset",
    "snapshot",
    "effects",
    "verdict",
    "state",
    "__reserved__init",
    "__reserved__geteffects",
    "__reserved__reset",
    "_private",
    "openenv/session/create",
    "Reset",
    "statebox.reset",
]


async def _verdict(s: Served, sid: str) -> dict[str, Any]:
    r = await s.http.post(f"/control/sessions/{sid}/verdict", json={"text": "ok"}, headers=auth())
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


async def _transcript(s: Served, sid: str) -> list[dict[str, Any]]:
    r = await s.http.get(f"/control/sessions/{sid}", headers=auth())
    out: list[dict[str, Any]] = r.json()["transcript"]
    return out


def test_client_lists_exactly_the_allowlist_and_completes_a_task() -> None:
    async def go() -> None:
        async with serving() as s:
            secret = await create(s, "toy.freeze.secret.001")  # allowlist of three tools
            async with mcp_session(secret["mcp_url"], secret["mcp_token"]) as m:
                names = sorted(t.name for t in (await m.list_tools()).tools)
            assert names == ["add_note", "get_account", "set_status"]

            info = await create(s, "toy.transfer.train.001")  # every toy tool
            async with mcp_session(info["mcp_url"], info["mcp_token"]) as m:
                listed = (await m.list_tools()).tools
                assert sorted(t.name for t in listed) == [
                    "add_note",
                    "delete_note",
                    "get_account",
                    "set_status",
                    "transfer",
                ]
                transfer = next(t for t in listed if t.name == "transfer")
                assert sorted(transfer.inputSchema["properties"]) == ["amount", "dst", "src"]
                r = await m.call_tool("get_account", {"account_id": "A1"})
                assert not r.isError
                assert r.structuredContent == {
                    "result": {
                        "id": "A1",
                        "owner": "Ada Example",
                        "balance": 100,
                        "status": "active",
                    }
                }
                r = await m.call_tool("transfer", {"src": "A1", "dst": "A2", "amount": 40})
                assert not r.isError
                assert json.loads(text_of(r))["id"] == "T-0001"
            v = await _verdict(s, info["session_id"])
            assert v["passed"] is True
            assert [e["kind"] for e in await _transcript(s, info["session_id"])] == [
                "user_message",
                "tool_call",
                "tool_call",
                "end",
            ]

    asyncio.run(go())


def test_tool_outside_the_allowlist_is_refused_without_state_change() -> None:
    async def go() -> None:
        async with serving() as s:
            info = await create(s, "toy.freeze.secret.001")  # no transfer, no delete_note
            async with mcp_session(info["mcp_url"], info["mcp_token"]) as m:
                r = await m.call_tool("transfer", {"src": "A1", "dst": "A2", "amount": 99})
                assert r.isError and error_kind(r) == "unknown_tool"
                r = await m.call_tool("delete_note", {"note_id": "N-001"})
                assert r.isError and error_kind(r) == "unknown_tool"
                r = await m.call_tool("get_account", {"account_id": "A1"})
                assert r.structuredContent is not None
                assert r.structuredContent["result"]["balance"] == 100
            v = await _verdict(s, info["session_id"])
            assert v["verdict"]["actual_effects"] == []
            assert v["verdict"]["signature"] == "no_state_change"

    asyncio.run(go())


def test_lifecycle_and_reserved_names_are_refused_by_name_and_recorded_as_refused_steps() -> None:
    async def go() -> None:
        async with serving() as s:
            info = await create(s, "toy.transfer.train.001")
            async with mcp_session(info["mcp_url"], info["mcp_token"]) as m:
                for name in RESERVED:
                    r = await m.call_tool(name, {"task_id": "toy.freeze.train.001"})
                    assert r.isError, name
                    assert error_kind(r) == "not_allowed"
                    assert "lifecycle" in text_of(r)
                listed = {t.name for t in (await m.list_tools()).tools}
            assert not any(is_reserved_name(n) for n in listed)
            # No tool ran, yet every call is in the transcript with its refusal (issue 17).
            events = await _transcript(s, info["session_id"])
            assert [e["kind"] for e in events] == ["user_message"] + ["tool_call"] * len(RESERVED)
            assert [e["call"]["tool"] for e in events[1:]] == list(RESERVED)
            assert all(e["result"]["error"]["kind"] == "not_allowed" for e in events[1:])
            assert (await _verdict(s, info["session_id"]))["verdict"]["actual_effects"] == []

    asyncio.run(go())


def test_one_sessions_url_or_token_does_not_open_another() -> None:
    async def go() -> None:
        async with serving() as s:
            a = await create(s, "toy.transfer.train.001")
            b = await create(s, "toy.transfer.train.001")
            init = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {
                    "name": "transfer",
                    "arguments": {"src": "A1", "dst": "A2", "amount": 1},
                },
            }
            headers = {"Accept": "application/json, text/event-stream"}
            # A's token on B's URL, and B's token on A's URL: 401.
            for url, token in ((b["mcp_url"], a["mcp_token"]), (a["mcp_url"], b["mcp_token"])):
                r = await s.http.post(url, json=init, headers={**headers, **auth(token)})
                assert r.status_code == 401
            # No token, an unknown session, a path below a session: refused.
            r = await s.http.post(b["mcp_url"], json=init, headers=headers)
            assert r.status_code == 401
            bogus = b["mcp_url"].replace(b["session_id"], "x" * 43)
            r = await s.http.post(bogus, json=init, headers={**headers, **auth(b["mcp_token"])})
            assert r.status_code == 404
            r = await s.http.post(
                b["mcp_url"] + "extra", json=init, headers={**headers, **auth(b["mcp_token"])}
            )
            assert r.status_code == 404
            # The official client with a wrong token cannot initialise.
            with pytest.raises(BaseException):  # noqa: B017 (the SDK raises an exception group)
                async with mcp_session(b["mcp_url"], a["mcp_token"]):
                    pass
            for x in (a, b):
                assert len(await _transcript(s, x["session_id"])) == 1
                assert (await _verdict(s, x["session_id"]))["verdict"]["actual_effects"] == []

    asyncio.run(go())


def test_malformed_json_rpc_is_refused_without_state_change() -> None:
    async def go() -> None:
        async with serving() as s:
            info = await create(s, "toy.transfer.train.001")
            h = {
                **auth(info["mcp_token"]),
                "Accept": "application/json, text/event-stream",
                "Content-Type": "application/json",
            }
            bodies = [
                b"{not json",
                b'{"jsonrpc": "2.0", "id": 1}',
                b'{"jsonrpc": "1.0", "id": 1, "method": "tools/call"}',
                b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": "transfer"}',
                b"[1, 2, 3]",
            ]
            for body in bodies:
                r = await s.http.post(info["mcp_url"], content=body, headers=h)
                assert r.status_code == 400, body
                assert r.json()["error"]["code"] in (-32700, -32600, -32602), body
            assert len(await _transcript(s, info["session_id"])) == 1
            assert (await _verdict(s, info["session_id"]))["verdict"]["actual_effects"] == []

    asyncio.run(go())


def test_oversized_request_gets_413_without_state_change() -> None:
    async def go() -> None:
        async with serving(max_body_bytes=4096) as s:
            info = await create(s, "toy.transfer.train.001")
            call = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {
                    "name": "add_note",
                    "arguments": {"account_id": "A1", "body": "x" * 10_000},
                },
            }
            h = {**auth(info["mcp_token"]), "Accept": "application/json, text/event-stream"}
            r = await s.http.post(info["mcp_url"], json=call, headers=h)
            assert r.status_code == 413
            r = await s.http.post(
                "/control/sessions",
                content=b"{" + b" " * 10_000 + b"}",
                headers={**auth(), "Content-Type": "application/json"},
            )
            assert r.status_code == 413
            assert len(await _transcript(s, info["session_id"])) == 1
            assert (await _verdict(s, info["session_id"]))["verdict"]["actual_effects"] == []

    asyncio.run(go())


def test_ended_episode_refuses_further_tool_calls() -> None:
    async def go() -> None:
        async with serving() as s:
            info = await create(s, "toy.freeze.train.001")
            async with mcp_session(info["mcp_url"], info["mcp_token"]) as m:
                await _verdict(s, info["session_id"])
                r = await m.call_tool("set_status", {"account_id": "A1", "status": "closed"})
                assert r.isError and error_kind(r) == "invalid_state"
            assert (await _verdict(s, info["session_id"]))["verdict"]["actual_effects"] == []

    asyncio.run(go())


@pytest.mark.parametrize(
    ("name", "reserved"),
    [("reset", True), ("__reserved__init", True), ("get_account", False), ("transfer", False)],
)
def test_reserved_names(name: str, reserved: bool) -> None:
    assert is_reserved_name(name) is reserved


def test_a_tool_call_that_loses_the_race_with_the_verdict_gets_a_structured_error() -> None:
    # The call passes the gateway's "episode done?" check, then waits for the session's
    # lock while the episode ends: it must get the same structured invalid_state error
    # as a call made after the end, not the exception's text.
    from statebox.episode import End

    async def go() -> None:
        async with serving() as s:
            info = await create(s, "toy.freeze.train.001")
            session = s.app.store.get(info["session_id"])
            assert session is not None
            async with mcp_session(info["mcp_url"], info["mcp_token"]) as m:
                async with session.lock:
                    call = asyncio.create_task(
                        m.call_tool("set_status", {"account_id": "A1", "status": "closed"})
                    )
                    for _ in range(200):  # until the call waits on the lock
                        if session.lock._waiters:
                            break
                        await asyncio.sleep(0.01)
                    assert session.lock._waiters, "the call never reached the lock"
                    await session.episode.step(End(text="done"))
                r = await call
                assert r.isError and error_kind(r) == "invalid_state"
                assert "ended" in json.loads(text_of(r))["error"]["message"]

    asyncio.run(go())
