"""An idle keep-alive connection outlives the clients' own pool expiry.

uvicorn closes idle connections after 5 s by default, exactly when httpx's pool would
still reuse them: a request sent as the server closes fails with ``httpx.ReadError``
(seen under load in the 200-episode gateway test). Here a raw socket waits past those
5 s between two requests on one connection and must get both answers.
"""

from __future__ import annotations

import asyncio

import pytest
from serving import read_response, serving

pytestmark = pytest.mark.slow


def test_an_idle_connection_is_still_served_after_five_seconds() -> None:
    async def go() -> None:
        async with serving(wait=False) as s:
            host, port = s.url.removeprefix("http://").split(":")
            reader, writer = await asyncio.open_connection(host, int(port))
            request = f"GET /health HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode()
            answers = []
            for pause in (0.0, 5.5):
                await asyncio.sleep(pause)
                writer.write(request)
                await writer.drain()
                answers.append(await read_response(reader))
            writer.close()
            assert answers == [(b"200", b'{"status":"healthy"}')] * 2

    asyncio.run(go())
