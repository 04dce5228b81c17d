"""Review of the direct serving paths (MCP gateway, OpenEnv HTTP): hostile requests.

Each of these failed before its fix.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from serving import auth, create, serve_tasks, serving

import statebox.serve._gateway as gateway_module
from fixtures.toy import SCHEMA, SEED, TOOLS
from statebox.domains import Domain
from statebox.serve import TaskCatalog
from statebox.serve._mcp_direct import direct_reply
from statebox.tools import tool
from statebox.world import WorldTx

H = {"Accept": "application/json", "Content-Type": "application/json"}


def _call(rid: Any, name: str, arguments: dict[str, Any]) -> bytes:
    body = {"jsonrpc": "2.0", "id": rid, "method": "tools/call"}
    body["params"] = {"name": name, "arguments": arguments}
    return json.dumps(body).encode()


def test_openenv_http_wrong_typed_fields_are_client_errors_not_500s() -> None:
    async def go() -> list[int]:
        async with serving(openenv=True) as s:
            statuses = []
            for body in (
                {"task_id": ["toy.freeze.train.001"]},
                {"task_id": {"a": 1}},
                {"split": "train", "index": "0"},
                {"split": "train", "index": 0.5},
            ):
                statuses.append((await s.http.post("/openenv/reset", json=body)).status_code)
            r = await s.http.post("/openenv/reset", json={"task_id": "toy.freeze.train.001"})
            eid = r.json()["observation"]["episode_id"]
            end = {"kind": "end", "text": "x"}
            for bad in ([eid], {"id": eid}):
                body = {"action": end, "episode_id": bad}
                statuses.append((await s.http.post("/openenv/step", json=body)).status_code)
            return statuses

    statuses = asyncio.run(go())
    assert all(400 <= s < 500 for s in statuses), statuses


def test_direct_answers_equal_the_sdks_with_repeated_headers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def sdk_only(*args: Any) -> None:
        return None

    repeated = [
        [("Accept", "text/html"), ("Accept", "application/json")],
        [("MCP-Protocol-Version", "1999-01-01"), ("MCP-Protocol-Version", "2025-06-18")],
    ]

    async def go() -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        async with serving() as s:
            for way, fn in (("direct", direct_reply), ("sdk", sdk_only)):
                monkeypatch.setattr(gateway_module, "direct_reply", fn)
                info = await create(s, "toy.transfer.train.001")
                base = {**H, **auth(info["mcp_token"])}
                out[way] = []
                for extra in repeated:
                    names = {k.lower() for k, _ in extra}
                    headers = [(k, v) for k, v in base.items() if k.lower() not in names]
                    body = _call(1, "get_account", {"account_id": "A1"})
                    r = await s.http.post(info["mcp_url"], content=body, headers=headers + extra)
                    out[way].append(r.status_code)
        return out

    out = asyncio.run(go())
    assert out["direct"] == out["sdk"], out


def test_a_gateway_body_that_is_not_utf8_is_not_a_500() -> None:
    async def go() -> int:
        async with serving() as s:
            info = await create(s, "toy.transfer.train.001")
            body = b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"\xff"}}'
            headers = {**H, **auth(info["mcp_token"])}
            return (await s.http.post(info["mcp_url"], content=body, headers=headers)).status_code

    assert asyncio.run(go()) < 500


@tool(mutates=True)
def crash(tx: WorldTx, account_id: str) -> None:
    """Write, then fail as a statebox bug would.

    Args:
        account_id: Account id.
    """
    tx.update("accounts", {"id": account_id}, {"status": "closed"})
    raise RuntimeError("internal detail: /srv/secret/path")


def test_a_tool_crash_through_the_gateway_is_a_system_error_not_a_verdict() -> None:
    domain = Domain(name="toy", schema_sql=SCHEMA, seed=SEED, tools=[*TOOLS, crash], policy="")

    async def go() -> tuple[dict[str, Any], int]:
        async with serving(lambda: TaskCatalog(serve_tasks(), {"toy": domain})) as s:
            info = await create(s, "toy.freeze.train.001")
            headers = {**H, **auth(info["mcp_token"])}
            body = _call(1, "crash", {"account_id": "A1"})
            r = await s.http.post(info["mcp_url"], content=body, headers=headers)
            result = r.json()["result"]
            v = await s.http.post(
                f"/control/sessions/{info['session_id']}/verdict",
                json={"text": "done"},
                headers=auth(),
            )
            return result, v.status_code

    result, verdict_status = asyncio.run(go())
    assert result["isError"] is True
    assert "secret" not in json.dumps(result)
    assert result["structuredContent"]["error"]["kind"] == "system_error"
    assert verdict_status == 502
