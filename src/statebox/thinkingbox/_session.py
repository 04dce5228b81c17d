"""`TbSession`: one trial's ThinkingBox servers as a statebox `ToolSession`.

The agent sees and reaches only the business tools that are on the task's allowlist
and that some server lists. Everything else — the reserved lifecycle
(``__reserved__init``, ``__reserved__geteffects``, ``__reserved__teardown``: anything
starting ``__reserved__``), hidden names, names off the allowlist or unknown — is
refused with the very result the SQLite `Dispatcher` gives an unknown tool, without
contacting a server, so the agent can neither call the lifecycle nor learn what
exists beyond its allowlist (ThinkingBox issue #35 is the opposite).

Results: the text content, JSON-decoded when it parses, is the output. An MCP
``isError`` result (the tool raised, or refused its arguments) is ``ok=False``; a
server's own ``{"error": ...}`` payload is a normal output, as ThinkingBox reports it.
External tools declare no side effects, so ``mutating`` and ``wrote`` stay False; the
judge reads state changes from the servers' effects instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import Collection, Mapping
from typing import Any

from statebox.episode import ToolInfo
from statebox.errors import BackendError
from statebox.thinkingbox._process import McpProcess
from statebox.tools import DispatchErrorKind, ErrorClass, ToolCall, ToolFailure, ToolResult

__all__ = ["RESERVED_PREFIX", "TbSession", "is_reserved"]

_log = logging.getLogger(__name__)

RESERVED_PREFIX = "__reserved__"
"""Names with this prefix are a ThinkingBox server's lifecycle, never agent tools."""

_INPUT_VALIDATION = "Input validation error"
"""How the MCP SDK's low-level server starts a refusal of arguments against the schema."""
_ARGUMENTS_REFUSED = re.compile(
    r"Error executing tool \S+: \d+ validation errors? for \w+Arguments\b"
)
"""How a FastMCP server words the same refusal (its arguments model is ``<tool>Arguments``)."""


_MESSAGE_CLASSES: tuple[tuple[tuple[str, ...], ErrorClass], ...] = (
    (("not found", "does not exist", "no such", "unknown "), "not_found"),
    (("already", "duplicate", "exists"), "conflict"),
    (("not allowed", "not permitted", "permission", "forbidden", "unauthori"), "forbidden"),
    (("timed out", "timeout", "temporarily", "try again", "unavailable"), "transient"),
)
"""Words of a ThinkingBox server's error text → its class (the servers send no kind)."""


def _message_class(kind: str, text: str) -> ErrorClass | None:
    """The class of a ThinkingBox tool error, where its text says; None: the kind's default.

    The servers report every refusal as plain text: the kind stays what statebox always
    recorded (ThinkingBox-Bench runs unchanged) and only the class is refined.
    """
    if kind == "invalid_arguments":
        return None
    if _ARGUMENTS_REFUSED.match(text):
        return "invalid_arguments"  # the agent's arguments, not the record's state
    low = text.lower()
    for words, klass in _MESSAGE_CLASSES:
        if any(w in low for w in words):
            return klass
    return None


def is_reserved(name: str) -> bool:
    """Whether ``name`` is a reserved lifecycle name (``__reserved__*``, any case)."""
    return name.lower().startswith(RESERVED_PREFIX)


def _unknown(call: ToolCall) -> ToolResult:
    return ToolResult(
        tool=call.tool,
        call_id=call.id,
        ok=False,
        error=ToolFailure.of("unknown_tool", f"no tool named {call.tool!r}"),
        mutating=False,
    )


