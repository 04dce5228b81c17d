"""The generic warm pool (`ReadyPool`) the backends keep trial slots in.

Fake items stand for a pre-cloned database with its server started: each is handed
out once, refills start in the background, and only the most recently acquired names
keep ready items (`max_names`), so a long campaign does not keep a slot per task.
"""

from __future__ import annotations

import asyncio
import itertools

from statebox.thinkingbox import ReadyPool


class Item:
    def __init__(self, name: str, n: int) -> None:
        self.name, self.n = name, n
        self.closed = False

    @property
    def alive(self) -> bool:
        return not self.closed

    def close(self) -> None:
        self.closed = True

    async def aclose(self) -> None:
        self.closed = True


class Pool(ReadyPool[Item]):
    def __init__(self, size: int, max_names: int | None) -> None:
        super().__init__(size, max_names=max_names)
        self.made: list[Item] = []
        self._seq = itertools.count(1)

    async def _start(self, name: str) -> Item:
        await asyncio.sleep(0.01)
        item = Item(name, next(self._seq))
        self.made.append(item)
        return item


def test_items_are_handed_out_once_and_old_names_give_theirs_back() -> None:
    async def go() -> None:
        pool = Pool(2, max_names=1)
        a1 = await pool.acquire("a")
        await asyncio.sleep(0.05)  # the refill of "a" runs meanwhile
        assert pool.ready_count("a") == 2
        a2 = await pool.acquire("a")
        assert a2 is not a1 and a2.n > a1.n and not a2.closed
        b1 = await pool.acquire("b")  # "a" is now the older name: its ready items stop
        assert pool.ready_count("a") == 0
        assert all(i.closed for i in pool.made if i.name == "a" and i not in (a1, a2))
        assert not a1.closed and not a2.closed  # handed out: the caller's to close
        await asyncio.sleep(0.05)
        assert pool.ready_count("b") == 2 and b1.name == "b"
        handed = {id(x) for x in (a1, a2, b1)}
        assert len(handed) == 3
        await pool.aclose()
        assert all(i.closed for i in pool.made if id(i) not in handed)

    asyncio.run(go())
