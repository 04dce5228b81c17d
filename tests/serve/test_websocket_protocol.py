"""statebox's WebSocket protocol: reads pause only once the app falls behind, and then hold."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("websockets")

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.asyncio.client import connect
from websockets.frames import Frame, Opcode

import statebox.serve._app as app_module
from statebox.serve import BackgroundServer
from statebox.serve._websocket import WebSocketProtocol


class _Echo:
    """An ASGI app whose WebSocket echoes each text message once ``reading`` is set."""

    def __init__(self) -> None:
        self.reading = asyncio.Event()
        self.got: list[str] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        await self.reading.wait()
        while (m := await receive())["type"] == "websocket.receive":
            self.got.append(m["text"])
            await send({"type": "websocket.send", "text": m["text"]})


def _spied(monkeypatch: pytest.MonkeyPatch) -> tuple[list[Any], list[int]]:
    """Every WebSocket protocol made from now on, and how often each paused its reads."""
    made: list[Any] = []
    pauses: list[int] = []
    real = WebSocketsSansIOProtocol.connection_made

    def connection_made(self: Any, transport: Any) -> None:
        index = len(pauses)
        pauses.append(0)
        pause = transport.pause_reading

        def counted() -> None:
            pauses[index] += 1
            pause()

        transport.pause_reading = counted
        made.append(self)
        real(self, transport)

    monkeypatch.setattr(WebSocketsSansIOProtocol, "connection_made", connection_made)
    return made, pauses


def test_the_server_serves_websockets_with_statebox_protocol() -> None:
    assert app_module._ws_protocol() is WebSocketProtocol


@pytest.mark.parametrize(
    ("protocol", "expected_pauses"), [(WebSocketProtocol, 0), (WebSocketsSansIOProtocol, 20)]
)
def test_a_request_reply_client_never_pauses_the_reads_where_uvicorn_pauses_each_message(
    monkeypatch: pytest.MonkeyPatch, protocol: type, expected_pauses: int
) -> None:
    made, pauses = _spied(monkeypatch)
    monkeypatch.setattr(app_module, "_ws_protocol", lambda: protocol)
    app = _Echo()
    app.reading.set()

    async def go() -> list[str]:
        async with BackgroundServer(app) as server:
            url = server.url.replace("http://", "ws://")
            async with connect(url + "/", compression=None) as ws:
                replies = []
                for i in range(20):
                    await ws.send(f"m{i}")
                    replies.append(str(await ws.recv()))
                return replies

    assert asyncio.run(go()) == [f"m{i}" for i in range(20)]
    assert [type(p) for p in made] == [protocol]
    assert pauses == [expected_pauses]


def test_a_client_sending_faster_than_its_app_reads_is_held_at_two_waiting_messages(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made, pauses = _spied(monkeypatch)
    app = _Echo()  # not reading until told

    def frame(text: str) -> bytes:
        return Frame(Opcode.TEXT, text.encode()).serialize(mask=True, extensions=[])

    async def go() -> list[str]:
        async with BackgroundServer(app) as server:
            url = server.url.replace("http://", "ws://")
            async with connect(url + "/", compression=None) as ws:
                while not made or not made[0].handshake_complete:
                    await asyncio.sleep(0.01)
                proto = made[0]
                # Each as its own read would deliver it: one waits, the reads go on.
                proto.data_received(frame("a"))
                assert (proto.queue.qsize(), proto.read_paused) == (1, False)
                assert proto.transport.is_reading()
                # A second waits: the socket's reads pause until the app takes both.
                proto.data_received(frame("b"))
                assert (proto.queue.qsize(), proto.read_paused) == (2, True)
                assert not proto.transport.is_reading() and pauses == [1]
                app.reading.set()
                replies = [str(await ws.recv()), str(await ws.recv())]
                assert proto.transport.is_reading() and not proto.read_paused
                await ws.send("c")
                replies.append(str(await ws.recv()))
                return replies

    assert asyncio.run(go()) == ["a", "b", "c"]
    assert app.got == ["a", "b", "c"] and pauses == [1]
