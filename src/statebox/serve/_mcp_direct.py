"""The gateway's per-step requests answered on the request's own task.

In stateless mode the SDK's `StreamableHTTPSessionManager` serves every POST by
building a transport, spawning a task that runs `Server.run` with a fresh
`ServerSession` over in-memory streams, routing the request through them and tearing
it all down again: about 1.5 ms of CPU per tool call here, twenty times the episode
step it carries (``bench/transport.py``). A tool call needs none of that state.

`direct_reply` answers the two requests an agent makes once per step, a single
``tools/call`` or ``tools/list``, with the SDK's own pieces: the checks its transport
makes on a POST (Accept, Content-Type, ``MCP-Protocol-Version``, its transport
security settings), the same parse and validation (`JSONRPCMessage`, then
`ClientRequest`), the handler registered on the `Server` (so argument handling, error
results and the tool cache are the SDK's), and the same JSON-RPC response and
serialisation. Everything else — initialize, notifications, ping, batches, anything
malformed or refused — returns None and goes to the SDK's transport, which answers
it as before. ``tests/serve/test_gateway_direct.py`` checks that both ways give the
same status, headers and body for the requests answered here.
"""

from __future__ import annotations

import json
from typing import Any

from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.transport_security import TransportSecurityMiddleware
from mcp.shared.exceptions import McpError
from mcp.shared.version import SUPPORTED_PROTOCOL_VERSIONS
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Scope

__all__ = ["DIRECT_METHODS", "direct_reply"]

DIRECT_METHODS = frozenset({"tools/call", "tools/list"})
"""JSON-RPC methods answered here; every other message goes to the SDK's transport."""

_JSON = "application/json"
_REQUEST_TYPES: dict[str, type[Any]] = {
    "tools/call": types.CallToolRequest,
    "tools/list": types.ListToolsRequest,
}


def _headers_pass(scope: Scope) -> bool:
    """The SDK transport's POST header checks (JSON response mode, no MCP session)."""
    accept = content_type = version = None
    # The first of a repeated header, as Starlette's Headers.get (so the SDK) reads it.
    for k, v in scope.get("headers", ()):
        if k == b"accept" and accept is None:
            accept = bytes(v).decode("latin-1")
        elif k == b"content-type" and content_type is None:
            content_type = bytes(v).decode("latin-1")
        elif k == b"mcp-protocol-version" and version is None:
            version = bytes(v).decode("latin-1")
    if accept is None or not any(p.strip().startswith(_JSON) for p in accept.split(",")):
        return False  # the SDK answers 406
    if content_type is None or _JSON not in (
        p.strip() for p in content_type.split(";")[0].split(",")
    ):
        return False  # the SDK answers 415
    return version is None or version in SUPPORTED_PROTOCOL_VERSIONS  # else 400


async def direct_reply(
    server: Server[Any, Any],
    security: TransportSecurityMiddleware,
    scope: Scope,
    body: bytes,
) -> Response | None:
    """The SDK's answer to a single ``tools/call`` or ``tools/list`` POST, or None.

    None: the request is anything else, or something the SDK's transport would refuse
    or answer differently; the caller hands it (body replayed) to the transport.

    Args:
        server: The low-level server whose registered handlers answer.
        security: The transport security settings the SDK's transport applies.
        scope: The request's ASGI scope (POST, session already authorised).
        body: The whole request body.
    """
    if not _headers_pass(scope):
        return None
    if await security.validate_request(Request(scope), is_post=True) is not None:
        return None
    try:
        raw = json.loads(body)
    except ValueError:
        return None
    if not isinstance(raw, dict) or raw.get("method") not in DIRECT_METHODS or "id" not in raw:
        return None
    try:
        message = types.JSONRPCMessage.model_validate(raw)
        if not isinstance(message.root, types.JSONRPCRequest):
            return None
        request = types.ClientRequest.model_validate(
            message.root.model_dump(by_alias=True, mode="json", exclude_none=True)
        ).root
    except ValidationError:
        return None
    if not isinstance(request, _REQUEST_TYPES[message.root.method]):
        return None
    handler = server.request_handlers.get(type(request))
    if handler is None:
        return None
    # As the SDK's `Server._handle_request` turns a handler's failure into an error.
    reply: types.JSONRPCResponse | types.JSONRPCError
    try:
        result = await handler(request)
    except McpError as err:
        reply = types.JSONRPCError(jsonrpc="2.0", id=message.root.id, error=err.error)
    except Exception as err:  # the SDK answers any handler failure so
        error = types.ErrorData(code=0, message=str(err), data=None)
        reply = types.JSONRPCError(jsonrpc="2.0", id=message.root.id, error=error)
    else:
        reply = types.JSONRPCResponse(
            jsonrpc="2.0",
            id=message.root.id,
            result=result.model_dump(by_alias=True, mode="json", exclude_none=True),
        )
    return Response(
        types.JSONRPCMessage(reply).model_dump_json(by_alias=True, exclude_none=True),
        status_code=200,
        headers={"Content-Type": _JSON},
    )
