"""The floors under bench/serve.py's figures: statebox's replies served with no environment work.

bench/serve.py records one episode's replies from ``statebox serve`` (reset, each call,
the judged end: the JSON text the lean client received) and starts each floor server in
its own process to answer the same lean client with them, as fast as its stack allows:

- **openenv**: openenv's own routes (`HTTPEnvServer`, as ``statebox serve`` mounts them)
  over an `Environment` that returns the recorded observations, so openenv parses each
  message, builds its response models and serializes the observation as for statebox,
  but no world is cloned, no tool runs and nothing is judged: the least a server built
  on openenv's WebSocket handler can spend;
- **uvicorn**: a bare ASGI WebSocket app that parses each frame and sends the recorded
  reply text: the transport alone, the least any server on uvicorn can spend.

Both run under ``statebox serve``'s own uvicorn configuration (`BackgroundServer`: its
WebSocket protocol, no compression) and its garbage-collector settings, on loopback.
A floor is a measurement, not a constant: where it comes out under a target, the target
is within reach of that stack, and the bench says so.

Usage (bench/serve.py runs it): python bench/serve_floor.py --kind openenv|uvicorn
--replies FILE; the server prints its URL on stdout and serves until terminated.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import sys
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
KINDS = ("openenv", "uvicorn")
MAX_SESSIONS = 2048

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


async def record(url: str, reset_frame: bytes, step_frames: list[bytes]) -> list[str]:
    """One episode's reply texts from a WebSocket server (``url`` ends in ``/ws``)."""
    from websockets.asyncio.client import connect

    async with connect(url, compression=None, max_size=2**24) as ws:
        replies = []
        for frame in [reset_frame, *step_frames]:
            await ws.send(frame, text=True)
            reply = await ws.recv()
            replies.append(reply if isinstance(reply, str) else reply.decode())
    return replies


def _observation(reply: str) -> Any:
    """The `StateboxObservation` whose openenv serialization is the recorded reply."""
    from statebox.serve._openenv_types import StateboxObservation

    data = json.loads(reply)["data"]
    return StateboxObservation.model_validate(
        {**data["observation"], "reward": data["reward"], "done": data["done"]}
    )


def openenv_app(replies: list[str]) -> Any:
    """openenv's WebSocket routes over an environment that replays ``replies``.

    Raises:
        ValueError: openenv would not send the recorded replies back (then the floor
            would not be doing the server's serialization work).
    """
    from fastapi import FastAPI
    from openenv.core.env_server.http_server import HTTPEnvServer
    from openenv.core.env_server.interfaces import Environment
    from openenv.core.env_server.serialization import serialize_observation
    from openenv.core.env_server.types import ConcurrencyConfig, WSObservationResponse

    from statebox.serve._openenv_types import (
        StateboxAction,
        StateboxObservation,
        StateboxState,
    )

    observations = [_observation(r) for r in replies]
    for obs, reply in zip(observations, replies, strict=True):
        sent = WSObservationResponse(data=serialize_observation(obs)).model_dump_json()
        if json.loads(sent) != json.loads(reply):
            raise ValueError(f"openenv would send {sent[:200]}, not {reply[:200]}")

    class Replay(Environment[StateboxAction, StateboxObservation, StateboxState]):
        """The recorded observations, in order; nothing else (the same flags as statebox's)."""

        SUPPORTS_CONCURRENT_SESSIONS = True
        REQUIRES_SINGLE_THREAD_EXECUTOR = True

        def __init__(self) -> None:
            super().__init__()
            self._next = 1

        async def reset_async(
            self, seed: int | None = None, episode_id: str | None = None, task_id: str = ""
        ) -> StateboxObservation:
            self._next = 1
            return observations[0]

        async def step_async(self, action: StateboxAction, **kwargs: Any) -> StateboxObservation:
            obs = observations[min(self._next, len(observations) - 1)]
            self._next += 1
            return obs

        def reset(self, *args: Any, **kwargs: Any) -> StateboxObservation:
            raise NotImplementedError("async only")

        def step(self, *args: Any, **kwargs: Any) -> StateboxObservation:
            raise NotImplementedError("async only")

        @property
        def state(self) -> StateboxState:
            return StateboxState()

    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    HTTPEnvServer(
        Replay,
        StateboxAction,
        StateboxObservation,
        concurrency_config=ConcurrencyConfig(max_concurrent_envs=MAX_SESSIONS),
        env_name="floor",
        state_cls=StateboxState,
    ).register_routes(app, mode="simulation")
    return app


def uvicorn_app(replies: list[str]) -> Callable[[Scope, Receive, Send], Awaitable[None]]:
    """A bare ASGI WebSocket app: each frame parsed, the recorded reply sent."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        if scope["type"] != "websocket":
            await send({"type": "http.response.start", "status": 404, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        step = 1
        while (message := await receive())["type"] == "websocket.receive":
            # Parsed, as any server must read what it is sent.
            kind = json.loads(message.get("text") or message.get("bytes") or b"{}").get("type")
            if kind == "reset":
                step = 1
                reply = replies[0]
            else:
                reply = replies[min(step, len(replies) - 1)]
                step += 1
            await send({"type": "websocket.send", "text": reply})

    return app


async def serve(kind: str, replies: list[str]) -> None:
    """Serve the ``kind`` floor on loopback until cancelled; print its URL first."""
    from statebox.serve._app import GC_YOUNG_THRESHOLD, BackgroundServer

    app = openenv_app(replies) if kind == "openenv" else uvicorn_app(replies)
    server = BackgroundServer(app)
    url = await server.start()
    # statebox serve's own collector settings (ServeApp(freeze_gc=True)).
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_YOUNG_THRESHOLD, *gc.get_threshold()[1:])
    print(url, flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await server.stop()


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    from scripts.loopback import ensure

    ensure(__file__)
    parser = argparse.ArgumentParser(description="a floor server for bench/serve.py")
    parser.add_argument("--kind", choices=KINDS, required=True)
    parser.add_argument("--replies", type=Path, required=True)
    ns = parser.parse_args()
    asyncio.run(serve(ns.kind, json.loads(ns.replies.read_text())))
