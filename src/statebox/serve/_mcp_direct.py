"""The gateway's per-step requests answered on the request's own task.

In stateless mode the SDK's `StreamableHTTPSessionManager` serves every POST by
building a transport, spawning a task that runs `Server.run` with a fresh
`ServerSession` over in-memory streams, routing the request through them and tearing
it all down again: about 1.5 ms of CPU per tool call here, twenty times the episode
step it carries (``bench/transport.py``). A tool call needs none of that state.

`direct_reply` answers what an agent sends in every episode: a single ``tools/call``
or ``tools/list``, an ``initialize`` and its ``notifications/initialized``. It does so
with the SDK's own pieces: the checks its transport makes on a POST (Accept,
Content-Type, ``MCP-Protocol-Version`` except on initialize, its transport security
settings), the same parse (`JSONRPCMessage`, then the request's `ClientRequest` type),
the handler registered on the `Server` for tool calls and lists (so argument handling
and error results are the server's, whichever way a request came), the
`InitializeResult` the SDK's stateless `ServerSession` answers (from the same
initialization options), the 202 the transport answers a notification with, and the
same JSON-RPC response bytes. A stateless session is initialised from its start, so an
``initialize`` or ``notifications/initialized`` changes no state the next request
could see.

It also answers, as the SDK does, what the SDK's session would log: a request that
fails `ClientRequest` validation (its INVALID_PARAMS error; the session logs a warning
with the validation errors, the agent's input in them), and every other notification
or posted response (202; the session logs one it cannot validate, or a response to no
request, whole). Logged per message, that is a log an agent can fill at will. The
gateway's server has no notification handlers, so in a stateless session a
notification has nothing to run. Everything else — valid requests of other kinds
(ping ...), batches, anything malformed or refused — returns None and goes to the
SDK's transport, which answers it as before.
``tests/serve/test_gateway_direct.py`` checks that both ways give the same status,
headers and body for every request answered here, and for the ones left to the SDK.
"""

from __future__ import annotations

import json
from typing import Any

import pydantic_core
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.transport_security import TransportSecurityMiddleware
from mcp.shared.exceptions import McpError
from mcp.shared.version import SUPPORTED_PROTOCOL_VERSIONS
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Scope

from statebox.serve._unechoable import UnreadableJson, load_json, unechoable

__all__ = ["DIRECT_METHODS", "direct_reply"]

DIRECT_METHODS = frozenset({"tools/call", "tools/list", "initialize"})
"""JSON-RPC requests answered here; every other valid request goes to the SDK's transport."""

_JSON = "application/json"
_REQUEST_TYPES: dict[str, type[Any]] = {
    "tools/call": types.CallToolRequest,
    "tools/list": types.ListToolsRequest,
    "initialize": types.InitializeRequest,
}
"""The `ClientRequest` member of each method: every member fixes its method as a
literal, so validating against this one type is validating against the union."""
_INVALID_PARAMS = types.ErrorData(
    code=types.INVALID_PARAMS, message="Invalid request parameters", data=""
)
"""The error the SDK's session answers a request failing `ClientRequest` with."""


def _headers_pass(scope: Scope, *, check_version: bool) -> bool:
    """The SDK transport's POST header checks (JSON response mode, no MCP session).

    ``check_version``: whether ``MCP-Protocol-Version`` is checked (the SDK does not
    check it on ``initialize``).
    """
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
    return not check_version or version is None or version in SUPPORTED_PROTOCOL_VERSIONS


def _initialize(server: Server[Any, Any], request: types.InitializeRequest) -> types.ServerResult:
    """What the SDK's `ServerSession` answers an ``initialize`` with."""
    options = server.create_initialization_options()
    requested = request.params.protocolVersion
    return types.ServerResult(
        types.InitializeResult(
            protocolVersion=requested
            if requested in SUPPORTED_PROTOCOL_VERSIONS
            else types.LATEST_PROTOCOL_VERSION,
            capabilities=options.capabilities,
            serverInfo=types.Implementation(
                name=options.server_name,
                version=options.server_version,
                websiteUrl=options.website_url,
                icons=options.icons,
            ),
            instructions=options.instructions,
        )
    )


