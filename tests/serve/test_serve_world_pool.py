"""A server's catalog keeps a whole trainer batch's worlds for the next batch."""

from __future__ import annotations

import asyncio

import pytest
from serving import catalog, serve_tasks

import statebox.world._world as world_module
from fixtures.toy import make_domain
from statebox.serve import TaskCatalog
from statebox.serve._sessions import SERVE_WORLD_POOL


def _fresh_clones(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the worlds deserialised afresh (not taken from the pool) from now on."""
    made: list[int] = []
    connect = world_module._connect

    def counting(data: bytes | None = None) -> object:
        made.append(1)
        return connect(data)

    monkeypatch.setattr(world_module, "_connect", counting)
    return made


async def _batch(cat: object, n: int) -> None:
    """``n`` episodes live at once, as a GRPO batch opens them, then all closed."""
    task = cat.task("toy.transfer.train.001")  # type: ignore[attr-defined]
    episodes = [cat.episode(task) for _ in range(n)]  # type: ignore[attr-defined]
    await asyncio.gather(*(e.reset() for e in episodes))
    for e in episodes:
        e.close()


def test_the_next_batch_of_256_episodes_clones_no_world_afresh(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cat = catalog()
    asyncio.run(_batch(cat, SERVE_WORLD_POOL))
    made = _fresh_clones(monkeypatch)
    asyncio.run(_batch(cat, SERVE_WORLD_POOL))
    # Before the server kept 256, it kept 16: 240 of the second batch were fresh.
    assert len(made) == 0
    asyncio.run(_batch(cat, SERVE_WORLD_POOL + 10))
    assert len(made) == 10


def test_a_smaller_pool_keeps_only_its_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    cat = TaskCatalog(serve_tasks(), {"toy": make_domain()}, world_pool=16)
    asyncio.run(_batch(cat, 40))
    made = _fresh_clones(monkeypatch)
    asyncio.run(_batch(cat, 40))
    assert len(made) == 24
