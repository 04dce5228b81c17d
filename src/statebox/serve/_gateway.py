"""The MCP gateway: one streamable-HTTP MCP endpoint per live session.

``/mcp/<session id>/`` with ``Authorization: Bearer <session token>`` reaches exactly
that session's episode. One low-level MCP `Server` (official ``mcp`` SDK) answers
every session in stateless JSON mode; its handlers find the session the router put
in the ASGI scope, so no MCP-level state outlives a request and no MCP session id can
be replayed against another episode.

What the gateway lists and executes is the session's allowlist, nothing more:

- ``tools/list`` returns the allowlisted tool schemas of the episode's start;
- ``tools/call`` refuses lifecycle and reserved-looking names by name (reset, verdict,
  ``__reserved__init`` ...) before they reach any tool, and sends every other name
  through `Episode.step` — the `Dispatcher` refuses names outside the allowlist and
  bad arguments with a structured error. Either way the call and its refusal are a
  step in the transcript and the world is unchanged. Tool results return as MCP
  results (JSON text plus structured content); refusals as ``isError`` results. A
  server that fails under a call ends the episode as a system error (``isError``, kind
  ``system_error``; no details to the agent).

Unknown session, wrong token, oversized body (413) and malformed JSON-RPC are answered
before any handler runs. A single ``tools/call``, ``tools/list`` or ``initialize``,
any notification, and a request failing validation are answered on the request's
own task (`direct_reply`: the same server's handlers, the SDK's answers), without the
SDK's per-request transport and session, which would log each invalid one, content
and all; every other message goes through that transport.

The endpoint is POST only: in stateless JSON mode there is no server-to-client stream
to open, so a GET (or DELETE) is answered 405 at once instead of holding a stream open
that would outlive the session.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import Any

from mcp import types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.models import InitializationOptions
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from mcp.shared.tool_name_validation import validate_and_warn_tool_name
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import Receive, Scope, Send

from statebox.episode import ToolInfo
from statebox.serve._by_identity import ByIdentity
from statebox.serve._failures import EpisodeEnded, EpisodeSystemError
from statebox.serve._guard import read_body, replayed
from statebox.serve._mcp_direct import direct_reply
from statebox.serve._sessions import Session, SessionStore, is_reserved_name, same_secret
from statebox.tools import ERROR_HINTS, ErrorClass, ToolFailure, ToolResult

__all__ = ["MAX_BODY_BYTES", "McpGateway"]

MAX_BODY_BYTES = 256 * 1024
"""Default request body limit of the gateway in bytes; larger bodies get 413."""

_SCOPE_KEY = "statebox.session"
_DIRECT: ContextVar[Session | None] = ContextVar("statebox_gateway_session", default=None)
"""The session of a request answered by `direct_reply` (the SDK's way: the scope key)."""
_ENDED: tuple[str, str, ErrorClass] = (
    "invalid_state",
    "the episode has ended; no more tool calls",
    "precondition_failed",
)
_TOOL_LISTS_MAX = 256
"""Most tool lists a gateway keeps built (one per task served, in practice)."""
_SYSTEM_ERROR = "the environment failed: this episode ended as a system error, not by your doing"


def _bearer(scope: Scope) -> str | None:
    for k, v in scope.get("headers", []):
        if k == b"authorization":
            text = bytes(v).decode("latin-1")
            if text[:7].lower() == "bearer ":
                return text[7:].strip()
    return None


def _error(error: ToolFailure | tuple[str, str, ErrorClass]) -> types.CallToolResult:
    if isinstance(error, tuple):  # refused by the gateway itself: (kind, message, class)
        kind, message, klass = error
        view = {"kind": kind, "class": klass, "message": message, "hint": ERROR_HINTS[klass]}
    else:
        view = error.agent_view()
    payload = {"error": view}
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(payload))],
        structuredContent=payload,
        isError=True,
    )


def tool_result_to_mcp(result: ToolResult) -> types.CallToolResult:
    """An episode `ToolResult` as an MCP tool result (``isError`` for refusals)."""
    if not result.ok:
        assert result.error is not None  # a failed result carries its error
        return _error(result.error)
    payload = {"result": result.output}
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(result.output))],
        structuredContent=payload,
        isError=False,
    )


class _Server(Server[Any, Request]):
    """The SDK's low-level server with its initialization options built once.

    In stateless mode the SDK rebuilds them per request, reading package metadata from
    disk each time (milliseconds per tool call); they never change for one server.
    """

    _options: InitializationOptions | None = None

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        if self._options is None:
            self._options = super().create_initialization_options(
                notification_options, experimental_capabilities
            )
        return self._options


