"""One event loop thread per process, where every in-process episode of the adapters runs.

Trainers call environments synchronously from their own threads; a statebox episode is
async and its world (a SQLite connection) belongs to one thread. Every episode step is
therefore submitted to this one loop and waited for.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["run"]

T = TypeVar("T")

_LOCK = threading.Lock()
_LOOP: asyncio.AbstractEventLoop | None = None


def _loop() -> asyncio.AbstractEventLoop:
    global _LOOP
    with _LOCK:
        if _LOOP is None or _LOOP.is_closed():
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="statebox-rl", daemon=True).start()
            _LOOP = loop
        return _LOOP


def run(coro: Coroutine[Any, Any, T], timeout_s: float | None = None) -> T:
    """Run ``coro`` on the adapters' loop and wait for its result.

    Raises:
        TimeoutError: It took longer than ``timeout_s`` (it is cancelled).
        Exception: Whatever ``coro`` raised.
    """
    future = asyncio.run_coroutine_threadsafe(coro, _loop())
    try:
        return future.result(timeout_s)
    except TimeoutError:
        future.cancel()
        raise
