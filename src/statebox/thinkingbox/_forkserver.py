"""Fresh MCP server processes at fork speed: one fork server per server spec.

A ThinkingBox trial needs server processes that have never been initialised, and a
plain start spends about a second importing the server's libraries. A `ForkServer` runs
`_server_launch` ``forkserver`` with the servers' Python: it imports the server once,
then forks a new child for every `ForkServer.spawn`. The child has never run
``__reserved__init`` (the parent never does), so `McpProcess`'s fresh-process rule and
its one-init-per-process refusal are unchanged; only the import is shared.

`pipe_client` is the MCP transport over a forked child's pipes (the SDK's
``stdio_client`` spawns its own process, so it cannot take one that already runs); it
frames JSON-RPC exactly as ``stdio_client`` does.

`launch_command` is how a plain process is started when statebox may wrap it
(``{python} -m MODULE`` or ``{python} SCRIPT``): through ``_server_launch run``, which
points the ``typesense`` client at the campaign's search service.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import socket
import tempfile
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp import types
from mcp.shared.message import SessionMessage

from statebox.errors import BackendError
from statebox.thinkingbox._servers import ServerSpec

__all__ = ["ForkServer", "Spawned", "launch_command", "pipe_client", "wrappable"]

_log = logging.getLogger(__name__)
LAUNCHER = Path(__file__).resolve().parent / "_server_launch.py"
_GRACE_S = 2.0
"""How long a closed child may take to exit on its own before it is killed."""


def wrappable(spec: ServerSpec) -> bool:
    """Whether ``spec`` is ``{python} -m MODULE ...`` or ``{python} SCRIPT.py ...``."""
    cmd = spec.command
    if spec.python is None or len(cmd) < 2 or cmd[0] != spec.python:
        return False
    return (cmd[1] == "-m" and len(cmd) > 2) or cmd[1].endswith(".py")


def launch_command(spec: ServerSpec) -> tuple[str, ...]:
    """The command that starts ``spec`` through ``_server_launch run`` (if `wrappable`)."""
    if not wrappable(spec):
        return spec.command
    return (spec.command[0], str(LAUNCHER), "run", "--", *spec.command[1:])


class Spawned(NamedTuple):
    """A forked server child: its pid (= its process group) and our ends of its pipes."""

    pid: int
    stdin: int
    """Write end of the child's stdin."""
    stdout: int
    """Read end of the child's stdout."""


