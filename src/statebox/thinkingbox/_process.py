"""One stdio MCP server process, driven by the official ``mcp`` SDK client.

The SDK's ``stdio_client`` and ``ClientSession`` are anyio-scoped context managers:
they must be entered and left by the same task. So each `McpProcess` has one *owner*
asyncio task that holds them for the process's whole life and serves requests from a
queue, one at a time (a trial's calls are sequential anyway, and the server sees them
in the order they were made); callers await a future. `close()` only enqueues a stop
(sync, idempotent, never blocks); `aclose()` also waits for the owner to finish.

Failure handling, so that nothing hangs on a dead server:

- the server's stdout is relayed through a stream we own; its end (the process died
  or closed stdout) marks the process dead at once, fails the request in flight and
  every later one with `BackendError`;
- every request has a time limit (``call_timeout_s``); running out also kills the
  process, whose state is then unknown;
- the owner fails whatever is still queued when it stops, and callers check before
  queueing, so no future is left unresolved.

The fresh-process rule lives here: ``__reserved__init`` does not reset a ThinkingBox
server, so `reserved_init` may run once per process; a second call raises.

The server's stderr goes to ``stderr_path`` when given (the tail is quoted when the
server fails to start), else to the null device — never to our stdout or stderr.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any, NamedTuple, TextIO

import anyio
from mcp import ClientSession, McpError, types
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.message import SessionMessage

from statebox.errors import BackendError
from statebox.thinkingbox._forkserver import ForkServer, pipe_client
from statebox.thinkingbox._servers import ServerSpec

__all__ = ["CallOutcome", "McpProcess"]

_log = logging.getLogger(__name__)
# The SDK warns when a server it stops has already exited (we often kill the group
# first): expected here, and not the user's business.
logging.getLogger("mcp.os.posix.utilities").setLevel(logging.ERROR)

_Fn = Callable[[ClientSession], Awaitable[Any]]
_STOP = None
_REQUEST_TIMEOUT_CODE = 408
"""The error code the SDK gives a request that ran past its read timeout (HTTP 408)."""


class CallOutcome(NamedTuple):
    """What a server answered to one tool call."""

    is_error: bool
    """The MCP result's ``isError`` (the tool raised or refused its arguments)."""
    text: str
    """The text content items, joined by newlines."""
    payload: Any
    """``text`` JSON-decoded when it parses, else ``text`` itself."""


class _Request(NamedTuple):
    fn: _Fn
    future: asyncio.Future[Any]


def _decode(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _outcome(result: types.CallToolResult) -> CallOutcome:
    text = "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))
    return CallOutcome(bool(result.isError), text, _decode(text))


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for e in exc.exceptions for leaf in _leaves(e)]
    return [exc]


def _describe(exc: BaseException) -> str:
    return "; ".join(f"{type(e).__name__}: {e}" for e in _leaves(exc))


def _tail(path: Path | None, limit_chars: int = 1500) -> str:
    if path is None:
        return ""
    try:
        text = path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return ""
    return f"\n--- server stderr ({path}) ---\n{text[-limit_chars:]}" if text else ""


