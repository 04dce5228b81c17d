"""What a peer harness pays for a fresh world, measured here (no constants).

- `json_db_load_s`: a tau2-style reset: the whole database is a JSON file, parsed into
  Python objects per trial, then one keyed lookup (tau2 also validates it into pydantic
  models, which costs more: this is the cheaper bound).
- `mcp_server_start_s`: a ThinkingBox-style reset: a fresh MCP server process per trial,
  started over stdio with the official ``mcp`` SDK, timed to its first tool result.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

_SERVER = """
from mcp.server.fastmcp import FastMCP

server = FastMCP("bench-peer", log_level="WARNING")


@server.tool()
def get_row(key: str) -> str:
    return key


server.run("stdio")
"""


def json_db_load_s(path: Path, n: int) -> list[float]:
    """Seconds per load of a JSON database (table -> list of rows) to its first lookup."""
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        db: dict[str, list[dict[str, Any]]] = json.loads(path.read_bytes())
        first = sorted(db)[0]
        by_key = {json.dumps(r, sort_keys=True): r for r in db[first][:1]}
        assert by_key  # the lookup ran
        out.append(time.perf_counter() - t0)
    return out


async def _start_once() -> float:
    params = StdioServerParameters(command=sys.executable, args=["-c", _SERVER])
    t0 = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
        await s.initialize()
        result = await s.call_tool("get_row", {"key": "A1"})
        dt = time.perf_counter() - t0
        if result.isError:
            raise RuntimeError(f"peer MCP server answered an error: {result.content}")
    return dt


def mcp_server_start_s(n: int) -> list[float]:
    """Seconds per fresh MCP stdio server start, to its first tool result (``n`` starts)."""

    async def go() -> list[float]:
        return [await _start_once() for _ in range(n)]

    return asyncio.run(go())