class McpGateway:
    """ASGI app serving ``/<session id>/`` MCP endpoints over a `SessionStore`.

    Mount it under ``/mcp``. Run `lifespan` around the app's life.

    Args:
        store: The live sessions.
        max_body_bytes: Request body limit (413 beyond).
        allowed_hosts: Host header values accepted (DNS-rebinding protection);
            None accepts any (binding to a public address is then the operator's call).
    """

    def __init__(
        self,
        store: SessionStore,
        *,
        max_body_bytes: int = MAX_BODY_BYTES,
        allowed_hosts: list[str] | None = None,
    ) -> None:
        self.store = store
        server = _Server("statebox")
        self._server = server

        def current() -> Session:
            direct = _DIRECT.get()
            if direct is not None:
                return direct
            request = server.request_context.request
            sid = request.scope.get(_SCOPE_KEY) if request is not None else None
            session = store.get(sid) if isinstance(sid, str) else None
            if session is None:
                raise LookupError("no such session")
            return session

        lists: ByIdentity[types.ServerResult] = ByIdentity(_TOOL_LISTS_MAX)
        self._tool_lists = lists

        def build_list(tools: Sequence[ToolInfo]) -> types.ServerResult:
            listed = [
                types.Tool(name=t.name, description=t.description, inputSchema=t.input_schema)
                for t in tools
            ]
            for tool in listed:
                validate_and_warn_tool_name(tool.name)  # as the SDK's handler does
            return types.ServerResult(types.ListToolsResult(tools=listed))

        async def handle_list(request: types.ListToolsRequest) -> types.ServerResult:
            # What the SDK's `list_tools` handler answers, built once per set of tools: an
            # episode's list is its task's, not rebuilt and revalidated for each.
            tools = current().tools
            return lists.get(tools, lambda: build_list(tools))

        server.request_handlers[types.ListToolsRequest] = handle_list

        async def call_tool(name: str, arguments: dict[str, Any]) -> types.CallToolResult:
            session = current()
            if session.system_error is not None:
                return _error(("system_error", _SYSTEM_ERROR, "transient"))
            if session.episode.done:
                return _error(_ENDED)
            args = dict(arguments or {})
            try:
                if is_reserved_name(name):
                    message = f"{name!r} is a lifecycle name, not a tool"
                    return tool_result_to_mcp(await session.refuse_tool(name, args, message))
                result = await session.call_tool(name, args)
            except EpisodeEnded:  # it ended while this call waited for the session
                return _error(_ENDED)
            except EpisodeSystemError:
                return _error(("system_error", _SYSTEM_ERROR, "transient"))
            return tool_result_to_mcp(result)

        async def handle_call(request: types.CallToolRequest) -> types.ServerResult:
            # The SDK's `call_tool` handler less its tool-definition lookup: the episode
            # checks names and arguments itself and no tool has an output schema, and
            # for a name it has not listed the SDK rebuilds its tool cache and logs a
            # warning, one line per call, whatever an agent sends. A failure is an
            # error result, as the SDK's handler answers it.
            try:
                args = request.params.arguments or {}
                return types.ServerResult(await call_tool(request.params.name, args))
            except Exception as exc:
                text = types.TextContent(type="text", text=str(exc))
                return types.ServerResult(types.CallToolResult(content=[text], isError=True))

        server.request_handlers[types.CallToolRequest] = handle_call

        security = (
            TransportSecuritySettings(
                enable_dns_rebinding_protection=True, allowed_hosts=allowed_hosts
            )
            if allowed_hosts is not None
            else TransportSecuritySettings(enable_dns_rebinding_protection=False)
        )
        self._security = TransportSecurityMiddleware(security)
        self._max_body_bytes = max_body_bytes
        self._manager = StreamableHTTPSessionManager(
            server,
            json_response=True,
            stateless=True,
            security_settings=security,
            max_request_body_size=max_body_bytes,
        )

    @asynccontextmanager
    async def lifespan(self) -> AsyncIterator[None]:
        """Run the MCP session manager (its task group) for the app's life."""
        async with self._manager.run():
            yield

    def url_path(self, session: Session) -> str:
        """The session's endpoint path under the gateway's mount, e.g. ``/<id>/``."""
        return f"/{session.id}/"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Route ``/<session id>[/]`` to the MCP transport after the token check."""
        if scope["type"] != "http":
            if scope["type"] == "websocket":
                # Refused at the handshake (a 403), as every other path without a
                # WebSocket is: returning without an answer would make uvicorn log a
                # line per attempt, a way for anyone to fill the server's log.
                await send({"type": "websocket.close", "code": 1008})
            return
        path: str = scope.get("path", "")
        path = path.removeprefix(scope.get("root_path", ""))  # Starlette mounts keep it
        sid = path.strip("/").split("/")[0] if path.strip("/") else ""
        session = self.store.get(sid) if sid and path.strip("/") == sid else None
        if session is None:
            await JSONResponse({"error": "unknown session"}, status_code=404)(scope, receive, send)
            return
        if scope.get("method") != "POST":
            await JSONResponse(
                {"error": "the MCP endpoint answers POST only (stateless JSON responses)"},
                status_code=405,
                headers={"Allow": "POST"},
            )(scope, receive, send)
            return
        if not same_secret(_bearer(scope), session.token):
            await JSONResponse(
                {"error": "missing or wrong bearer token for this session"},
                status_code=401,
                headers={"WWW-Authenticate": "Bearer"},
            )(scope, receive, send)
            return
        scope = dict(scope)
        scope[_SCOPE_KEY] = session.id
        messages, body, ended = await read_body(receive, self._max_body_bytes)
        if ended and not _is_utf8(body):
            # The SDK's transport would raise on decoding it and answer 500: the
            # client sent bad bytes, which is JSON-RPC's parse error.
            parse_error = {
                "jsonrpc": "2.0",
                "id": None,
                "error": {"code": -32700, "message": "Parse error: the body is not UTF-8"},
            }
            await JSONResponse(parse_error, status_code=400)(scope, receive, send)
            return
        if ended:
            token = _DIRECT.set(session)
            try:
                reply = await direct_reply(self._server, self._security, scope, body)
            finally:
                _DIRECT.reset(token)
            if reply is not None:
                await reply(scope, receive, send)
                return

        await self._manager.handle_request(scope, replayed(messages, receive), send)


def _is_utf8(body: bytes) -> bool:
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
