"""uvicorn's httptools protocol: each response in one ``send()``, each request bounded.

uvicorn writes a response's status line and headers when the app sends
``http.response.start`` and its body on ``http.response.body``: two ``send()`` calls,
two TCP segments, two reads for the client, for every small JSON answer the
gateway and the control API give. `OneSendProtocol` gives uvicorn a transport that
keeps what is written until the response is complete (or, for anything else — a
streamed body, a ``100 Continue`` — until the event loop's next step), then writes
it in one call. The bytes and their order are unchanged; a WebSocket upgrade gets the
socket's own transport.

httptools buffers a request's head until it is complete, with no limit, and uvicorn
times nothing before a connection's first response: one client could make the server
hold hundreds of MB of one header, or hold connections (file descriptors) open by
sending nothing, or a byte now and then. So a request head over
`MAX_REQUEST_HEAD_BYTES` is answered 431 and the connection closed; a connection must
begin each request within the keep-alive timeout (blank lines do not count), a request's
head must arrive within `REQUEST_ARRIVAL_S` seconds of its first byte, and its body may
pause no longer than that between reads (else 408, closed). And past
`connection_limit` connections a new one is closed at once: every accept that fails
for want of a descriptor is logged whole by asyncio (tens of thousands of lines a
second under a flood), and the descriptors the server itself needs stay free.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

__all__ = [
    "FLUSH_AT_BYTES",
    "MAX_REQUEST_HEAD_BYTES",
    "REQUEST_ARRIVAL_S",
    "OneSendProtocol",
    "connection_limit",
]

FLUSH_AT_BYTES = 64 * 1024
"""Most bytes held for one send (asyncio's default write high-water mark)."""
MAX_REQUEST_HEAD_BYTES = 64 * 1024
"""Longest request line and headers accepted (nginx accepts 32 KiB at most by default)."""
REQUEST_ARRIVAL_S = 30.0
"""Seconds a request's head has from its first byte, and its body between two reads."""
RESERVED_FILES = 128
"""File descriptors kept free of connections (worlds' servers, logs, the listening socket)."""


def connection_limit() -> int:
    """Most connections (HTTP and WebSocket) at once: the open-files limit less a reserve."""
    import resource

    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if soft == resource.RLIM_INFINITY:
        return 1 << 20
    return max(64, soft - RESERVED_FILES)


class _Coalescing:
    """A transport that writes what is written to it in one call, at `flush`.

    A write schedules a flush on the loop's next step, so nothing waits longer than
    that; `flush` called earlier (the response is complete, the connection closes)
    makes it a no-op. Everything but writing and closing is the socket transport's.
    """

    __slots__ = ("_held", "_loop", "_pending", "transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self.transport = transport
        self._loop = loop
        self._pending: list[bytes] = []
        self._held = 0

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not self._pending:
            self._loop.call_soon(self.flush)
        self._pending.append(bytes(data))
        self._held += len(data)
        if self._held >= FLUSH_AT_BYTES:
            # Past this the socket transport must see the bytes, so that its high-water
            # check pauses an app streaming to a client that reads nothing (found in
            # review: held here, a whole streamed body piled up in memory).
            self.flush()

    def writelines(self, chunks: Any) -> None:
        for chunk in chunks:
            self.write(chunk)

    def flush(self) -> None:
        """Write what is pending, in one call."""
        if self._pending:
            data = self._pending[0] if len(self._pending) == 1 else b"".join(self._pending)
            self._pending = []
            self._held = 0
            self.transport.write(data)

    def get_write_buffer_size(self) -> int:
        return self.transport.get_write_buffer_size() + sum(map(len, self._pending))

    def write_eof(self) -> None:
        self.flush()
        self.transport.write_eof()

    def close(self) -> None:
        self.flush()
        self.transport.close()

    def abort(self) -> None:
        self.flush()  # what was written before an abort was sent at once before, too
        self.transport.abort()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)


class OneSendProtocol(HttpToolsProtocol):
    """`HttpToolsProtocol` writing each complete response with one ``send()``.

    Requests are bounded in size and time (see the module).
    """

    _head_bytes = 0
    _heads = 0  # request heads read whole so far
    _in_head = True  # the next bytes are (or begin) a request's head
    _begun = False  # a request has begun and not yet arrived whole
    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(_Coalescing(transport, self.loop))  # type: ignore[arg-type]
        if len(self.connections) > connection_limit():
            self.transport.close()  # full: its descriptor back at once, nothing logged
            return
        self._arm(self.timeout_keep_alive)  # the first request must begin in this time

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        in_head, heads = self._in_head, self._heads
        super().data_received(data)
        # A chunk read in a head that no head ended in is all head: httptools keeps it.
        if in_head and heads == self._heads and not self.transport.is_closing():
            self._head_bytes += len(data)
            if self._head_bytes > MAX_REQUEST_HEAD_BYTES:
                self._refuse(431, b"Request Header Fields Too Large")

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._in_head, self._head_bytes, self._begun = True, 0, True
        self._arm(REQUEST_ARRIVAL_S)

    def on_headers_complete(self) -> None:
        self._in_head, self._head_bytes = False, 0
        self._heads += 1
        self._arm(REQUEST_ARRIVAL_S)  # from here on, its body may pause as long between reads
        super().on_headers_complete()

    def on_body(self, body: bytes) -> None:
        self._arm(REQUEST_ARRIVAL_S)  # a slow upload that goes on is no stalled one
        super().on_body(body)

    def on_message_complete(self) -> None:
        self._disarm()  # arrived whole: answering it is the app's time
        self._in_head, self._begun = True, False  # whatever comes next begins a request
        super().on_message_complete()

    def on_response_complete(self) -> None:
        if isinstance(self.transport, _Coalescing):
            self.transport.flush()
        super().on_response_complete()
        answering = self.cycle is not None and not self.cycle.response_complete  # pipelined
        if not (self.transport.is_closing() or self._begun or answering):
            # uvicorn's keep-alive timer is cancelled by any byte, even the blank lines
            # the parser skips between requests: this one ends only with a request.
            self._arm(self.timeout_keep_alive)

    def handle_websocket_upgrade(self) -> None:
        self._disarm()  # the WebSocket protocol times its own connection
        # The WebSocket protocol writes frames itself: give it the socket's transport.
        if isinstance(self.transport, _Coalescing):
            self.transport.flush()
            self.transport = self.transport.transport
        super().handle_websocket_upgrade()

    def _arm(self, seconds: float) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(seconds, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        if not self._begun:
            self.transport.close()  # an idle connection: no request to answer
            return
        self._refuse(408, b"Request Timeout")

    def _refuse(self, status: int, reason: bytes) -> None:
        """Answer a request that may not be read any further, and close the connection.

        No answer when its response has begun (the app answered before the body came):
        the connection is closed.
        """
        # In a head, the request has no cycle yet (``self.cycle`` is an earlier one's).
        current = None if self._in_head else self.cycle
        if current is None or not current.response_started:
            head = b"HTTP/1.1 %d %s\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
            self.transport.write(head % (status, reason))
        self.transport.close()
