"""Endpoint slots: a `limiting` scope's limiter replaces the local semaphore."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from fixtures.protocol_server import Script, config_for, hub, serve, slow
from statebox.llm import ModelConfig, UserText, endpoint_key, endpoint_slot, limiting


class Recording:
    """A limiter that records every slot taken, and caps nothing."""

    def __init__(self) -> None:
        self.taken: list[tuple[str, int]] = []

    def slot(self, key: str, max_connections: int) -> AbstractAsyncContextManager[None]:
        self.taken.append((key, max_connections))

        @asynccontextmanager
        async def held() -> AsyncIterator[None]:
            yield

        return held()


def test_endpoint_key_names_provider_url_and_model() -> None:
    assert endpoint_key("openai", None, "gpt-4o") == "openai||gpt-4o"
    assert endpoint_key("openai", "http://h/v1", "m") == "openai|http://h/v1|m"


def test_outside_a_scope_the_local_semaphore_is_used() -> None:
    sem = asyncio.Semaphore(2)

    async def go() -> list[int]:
        seen = []
        async with endpoint_slot("k", 2, sem):
            seen.append(sem._value)
        seen.append(sem._value)
        async with endpoint_slot("k", 2, None):  # no local limit at all
            seen.append(-1)
        return seen

    assert asyncio.run(go()) == [1, 2, -1]


def test_inside_a_scope_the_limiter_is_asked_and_the_local_semaphore_untouched() -> None:
    limiter, sem = Recording(), asyncio.Semaphore(1)

    async def go() -> int:
        with limiting(limiter):
            async with endpoint_slot("k", 5, sem):
                return sem._value

    assert asyncio.run(go()) == 1
    assert limiter.taken == [("k", 5)]


def test_model_client_takes_its_slot_from_the_scope_limiter() -> None:
    limiter = Recording()
    script = Script([], then=slow(0.0, "hi"))

    async def go(config: ModelConfig) -> None:
        h = hub()
        client = h.client(config, "agent")
        with limiting(limiter):
            await client.complete("", [UserText(text="x")])
            await client.complete("", [UserText(text="y")])
        await client.complete("", [UserText(text="z")])  # outside: the hub's semaphore
        await h.aclose()

    with serve(script) as server:
        config = config_for(server, max_connections=7)
        asyncio.run(go(config))
    key = endpoint_key(config.provider, config.base_url, config.model)
    assert limiter.taken == [(key, 7), (key, 7)]
