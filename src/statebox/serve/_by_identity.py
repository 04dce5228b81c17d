"""Values built once per object (or tuple of objects), found again by identity.

The OpenEnv server's tool wire forms and the gateway's tool lists are built from a
task's `ToolInfo` objects, which every reset of the task offers again (`Episode` keeps
them per tool set). Keyed by ``id``: an entry holds its objects, so no id can name
another object while it is cached; past ``limit`` entries the cache starts afresh.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

__all__ = ["ByIdentity"]

V = TypeVar("V")


class ByIdentity(Generic[V]):
    """A bounded cache from a sequence of objects (by identity) to a value built from them."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._entries: dict[tuple[int, ...], tuple[tuple[object, ...], V]] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, objects: Sequence[object], build: Callable[[], V]) -> V:
        """The value cached for exactly these objects, else ``build()``'s, then cached."""
        key = tuple(map(id, objects))
        hit = self._entries.get(key)
        if hit is not None and all(a is b for a, b in zip(hit[0], objects, strict=True)):
            return hit[1]
        if len(self._entries) >= self._limit:
            self._entries.clear()
        value = build()
        self._entries[key] = (tuple(objects), value)
        return value