class ForkServer:
    """One server spec's fork server (create with `ForkServer.start`).

    Attributes:
        spec: The server it forks.
        pid: The fork server's own process id.
        spawned: Children forked so far.
    """

    def __init__(self, spec: ServerSpec, proc: asyncio.subprocess.Process, sock: Path) -> None:
        self.spec = spec
        self.pid = proc.pid
        self.spawned = 0
        self._proc = proc
        self._sock = sock

    @classmethod
    async def start(
        cls,
        spec: ServerSpec,
        *,
        extra_env: Mapping[str, str] | None = None,
        log_path: Path | None = None,
        start_timeout_s: float = 120.0,
    ) -> ForkServer:
        """Start the fork server of ``spec`` and wait until it has imported the server.

        Raises:
            BackendError: ``spec`` cannot be forked (not `wrappable`, no fork on this
                platform, the import failed or left threads running: the message says
                which), or the fork server did not come up within ``start_timeout_s``.
        """
        if not wrappable(spec):
            raise BackendError(
                f"MCP server {spec.name!r}: its command is not `{{python}} -m MODULE` or "
                "`{python} SCRIPT.py`, so it cannot be forked"
            )
        folder = Path(tempfile.mkdtemp(prefix="statebox-fork-"))
        sock = folder / "fork.sock"
        err = log_path.open("ab") if log_path is not None else open(os.devnull, "wb")  # noqa: SIM115
        try:
            proc = await asyncio.create_subprocess_exec(
                spec.command[0],
                str(LAUNCHER),
                "forkserver",
                str(sock),
                "--",
                *spec.command[1:],
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=err,
                env={**os.environ, **spec.env, **(extra_env or {})},
                cwd=spec.cwd,
                start_new_session=True,
            )
        except OSError as exc:
            raise BackendError(
                f"MCP server {spec.name!r}: fork server could not start: {exc}"
            ) from exc
        finally:
            err.close()
        server = cls(spec, proc, sock)
        try:
            assert proc.stdout is not None
            line = await asyncio.wait_for(proc.stdout.readline(), start_timeout_s)
        except TimeoutError:
            await server.aclose()
            raise BackendError(
                f"MCP server {spec.name!r}: fork server did not start within {start_timeout_s} s"
            ) from None
        try:
            hello = json.loads(line)
        except ValueError:
            hello = {"ready": False, "reason": f"it exited (code {proc.returncode})"}
        if not hello.get("ready"):
            await server.aclose()
            raise BackendError(f"MCP server {spec.name!r} cannot be forked: {hello.get('reason')}")
        return server

    @property
    def alive(self) -> bool:
        """Whether the fork server still runs."""
        return self._proc.returncode is None

    async def spawn(self, stderr_path: Path | None = None) -> Spawned:
        """Fork one fresh server child; the caller owns it (and its pipe ends) now.

        Raises:
            BackendError: The fork server is gone or did not answer.
        """
        if not self.alive:
            raise BackendError(f"the fork server of MCP server {self.spec.name!r} has exited")
        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        err_fd = (
            os.open(stderr_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            if stderr_path is not None
            else os.open(os.devnull, os.O_WRONLY)
        )
        loop = asyncio.get_running_loop()
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.setblocking(False)
        try:
            await loop.sock_connect(conn, str(self._sock))
            socket.send_fds(conn, [b"spawn\n"], [in_r, out_w, err_fd])
            reply = b""
            async with asyncio.timeout(30):
                while not reply.endswith(b"\n"):
                    chunk = await loop.sock_recv(conn, 4096)
                    if not chunk:
                        break
                    reply += chunk
            pid = json.loads(reply)["pid"]
        except (OSError, ValueError, KeyError, TimeoutError) as exc:
            os.close(in_w)
            os.close(out_r)
            raise BackendError(
                f"the fork server of MCP server {self.spec.name!r} did not fork: {exc!r}"
            ) from exc
        finally:
            conn.close()
            for fd in (in_r, out_w, err_fd):
                os.close(fd)
        self.spawned += 1
        return Spawned(int(pid), in_w, out_r)

    async def aclose(self) -> None:
        """Stop the fork server (children already forked are their owners' to stop)."""
        proc = self._proc
        if proc.returncode is None:
            if proc.stdin is not None:
                proc.stdin.close()
            try:
                await asyncio.wait_for(proc.wait(), 2.0)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                await proc.wait()
        with contextlib.suppress(OSError):
            self._sock.unlink()
        with contextlib.suppress(OSError):
            self._sock.parent.rmdir()


def _kill_group(pid: int, sig: int = signal.SIGKILL) -> None:
    with contextlib.suppress(OSError):
        os.killpg(pid, sig)


@contextlib.asynccontextmanager
async def pipe_client(
    child: Spawned,
) -> AsyncIterator[
    tuple[
        MemoryObjectReceiveStream[SessionMessage | Exception],
        MemoryObjectSendStream[SessionMessage],
    ]
]:
    """The MCP client streams over a forked child's pipes (as ``stdio_client`` gives).

    On exit the child's stdin is closed; a child still running after a short grace is
    killed with its process group.
    """
    read_send, read_recv = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_send, write_recv = anyio.create_memory_object_stream[SessionMessage](0)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 30)
    rfile = os.fdopen(child.stdout, "rb", 0)
    wfile = os.fdopen(child.stdin, "wb", 0)
    rtransport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), rfile
    )
    wtransport, wprotocol = await loop.connect_write_pipe(
        lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader()), wfile
    )
    writer = asyncio.StreamWriter(wtransport, wprotocol, None, loop)
    eof = asyncio.Event()

    async def stdout_reader() -> None:
        try:
            async with read_send:
                while True:
                    line = await reader.readline()
                    if not line:
                        return
                    try:
                        message = types.JSONRPCMessage.model_validate_json(line)
                    except Exception as exc:
                        await read_send.send(exc)
                        continue
                    await read_send.send(SessionMessage(message))
        except anyio.ClosedResourceError:
            await anyio.lowlevel.checkpoint()
        finally:
            eof.set()

    async def stdin_writer() -> None:
        try:
            async with write_recv:
                async for session_message in write_recv:
                    text = session_message.message.model_dump_json(by_alias=True, exclude_none=True)
                    writer.write((text + "\n").encode("utf-8"))
                    await writer.drain()
        except (anyio.ClosedResourceError, ConnectionError, OSError):
            await anyio.lowlevel.checkpoint()

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(stdout_reader)
            tg.start_soon(stdin_writer)
            try:
                yield read_recv, write_send
            finally:
                wtransport.close()  # the child's stdin ends: a stdio server exits
                try:
                    with anyio.fail_after(_GRACE_S):
                        await eof.wait()
                except TimeoutError:
                    _kill_group(child.pid)
                tg.cancel_scope.cancel()
    finally:
        rtransport.close()
        wtransport.close()
        for stream in (read_recv, write_send, read_send, write_recv):
            await stream.aclose()


def describe_fallback(name: str, reason: Any) -> str:
    """The message printed when a server runs as plain processes instead of forks."""
    return f"MCP server {name!r} runs as plain processes (no fork server): {reason}"
