"""uvicorn's WebSocket protocol, pausing reads only once its app falls behind, and bounded.

uvicorn's ``websockets-sansio`` protocol pauses a socket's reads on every message and
resumes them when the app takes it: backpressure, at the price of two ``epoll_ctl``
calls and asyncio's reader bookkeeping per message, about a quarter of the protocol's
own CPU per message on loopback (bench/serve.py). A request/response client
(OpenEnv's) never has a second message waiting, so here reads pause only once two
messages wait for the app: a client sending faster than its app reads is still held,
to two queued messages plus those of the read that queued them.

One read can hold thousands of small frames, though (a 256 KiB write of tiny
messages), each queued for the app, which works them off without yielding: one
client could stall the server for seconds, and go on stalling it after leaving. So a
client with more than `MAX_WAITING` messages waiting is failed (close 1008), the
messages of a client that is gone are dropped unread (nobody reads their answers), and
a text frame that is not UTF-8 is closed 1007 without the traceback uvicorn logs for
it (a log any client could fill).
"""

from __future__ import annotations

from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

__all__ = ["MAX_WAITING", "WebSocketProtocol"]

MAX_WAITING = 64
"""Messages a client may have waiting for the app before it is failed (1008)."""


class WebSocketProtocol(WebSocketsSansIOProtocol):
    """`WebSocketsSansIOProtocol`, its per-message read pause replaced by the lazier one."""

    def send_receive_event_to_app(self) -> None:
        if self.close_sent:
            self.frames = []  # past its close: discarded, as uvicorn does
            return
        if self.queue.qsize() >= MAX_WAITING:
            self.frames = []
            self._fail(1008, f"more than {MAX_WAITING} messages waiting")
            return
        if self.curr_msg_data_type == "text" and not _utf8(self.frames):
            self.frames = []
            self._fail(1007, "a text message that is not UTF-8")
            return
        paused = self.read_paused
        waiting = self.queue.qsize()
        # Marked paused, uvicorn queues the message without pausing the socket itself.
        self.read_paused = True
        try:
            super().send_receive_event_to_app()
        finally:
            self.read_paused = paused
        queued = self.queue.qsize() > waiting
        if queued and not paused and not self.close_sent and self.queue.qsize() > 1:
            # uvicorn's receive() resumes the reads once the app has taken every message.
            self.read_paused = True
            self.transport.pause_reading()

    def connection_lost(self, exc: Exception | None) -> None:
        self._drop_waiting()  # the client is gone: nobody reads the answers to them
        super().connection_lost(exc)

    async def receive(self) -> Any:
        # An app answering a backlog never yields (a queue holding messages and a
        # writable socket never suspend it), so the loss of its client, found by a
        # failed write, would wait for the whole backlog: the closing transport says it.
        if self.transport.is_closing():
            self._drop_waiting()
        return await super().receive()

    def _fail(self, code: int, reason: str) -> None:
        """Close the connection for the client's fault; the app gets no more of its messages."""
        self._drop_waiting()
        self.conn.fail(code, reason)
        self.transport.write(b"".join(self.conn.data_to_send()))
        self.close_sent = True
        self.queue.put_nowait({"type": "websocket.disconnect", "code": code, "reason": reason})
        self.transport.close()

    def _drop_waiting(self) -> None:
        """Take every received message the app has not read off its queue."""
        kept: list[Any] = []
        while not self.queue.empty():
            message = self.queue.get_nowait()
            if message["type"] != "websocket.receive":
                kept.append(message)
        for message in kept:
            self.queue.put_nowait(message)


def _utf8(frames: list[bytes]) -> bool:
    data = bytes(frames[0]) if len(frames) == 1 else b"".join(frames)
    if data.isascii():  # a JSON frame, nearly always: UTF-8 without a decode
        return True
    try:
        data.decode()
    except UnicodeDecodeError:
        return False
    return True
