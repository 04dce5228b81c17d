"""uvicorn's WebSocket protocol, pausing a socket's reads only once its app falls behind.

uvicorn's ``websockets-sansio`` protocol pauses a socket's reads on every message and
resumes them when the app takes it: backpressure, at the price of two ``epoll_ctl``
calls and asyncio's reader bookkeeping per message, about a quarter of the protocol's
own CPU per message on loopback (bench/serve.py). A request/response client
(OpenEnv's) never has a second message waiting, so here reads pause only once two
messages wait for the app: a client sending faster than its app reads is still held,
to two queued messages (plus those of the read that queued them) where uvicorn holds
it to one.
"""

from __future__ import annotations

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

__all__ = ["WebSocketProtocol"]


class WebSocketProtocol(WebSocketsSansIOProtocol):
    """`WebSocketsSansIOProtocol`, its per-message read pause replaced by the lazier one."""

    def send_receive_event_to_app(self) -> None:
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
