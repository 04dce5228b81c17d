"""What every served request passes before any route: Host, Origin, content type, depth.

A web page in a browser can reach a server on loopback two ways: by DNS rebinding (a
name it controls resolving to 127.0.0.1 — the request then carries that name as its
``Host``) and by cross-site requests (``text/plain`` POSTs need no preflight; a
WebSocket handshake carries the page's ``Origin`` and no CORS check at all). So:

- ``Host`` must name an allowed host (loopback names and the bound address by default;
  more with ``statebox serve --allowed-host``): 421 otherwise;
- an ``Origin``, when present, must name an allowed host too: 403 (and a WebSocket
  handshake refused) otherwise — programs that are not browsers send none;
- a request body must be JSON (``Content-Type: application/json``): 415 otherwise,
  and at most ``max_body_bytes`` long: 413 otherwise;
- a JSON body nested deeper than ``max_json_depth`` is answered 400 before any parser
  recurses into it (Python's and pydantic's parsers fail on deep nesting with errors
  the routes would turn into 500s).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from statebox._hosts import LOOPBACK_HOSTS, allowed_hosts, host_name

__all__ = [
    "LOOPBACK_HOSTS",
    "MAX_JSON_DEPTH",
    "RequestGuard",
    "allowed_hosts",
    "host_name",
    "json_depth",
    "read_body",
    "replayed",
]

MAX_JSON_DEPTH = 64
"""Default limit on the nesting of a JSON request body (objects and arrays)."""

_NOT_BRACKETS = bytes(set(range(256)) - set(b"[]{}"))


def json_depth(body: bytes, limit: int = MAX_JSON_DEPTH) -> int:
    """How deep a JSON text nests (objects and arrays), or ``limit`` when not deeper.

    Brackets inside strings do not count: escaped quotes are dropped, then every other
    quote-separated piece is outside a string. No parser runs: byte operations and, for
    a body with more brackets than ``limit``, one running sum (as fast as parsing it).
    """
    # Only an escaped quote could hide a string's end; drop escaped backslashes first.
    body = body.replace(b"\\\\", b"").replace(b'\\"', b"")
    outside = b"".join(body.split(b'"')[0::2])
    brackets = outside.translate(None, _NOT_BRACKETS)
    if brackets.count(b"[") + brackets.count(b"{") <= limit:
        return limit  # cannot be deeper than its number of openings
    import numpy as np  # only for bodies with many brackets: a running sum at C speed

    codes = np.frombuffer(brackets, dtype=np.uint8)
    steps = np.where((codes == ord("[")) | (codes == ord("{")), 1, -1)
    return max(limit, int(steps.cumsum().max()))


def _refuse(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


class RequestGuard:
    """ASGI middleware applying the module's checks to HTTP requests and WebSockets.

    Args:
        app: The app behind it.
        hosts: Host names accepted in ``Host`` and ``Origin``; ``*`` in it accepts any.
        max_body_bytes: Longest request body accepted.
        max_json_depth: Deepest JSON body accepted.
    """

    def __init__(
        self,
        app: ASGIApp,
        hosts: Collection[str],
        *,
        max_body_bytes: int,
        max_json_depth: int = MAX_JSON_DEPTH,
    ) -> None:
        self.app = app
        self.hosts = frozenset(hosts)
        self.max_body_bytes = max_body_bytes
        self.max_json_depth = max_json_depth

    def _host_ok(self, value: str | None) -> bool:
        return "*" in self.hosts or (value is not None and host_name(value) in self.hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = _Checked(scope)
        problem: tuple[int, str] | None = None
        origin = headers.origin
        if not self._host_ok(headers.host):
            problem = (421, f"host {headers.host!r} is not served here")
        elif origin is not None and not self._host_ok(origin):
            problem = (403, f"origin {origin!r} is not allowed")
        elif scope["type"] == "http" and headers.has_body:
            kind = (headers.content_type or "").partition(";")[0].strip().lower()
            length = (headers.content_length or "0").strip()
            if kind != "application/json":
                problem = (415, "request bodies must be JSON (Content-Type: application/json)")
            elif length.isdigit() and int(length) > self.max_body_bytes:
                problem = (413, f"request body over {self.max_body_bytes} bytes")
        if problem is not None:
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008, "reason": problem[1][:120]})
                return
            await _refuse(*problem)(scope, receive, send)
            return
        if scope["type"] == "websocket" or not headers.has_body:
            await self.app(scope, receive, send)
            return
        await self._json(scope, receive, send)

    async def _json(self, scope: Scope, receive: Receive, send: Send) -> None:
        messages, body, ended = await read_body(receive, self.max_body_bytes)
        if len(body) > self.max_body_bytes:
            await _refuse(413, f"request body over {self.max_body_bytes} bytes")(
                scope, receive, send
            )
            return
        if not ended:
            # The client left before its body did: nothing is run on the part that came
            # (a prefix can be whole JSON: a session would be made, an episode judged).
            return
        messages = [{"type": "http.request", "body": body, "more_body": False}] + [
            m for m in messages if m["type"] != "http.request"
        ]
        if json_depth(body, self.max_json_depth) > self.max_json_depth:
            await _refuse(400, f"JSON nested deeper than {self.max_json_depth} levels")(
                scope, receive, send
            )
            return

        await self.app(scope, replayed(messages, receive), send)


async def read_body(receive: Receive, limit: int) -> tuple[list[Message], bytes, bool]:
    """Read a request's body: the messages as received, the body so far, and whether it ended.

    Reading stops at a disconnect or once the body is over ``limit`` bytes (then it has
    not ended); the caller replays the messages to whatever reads the request next.
    """
    messages: list[Message] = []
    body = bytearray()
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            return messages, bytes(body), False
        body += message.get("body", b"")
        if len(body) > limit:
            return messages, bytes(body), False
        if not message.get("more_body", False):
            return messages, bytes(body), True


def replayed(messages: list[Message], receive: Receive) -> Receive:
    """A ``receive`` giving ``messages`` (those `read_body` took) again, then ``receive``'s."""
    waiting = deque(messages)

    async def replay() -> Message:
        return waiting.popleft() if waiting else await receive()

    return replay


class _Checked:
    """The request headers the guard reads, in one pass over the raw list.

    Each is the first value of its name, as Starlette's ``Headers.get`` reads it (ASGI
    header names are lower-case); read once instead of one scan per lookup.
    """

    __slots__ = ("content_length", "content_type", "has_body", "host", "origin")

    def __init__(self, scope: Scope) -> None:
        found: dict[bytes, str] = {}
        chunked = False
        for k, v in scope.get("headers", ()):
            if k in _READ and k not in found:
                found[k] = bytes(v).decode("latin-1")
            elif k == b"transfer-encoding":
                chunked = True
        self.host = found.get(b"host")
        self.origin = found.get(b"origin")
        self.content_type = found.get(b"content-type")
        self.content_length = found.get(b"content-length")
        if self.content_length is not None:
            self.has_body = self.content_length.strip() not in ("", "0")
        else:
            self.has_body = chunked


_READ = frozenset({b"host", b"origin", b"content-type", b"content-length"})