class TbSession:
    """One trial's tool session over its initialised ThinkingBox server processes.

    Args:
        processes: Server name → its process for this trial (the session owns them now).
        allowlist: Tool names the agent may call; None allows every listed tool.
        hidden: Tool names never shown or callable (beyond the reserved ones).
        teardown: Call ``__reserved__teardown`` before stopping the servers (False for
            servers without the ThinkingBox lifecycle, `statebox.backends`).

    Raises:
        BackendError: Two servers list the same visible tool name.
    """

    def __init__(
        self,
        processes: Mapping[str, McpProcess],
        *,
        allowlist: Collection[str] | None = None,
        hidden: Collection[str] = (),
        teardown: bool = True,
    ) -> None:
        self.processes = dict(processes)
        self._teardown = teardown
        allowed = None if allowlist is None else frozenset(allowlist)
        hidden_set = frozenset(hidden)
        self._route: dict[str, str] = {}
        infos: dict[str, ToolInfo] = {}
        for server, process in self.processes.items():
            for tool in process.tools:
                name = tool.name
                if is_reserved(name) or name in hidden_set:
                    continue
                if allowed is not None and name not in allowed:
                    continue
                if name in self._route:
                    raise BackendError(
                        f"MCP servers {self._route[name]!r} and {server!r} both list tool "
                        f"{name!r}; a trial's tool names must be unique"
                    )
                self._route[name] = server
                infos[name] = ToolInfo(
                    name=name,
                    description=tool.description or "",
                    input_schema=dict(tool.inputSchema),
                )
        self._infos = tuple(infos[n] for n in sorted(infos))
        self.missing: tuple[str, ...] = tuple(
            sorted(n for n in (allowed or ()) if n not in self._route and not is_reserved(n))
        )
        """Allowlisted names no server lists (or hidden ones): refused as unknown."""
        self._closing: asyncio.Task[None] | None = None
        self._closed = False

    def tools(self) -> tuple[ToolInfo, ...]:
        """The allowlisted business tools the servers list, sorted by name."""
        return self._infos

    async def call(self, call: ToolCall) -> ToolResult:
        """Run one agent call on the server that lists the tool.

        Returns:
            The result; an unknown, reserved, hidden or off-allowlist name gets the
            ``unknown_tool`` refusal without reaching any server, and a tool error
            (MCP ``isError``) is ``ok=False`` with the server's text as the message.

        Raises:
            BackendError: The server died, broke the protocol or timed out.
        """
        server = self._route.get(call.tool)
        if server is None or self._closed:
            return _unknown(call)
        out = await self.processes[server].call_tool(call.tool, dict(call.args))
        if out.is_error:
            kind: DispatchErrorKind = (
                "invalid_arguments" if out.text.startswith(_INPUT_VALIDATION) else "invalid_state"
            )
            return ToolResult(
                tool=call.tool,
                call_id=call.id,
                ok=False,
                error=ToolFailure.of(kind, out.text, _message_class(kind, out.text)),
            )
        return ToolResult(tool=call.tool, call_id=call.id, ok=True, output=out.payload)

    async def effects(self) -> dict[str, dict[str, Any]]:
        """Each server's ``__reserved__geteffects`` report, by server name.

        Raises:
            BackendError: A server failed to report (see `McpProcess.geteffects`).
        """
        names = list(self.processes)
        # gather, not a TaskGroup: the first BackendError itself reaches the trial's
        # error record, not an ExceptionGroup wrapping it.
        reports = await asyncio.gather(*(self.processes[n].geteffects() for n in names))
        return dict(zip(names, reports, strict=True))

    def close(self) -> None:
        """Tear the servers down and stop them, in the background (idempotent).

        Teardown failures are logged and ignored; later calls are refused as unknown.
        """
        if self._closed:
            return
        self._closed = True
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop left to run a teardown: just stop the processes
            for process in self.processes.values():
                process.close()
            return
        self._closing = loop.create_task(self._finish(), name="tb-session-close")

    async def aclose(self) -> None:
        """`close`, then wait until every server process has exited."""
        self.close()
        if self._closing is not None:
            await asyncio.shield(self._closing)
        else:
            for process in self.processes.values():
                await process.aclose()

    async def _finish(self) -> None:
        for process in self.processes.values():
            if process.alive and self._teardown:
                try:
                    await process.teardown()
                except Exception as exc:  # teardown is best effort; record and stop anyway
                    _log.info("teardown of %r failed: %s", process.spec.name, exc)
        for process in self.processes.values():
            with contextlib.suppress(BackendError):
                await process.aclose()
