"""OpenEnv's MCP tool-calling interface over a statebox episode.

OpenEnv lists and calls an environment's tools two ways: ``ListToolsAction`` /
``CallToolAction`` stepped into the environment, and JSON-RPC ``tools/list`` /
``tools/call`` on ``POST /mcp`` (what `openenv.core.mcp_client.MCPToolClient` uses,
its WebSocket attached to the same session for reset and the closing step). Its
``/mcp`` handler reaches an environment through the environment's ``mcp_client``;
`EpisodeToolClient` is that client, answering from the live `Session` directly.

openenv's `MCPEnvironment` base is not used: it serves a FastMCP server whose tools
are fixed when the environment is built and validates arguments before a tool runs.
A statebox episode's tools are its task's allowlist, known at reset, and every call
(bad arguments and lifecycle names included) must reach the `Episode` and be
recorded there, so that the transcript and the verdict are the same whichever path
drove it. What the interface lists is the allowlist and nothing else; a lifecycle or
reserved-looking name is refused by name as a recorded step, as on the MCP gateway.

Results have FastMCP's ``CallToolResult`` shape (``content``, ``structured_content``,
``data``, ``is_error``): ``data`` is the tool's output, or ``{"error": {"kind",
"message"}}`` for a refusal (``is_error`` true). Refusals are results the agent reads,
not transport errors.

`McpSessionOwners` holds each client's OpenEnv MCP sessions (``openenv/session/create``)
to ``max_per_client``, as the server does for episodes and WebSockets.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from statebox.serve._guard import read_body, replayed
from statebox.serve._sessions import Session, is_reserved_name
from statebox.serve._unechoable import UnreadableJson, load_json, unechoable
from statebox.tools import ToolResult

if TYPE_CHECKING:
    from openenv.core.env_server.mcp_types import Tool

__all__ = ["EpisodeToolClient", "McpSessionOwners", "call_result", "list_tools"]


def list_tools(session: Session | None) -> list[Tool]:
    """The episode's allowlisted tools as OpenEnv `Tool` models (none before reset)."""
    from openenv.core.env_server.mcp_types import Tool

    if session is None:
        return []
    return [
        Tool(name=t.name, description=t.description, input_schema=t.input_schema)
        for t in session.tools
    ]


def call_result(result: ToolResult) -> dict[str, Any]:
    """A tool result in FastMCP's ``CallToolResult`` shape (JSON-ready)."""
    if result.ok:
        data: Any = result.output
        payload: dict[str, Any] = {"result": result.output}
    else:
        assert result.error is not None  # a failed result carries its error
        data = {"error": result.error.agent_view()}
        payload = data
    return {
        "content": [{"type": "text", "text": json.dumps(data)}],
        "structured_content": payload,
        "data": data,
        "is_error": not result.ok,
        "meta": None,
    }


async def run_call(session: Session, name: Any, arguments: Any) -> ToolResult:
    """One tool call of the agent as an episode step; lifecycle names refused by name.

    Whatever the agent sent is its own: a name that is not a string is no tool's (refused
    as unknown), and arguments that are not an object are refused as invalid, each a
    recorded step, never an error of the server's.

    Raises:
        RuntimeError: The episode has ended.
    """
    if not isinstance(name, str):
        name = json.dumps(name) if isinstance(name, int | float | bool) else str(name)
    if arguments is not None and not isinstance(arguments, dict):
        message = f"arguments must be a JSON object, not {type(arguments).__name__}"
        return await session.refuse_tool(name, {}, message, "invalid_arguments")
    args = dict(arguments or {})
    if is_reserved_name(name):
        return await session.refuse_tool(name, args, f"{name!r} is a lifecycle name, not a tool")
    return await session.call_tool(name, args)


class _Handle(Protocol):
    """What `EpisodeToolClient` needs of its environment."""

    def live_session(self) -> Session | None: ...

    async def tool_call(self, name: Any, arguments: Any) -> dict[str, Any]: ...


