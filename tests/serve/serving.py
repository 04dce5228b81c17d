"""Helpers of the serving tests: a live `statebox serve` app on loopback, MCP clients."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, NamedTuple

import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from fixtures.toy import make_domain
from statebox.serve import BackgroundServer, ServeApp, TaskCatalog
from statebox.tasks import Task, load_tasks

HERE = Path(__file__).resolve().parent
SERVE_TASKS = HERE / "tasks"
TOKEN = "operator-token-for-tests"


def serve_tasks() -> list[Task]:
    """The serving fixture tasks (toy domain)."""
    return load_tasks(SERVE_TASKS)


def catalog(tasks: list[Task] | None = None) -> TaskCatalog:
    """A catalog of the fixture tasks on a fresh toy domain."""
    return TaskCatalog(tasks if tasks is not None else serve_tasks(), {"toy": make_domain()})


class Served(NamedTuple):
    app: ServeApp
    url: str
    http: httpx.AsyncClient


@asynccontextmanager
async def serving(
    load: Callable[[], TaskCatalog] | None = catalog, *, wait: bool = True, **kwargs: Any
) -> AsyncIterator[Served]:
    """Run a ServeApp on 127.0.0.1:0 for the block; waits for readiness by default."""
    app = ServeApp(load, control_token=TOKEN, **kwargs)
    async with BackgroundServer(app.app) as server, httpx.AsyncClient(base_url=server.url) as c:
        if wait:
            for _ in range(600):
                if (await c.get("/ready")).status_code == 200:
                    break
                await asyncio.sleep(0.02)
        yield Served(app, server.url, c)


def auth(token: str = TOKEN) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def create(s: Served, task_id: str) -> dict[str, Any]:
    """Create a control-API session; returns its JSON (session_id, mcp_url, mcp_token...)."""
    r = await s.http.post("/control/sessions", json={"task_id": task_id}, headers=auth())
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data


@asynccontextmanager
async def mcp_session(url: str, token: str) -> AsyncIterator[ClientSession]:
    """An initialised official MCP client session on a gateway endpoint."""
    async with (
        httpx.AsyncClient(headers=auth(token), timeout=60) as http,
        streamable_http_client(url, http_client=http) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


def text_of(result: Any) -> str:
    """All text content of an MCP tool result."""
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


def error_kind(result: Any) -> str:
    return str(json.loads(text_of(result))["error"]["kind"])


async def read_response(reader: asyncio.StreamReader) -> tuple[bytes, bytes]:
    """(status, body) of the next HTTP/1.1 response on a raw connection (Content-Length)."""
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    length = next(
        int(line.split(b":")[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    return head.split(b" ")[1], await reader.readexactly(length)


async def answer_lifespan(receive: Any, send: Any) -> None:
    """Play an ASGI app's part of the lifespan protocol (a test app with no start-up)."""
    while (await receive())["type"] != "lifespan.shutdown":
        await send({"type": "lifespan.startup.complete"})
    await send({"type": "lifespan.shutdown.complete"})