async def direct_reply(
    server: Server[Any, Any],
    security: TransportSecurityMiddleware,
    scope: Scope,
    body: bytes,
) -> Response | None:
    """The SDK's answer to a single request, notification or response, or None.

    Answered: tool calls and lists, initialize, requests failing validation,
    notifications and posted responses. None: the request is anything else, or
    something the SDK's transport would refuse or answer differently; the caller
    hands it (body replayed) to the transport.

    Args:
        server: The low-level server whose registered handlers answer.
        security: The transport security settings the SDK's transport applies.
        scope: The request's ASGI scope (POST, session already authorised).
        body: The whole request body.
    """
    try:
        raw = load_json(body)
    except json.JSONDecodeError:
        return None  # the SDK answers its parse error
    except UnreadableJson as exc:
        # The SDK's transport would answer 500; this is the parse error it answers the rest.
        return _refused(types.PARSE_ERROR, f"Parse error: {exc}")
    if not isinstance(raw, dict):
        return None  # a batch, or a bare value: the SDK answers 400
    try:
        message = types.JSONRPCMessage.model_validate(raw).root
    except ValidationError:
        return None  # the SDK answers 400
    rid = getattr(message, "id", None)
    if isinstance(rid, str) and unechoable(rid) is not None:
        # No answer can echo such an id (the SDK's would fail with a 500): refused as
        # the SDK refuses a request it cannot read.
        return _refused(types.INVALID_REQUEST, "Invalid request: the id is not valid Unicode")
    initialize = isinstance(message, types.JSONRPCRequest) and message.method == "initialize"
    if not _headers_pass(scope, check_version=not initialize):
        return None
    if await security.validate_request(Request(scope), is_post=True) is not None:
        return None
    if not isinstance(message, types.JSONRPCRequest):
        if server.notification_handlers:
            return None  # a handler to run: the SDK's session runs it
        # The transport answers every notification (and any response a client posts)
        # 202 before its session reads it; the session would then only log a message
        # it cannot validate, or a response to no request, content and all.
        return Response(None, status_code=202, headers={"Content-Type": _JSON})
    try:
        dumped = message.model_dump(by_alias=True, mode="json", exclude_none=True)
    except UnicodeEncodeError:
        # A lone surrogate in an object key (an argument's name): the episode cleans
        # names and values alike, as it does those of every other surface.
        dumped = message.model_dump(by_alias=True, exclude_none=True)
    request_type = _REQUEST_TYPES.get(message.method)
    try:
        if request_type is None:
            types.ClientRequest.model_validate(dumped)
            return None  # a valid request of another kind (ping, resources/list ...)
        request = request_type.model_validate(dumped)
    except ValidationError:
        # What the SDK's session answers, after logging a warning with the agent's
        # input in it; no handler runs either way.
        return _json({"jsonrpc": "2.0", "id": message.id, "error": _INVALID_PARAMS})
    reply: dict[str, Any]
    rid = message.id
    if isinstance(request, types.InitializeRequest):
        reply = {"jsonrpc": "2.0", "id": rid, "result": _initialize(server, request)}
    else:
        handler = server.request_handlers.get(type(request))
        if handler is None:
            return None
        # As the SDK's `Server._handle_request` turns a handler's failure into an error.
        try:
            result = await handler(request)
        except McpError as err:
            reply = {"jsonrpc": "2.0", "id": rid, "error": err.error}
        except Exception as err:  # the SDK answers any handler failure so
            error = types.ErrorData(code=0, message=str(err), data=None)
            reply = {"jsonrpc": "2.0", "id": rid, "error": error}
        else:
            reply = {"jsonrpc": "2.0", "id": rid, "result": result}
    return _json(reply)


def _refused(code: int, message: str) -> Response:
    """A request refused before it is read, as the SDK's transport answers one (400)."""
    error = types.JSONRPCError(
        jsonrpc="2.0", id="server-error", error=types.ErrorData(code=code, message=message)
    )
    return Response(
        error.model_dump_json(by_alias=True, exclude_none=True),
        status_code=400,
        headers={"Content-Type": _JSON},
    )


def _json(reply: dict[str, Any]) -> Response:
    """A JSON-RPC response or error as the SDK's transport sends it (status 200).

    The bytes `JSONRPCMessage(JSONRPCResponse(...)).model_dump_json(by_alias=True,
    exclude_none=True)` give, without building and validating the two wrappers.
    """
    return Response(
        pydantic_core.to_json(reply, by_alias=True, exclude_none=True),
        status_code=200,
        headers={"Content-Type": _JSON},
    )