class EpisodeToolClient:
    """The ``mcp_client`` openenv's ``/mcp`` handler calls: the environment's own episode.

    Args:
        env: The environment whose live episode it reaches.
    """

    def __init__(self, env: _Handle) -> None:
        self._env = env

    def is_connected(self) -> bool:
        """Always: there is no transport to open."""
        return True

    async def __aenter__(self) -> EpisodeToolClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def list_tools(self) -> list[Tool]:
        """The live episode's allowlisted tools ([] before reset)."""
        return list_tools(self._env.live_session())

    async def call_tool(self, name: Any, arguments: Any = None) -> dict[str, Any]:
        """Call one tool in the live episode.

        Raises:
            EpisodeRequestError: No live episode (raised by the environment).
        """
        return await self._env.tool_call(name, arguments)  # checked by `run_call`


class McpSessionOwners:
    """Per-client limit on OpenEnv MCP sessions (``openenv/session/create`` on ``POST /mcp``).

    Args:
        limit: Most live MCP sessions one client (peer address) may hold.
        alive: Whether OpenEnv still holds a session id (its idle reaper and
            ``openenv/session/close`` end them).
    """

    def __init__(self, limit: int, alive: Callable[[str], bool]) -> None:
        self.limit = limit
        self.alive = alive
        self.owned: dict[str, set[str]] = {}

    def held(self, client: str) -> set[str]:
        """The client's sessions still alive."""
        mine = {sid for sid in self.owned.get(client, set()) if self.alive(sid)}
        if mine:
            self.owned[client] = mine
        else:
            self.owned.pop(client, None)
        return mine

    async def __call__(
        self, app: ASGIApp, client: str, scope: Scope, receive: Receive, send: Send
    ) -> None:
        """Pass one ``POST /mcp`` request to ``app``, holding session creation to the limit."""
        # The request guard has bounded the body already: no second limit here.
        messages, body, _ = await read_body(receive, sys.maxsize)
        try:
            rpc = load_json(body)
        except json.JSONDecodeError:
            rpc = None  # openenv's route answers its parse error
        except UnreadableJson as exc:  # openenv's route would answer 500
            await _rpc_error(-32700, f"Parse error: {exc}")(scope, receive, send)
            return
        if isinstance(rpc, dict):
            # What openenv's route echoes or logs (an id, a method, a session id ...) no
            # JSON can carry would fail it with a 500. A tool's arguments are the
            # episode's to clean or refuse, as on every other surface.
            params = rpc.get("params")
            if isinstance(params, dict):
                params = {k: v for k, v in params.items() if k != "arguments"}
            for part, value in (
                ("id", rpc.get("id")),
                ("method", rpc.get("method")),
                ("params", params),
            ):
                problem = unechoable(value)
                if problem is not None:
                    refusal = _rpc_error(-32600, f"Invalid request: the {part}: {problem}")
                    await refusal(scope, receive, send)
                    return
        creating = isinstance(rpc, dict) and rpc.get("method") == "openenv/session/create"
        if creating and len(self.held(client)) >= self.limit:
            error = {"code": -32000, "message": f"{self.limit} MCP sessions of this client open"}
            reply = {"jsonrpc": "2.0", "id": rpc.get("id"), "error": error}
            await JSONResponse(reply, status_code=429)(scope, receive, send)
            return

        replay = replayed(messages, receive)
        if not creating:
            await app(scope, replay, send)
            return
        sent = bytearray()

        async def capture(message: Message) -> None:
            if message["type"] == "http.response.body":
                sent.extend(message.get("body", b""))
            await send(message)

        await app(scope, replay, capture)
        try:
            sid = json.loads(bytes(sent)).get("result", {}).get("session_id")
        except (ValueError, AttributeError):
            sid = None
        if isinstance(sid, str):
            self.owned.setdefault(client, set()).add(sid)


def _rpc_error(code: int, message: str) -> JSONResponse:
    """A JSON-RPC error for a request that cannot be read (400, no id to answer)."""
    reply = {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}
    return JSONResponse(reply, status_code=400)
