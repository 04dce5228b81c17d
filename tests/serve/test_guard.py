"""Serving security and hostile input (issue 17, items 8-10).

Host and Origin checks on every route (DNS rebinding, cross-site WebSocket hijacking),
JSON-only bodies, deep JSON answered 400, GET on the MCP endpoint answered 405, idle
sessions and RL episodes reaped, per-client limits, and a token on the RL server.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from typing import Any

import httpx
import pytest

pytest.importorskip("openenv")

from serving import SERVE_TASKS, TOKEN, auth, catalog, create, serving
from typer.testing import CliRunner
from websockets.asyncio.client import connect

from fixtures.support import TOY_REF
from statebox.cli import app as cli
from statebox.serve import ServeApp, StateboxEnvClient
from statebox.serve._guard import allowed_hosts, host_name, json_depth

DEEP = b'{"a":' * 1000 + b"1" + b"}" * 1000
JSON = {"Content-Type": "application/json"}


def test_json_depth_counts_nesting_outside_strings_only() -> None:
    assert json_depth(b'{"a": [1, {"b": "[[[[[[[["}]}', limit=2) == 3
    assert json_depth(b'{"a": "{{{{\\"{{{{"}', limit=1) == 1
    assert json_depth(DEEP, limit=64) == 1000
    assert json_depth(b"[" * 10 + b"]" * 10, limit=64) == 64  # within the limit


def test_host_names_and_the_default_allowed_set() -> None:
    assert host_name("127.0.0.1:8000") == "127.0.0.1"
    assert host_name("[::1]:8000") == "::1"
    assert host_name("http://Evil.Example:80") == "evil.example"
    assert allowed_hosts("0.0.0.0") == {"127.0.0.1", "localhost", "::1"}
    assert "box.lan" in allowed_hosts("0.0.0.0", ["box.lan:8000"])


def test_foreign_host_and_origin_are_refused_on_every_route() -> None:
    async def go() -> None:
        async with serving(openenv=True) as s:
            info = await create(s, "toy.transfer.train.001")
            evil_host = {"Host": "evil.example"}
            for method, path in [
                ("GET", "/health"),
                ("GET", "/control/sessions"),
                ("POST", info["mcp_url"]),
                ("GET", "/openenv/health"),
            ]:
                r = await s.http.request(method, path, headers={**auth(), **evil_host})
                assert r.status_code == 421, path
            evil = {"Origin": "http://evil.example"}
            r = await s.http.get("/control/sessions", headers={**auth(), **evil})
            assert r.status_code == 403
            r = await s.http.post("/openenv/reset", json={}, headers=evil)
            assert r.status_code == 403
            # The page's own origin (the server's address) is fine.
            r = await s.http.get("/control/sessions", headers={**auth(), "Origin": s.url})
            assert r.status_code == 200
            # Cross-site WebSocket hijacking: the handshake is refused.
            ws = s.url.replace("http://", "ws://") + "/openenv/ws"
            with pytest.raises(Exception, match=r"403|rejected"):
                async with connect(ws, additional_headers=evil):
                    pass
            async with connect(ws) as sock:  # no Origin (not a browser): served
                await sock.send(json.dumps({"type": "reset", "data": {}}))
                assert json.loads(await sock.recv())["type"] == "observation"

    asyncio.run(go())


def test_bodies_must_be_json_and_deep_json_is_a_400_not_a_500() -> None:
    async def go() -> None:
        async with serving(openenv=True) as s:
            info = await create(s, "toy.transfer.train.001")
            plain = {"Content-Type": "text/plain"}
            # The flood of issue 17: text/plain session creation needs no CORS preflight.
            rpc = {"jsonrpc": "2.0", "id": 1, "method": "openenv/session/create", "params": {}}
            r = await s.http.post("/openenv/mcp", content=json.dumps(rpc), headers=plain)
            assert r.status_code == 415
            r = await s.http.post("/openenv/mcp", json=rpc)
            assert r.status_code == 200 and r.json()["result"]["session_id"]  # served, as JSON
            r = await s.http.post("/openenv/reset", content=b"{}", headers=plain)
            assert r.status_code == 415
            r = await s.http.post(
                "/control/sessions", content=b'{"task_id": "x"}', headers={**auth(), **plain}
            )
            assert r.status_code == 415
            mcp = {**auth(info["mcp_token"]), "Accept": "application/json, text/event-stream"}
            for url, headers in [
                (info["mcp_url"], mcp),
                ("/control/sessions", auth()),
                ("/openenv/reset", {}),
            ]:
                r = await s.http.post(url, content=DEEP, headers={**headers, **JSON})
                assert r.status_code == 400 and "nested deeper" in r.json()["error"], url
            assert len(s.app.store) == 1  # nothing was created

    asyncio.run(go())


def test_get_on_the_mcp_endpoint_is_answered_405_at_once() -> None:
    async def go() -> None:
        async with serving() as s:
            info = await create(s, "toy.transfer.train.001")
            headers = {**auth(info["mcp_token"]), "Accept": "text/event-stream"}
            async with asyncio.timeout(10):  # it used to hold a stream open forever
                r = await s.http.get(info["mcp_url"], headers=headers)
            assert r.status_code == 405 and r.headers["allow"] == "POST"

    asyncio.run(go())


def test_idle_sessions_episodes_and_websockets_are_reaped() -> None:
    async def go() -> None:
        async with serving(openenv=True, idle_timeout_s=0.3) as s:
            info = await create(s, "toy.transfer.train.001")
            r = await s.http.post("/openenv/reset", json={"task_id": "toy.freeze.train.001"})
            eid = r.json()["observation"]["episode_id"]
            assert len(s.app.store) == 1
            ws = s.url.replace("http://", "ws://") + "/openenv/ws"
            async with connect(ws) as sock:
                await asyncio.sleep(1.0)
                with pytest.raises(Exception, match=r"1001|idle"):
                    await sock.recv()
            assert len(s.app.store) == 0
            r = await s.http.get(f"/control/sessions/{info['session_id']}", headers=auth())
            assert r.status_code == 404
            step = {"action": {"kind": "end", "text": "x"}, "episode_id": eid}
            r = await s.http.post("/openenv/step", json=step)
            assert r.status_code == 400 and "no live episode" in r.json()["error"]

    asyncio.run(go())


def test_a_websocket_in_use_outlives_the_idle_timeout_and_one_left_idle_loses_its_episode() -> None:
    reset = json.dumps({"type": "reset", "data": {"task_id": "toy.transfer.train.001"}})
    look = {"kind": "call_tool", "tool": "get_account", "args": {"account_id": "A1"}}
    step = json.dumps({"type": "step", "data": look})

    async def go() -> None:
        async with serving(openenv=True, idle_timeout_s=0.4) as s:
            server = s.app._openenv
            ws = s.url.replace("http://", "ws://") + "/openenv/ws"
            async with connect(ws) as busy, connect(ws) as idle:
                await busy.send(reset)
                assert json.loads(await busy.recv())["type"] == "observation"
                await idle.send(reset)
                assert json.loads(await idle.recv())["type"] == "observation"
                assert len(server.live) == 2
                # Messages closer together than the timeout, for three times its length.
                for _ in range(12):
                    await asyncio.sleep(0.1)
                    await busy.send(step)
                    assert json.loads(await busy.recv())["data"]["done"] is False
                with pytest.raises(Exception, match=r"1001|idle"):
                    await idle.recv()
                assert len(server.live) == 1  # the idle socket's episode went with it
                await busy.send(step)
                assert json.loads(await busy.recv())["type"] == "observation"

    asyncio.run(go())


def _asgi_client(app: ServeApp, peer: str) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app.app, client=(peer, 4000))
    return httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1")


def test_one_client_cannot_evict_another_clients_live_episodes() -> None:
    app = ServeApp(catalog, control_token=TOKEN, openenv=True, max_per_client=2)
    app.catalog = catalog()
    app._openenv.max_live = 3

    async def reset(c: httpx.AsyncClient) -> Any:
        return await c.post("/openenv/reset", json={"task_id": "toy.freeze.train.001"})

    async def go() -> None:
        async with _asgi_client(app, "10.0.0.1") as a, _asgi_client(app, "10.0.0.2") as b:
            mine = (await reset(b)).json()["observation"]["episode_id"]
            flood = [await reset(a) for _ in range(50)]
            assert all(r.status_code == 200 for r in flood)
            assert mine in app._openenv.live  # the flood evicted only its own episodes
            assert sum(o == "10.0.0.1" for o in app._openenv.owner.values()) == 2
            await reset(b)
            r = await reset(_asgi_client(app, "10.0.0.3"))
            assert r.status_code == 503  # full: refused, nobody evicted
            assert mine in app._openenv.live

    asyncio.run(go())


def test_every_loopback_address_is_one_client() -> None:
    # Found in review: one process binding 127.0.0.2 ... 127.0.0.65 (all of 127/8
    # reaches a loopback server) held 64 episodes per address, 4,096 in all: the whole
    # server, with no token, refused to everyone else for the idle timeout.
    app = ServeApp(catalog, control_token=TOKEN, openenv=True, max_per_client=2)
    app.catalog = catalog()

    async def go() -> None:
        for n in range(2, 12):
            async with _asgi_client(app, f"127.0.0.{n}") as c:
                r = await c.post("/openenv/reset", json={"task_id": "toy.freeze.train.001"})
                assert r.status_code == 200
        assert len(app._openenv.live) == 2  # one client's share, whatever it called itself
        assert set(app._openenv.owner.values()) == {"127.0.0.1"}

    asyncio.run(go())


def test_an_episode_a_websocket_holds_is_never_evicted_by_another_local_client() -> None:
    # Found in review: every loopback client is one address, so another local program's
    # HTTP resets evicted a trainer's live WebSocket episode as "the client's oldest".
    async def go() -> None:
        async with serving(openenv=True, max_per_client=2) as s:
            ws = s.url.replace("http://", "ws://") + "/openenv/ws"
            async with connect(ws) as trainer:
                await trainer.send(
                    json.dumps({"type": "reset", "data": {"task_id": "toy.freeze.train.001"}})
                )
                reply = json.loads(await trainer.recv())
                mine = reply["data"]["observation"]["episode_id"]
                for _ in range(10):  # another local program, over plain HTTP
                    r = await s.http.post(
                        "/openenv/reset", json={"task_id": "toy.freeze.train.001"}
                    )
                    assert r.status_code == 200
                assert mine in s.app._openenv.live
                http_held = [e for e in s.app._openenv.live if e != mine]
                assert len(http_held) == 2  # the HTTP episodes keep to the share
                step = {"kind": "call_tool", "tool": "get_account", "args": {"account_id": "A1"}}
                await trainer.send(json.dumps({"type": "step", "data": step}))
                answer = json.loads(await trainer.recv())
                assert answer["type"] == "observation", answer

    asyncio.run(go())


def test_the_rl_server_takes_a_token() -> None:
    async def go() -> None:
        async with serving(openenv=True, openenv_token="rl-token-for-tests") as s:
            body = {"task_id": "toy.freeze.train.001"}
            assert (await s.http.post("/openenv/reset", json=body)).status_code == 401
            assert (await s.http.get("/openenv/health")).status_code == 200
            r = await s.http.post("/openenv/reset", json=body, headers=auth("rl-token-for-tests"))
            assert r.status_code == 200
            with pytest.raises(ConnectionError):
                async with StateboxEnvClient(base_url=s.url + "/openenv") as env:
                    await env.reset()
            async with StateboxEnvClient(
                base_url=s.url + "/openenv", headers=auth("rl-token-for-tests")
            ) as env:
                assert (await env.reset(task_id="toy.freeze.train.001")).observation.kind == "start"

    asyncio.run(go())


def test_serving_openenv_beyond_loopback_without_a_token_refuses_to_start() -> None:
    args = ["serve", "--tasks", str(SERVE_TASKS), "--domain", TOY_REF, "--host", "0.0.0.0"]
    result = CliRunner().invoke(cli, [*args, "--port", "0"])
    assert result.exit_code == 1
    assert "--openenv-token-file" in result.output and result.exception is not None
    assert isinstance(result.exception, SystemExit)


def test_the_scripted_model_server_checks_the_host_too() -> None:
    from statebox.llm._protocol_server import ProtocolServer, Reply

    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    with ProtocolServer(lambda req: Reply(text="hello")) as server:
        url = server.base_url + "/v1/chat/completions"
        assert httpx.post(url, json=body, headers={"Host": "evil.example"}).status_code == 421
        assert httpx.post(url, json=body).status_code == 200


def test_one_client_cannot_hold_more_websockets_than_its_share() -> None:
    async def go() -> None:
        async with serving(openenv=True, max_per_client=2) as s:
            ws = s.url.replace("http://", "ws://") + "/openenv/ws"
            async with connect(ws), connect(ws):
                with pytest.raises(Exception, match=r"403|1013"):  # refused at the handshake
                    async with connect(ws) as third, asyncio.timeout(5):
                        await third.recv()
            # Slots come back when sockets close: the server counts a close when its
            # handler ends, which can be after the client's close returns, so a
            # refusal is retried for a bounded time (on a loaded machine the first
            # try could still land before the count drops).
            for attempt in range(50):
                try:
                    async with connect(ws) as again, asyncio.timeout(5):
                        await again.send(json.dumps({"type": "reset", "data": {}}))
                        assert json.loads(await again.recv())["type"] == "observation"
                    break
                except Exception as exc:  # a refusal at the handshake or a 1013 close
                    if attempt == 49 or not re.search(r"403|1013", str(exc)):
                        raise
                    await asyncio.sleep(0.1)

    asyncio.run(go())


def test_a_client_cannot_name_itself_another_peer_to_pass_its_share() -> None:
    # Found in review: uvicorn trusted X-Forwarded-For from 127.0.0.1, so one local
    # client sending a new address each time held as many WebSockets as it liked.
    async def go() -> None:
        async with serving(openenv=True, max_per_client=2) as s:
            ws = s.url.replace("http://", "ws://") + "/openenv/ws"

            def claiming(n: int) -> Any:
                return connect(ws, additional_headers={"X-Forwarded-For": f"10.0.0.{n}"})

            async with claiming(1), claiming(2):
                with pytest.raises(Exception, match=r"403|1013"):
                    async with claiming(3) as third, asyncio.timeout(5):
                        await third.recv()

    asyncio.run(go())


@pytest.mark.parametrize("path", ["/mcp/", "/mcp/abc", "/mcp", "/control", "/health", "/nope"])
def test_a_websocket_to_a_path_without_one_is_refused_and_logs_nothing(
    path: str, caplog: pytest.LogCaptureFixture
) -> None:
    # Found in review: one to the gateway's mount was a 500 with a uvicorn error line
    # per attempt (a way for any client to fill the log), not the 403 others get.
    async def go() -> None:
        async with serving(openenv=True) as s:
            ws = s.url.replace("http://", "ws://") + path
            with pytest.raises(Exception, match="HTTP 403"):
                async with connect(ws):
                    pass

    with caplog.at_level(logging.INFO):
        asyncio.run(go())
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text


@pytest.mark.parametrize(
    "raw",
    [
        [(b"host", b"127.0.0.1:1"), (b"host", b"evil.example")],  # the first one counts
        [(b"host", b"evil.example"), (b"host", b"127.0.0.1:1")],
        [(b"origin", b"http://a"), (b"origin", b"http://b"), (b"content-length", b"0")],
        [(b"content-type", b"text/plain"), (b"content-type", b"application/json")],
        [(b"content-length", b" 12 "), (b"content-length", b"0")],
        [(b"transfer-encoding", b"chunked")],
        [(b"content-length", b""), (b"transfer-encoding", b"chunked")],
        [(b"x-other", b"1")],
    ],
)
def test_the_guard_reads_headers_as_starlette_does(raw: list[tuple[bytes, bytes]]) -> None:
    from starlette.datastructures import Headers

    from statebox.serve._guard import _Checked

    scope = {"type": "http", "headers": raw}
    headers, checked = Headers(scope=scope), _Checked(scope)
    for name in ("host", "origin", "content-type", "content-length"):
        assert getattr(checked, name.replace("-", "_")) == headers.get(name), name
    length = headers.get("content-length")
    has_body = (
        length.strip() not in ("", "0") if length is not None else "transfer-encoding" in headers
    )
    assert checked.has_body == has_body


def test_a_request_whose_client_leaves_mid_body_runs_nothing() -> None:
    # Found in review: the guard replayed the part that came as a whole body, so a
    # valid JSON prefix created a control session or ended and judged an episode.
    from statebox.serve._guard import RequestGuard

    called: list[bytes] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        called.append((await receive())["body"])

    guard = RequestGuard(app, ["127.0.0.1"], max_body_bytes=1024)
    body = b'{"task_id": "toy.freeze.train.001"}'
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/control/sessions",
        "headers": [
            (b"host", b"127.0.0.1:1"),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body) + 500).encode()),
        ],
    }

    async def go(tail: list[dict[str, Any]]) -> None:
        messages = [{"type": "http.request", "body": body, "more_body": True}, *tail]

        async def receive() -> dict[str, Any]:
            return messages.pop(0)

        async def send(message: Any) -> None:
            raise AssertionError(f"nothing is answered to a client that left: {message}")

        await guard(scope, receive, send)

    asyncio.run(go([{"type": "http.disconnect"}]))
    assert called == []
    asyncio.run(go([{"type": "http.request", "body": b"", "more_body": False}]))
    assert called == [body]  # a body that ends is run as before


@pytest.mark.parametrize("client_left", [True, False])
def test_a_handler_failing_once_its_websocket_client_left_is_no_server_error(
    client_left: bool,
) -> None:
    # Found in review: openenv's handler answers a failure by sending an error to the
    # socket, which fails again once the client has gone; uvicorn logged each such
    # client's leaving as a ~100-line "Exception in ASGI application".
    from statebox.serve._openenv import _Gate

    app = ServeApp(catalog, control_token=TOKEN, openenv=True)
    app.catalog = catalog()
    events = [{"type": "websocket.connect"}, {"type": "websocket.disconnect", "code": 1006}]

    async def handler(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        await send({"type": "websocket.accept"})
        if not client_left:
            raise RuntimeError("a fault of the handler, its client still there")
        await receive()  # the disconnect
        await send({"type": "websocket.send", "text": "an error for the client"})

    async def receive() -> Any:
        return events.pop(0)

    async def send(message: Any) -> None:
        if message["type"] == "websocket.send":
            raise RuntimeError('Cannot call "send" once a close message has been sent.')

    gate = _Gate(app._openenv, handler, None)
    scope = {"type": "websocket", "path": "/ws", "client": ("127.0.0.1", 5), "headers": []}
    if client_left:
        asyncio.run(gate(scope, receive, send))  # nothing raised for uvicorn to log
    else:
        with pytest.raises(RuntimeError):  # a failure with its client there is a fault
            asyncio.run(gate(scope, receive, send))