class McpProcess:
    """One started MCP server process (create with `McpProcess.start`).

    Attributes:
        spec: How the server was started.
        pid: The child's process id (None if the SDK did not reveal it).
        tools: The server's tools as it listed them at start, reserved ones included.
    """

    def __init__(
        self,
        spec: ServerSpec,
        *,
        stderr_path: Path | None,
        call_timeout_s: float,
        forks: ForkServer | None = None,
    ) -> None:
        self.spec = spec
        self.forked = forks is not None
        """Whether the process was forked by a fork server (else spawned)."""
        self._forks = forks
        self.pid: int | None = None
        self.tools: list[types.Tool] = []
        self._stderr_path = stderr_path
        self._call_timeout_s = call_timeout_s
        self._queue: asyncio.Queue[_Request | None] = asyncio.Queue()
        self._ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._owner: asyncio.Task[None] | None = None
        self._closed = False
        self._dead: str | None = None
        self._initialised = False

    @classmethod
    async def start(
        cls,
        spec: ServerSpec,
        *,
        stderr_path: Path | None = None,
        start_timeout_s: float = 60.0,
        call_timeout_s: float = 300.0,
        forks: ForkServer | None = None,
    ) -> McpProcess:
        """Spawn the server (or fork it), run the MCP handshake and list its tools.

        Args:
            spec: The server to start; its ``env`` is laid over this process's environment.
            stderr_path: File that receives the server's stderr (appended); None sends it
                to the null device.
            start_timeout_s: Limit on spawn + handshake + tool listing, in seconds.
            call_timeout_s: Limit on each later request, in seconds.
            forks: The fork server of ``spec``: the process is a fresh fork of its
                pre-imported server instead of a new ``spec.command`` process.

        Returns:
            The running process, not yet initialised.

        Raises:
            BackendError: The command could not run, the server exited or broke the
                protocol, or it did not answer within ``start_timeout_s`` (the message
                quotes the end of its stderr when ``stderr_path`` is set).
        """
        proc = cls(spec, stderr_path=stderr_path, call_timeout_s=call_timeout_s, forks=forks)
        await proc._launch(start_timeout_s)
        return proc

    async def _launch(self, start_timeout_s: float) -> None:
        """Start the owner task and wait until the server is ready (see `start`)."""
        spec = self.spec
        self._owner = asyncio.create_task(self._run(), name=f"mcp-process:{spec.name}")
        try:
            async with asyncio.timeout(start_timeout_s):
                await asyncio.shield(self._ready)
        except TimeoutError:
            await self._kill()
            raise BackendError(
                f"MCP server {spec.name!r} did not start within {start_timeout_s} s "
                f"(command {list(spec.command)}){_tail(self._stderr_path)}"
            ) from None
        except BaseException:
            await self._kill()
            raise

    @property
    def alive(self) -> bool:
        """Whether the process is running and accepts requests."""
        return self._dead is None and not self._closed

    @property
    def initialised(self) -> bool:
        """Whether `reserved_init` was called (the process is spent for other trials)."""
        return self._initialised

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> CallOutcome:
        """Call one tool with ``arguments`` exactly as given (explicit nulls are sent).

        Returns:
            The server's answer; a tool that raised is an outcome with ``is_error``.

        Raises:
            BackendError: The process is closed or dead, died during the call, broke
                the protocol, or did not answer within the call limit.
        """

        async def run(session: ClientSession) -> CallOutcome:
            limit = timedelta(seconds=self._call_timeout_s)
            return _outcome(await session.call_tool(name, arguments, read_timeout_seconds=limit))

        result: CallOutcome = await self._submit(run)
        return result

    async def reserved_init(self, config: dict[str, Any]) -> dict[str, Any]:
        """Initialise the server for one trial with ``__reserved__init``.

        Args:
            config: The server's merged init config (``data_patch``,
                ``golden_test_case``, ...), sent verbatim.

        Returns:
            The server's JSON answer (``{}`` or one with ``"status": "ok"``).

        Raises:
            BackendError: The process was initialised before (a ThinkingBox server does
                not reset, so every trial needs a fresh process), or the server answered
                with an error (its message is quoted), or it failed as in `call_tool`.
        """
        if self._initialised:
            raise BackendError(
                f"MCP server {self.spec.name!r} (pid {self.pid}) was already initialised; "
                "__reserved__init does not reset a server: use a fresh process per trial"
            )
        self._initialised = True
        out = await self.call_tool("__reserved__init", {"config": config})
        payload = out.payload
        if not out.is_error and isinstance(payload, dict) and payload.get("status", "ok") == "ok":
            return payload
        message = payload.get("message", out.text) if isinstance(payload, dict) else out.text
        raise BackendError(f"MCP server {self.spec.name!r}: __reserved__init failed: {message}")

    async def geteffects(self) -> dict[str, Any]:
        """The server's effects report from ``__reserved__geteffects`` (states, hashes, diff).

        Raises:
            BackendError: The server answered with an error or with something other than
                a JSON object, or failed as in `call_tool`.
        """
        out = await self.call_tool("__reserved__geteffects", {})
        payload = out.payload
        if out.is_error or not isinstance(payload, dict) or payload.get("status") == "error":
            message = payload.get("message", out.text) if isinstance(payload, dict) else out.text
            raise BackendError(
                f"MCP server {self.spec.name!r}: __reserved__geteffects failed: {message[:2000]}"
            )
        return payload

    async def teardown(self) -> None:
        """Call ``__reserved__teardown``; its failures are logged and otherwise ignored."""
        try:
            out = await self.call_tool("__reserved__teardown", {})
        except BackendError as exc:
            _log.info("teardown of MCP server %r failed: %s", self.spec.name, exc)
            return
        if out.is_error:
            _log.info("teardown of MCP server %r answered an error: %s", self.spec.name, out.text)

    def close(self) -> None:
        """Stop the process in the background (idempotent; never blocks).

        Requests queued before are still served; later ones raise `BackendError`.
        """
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(RuntimeError):  # the loop is already closed: nothing runs
            self._queue.put_nowait(_STOP)

    async def aclose(self) -> None:
        """Stop the process and wait until it has exited."""
        self.close()
        if self._owner is not None:
            await asyncio.shield(self._owner)

    def _sigkill(self) -> None:
        # The SDK starts the server in a session of its own, so its pid is also its
        # process group: kill the group, helpers the server spawned included.
        if self.pid is not None:
            with contextlib.suppress(OSError):
                os.killpg(self.pid, signal.SIGKILL)

    async def _kill(self) -> None:
        self._closed = True
        self._sigkill()
        if self._owner is not None and not self._owner.done():
            self._owner.cancel()
            with contextlib.suppress(BaseException):
                await self._owner

    async def _submit(self, fn: _Fn) -> Any:
        if self._dead is not None:
            raise BackendError(f"MCP server {self.spec.name!r} (pid {self.pid}) {self._dead}")
        if self._closed:
            raise BackendError(f"MCP server {self.spec.name!r} (pid {self.pid}) is closed")
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(_Request(fn, future))
        return await future

    def _fail_queued(self, reason: str) -> None:
        while not self._queue.empty():
            item = self._queue.get_nowait()
            if item is not None and not item.future.done():
                item.future.set_exception(
                    BackendError(f"MCP server {self.spec.name!r} (pid {self.pid}) {reason}")
                )

    async def _run(self) -> None:
        spec = self.spec
        params = StdioServerParameters(
            command=spec.command[0],
            args=list(spec.command[1:]),
            # The SDK passes only a few safe variables by default; the servers expect
            # the whole environment (PATH, their venv, API keys) plus their own.
            env={**os.environ, **spec.env},
            cwd=spec.cwd,
        )
        errlog: TextIO = (
            self._stderr_path.open("a", encoding="utf-8")
            if self._stderr_path is not None
            else open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - closed below
        )
        try:
            if self._forks is not None:
                await self._serve_forked(self._forks)
            else:
                await self._serve(params, errlog)
        except BaseException as exc:
            if self._dead is None:
                self._dead = f"failed: {_describe(exc)}"
            if isinstance(exc, asyncio.CancelledError):
                self._ready.cancel()  # no-op once set; nobody waits on a killed start
                raise
            if not self._ready.done():
                self._ready.set_exception(
                    BackendError(
                        f"MCP server {spec.name!r} could not start "
                        f"(command {list(spec.command)}): {_describe(exc)}"
                        f"{_tail(self._stderr_path)}"
                    )
                )
        finally:
            self._closed = True
            self._fail_queued(self._dead or "is closed")
            errlog.close()

    @contextlib.asynccontextmanager
    async def _transport(
        self, params: StdioServerParameters, errlog: TextIO
    ) -> AsyncIterator[tuple[Any, Any]]:
        """The server's message streams: a child process over stdio.

        A subclass may start the server another way (`statebox.backends`: streamable HTTP).
        """
        cm = stdio_client(params, errlog=errlog)
        async with cm as (read, write):
            # The SDK keeps the anyio Process in its generator's frame; we read the pid
            # from there (best effort: only for reports and tests, nothing depends on it).
            process = getattr(getattr(cm, "gen", None), "ag_frame", None)
            pid = getattr((process.f_locals if process else {}).get("process"), "pid", None)
            self.pid = pid if isinstance(pid, int) else None
            yield read, write

    async def _serve(self, params: StdioServerParameters, errlog: TextIO) -> None:
        async with self._transport(params, errlog) as (read, write):
            await self._session(read, write)

    async def _serve_forked(self, forks: ForkServer) -> None:
        child = await forks.spawn(self._stderr_path)
        self.pid = child.pid
        async with pipe_client(child) as (read, write):
            await self._session(read, write)

    async def _session(self, read: Any, write: Any) -> None:
        relay_send, relay_recv = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        async with anyio.create_task_group() as tg:
            tg.start_soon(self._relay, read, relay_send)
            async with ClientSession(relay_recv, write) as session:
                await session.initialize()
                self.tools = await self._list_tools(session)
                self._ready.set_result(None)
                await self._loop(session)
            tg.cancel_scope.cancel()

    async def _relay(
        self,
        read: Any,
        send: anyio.abc.ObjectSendStream[SessionMessage | Exception],
    ) -> None:
        async with send:
            async for message in read:
                await send.send(message)
        # The server's stdout ended: the process is gone (or unusable).
        if self._dead is None and not self._closed:
            self._dead = "exited (its stdout closed)"
            self._queue.put_nowait(_STOP)

    @staticmethod
    async def _list_tools(session: ClientSession) -> list[types.Tool]:
        tools: list[types.Tool] = []
        cursor: str | None = None
        while True:
            page = await session.list_tools(
                params=types.PaginatedRequestParams(cursor=cursor) if cursor else None
            )
            tools.extend(page.tools)
            cursor = page.nextCursor
            if not cursor:
                return tools

    async def _loop(self, session: ClientSession) -> None:
        while True:
            item = await self._queue.get()
            if item is None:
                return
            if item.future.done():  # the caller gave up waiting
                continue
            if self._dead is not None:  # never write to a dead server: no answer would come
                item.future.set_exception(self._broken(self._dead))
                return
            try:
                result = await item.fn(session)
            except McpError as exc:
                if exc.error.code in (types.CONNECTION_CLOSED, _REQUEST_TIMEOUT_CODE):
                    # Closed: the server is gone. Timed out: its state is unknown, and a
                    # late answer would be ignored; either way the process is spent, and
                    # killing it spares the SDK's grace period for a clean exit.
                    item.future.set_exception(self._broken(f"failed: {exc.error.message}"))
                    self._sigkill()
                    return
                item.future.set_exception(
                    BackendError(f"MCP server {self.spec.name!r}: {exc.error.message}")
                )
                continue
            except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError) as exc:
                item.future.set_exception(self._broken(f"failed: {exc!r}"))
                return
            except RuntimeError as exc:  # the SDK's check of a result's structured content
                item.future.set_exception(
                    BackendError(f"MCP server {self.spec.name!r} broke the protocol: {exc}")
                )
                continue
            if not item.future.done():
                item.future.set_result(result)

    def _broken(self, reason: str) -> BackendError:
        if self._dead is None:
            self._dead = reason
        return BackendError(f"MCP server {self.spec.name!r} (pid {self.pid}) {self._dead}")
