"""uvicorn's httptools protocol, sending each response's head and body in one ``send()``.

uvicorn writes a response's status line and headers when the app sends
``http.response.start`` and its body on ``http.response.body``: two ``send()`` calls,
two TCP segments, two reads for the client, for every small JSON answer the
gateway and the control API give. `OneSendProtocol` gives uvicorn a transport that
keeps what is written until the response is complete (or, for anything else — a
streamed body, a ``100 Continue`` — until the event loop's next step), then writes
it in one call. The bytes and their order are unchanged; a WebSocket upgrade gets the
socket's own transport.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

__all__ = ["FLUSH_AT_BYTES", "OneSendProtocol"]

FLUSH_AT_BYTES = 64 * 1024
"""Most bytes held for one send (asyncio's default write high-water mark)."""


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
    """`HttpToolsProtocol` writing each complete response with one ``send()``."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(_Coalescing(transport, self.loop))  # type: ignore[arg-type]

    def on_response_complete(self) -> None:
        if isinstance(self.transport, _Coalescing):
            self.transport.flush()
        super().on_response_complete()

    def handle_websocket_upgrade(self) -> None:
        # The WebSocket protocol writes frames itself: give it the socket's transport.
        if isinstance(self.transport, _Coalescing):
            self.transport.flush()
            self.transport = self.transport.transport
        super().handle_websocket_upgrade()
