"""`WarmPool` with real Tiny Shop processes: each handed out once, warm starts, refills."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from fixtures.tb_support import FIXTURE, gone
from statebox.errors import BackendError, ConfigError
from statebox.thinkingbox._pool import WarmPool
from statebox.thinkingbox._process import McpProcess
from statebox.thinkingbox._servers import load_servers


def test_each_process_is_handed_out_once(tmp_path: Path) -> None:
    async def main() -> None:
        servers = load_servers(FIXTURE / "servers.yaml", python=sys.executable)
        pool = WarmPool(servers, 1, log_dir=tmp_path / "logs")
        handed: list[McpProcess] = []
        try:
            await pool.warm(wait=True)
            assert (pool.started, pool.ready_count("tiny_shop")) == (1, 1)

            # Warm: taking the ready process costs no start; its refill starts at once.
            t0 = time.monotonic()
            handed.append(await pool.acquire("tiny_shop"))
            assert time.monotonic() - t0 < 0.2
            assert pool.started == 2
            # Empty pool with a refill under way: wait for it rather than start another.
            handed.append(await pool.acquire("tiny_shop"))
            assert pool.started == 3  # the second refill, not a start of the caller's own

            # A process that died while ready is skipped, never handed out.
            await pool.warm(wait=True)
            victim = pool._slots["tiny_shop"].ready[0]
            assert victim.pid is not None
            os.kill(victim.pid, signal.SIGKILL)
            for _ in range(200):
                if not victim.alive:
                    break
                await asyncio.sleep(0.01)
            handed.append(await pool.acquire("tiny_shop"))

            pids = [p.pid for p in handed]
            assert len(set(pids)) == 3 and None not in pids and victim.pid not in pids
            inits = await asyncio.gather(*(p.reserved_init({}) for p in handed))
            assert [i["inits"] for i in inits] == [1, 1, 1]
            assert [i["pid"] for i in inits] == pids
            assert pool.acquired == 3
        finally:
            await pool.aclose()
            await asyncio.gather(*(p.aclose() for p in handed))
        assert all(gone(pid) for pid in [*pids, victim.pid])
        assert (tmp_path / "logs" / "tiny_shop-1.log").is_file()
        with pytest.raises(BackendError, match="pool is closed"):
            await pool.acquire("tiny_shop")

    asyncio.run(main())


def test_size_zero_starts_on_demand() -> None:
    async def main() -> None:
        pool = WarmPool(load_servers(FIXTURE / "servers.yaml", python=sys.executable), 0)
        try:
            p = await pool.acquire("tiny_shop")
            assert (pool.started, pool.acquired, pool.ready_count("tiny_shop")) == (1, 1, 0)
            assert pool.waited_s > 0.2  # the start was on the caller's clock
            assert (await p.reserved_init({}))["inits"] == 1
            await p.aclose()
            with pytest.raises(ConfigError, match="no MCP server 'not_a_process' in the pool"):
                await pool.acquire("not_a_process")
        finally:
            await pool.aclose()

    asyncio.run(main())


def test_negative_size() -> None:
    with pytest.raises(ValueError, match="0 or more"):
        WarmPool({}, -1)
