"""An outside agent for `statebox run --agent http://127.0.0.1:PORT/agent`.

It speaks statebox's bring-your-own-agent protocol (``statebox.agent/v1``): statebox
POSTs each user turn — the conversation so far and the episode's MCP endpoint — and
the agent answers ``{"action": "reply" | "end", "text": ...}``. Tools are called
through the episode's MCP endpoint with the official ``mcp`` client; the decisions
come from a rule-based policy (toy_policy.py) instead of an LLM.

Run it:

    python examples/byo_agent.py --port 9000
    statebox run --tasks tests/serve/tasks --domain tests/fixtures/toy/__init__.py:DOMAIN \
        --agent http://127.0.0.1:9000/agent --trials 3
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

sys.path.insert(0, str(Path(__file__).resolve().parent))
from toy_policy import plan


async def take_turn(turn: dict[str, Any]) -> dict[str, str]:
    """Answer one statebox turn request."""
    users = [m["content"] for m in turn["messages"] if m["role"] == "user"]
    todo = plan(users)
    if todo.question is not None:
        return {"action": "reply", "text": todo.question}
    mcp = turn["mcp"]
    async with (
        httpx.AsyncClient(headers=mcp["headers"], timeout=60) as http,
        streamable_http_client(mcp["url"], http_client=http) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        allowed = {t.name for t in (await session.list_tools()).tools}
        for name, args in todo.calls:
            if name not in allowed:
                return {"action": "end", "text": f"I cannot do that here ({name})."}
            result = await session.call_tool(name, args)
            if result.isError:
                reason = json.loads(result.content[0].text)["error"]["message"]
                return {"action": "end", "text": f"I could not finish: {reason}."}
    return {"action": "end", "text": todo.final}


async def agent(request: Request) -> JSONResponse:
    """POST /agent: one turn of the protocol."""
    turn = await request.json()
    if turn.get("protocol") != "statebox.agent/v1":
        return JSONResponse({"error": "unknown protocol"}, status_code=400)
    return JSONResponse(await take_turn(turn))


app = Starlette(routes=[Route("/agent", agent, methods=["POST"])])


async def main(host: str, port: int) -> None:
    """Serve until interrupted; print the bound URL first (port 0 picks one)."""
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning"))
    task = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)
    bound = server.servers[0].sockets[0].getsockname()[1]
    print(f"http://{host}:{bound}/agent", flush=True)
    await task


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9000)
    ns = parser.parse_args()
    asyncio.run(main(ns.host, ns.port))
