"""`OneSendProtocol`: a complete response in one transport write, nothing held longer.

uvicorn's own httptools protocol is the reference: the same requests to the same app
give the same bytes through both; ours writes each complete response at once, sends
a streamed body's chunks as they come, and a ``100 Continue`` before the body is read.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import uvicorn
from serving import answer_lifespan, auth, create, read_response, serving
from starlette.types import Receive, Scope, Send
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState

from statebox.serve._http import OneSendProtocol


class FakeTransport(asyncio.Transport):
    """A socket transport that records each write call."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: Any) -> None:
        self.writes.append(bytes(data))

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 5000), "sockname": ("127.0.0.1", 8000)}.get(name)

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def get_write_buffer_size(self) -> int:
        return 0


def _protocol(
    cls: type[HttpToolsProtocol], app: Any, transport: FakeTransport | None = None
) -> tuple[HttpToolsProtocol, FakeTransport]:
    config = uvicorn.Config(app, lifespan="off", log_level="warning", http=cls)
    config.load()
    protocol = cls(config=config, server_state=ServerState(), app_state={})
    transport = transport or FakeTransport()
    protocol.connection_made(transport)
    return protocol, transport


async def _json_app(scope: Scope, receive: Receive, send: Send) -> None:
    body = b'{"echo":' + ((await receive()).get("body") or b"0") + b"}"
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


REQUESTS = [
    b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
    b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n42",
    # Two pipelined on one connection: each answered, in order.
    b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\n1"
    b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\n2",
    b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    b"NOT HTTP\r\n\r\n",  # uvicorn's 400, then it closes
]


@pytest.mark.parametrize("request_bytes", REQUESTS)
def test_the_same_bytes_as_uvicorns_protocol_each_response_in_one_write(
    request_bytes: bytes,
) -> None:
    async def go(cls: type[HttpToolsProtocol]) -> FakeTransport:
        protocol, transport = _protocol(cls, _json_app)
        protocol.data_received(request_bytes)
        for _ in range(20):
            await asyncio.sleep(0)
        protocol.connection_lost(None)
        return transport

    ours, theirs = asyncio.run(go(OneSendProtocol)), asyncio.run(go(HttpToolsProtocol))
    assert b"".join(ours.writes) == b"".join(theirs.writes)
    assert b"".join(ours.writes).startswith(b"HTTP/1.1 ")
    answers = b"".join(ours.writes).count(b"HTTP/1.1 ")
    assert len(ours.writes) == answers  # one write per response
    assert len(theirs.writes) > len(ours.writes) or b"400" in ours.writes[0]
    assert ours.closed == theirs.closed


