"""statebox's WebSocket protocol: reads pause only once the app falls behind, and then hold."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("websockets")

from serving import answer_lifespan
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
            await answer_lifespan(receive, send)
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


async def _handshaken(made: list[Any]) -> Any:
    """The first WebSocket protocol made, once its handshake is complete."""
    while not made or not made[0].handshake_complete:
        await asyncio.sleep(0.01)
    return made[0]


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
                proto = await _handshaken(made)
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


def _frames(texts: list[bytes]) -> bytes:
    return b"".join(Frame(Opcode.TEXT, t).serialize(mask=True, extensions=[]) for t in texts)


def test_a_client_with_too_many_messages_waiting_is_failed_and_its_backlog_dropped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Found in review: one 256 KiB write of tiny frames queued ~12,000 messages, worked
    # off without yielding (seconds of the whole server), and on after the client left.
    from statebox.serve._websocket import MAX_WAITING

    made, _ = _spied(monkeypatch)
    app = _Echo()  # not reading until told

    async def go() -> tuple[int, Any]:
        async with BackgroundServer(app) as server:
            url = server.url.replace("http://", "ws://")
            async with connect(url + "/", compression=None) as ws:
                proto = await _handshaken(made)
                proto.data_received(_frames([b"x"] * 5000))  # one read, 5,000 messages
                waiting = proto.queue.qsize()
                app.reading.set()
                with pytest.raises(Exception):  # noqa: B017  the server closed it
                    while True:
                        await ws.recv()
                return waiting, ws.close_code

    waiting, code = asyncio.run(go())
    assert waiting <= MAX_WAITING + 1  # the disconnect, and nothing of the backlog
    assert code == 1008
    assert app.got == []  # failed before the app read any of it


def test_a_client_that_leaves_has_its_waiting_messages_dropped_unread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made, _ = _spied(monkeypatch)
    app = _Echo()

    async def go() -> None:
        async with BackgroundServer(app) as server:
            url = server.url.replace("http://", "ws://")
            async with connect(url + "/", compression=None) as ws:
                proto = await _handshaken(made)
                proto.data_received(_frames([b"m"] * 50))
                assert proto.queue.qsize() == 50
                ws.transport.abort()  # the client is gone before the app read them
                await asyncio.sleep(0.1)
                app.reading.set()  # its first answer fails: the rest are not worked off
                for _ in range(200):
                    if proto.disconnected and proto.queue.empty():
                        break
                    await asyncio.sleep(0.01)

    asyncio.run(go())
    assert len(app.got) <= 2  # uvicorn worked off all 50 before it saw the client gone


def test_a_text_frame_that_is_not_utf8_is_closed_1007_without_a_traceback(
    capfd: pytest.CaptureFixture[str],
) -> None:
    app = _Echo()
    app.reading.set()

    async def go() -> int | None:
        async with BackgroundServer(app) as server:
            url = server.url.replace("http://", "ws://")
            async with connect(url + "/", compression=None) as ws:
                await ws.send("ok")
                assert await ws.recv() == "ok"
                ws.transport.write(_frames([b'{"type":"\xff"}']))
                with pytest.raises(Exception):  # noqa: B017  closed by the server
                    await ws.recv()
                return ws.close_code

    assert asyncio.run(go()) == 1007
    logged = capfd.readouterr().err  # uvicorn's log goes to the process's stderr
    assert "Traceback" not in logged and "Invalid UTF-8" not in logged
    assert app.got == ["ok"]
