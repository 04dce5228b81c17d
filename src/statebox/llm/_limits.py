"""Per-endpoint concurrency limits that can span processes.

Rate limits belong to an API key and a model, not to a process: a campaign spread over
many workers must keep one limit per (provider, base URL, model) across all of them.
Every model call asks `endpoint_slot` for a slot. Inside a `limiting(limiter)` scope (a
context variable, set per trial by a distributed executor) the slot comes from that
limiter, shared by every worker; outside one it comes from the caller's own
process-local semaphore, as before.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, contextmanager
from contextvars import ContextVar
from typing import Protocol

__all__ = ["EndpointLimiter", "endpoint_key", "endpoint_slot", "limiting"]


class EndpointLimiter(Protocol):
    """Hands out slots of named limits shared beyond this process."""

    def slot(self, key: str, max_connections: int) -> AbstractAsyncContextManager[None]:
        """Hold one of ``max_connections`` slots of ``key`` for the block.

        Args:
            key: The limit's name, e.g. from `endpoint_key`.
            max_connections: Slots of the limit (the first caller's value fixes it).
        """
        ...


_LIMITER: ContextVar[EndpointLimiter | None] = ContextVar("statebox_endpoint_limiter", default=None)


def endpoint_key(provider: str, base_url: str | None, model: str) -> str:
    """The name of an endpoint's limit: ``provider|base_url|model``."""
    return f"{provider}|{base_url or ''}|{model}"


@contextmanager
def limiting(limiter: EndpointLimiter) -> Iterator[None]:
    """Take endpoint slots from ``limiter`` inside the block (this task and its children)."""
    token = _LIMITER.set(limiter)
    try:
        yield
    finally:
        _LIMITER.reset(token)


@asynccontextmanager
async def _local(semaphore: asyncio.Semaphore | None) -> AsyncIterator[None]:
    if semaphore is None:
        yield
        return
    async with semaphore:
        yield


def endpoint_slot(
    key: str, max_connections: int, local: asyncio.Semaphore | None
) -> AbstractAsyncContextManager[None]:
    """One slot of an endpoint's limit, held for the block.

    Args:
        key: The endpoint's limit name (`endpoint_key`).
        max_connections: Calls in flight allowed on that endpoint.
        local: The process-local semaphore used outside a `limiting` scope (None: no
            local limit).

    Returns:
        An async context manager holding the slot.
    """
    limiter = _LIMITER.get()
    if limiter is not None:
        return limiter.slot(key, max_connections)
    return _local(local)
