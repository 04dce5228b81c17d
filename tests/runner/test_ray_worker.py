"""The endpoint-limit actor's logic, run as a plain object (no Ray needed)."""

from __future__ import annotations

import asyncio

from statebox.runner._ray_worker import EndpointLimits


def test_slots_are_capped_released_and_counted() -> None:
    async def go() -> tuple[list[int], dict[str, dict[str, int]]]:
        limits = EndpointLimits()
        a = await limits.acquire("k", 2, "w0")
        b = await limits.acquire("k", 2, "w1")
        third = asyncio.ensure_future(limits.acquire("k", 2, "w1"))
        await asyncio.sleep(0.01)
        blocked = not third.done()
        await limits.release(a)
        c = await asyncio.wait_for(third, 1)
        await limits.release(a)  # twice: ignored, the limit is not widened
        await limits.release(b)
        await limits.release(c)
        return [int(blocked), a, b, c], await limits.stats()

    flags, stats = asyncio.run(go())
    assert flags == [1, 1, 2, 3]
    assert stats == {"k": {"limit": 2, "in_use": 0, "peak": 2}}


def test_a_dead_incarnations_queued_acquire_gives_its_slot_back() -> None:
    # A worker killed while its acquire waited on the actor: once the slot came free,
    # the dead request used to take it for good and the campaign hung.
    async def go() -> tuple[bool, dict[str, dict[str, int]]]:
        limits = EndpointLimits()
        lease = await limits.acquire("k", 1, "w0#a")
        queued = asyncio.ensure_future(limits.acquire("k", 1, "w0#a"))  # w0#a dies here
        await asyncio.sleep(0.01)
        assert await limits.drop_holder("w0", keep="w0#b") == 1  # the restart, w0#b
        live = await asyncio.wait_for(limits.acquire("k", 1, "w0#b"), 1)
        await asyncio.sleep(0.01)
        refused = queued.done() and isinstance(queued.exception(), RuntimeError)
        await limits.release(live)
        await limits.release(lease)  # already dropped: ignored
        return refused, await limits.stats()

    refused, stats = asyncio.run(go())
    assert refused
    assert stats == {"k": {"limit": 1, "in_use": 0, "peak": 1}}


def test_a_dead_workers_leases_are_dropped() -> None:
    async def go() -> tuple[int, bool, dict[str, dict[str, int]]]:
        limits = EndpointLimits()
        await limits.acquire("k", 2, "w0")
        await limits.acquire("k", 2, "w0")  # w0 dies holding both slots
        waiting = asyncio.ensure_future(limits.acquire("k", 2, "w1"))
        await asyncio.sleep(0.01)
        stuck = not waiting.done()
        dropped = await limits.drop_holder("w0")  # its restart frees them
        await asyncio.wait_for(waiting, 1)
        return dropped, stuck, await limits.stats()

    dropped, stuck, stats = asyncio.run(go())
    assert (dropped, stuck) == (2, True)
    assert stats == {"k": {"limit": 2, "in_use": 1, "peak": 2}}
