"""200 concurrent episodes through the MCP gateway, each judged on its own world."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from serving import Served, auth, create, mcp_session, serving

N = 200


async def _episode(s: Served, i: int, gate: asyncio.Event) -> tuple[int, bool, Any]:
    # Even episodes move 40 (correct), odd ones 40 + i (wrong): each verdict depends only
    # on its own calls, so any shared state between sessions would show as a wrong verdict.
    info = await create(s, "toy.transfer.train.001")
    amount = 40 if i % 2 == 0 else 41 + i % 50
    async with mcp_session(info["mcp_url"], info["mcp_token"]) as m:
        await gate.wait()
        r = await m.call_tool("get_account", {"account_id": "A1"})
        assert r.structuredContent is not None
        assert r.structuredContent["result"]["balance"] == 100  # untouched by the others
        r = await m.call_tool("transfer", {"src": "A1", "dst": "A2", "amount": amount})
        assert not r.isError
    v = await s.http.post(
        f"/control/sessions/{info['session_id']}/verdict", json={"text": "done"}, headers=auth()
    )
    body = v.json()
    return i, body["passed"], body["verdict"]["actual_effects"]


@pytest.mark.slow
def test_200_concurrent_episodes_get_independent_correct_verdicts() -> None:
    async def go() -> None:
        async with serving() as s:
            gate = asyncio.Event()
            tasks = [asyncio.create_task(_episode(s, i, gate)) for i in range(N)]
            # Every session is live before the first call; a creation that failed ends
            # its task, so stop waiting then (gather raises it) instead of forever.
            while len(s.app.store) < N and not any(t.done() for t in tasks):
                await asyncio.sleep(0.01)
            gate.set()
            results = await asyncio.gather(*tasks)
        assert len(results) == N
        for i, passed, effects in results:
            assert passed is (i % 2 == 0), i
            a1 = next(e for e in effects if e["table"] == "accounts" and e["key"] == {"id": "A1"})
            assert a1["after"]["balance"] == 100 - (40 if i % 2 == 0 else 41 + i % 50)

    asyncio.run(go())