def test_a_streamed_body_is_sent_as_it_comes_not_held_to_its_end() -> None:
    async def go() -> None:
        released = asyncio.Event()

        async def streaming(scope: Scope, receive: Receive, send: Send) -> None:
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"first", "more_body": True})
            await released.wait()  # a deadlock if "first" waited for the end
            await send({"type": "http.response.body", "body": b"last"})

        protocol, transport = _protocol(OneSendProtocol, streaming)
        protocol.data_received(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        async with asyncio.timeout(5):
            while b"first" not in b"".join(transport.writes):
                await asyncio.sleep(0)
        assert b"last" not in b"".join(transport.writes)
        released.set()
        async with asyncio.timeout(5):
            while not b"".join(transport.writes).endswith(b"0\r\n\r\n"):
                await asyncio.sleep(0)

    asyncio.run(go())


def test_a_100_continue_goes_out_before_the_body_is_read() -> None:
    async def go() -> None:
        protocol, transport = _protocol(OneSendProtocol, _json_app)
        protocol.data_received(
            b"POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n"
        )
        async with asyncio.timeout(5):  # the client sends the body only after it
            while b"100 Continue" not in b"".join(transport.writes):
                await asyncio.sleep(0)
        protocol.data_received(b"42")
        async with asyncio.timeout(5):
            while not b"".join(transport.writes).endswith(b'{"echo":42}'):
                await asyncio.sleep(0)

    asyncio.run(go())


def test_a_served_episode_over_a_raw_connection() -> None:
    # The whole app on the real server: the control API and the gateway answer over one
    # keep-alive connection, each answer complete and in order.
    async def go() -> None:
        async with serving() as s:
            info = await create(s, "toy.transfer.train.001")
            host, port = s.url.removeprefix("http://").split(":")
            reader, writer = await asyncio.open_connection(host, int(port))
            path = info["mcp_url"].removeprefix(s.url)
            body = b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
            token = auth(info["mcp_token"])["Authorization"]
            request = (
                f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: {token}\r\n"
                "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n"
            ).encode() + body
            health = f"GET /health HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode()
            writer.write(request + health + request)  # pipelined
            answers = []
            for _ in range(3):
                answers.append(await read_response(reader))
            writer.close()
            assert [status for status, _ in answers] == [b"200"] * 3
            assert answers[0] == answers[2] and b'"tools"' in answers[0][1]
            assert answers[1][1] == b'{"status":"healthy"}'

    asyncio.run(go())


HIGH_WATER = 64 * 1024
CHUNK = 64 * 1024
CHUNKS = 64


class _SlowPeer(FakeTransport):
    """A socket transport whose peer reads nothing: writes buffer, past high water it pauses."""

    def __init__(self) -> None:
        super().__init__()
        self.buffered = 0
        self.protocol: Any = None
        self.paused = False

    def write(self, data: Any) -> None:
        self.buffered += len(data)
        if self.buffered > HIGH_WATER and not self.paused:
            self.paused = True
            self.protocol.pause_writing()

    def get_write_buffer_size(self) -> int:
        return self.buffered


@pytest.mark.parametrize("cls", [HttpToolsProtocol, OneSendProtocol])
def test_a_streamed_body_to_a_client_reading_nothing_waits_for_it(cls: type) -> None:
    # Found in review: held until the loop's next step, the bytes never reached the
    # socket transport's high-water check, so the app was never paused.
    sent = 0

    async def app(scope: Any, receive: Any, send: Any) -> None:
        nonlocal sent
        await send({"type": "http.response.start", "status": 200, "headers": []})
        for _ in range(CHUNKS):  # awaits nothing but send, as a plain async generator
            await send({"type": "http.response.body", "body": b"x" * CHUNK, "more_body": True})
            sent += 1
        await send({"type": "http.response.body", "body": b""})

    async def go() -> int:
        peer = _SlowPeer()
        protocol, _ = _protocol(cls, app, peer)
        peer.protocol = protocol
        protocol.data_received(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        for _ in range(20):
            await asyncio.sleep(0.01)
        held = protocol.transport.get_write_buffer_size()
        for task in protocol.tasks:
            task.cancel()
        return held

    held = asyncio.run(go())
    # The app is held once the peer's buffer is full: a few chunks, not all 4 MiB of them.
    assert sent <= 2, f"{sent} of {CHUNKS} chunks accepted, {held} bytes held"


def test_a_request_head_over_the_limit_is_answered_431_and_closed() -> None:
    # Found in review: httptools buffers a head until it is complete, with no limit: an
    # anonymous client streaming one 256 MiB header grew the server by ~500 MB.
    from statebox.serve._http import MAX_REQUEST_HEAD_BYTES

    async def go() -> FakeTransport:
        protocol, transport = _protocol(OneSendProtocol, _json_app)
        protocol.data_received(b"GET / HTTP/1.1\r\nHost: x\r\nX-Pad: ")
        sent = 0
        while not transport.closed and sent < 4 * MAX_REQUEST_HEAD_BYTES:
            protocol.data_received(b"a" * 16384)  # the header never ends
            sent += 16384
        return transport

    transport = asyncio.run(go())
    assert transport.closed
    assert b"".join(transport.writes).startswith(b"HTTP/1.1 431 ")


@pytest.mark.parametrize("pipelined", [False, True])
def test_bodies_up_to_the_limit_are_no_head_however_they_arrive(pipelined: bool) -> None:
    body = b"7" * (250 * 1024)  # one request's body, read in one chunk with its head
    one = b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)

    async def go() -> bytes:
        protocol, transport = _protocol(OneSendProtocol, _json_app)
        protocol.data_received(one + one if pipelined else one)
        for _ in range(50):
            await asyncio.sleep(0)
        assert not transport.closed
        return b"".join(transport.writes)

    answers = asyncio.run(go())
    assert answers.count(b"HTTP/1.1 200 ") == (2 if pipelined else 1)


def test_an_idle_connection_and_a_request_trickling_in_are_closed_in_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Found in review: a connection that never completed a request had no timer at all,
    # so 1,100 idle or half-sent connections held every file descriptor.
    import statebox.serve._http as http_module

    monkeypatch.setattr(http_module, "REQUEST_ARRIVAL_S", 0.2)

    async def idle() -> FakeTransport:
        protocol, transport = _protocol(OneSendProtocol, _json_app)
        protocol.timeout_keep_alive = 0.2
        protocol._arm(0.2)  # as connection_made arms it with the keep-alive timeout
        await asyncio.sleep(0.5)
        return transport

    async def trickling() -> FakeTransport:
        protocol, transport = _protocol(OneSendProtocol, _json_app)
        for byte in b"GET / HTTP/1.1\r\nHost:":  # a byte every 0.05 s never ends the head
            if transport.closed:
                break
            protocol.data_received(bytes([byte]))
            await asyncio.sleep(0.05)
        return transport

    quiet = asyncio.run(idle())
    assert quiet.closed and quiet.writes == []  # no request: closed, nothing answered
    slow = asyncio.run(trickling())
    assert slow.closed and b"".join(slow.writes).startswith(b"HTTP/1.1 408 ")


def test_a_request_that_arrives_in_time_is_answered_however_long_the_app_takes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import statebox.serve._http as http_module

    monkeypatch.setattr(http_module, "REQUEST_ARRIVAL_S", 0.1)

    async def slow_app(scope: Scope, receive: Receive, send: Send) -> None:
        await asyncio.sleep(0.3)  # longer than a request may take to arrive
        await _json_app(scope, receive, send)

    async def go() -> FakeTransport:
        protocol, transport = _protocol(OneSendProtocol, slow_app)
        protocol.data_received(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n42")
        await asyncio.sleep(0.5)
        return transport

    transport = asyncio.run(go())
    assert b"".join(transport.writes).startswith(b"HTTP/1.1 200 ")
    assert b'{"echo":42}' in b"".join(transport.writes) and not transport.closed


def test_a_connection_past_the_limit_is_closed_at_once_and_the_rest_are_served(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Found in review: past the open-files limit every accept failed and asyncio logged
    # each failure whole (~40,000 lines a second), while nobody could connect.
    import socket

    import statebox.serve._http as http_module
    from statebox.serve import BackgroundServer

    monkeypatch.setattr(http_module, "connection_limit", lambda: 2)

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await answer_lifespan(receive, send)
            return
        await _json_app(scope, receive, send)

    async def go() -> tuple[bytes, list[bytes]]:
        async with BackgroundServer(app) as server:
            loop = asyncio.get_running_loop()
            held = []
            for _ in range(2):
                held.append(socket.create_connection(("127.0.0.1", server.port)))
            await asyncio.sleep(0.1)
            extra = socket.create_connection(("127.0.0.1", server.port))
            extra.settimeout(5)
            refused = await loop.run_in_executor(None, extra.recv, 100)
            extra.close()
            answers = []
            for s in held:
                s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                s.settimeout(5)
                answers.append(await loop.run_in_executor(None, s.recv, 4096))
                s.close()
            return refused, answers

    refused, answers = asyncio.run(go())
    assert refused == b""  # closed by the server without a word
    assert all(a.startswith(b"HTTP/1.1 200 ") for a in answers)


def test_blank_lines_after_an_answer_do_not_keep_a_connection_open() -> None:
    # Found in review: any byte cancelled uvicorn's keep-alive timer, and the blank line
    # the parser skips began no request: one CRLF held a connection (a descriptor) forever.
    async def go() -> FakeTransport:
        protocol, transport = _protocol(OneSendProtocol, _json_app)
        protocol.timeout_keep_alive = 0.2
        protocol.data_received(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        for _ in range(20):
            await asyncio.sleep(0)
        assert b"".join(transport.writes).startswith(b"HTTP/1.1 200 ")
        for _ in range(4):  # blank lines, more often than the keep-alive timeout
            protocol.data_received(b"\r\n")
            await asyncio.sleep(0.1)
        return transport

    assert asyncio.run(go()).closed


def test_a_slow_body_that_keeps_coming_arrives_and_a_stalled_one_gets_408(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Found in review: the 30 s were a total for head and body (a 256 KiB upload slower
    # than ~9 KB/s could never arrive), and a stalled body was closed without its 408.
    import statebox.serve._http as http_module

    monkeypatch.setattr(http_module, "REQUEST_ARRIVAL_S", 0.2)
    head = b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 8\r\n\r\n"

    async def whole_body(scope: Scope, receive: Receive, send: Send) -> None:
        body, more = b"", True
        while more:
            message = await receive()
            body, more = body + message.get("body", b""), message.get("more_body", False)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"got " + body})

    async def slow() -> FakeTransport:
        protocol, transport = _protocol(OneSendProtocol, whole_body)
        protocol.data_received(head)
        for digit in b"12345678":  # 0.8 s in all, a read every 0.1 s
            await asyncio.sleep(0.1)
            protocol.data_received(bytes([digit]))
        for _ in range(20):
            await asyncio.sleep(0)
        return transport

    async def stalled() -> FakeTransport:
        protocol, transport = _protocol(OneSendProtocol, whole_body)  # waits for it all
        protocol.data_received(head + b"1234")
        await asyncio.sleep(0.5)
        return transport

    arrived = asyncio.run(slow())
    assert b"got 12345678" in b"".join(arrived.writes) and not arrived.closed
    stuck = asyncio.run(stalled())
    assert stuck.closed and b"".join(stuck.writes).startswith(b"HTTP/1.1 408 ")
