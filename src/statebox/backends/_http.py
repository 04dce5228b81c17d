"""An MCP server started by a command that serves streamable HTTP on a loopback port.

The same `statebox.thinkingbox.McpProcess` — one owner task, requests served in order,
a time limit on each — with another transport: statebox starts the command in a session
of its own (stdout and stderr to the server's log), waits until the port accepts
connections, and talks to the URL with the official SDK's streamable HTTP client.
Leaving stops the client, then the whole process group (SIGTERM, then SIGKILL).

A server that dies mid-call is noticed by the call's time limit (``call_timeout_s``),
not at once as over stdio, where the end of its stdout says so.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import urlsplit

import anyio
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from statebox.errors import BackendError
from statebox.thinkingbox import McpProcess, ServerSpec

__all__ = ["HttpMcpProcess"]


class HttpMcpProcess(McpProcess):
    """A started streamable-HTTP MCP server (create with `HttpMcpProcess.start_http`).

    Args:
        spec: How to start it (placeholders already filled, ``{port}`` included).
        url: Its MCP endpoint on loopback.
        stderr_path: File for its stdout and stderr; None discards them.
        call_timeout_s: Limit on each request, in seconds.
    """

    def __init__(
        self, spec: ServerSpec, *, url: str, stderr_path: Path | None, call_timeout_s: float
    ) -> None:
        super().__init__(spec, stderr_path=stderr_path, call_timeout_s=call_timeout_s)
        self.url = url

    @classmethod
    async def start_http(
        cls,
        spec: ServerSpec,
        url: str,
        *,
        stderr_path: Path | None = None,
        start_timeout_s: float = 60.0,
        call_timeout_s: float = 300.0,
    ) -> HttpMcpProcess:
        """Start the command, wait for its port, run the MCP handshake, list its tools.

        Raises:
            BackendError: The command could not run, exited, or did not answer within
                ``start_timeout_s``.
        """
        proc = cls(spec, url=url, stderr_path=stderr_path, call_timeout_s=call_timeout_s)
        await proc._launch(start_timeout_s)
        return proc

    @contextlib.asynccontextmanager
    async def _transport(
        self, params: StdioServerParameters, errlog: TextIO
    ) -> AsyncIterator[tuple[Any, Any]]:
        parts = urlsplit(self.url)
        host, port = parts.hostname or "127.0.0.1", parts.port or 80
        process = await anyio.open_process(
            [params.command, *params.args],
            env=params.env,
            cwd=params.cwd,
            stdin=subprocess.DEVNULL,
            stdout=errlog,
            stderr=errlog,
            start_new_session=True,  # its own process group, killed whole on the way out
        )
        self.pid = process.pid
        try:
            while True:
                if process.returncode is not None:
                    raise BackendError(f"exited with code {process.returncode} before serving")
                try:
                    stream = await anyio.connect_tcp(host, port)
                except OSError:
                    await anyio.sleep(0.05)
                    continue
                await stream.aclose()
                break
            async with streamable_http_client(self.url) as (read, write, _):
                yield read, write
        finally:
            with anyio.CancelScope(shield=True):
                await _stop(process)


async def _stop(process: Any, grace_s: float = 2.0) -> None:
    if process.returncode is not None:
        return
    with contextlib.suppress(OSError):
        os.killpg(process.pid, signal.SIGTERM)
    with anyio.move_on_after(grace_s):
        await process.wait()
        return
    with contextlib.suppress(OSError):
        os.killpg(process.pid, signal.SIGKILL)
    await process.wait()
