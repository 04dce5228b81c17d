"""Fork servers: fresh, never-initialised Tiny Shop children from one pre-imported parent."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import pytest

from fixtures.tb_support import gone, tiny_shop
from statebox.errors import BackendError
from statebox.thinkingbox import ForkServer, SearchService, WarmPool
from statebox.thinkingbox._forkserver import launch_command, wrappable

SOURCES = [
    {"name": "faq.md", "snippets": ["Refunds take 5 days."]},
    {"name": "shipping.md", "snippets": ["Express shipping costs 9 euros."]},
]


def test_forked_children_are_fresh_and_the_fresh_process_rule_holds(tmp_path: Path) -> None:
    async def main() -> None:
        notices: list[str] = []
        pool = WarmPool(
            {"tiny_shop": tiny_shop()},
            0,
            fork_server=True,
            log_dir=tmp_path,
            on_notice=notices.append,
        )
        try:
            a = await pool.acquire("tiny_shop")
            b = await pool.acquire("tiny_shop")
            forks = pool.forks["tiny_shop"]
            assert forks is not None and forks.spawned == 2 and not notices
            assert a.forked and b.forked and a.pid != b.pid
            # Each child is its own process group (killable with what it starts),
            # a child of the fork server, not of statebox.
            assert os.getpgid(a.pid) == a.pid  # type: ignore[arg-type]
            assert a.pid not in (os.getpid(), forks.pid)
            # Never initialised: the first init is the child's first (inits == 1), and a
            # second one on the same child is refused before it reaches the server.
            assert await a.reserved_init({}) == {"status": "ok", "pid": a.pid, "inits": 1}
            assert await b.reserved_init({}) == {"status": "ok", "pid": b.pid, "inits": 1}
            with pytest.raises(BackendError, match="fresh process per trial"):
                await a.reserved_init({})
            # The children do not share state: a write in one is not seen by the other.
            await a.call_tool("cancel_order", {"order_id": "O1", "reason": "x"})
            assert (await b.call_tool("get_order", {"order_id": "O1"})).payload["status"] == "open"
            # A child that dies is noticed like a spawned process that dies.
            os.killpg(b.pid, signal.SIGKILL)  # type: ignore[arg-type]
            with pytest.raises(BackendError):
                for _ in range(50):
                    await b.call_tool("get_order", {"order_id": "O1"})
                    await asyncio.sleep(0.05)
            # A fork server that dies is replaced: the next start forks from a new one.
            os.kill(forks.pid, signal.SIGKILL)
            for _ in range(100):
                if not forks.alive:
                    break
                await asyncio.sleep(0.02)
            c = await pool.acquire("tiny_shop")
            assert c.forked and pool.forks["tiny_shop"] is not forks
            await c.aclose()
            pid = a.pid
            await a.aclose()
            await b.aclose()
            for _ in range(100):
                if gone(pid):
                    break
                await asyncio.sleep(0.02)
            assert gone(pid)
            # The child's stderr went to its own log.
            assert any(
                "Processing request" in p.read_text() for p in tmp_path.glob("tiny_shop-*.log")
            )
        finally:
            await pool.aclose()
        assert all(f is not None and not f.alive for f in pool.forks.values())

    asyncio.run(main())


def test_fallbacks_to_plain_processes_say_why() -> None:
    async def main() -> None:
        notices: list[str] = []
        threaded = WarmPool(
            {"tiny_shop": tiny_shop(TINY_SHOP_START_THREAD="1")},
            0,
            fork_server=True,
            on_notice=notices.append,
        )
        try:
            p = await threaded.acquire("tiny_shop")
            assert not p.forked and threaded.forks == {"tiny_shop": None}
            assert await p.reserved_init({}) == {"status": "ok", "pid": p.pid, "inits": 1}
            await p.aclose()
        finally:
            await threaded.aclose()
        [notice] = notices
        assert "runs as plain processes" in notice and "left threads running" in notice
        assert "tiny-shop-bg" in notice

        odd = tiny_shop().model_copy(update={"python": None})
        assert not wrappable(odd) and launch_command(odd) == odd.command
        with pytest.raises(BackendError, match="cannot be forked"):
            await ForkServer.start(odd)
        broken = tiny_shop().model_copy(update={"command": (sys.executable, "no_such_server.py")})
        with pytest.raises(BackendError, match="importing the server failed"):
            await ForkServer.start(broken)

    asyncio.run(main())


def test_forked_and_plain_servers_reach_the_search_service_at_the_default_address() -> None:
    """The fixture's client is hard-wired to 127.0.0.1:8108; the launcher points it at ours."""

    async def main() -> None:
        with SearchService() as service:
            for fork in (True, False):
                pool = WarmPool(
                    {"tiny_shop": tiny_shop()},
                    0,
                    fork_server=fork,
                    extra_env=service.target.env(),
                )
                try:
                    p = await pool.acquire("tiny_shop")
                    assert p.forked is fork
                    await p.reserved_init({"sources": SOURCES})
                    out = await p.call_tool(
                        "search_policy", {"query": "how much is express shipping"}
                    )
                    assert not out.is_error
                    assert [s["source"] for s in out.payload["snippets"]] == [
                        "shipping.md",
                        "faq.md",
                    ]
                    assert out.payload["snippets"][0]["text"] == "Express shipping costs 9 euros."
                    await p.teardown()  # deletes its collection
                    await p.aclose()
                finally:
                    await pool.aclose()

    asyncio.run(main())
