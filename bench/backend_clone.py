"""Per-trial database clone of the backends, SQLite file and PostgreSQL template (printed).

Usage: python bench/backend_clone.py [--trials 40] [--pool 2] [--work-s 0.05]
    [--slots 0] [--think-s 1.0] [--postgres-url URL]

For each kind, on the shop example's refund task (examples/mcp_postgres):

- **on demand**: ``--trials`` clones one after another, each timed from the request to
  a database the server could open (SQLite: a file copy; PostgreSQL: ``CREATE DATABASE
  … TEMPLATE``), then dropped;
- **warm pool**: the same trials taking a pre-cloned database from a `ReadyPool` of
  ``--pool`` per task (as the backend's own pool does, without the server), each trial
  holding it ``--work-s`` seconds (the refill runs meanwhile), then dropping it.

Prints median, mean, 90th percentile and worst latency per kind and mode, the ratio
of each median to its target (SQLite < 5 ms, PostgreSQL < 100 ms: a ratio under 1
meets it) and of the pool's median to on-demand's, all measured in this one run, with
the machine's load. With ``--slots N``, also N whole trial starts (clone + MCP server
started on it) with the backend's warm pool of 2 and with none, each trial "thinking"
``--think-s`` seconds. A throwaway PostgreSQL is started unless ``--postgres-url``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from pathlib import Path
from typing import Any

from statebox.backends import Clone, Databases, Template, load_backend, open_backend
from statebox.tasks import Task, load_tasks
from statebox.thinkingbox import ReadyPool

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "mcp_postgres"
FILES = {"sqlite": EXAMPLE / "backend.sqlite.yaml", "postgres": EXAMPLE / "backend.yaml"}
TARGET_MS = {"sqlite": 5.0, "postgres": 100.0}


class ClonePool(ReadyPool[Clone]):
    """Pre-cloned databases of one template (what the backend's pool keeps, minus the server)."""

    def __init__(self, databases: Databases, template: Template, size: int) -> None:
        super().__init__(size)
        self._databases = databases
        self._template = template

    async def _start(self, name: str) -> Clone:
        return await self._databases.clone(self._template)


def stats(label: str, values_s: list[float], target_ms: float | None) -> float:
    ms = sorted(v * 1000 for v in values_s)
    median = statistics.median(ms)
    p90 = ms[min(len(ms) - 1, int(0.9 * len(ms)))]
    target = f"; median/target {median / target_ms:.3f}" if target_ms else ""
    print(
        f"  {label:<22} median {median:8.2f} ms  mean {statistics.mean(ms):8.2f} ms  "
        f"p90 {p90:8.2f} ms  worst {ms[-1]:8.2f} ms{target}"
    )
    return median


async def on_demand(databases: Databases, template: Template, trials: int) -> list[float]:
    out = []
    for _ in range(trials):
        t0 = time.perf_counter()
        clone = await databases.clone(template)
        out.append(time.perf_counter() - t0)
        await clone.aclose()
    return out


async def pooled(
    databases: Databases, template: Template, trials: int, size: int, work_s: float
) -> list[float]:
    pool = ClonePool(databases, template, size)
    out = []
    try:
        await pool.warm(["task"], wait=True)
        for _ in range(trials):
            t0 = time.perf_counter()
            clone = await pool.acquire("task")
            out.append(time.perf_counter() - t0)
            await asyncio.sleep(work_s)
            await clone.aclose()
    finally:
        await pool.aclose()
    return out


async def slots(
    config: Any, task: Task, url: str | None, n: int, warm: int, think_s: float
) -> list[float]:
    backend = open_backend(config, postgres_url=url, warm=warm)
    out = []
    try:
        await backend.prepare(task)
        for _ in range(n):
            t0 = time.perf_counter()
            session = await backend.open(task)
            out.append(time.perf_counter() - t0)
            await asyncio.sleep(think_s)
            await session.aclose()
    finally:
        await backend.aclose()
    return out


async def bench_kind(kind: str, args: argparse.Namespace, url: str | None) -> dict[str, float]:
    config = load_backend(FILES[kind])
    task = next(t for t in load_tasks(EXAMPLE / "tasks") if t.id == "shop.refund.damaged.001")
    backend = open_backend(config, postgres_url=url, warm=0)
    medians: dict[str, float] = {}
    try:
        template = await backend.databases.template(task.initial_state)
        await on_demand(backend.databases, template, 3)  # warm the page cache, connections
        print(f"{kind}:")
        demand = await on_demand(backend.databases, template, args.trials)
        medians["demand"] = stats("clone on demand", demand, TARGET_MS[kind])
        pool = await pooled(backend.databases, template, args.trials, args.pool, args.work_s)
        medians["pool"] = stats(f"warm pool of {args.pool}", pool, TARGET_MS[kind])
        print(f"  warm pool median / on-demand median: {medians['pool'] / medians['demand']:.4f}")
    finally:
        await backend.aclose()
    if args.slots:
        for warm in (0, 2):
            values = await slots(config, task, url, args.slots, warm, args.think_s)
            medians[f"slot{warm}"] = stats(f"trial start, pool {warm}", values, None)
        print(f"  trial start with pool 2 / without: {medians['slot2'] / medians['slot0']:.4f}")
    return medians


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=40)
    parser.add_argument("--pool", type=int, default=2)
    parser.add_argument("--work-s", type=float, default=0.05)
    parser.add_argument("--slots", type=int, default=0)
    parser.add_argument("--think-s", type=float, default=1.0)
    parser.add_argument("--postgres-url", default=None)
    args = parser.parse_args()
    print(
        f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} on {os.cpu_count()} CPUs"
    )
    server = None
    url = args.postgres_url
    if url is None:
        from statebox.backends import PostgresServer

        server = PostgresServer.start()
        url = server.url
    try:
        for kind in ("sqlite", "postgres"):
            await bench_kind(kind, args, url)
    finally:
        if server is not None:
            server.stop()
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} after the run")


if __name__ == "__main__":
    asyncio.run(main())
