"""The serving app's shortcuts answer as the paths they shortcut.

- `_Routed`: the gateway's and the control API's requests reach their mount without
  the app's middleware stack and router; every request, routed or not, gets the
  answer the Starlette app alone gives (status, headers, body).
- The gateway's ``tools/list``: built once per tool tuple, the SDK's own answer.
- ``freeze_gc``: the objects alive once the catalog is loaded are frozen, only then.
"""

from __future__ import annotations

import asyncio
import gc
import json
from typing import Any

import pytest
from mcp import types
from mcp.server.lowlevel import Server
from serving import auth, catalog, create, serving
from starlette.types import Receive, Scope, Send

import statebox.serve._app as app_module
from statebox.serve import ServeApp
from statebox.serve._gateway import McpGateway

H = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
LIST = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})


async def _answers(s: Any, info: dict[str, Any]) -> list[Any]:
    mcp = info["mcp_url"].removeprefix(s.url)
    sid = info["session_id"]
    mh = {**H, **auth(info["mcp_token"])}
    requests: list[tuple[str, str, dict[str, str], str | None]] = [
        ("GET", "/health", {}, None),
        ("POST", "/health", H, "{}"),
        ("GET", "/ready", {}, None),
        ("GET", "/nope", {}, None),
        ("GET", "/mcp", {}, None),
        ("GET", "/mcp/", {}, None),
        ("POST", mcp, mh, LIST),
        ("POST", mcp.rstrip("/"), mh, LIST),
        ("GET", mcp, mh, None),
        ("POST", mcp, {**H, **auth("wrong")}, LIST),
        ("POST", "/mcp/nosuchsession/", mh, LIST),
        ("POST", mcp + "extra", mh, LIST),
        ("POST", "/mcp/%0A/", mh, LIST),
        ("GET", "/control/health", {}, None),
        ("POST", "/control/health", H, "{}"),
        ("GET", "/control", auth(), None),
        ("GET", "/control/", auth(), None),
        ("GET", "/control/sessions", {}, None),
        ("GET", "/control/sessions/", auth(), None),
        ("GET", f"/control/sessions/{sid}", auth(), None),
        ("PUT", f"/control/sessions/{sid}", auth(), None),
        ("GET", "/control/sessions/nope", auth(), None),
        ("POST", f"/control/sessions/{sid}/message", {**H, **auth()}, '{"text": 5}'),
        ("GET", "/control/%0A", auth(), None),
    ]
    out = []
    for method, path, headers, body in requests:
        r = await s.http.request(method, path, headers=headers, content=body)
        kept = [
            (k, v.replace(s.url, "URL"))
            for k, v in r.headers.multi_items()
            if k not in ("date", "mcp-session-id")
        ]
        content = r.content.replace(sid.encode(), b"SID")
        out.append((method, path.replace(sid, "SID"), r.status_code, kept, content))
    return out


def _counting(app: Any, seen: list[str]) -> Any:
    async def counting(scope: Scope, receive: Receive, send: Send) -> None:
        seen.append(scope["path"])
        await app(scope, receive, send)

    return counting


def test_routed_requests_get_the_starlette_apps_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []  # what reached the Starlette app itself

    async def plain_only(self: Any, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app(scope, receive, send)

    async def go() -> dict[str, list[Any]]:
        out: dict[str, list[Any]] = {}
        for way in ("routed", "starlette"):
            if way == "starlette":
                monkeypatch.setattr(app_module._Routed, "__call__", plain_only)
            async with serving() as s:
                routed = s.app.app.app  # type: ignore[attr-defined]
                assert isinstance(routed, app_module._Routed)
                plain = routed.app

                routed.app = _counting(plain, seen)
                info = await create(s, "toy.transfer.train.001")
                seen.clear()
                out[way] = await _answers(s, info)
                out[way + " seen"] = list(seen)
        return out

    out = asyncio.run(go())
    for mine, theirs in zip(out["routed"], out["starlette"], strict=True):
        assert mine == theirs, mine[:2]
    statuses = {(m, p): status for m, p, status, _, _ in reversed(out["starlette"])}  # first
    assert statuses[("POST", "/mcp/SID/")] == 200 and statuses[("GET", "/nope")] == 404
    assert statuses[("GET", "/control/sessions/SID")] == 200
    # A partial match (the probe's route, another method) loses to the mount's full one.
    assert statuses[("POST", "/control/health")] == 404
    # The Starlette app saw only what is not the gateway's or the control API's.
    assert len(out["starlette seen"]) == len(out["starlette"])
    assert len(out["routed seen"]) == sum(
        not (p.startswith("/mcp/") or p.startswith("/control/")) or p.startswith("/control/health")
        for _, p, _, _, _ in out["routed"]
    )


def test_a_failure_under_a_routed_mount_is_still_a_500(monkeypatch: pytest.MonkeyPatch) -> None:
    async def broken(self: Any, scope: Scope, receive: Receive, send: Send) -> None:
        raise RuntimeError("the gateway broke")

    monkeypatch.setattr(McpGateway, "__call__", broken)

    async def go() -> tuple[int, bytes]:
        async with serving() as s:
            r = await s.http.post("/mcp/anything/", content=LIST, headers=H)
            return r.status_code, r.content

    assert asyncio.run(go()) == (500, b"Internal Server Error")


def _sdk_lister(tools: Any) -> Server[Any, Any]:
    sdk = Server[Any, Any]("reference")

    @sdk.list_tools()  # type: ignore[no-untyped-call, untyped-decorator]
    async def listed() -> list[types.Tool]:
        return [
            types.Tool(name=t.name, description=t.description, inputSchema=t.input_schema)
            for t in tools
        ]

    return sdk


def test_tools_list_is_the_sdks_answer_built_once_per_tool_set() -> None:
    async def go() -> None:
        async with serving() as s:
            lists = []
            for task in (
                "toy.transfer.train.001",
                "toy.transfer.train.001",
                "toy.freeze.secret.001",
            ):
                info = await create(s, task)
                session = s.app.store.get(info["session_id"])
                assert session is not None
                r = await s.http.post(
                    info["mcp_url"], content=LIST, headers={**H, **auth(info["mcp_token"])}
                )
                sdk = _sdk_lister(session.tools)  # the SDK's own handler, same tools
                want = await sdk.request_handlers[types.ListToolsRequest](types.ListToolsRequest())
                assert r.json()["result"] == want.model_dump(by_alias=True, exclude_none=True)
                lists.append((session.tools, r.json()["result"]))
            (same, a), (again, b), (other, c) = lists
            assert a == b and all(x is y for x, y in zip(same, again, strict=True))
            assert len(s.app.gateway._tool_lists) == 2  # one list per task
            assert [t["name"] for t in c["tools"]] == [t.name for t in other]
            assert {t["name"] for t in a["tools"]} != {t["name"] for t in c["tools"]}

    asyncio.run(go())


@pytest.mark.parametrize("freeze", [True, False])
def test_freeze_gc_freezes_what_lives_once_the_catalog_is_loaded(freeze: bool) -> None:
    async def go() -> tuple[int, int]:
        app = ServeApp(catalog, freeze_gc=freeze)
        assert gc.get_freeze_count() == 0
        await app.load()
        assert app.ready
        return gc.get_freeze_count(), gc.get_threshold()[0]

    gc.unfreeze()
    before = gc.get_threshold()
    try:
        frozen, young = asyncio.run(go())
    finally:
        gc.unfreeze()  # the rest of the test session collects as before
        gc.set_threshold(*before)
    assert (frozen > 0) is freeze
    assert young == (app_module.GC_YOUNG_THRESHOLD if freeze else before[0])
