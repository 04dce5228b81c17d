"""statebox performance figures (printed, not asserted).

Usage: python bench/run.py [--suite retail] [--trials 3] [--concurrency 1 50]

The whole built-in suite at the published scale: --suite all --trials 20 --concurrency 8

Prints, each beside a baseline measured in the same run:
- world clone *to first query* (median over 2,000 clones of one task's template: the
  deserialise plus SQLite's schema parse, which the first statement of every trial
  pays), beside what a peer pays to get its world: a tau2-style JSON database load
  (the same rows as a JSON file, parsed) and a fresh MCP stdio server start up to its
  first tool result (the official ``mcp`` SDK); a rebuild from schema + seed is given
  for information;
- median harness time per trial with the oracle, end to end: from the previous trial's
  record written to this one's (reset, every golden call, judge, record write), beside
  the record's own ``timings.total_s`` (which ends before the write). Trials run task
  by task, and a task's later trials reuse the world connection of its earlier ones,
  rolled back (`statebox.world.WorldPool`): the first trial of each task pays the
  clone, the schema parse and statement preparation, and every cost of the pool
  (rollback, closing evicted connections) is inside the window. How many trials
  cloned afresh is printed beside the figure;
- with ``--fresh-worlds``, that pool against a fresh clone every trial (the baseline),
  *interleaved* in one campaign at concurrency 1 so that neither arm runs on the
  warmer machine: each task's trials alternate pooled, fresh, pooled, fresh (odd
  tasks start with the fresh arm), so each arm runs the first, cold trial of half the
  tasks and neither arm runs after the other has warmed the per-task caches. A fresh
  trial clones its own world and closes it; a pooled trial takes the connection the
  task's previous pooled trial rolled back (the first of each task clones it). Each
  trial's time (record write included) and CPU are counted to its own arm;
- CPU time per trial and trials per second at concurrency 1 and 50 (oracle, so the
  figure is pure harness); trials per CPU-second is the rate one fully used core gives.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

from statebox.agents import OracleFactory
from statebox.records import TrialRecord, read_results
from statebox.registry import default_registry
from statebox.runner import Campaign, run_campaign
from statebox.tasks import WorldCache
from statebox.tasks import _worlds as worlds_module
from statebox.world import World, WorldPool, WorldTemplate

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from peers import json_db_load_s, mcp_server_start_s  # noqa: E402


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def first_query(world: World) -> None:
    """The first statement a trial runs: a keyed read of one row of the first table.

    SQLite parses the schema (tables, indexes, triggers) on a connection's first
    statement, so a clone is not ready until this has run.
    """
    name, info = sorted(world.tables.items())[0]
    cols = ", ".join(f'"{c}"' for c in info.primary_key)
    world.conn.execute(f'SELECT * FROM "{name}" ORDER BY {cols} LIMIT 1').fetchall()


def clone_to_first_query(template: WorldTemplate, now: datetime) -> float:
    """Seconds from a template to a clone that has answered its first query."""
    t0 = time.perf_counter()
    w = template.clone(now)
    first_query(w)
    dt = time.perf_counter() - t0
    w.close()
    return dt


class CloneFigures(NamedTuple):
    clone_ms: float  # median clone to first query of a cached template
    clone_only_ms: float  # median deserialise alone (no query: not usable yet)
    json_load_ms: float  # median tau2-style JSON database load of the same rows
    mcp_start_ms: float  # median fresh MCP stdio server start to first tool result
    rebuild_ms: float  # median rebuild from schema + seed (for information)
    size_kib: float
    json_kib: float
    domain: str


def bench_clone(
    suite: str, quiet: bool = False, clones: int = 2000, mcp_starts: int = 5
) -> CloneFigures:
    registry = default_registry()
    tasks = registry.suite(suite)
    task = tasks[0]
    domain = registry.domain(task.domain)
    template = WorldCache().template(domain, task)
    first = [clone_to_first_query(template, task.now) for _ in range(clones)]
    bare = []
    for _ in range(clones):
        t0 = time.perf_counter()
        w = template.clone(task.now)
        bare.append(time.perf_counter() - t0)
        w.close()
    rows = {name: list(table.values()) for name, table in template.state().rows.items() if table}
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "db.json"
        db.write_text(json.dumps(rows))
        json_kib = db.stat().st_size / 1024
        loads = json_db_load_s(db, max(20, clones // 20))
    starts = mcp_server_start_s(mcp_starts)
    seed = domain._seed() if callable(domain._seed) else domain._seed
    rebuilds = []
    for _ in range(20):
        t0 = time.perf_counter()
        WorldTemplate.build(domain.schema_sql, seed)
        rebuilds.append(time.perf_counter() - t0)
    f = CloneFigures(
        _median_ms(first),
        _median_ms(bare),
        _median_ms(loads),
        _median_ms(starts),
        _median_ms(rebuilds),
        len(template.data) / 1024,
        json_kib,
        domain.name,
    )
    if not quiet:
        print(
            f"world clone to first query ({domain.name}, {f.size_kib:.0f} KiB): median "
            f"{f.clone_ms:.3f} ms (deserialise alone {f.clone_only_ms:.3f} ms); "
            f"tau2-style JSON load of the same rows ({f.json_kib:.0f} KiB) {f.json_load_ms:.2f} ms "
            f"({f.json_load_ms / f.clone_ms:.1f}x the clone); fresh MCP stdio server start to "
            f"first tool result {f.mcp_start_ms:.0f} ms ({f.mcp_start_ms / f.clone_ms:.0f}x); "
            f"rebuild from schema+seed {f.rebuild_ms:.2f} ms"
        )
    return f


class TrialStamps:
    """A progress sink that stamps wall and CPU clocks when each record has been written.

    The runner calls ``trial_done`` after a trial's record is in results.jsonl, so the
    gap between two stamps at concurrency 1 is one whole trial, record write included.
    """

    def __init__(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []
        self.records: list[TrialRecord] = []
        self.worlds_at_start = (0, 0)

    def _stamp(self) -> None:
        self.wall.append(time.perf_counter())
        self.cpu.append(time.process_time())

    def start(self, total: int, already_done: int) -> None:
        self._stamp()
        self.worlds_at_start = _pool_counts()

    def trial_done(self, record: TrialRecord) -> None:
        self._stamp()
        self.records.append(record)

    def finish(self) -> None:
        """Nothing to do."""

    def gaps(self) -> list[float]:
        """Seconds between consecutive stamps (at concurrency 1: one trial each)."""
        return [b - a for a, b in zip(self.wall, self.wall[1:], strict=False)]


class CampaignFigures(NamedTuple):
    per_trial_ms: float  # median end to end, record write included (concurrency 1 only)
    record_total_ms: float  # median of the records' own timings.total_s (before the write)
    cpu_per_trial_ms: float  # this process's CPU time while trials ran, per trial
    wall_per_trial_ms: float  # the same window's wall time, per trial (mean, like the CPU)
    trials_per_s: float  # while trials run
    trials_per_s_all: float  # counting start-up (golden replay of every task)
    wall_s: float  # the whole campaign, start-up included
    trials: int
    fresh_worlds: int  # trials' world clones that found no pooled connection
    reused_worlds: int  # trials' world clones served by a rolled-back pooled connection


class _CountingPool(WorldPool):
    """A `WorldPool` that counts its misses (fresh clones) and hits (reused worlds)."""

    made: list[_CountingPool] = []

    def __init__(self, limit: int = 16) -> None:
        super().__init__(limit)
        self.fresh = self.reused = 0
        _CountingPool.made.append(self)

    def take(self, template: WorldTemplate) -> sqlite3.Connection | None:
        conn = super().take(template)
        if conn is None:
            self.fresh += 1
        else:
            self.reused += 1
        return conn


class _KeepsNothing(_CountingPool):
    """A counting pool that keeps no connection, whatever limit its owner asks for."""

    def __init__(self, limit: int = 16) -> None:
        super().__init__(0)


def _pool_counts() -> tuple[int, int]:
    """Fresh and reused world clones so far, over the pools the running campaign made."""
    made = _CountingPool.made
    return sum(p.fresh for p in made), sum(p.reused for p in made)


def bench_campaign(
    suite: str,
    trials: int,
    concurrency: int,
    limit: int | None = None,
    *,
    reuse_worlds: bool = True,
) -> CampaignFigures:
    """An oracle campaign over the suite (its first ``limit`` tasks when given).

    ``reuse_worlds=False``: the runner's world pool keeps nothing, so every trial
    clones a fresh world (the baseline for what the pool saves).
    """
    registry = default_registry()
    tasks = registry.suite(suite)[:limit]
    stamps = TrialStamps()
    _CountingPool.made.clear()
    pool = _CountingPool if reuse_worlds else _KeepsNothing
    with tempfile.TemporaryDirectory() as tmp, _pool_class(pool):
        out = Path(tmp) / "run"
        campaign = Campaign(
            tasks=tasks, agents=[OracleFactory()], trials=trials, out=out, concurrency=concurrency
        )
        t0 = time.perf_counter()
        result = asyncio.run(run_campaign(campaign, registry, progress=stamps))
        wall = time.perf_counter() - t0
        records = read_results(out)
        if not all(r.status == "passed" for r in records):
            raise SystemExit("the oracle failed a trial: run `statebox tasks validate`")
    trials_wall = stamps.wall[-1] - stamps.wall[0]
    cpu = stamps.cpu[-1] - stamps.cpu[0]
    per_trial = _median_ms(stamps.gaps()) if concurrency == 1 else float("nan")
    fresh, reused = (n - m for n, m in zip(_pool_counts(), stamps.worlds_at_start, strict=True))
    return CampaignFigures(
        per_trial,
        _median_ms([r.timings.total_s for r in records]),
        cpu * 1000 / result.ran,
        trials_wall * 1000 / result.ran,
        result.ran / trials_wall,
        result.ran / wall,
        wall,
        result.ran,
        fresh,
        reused,
    )


class ArmFigures(NamedTuple):
    per_trial_ms: float  # median end to end, record write included
    cpu_per_trial_ms: float  # mean CPU time of this arm's trials
    record_total_ms: float  # median of the records' own timings.total_s (before the write)
    trials: int
    fresh_worlds: int
    reused_worlds: int


class PoolComparison(NamedTuple):
    pooled: ArmFigures
    fresh: ArmFigures
    arms: tuple[str, ...]  # each trial's arm, in the order they ran


def interleaved_arm(index: int, trials: int) -> str:
    """The arm of the ``index``-th trial of the plan (``trials`` per task, task by task).

    A task's trials alternate arms; odd tasks start with the fresh arm, so each arm has
    the first (cold) trial of half the tasks.
    """
    task, trial = divmod(index, trials)
    return "pooled" if (task + trial) % 2 == 0 else "fresh"


class _InterleavedPool(_CountingPool):
    """A pool that serves the pooled arm's trials and keeps nothing for the fresh arm's.

    Which arm the running trial belongs to is ``arm`` (set by `_ArmStamps` as each
    record is written; the runner runs one trial at a time at concurrency 1).
    """

    def __init__(self, limit: int = 16) -> None:
        super().__init__(limit)
        self.arm = "pooled"
        self.counts = {"pooled": [0, 0], "fresh": [0, 0]}  # arm -> [fresh, reused]

    def take(self, template: WorldTemplate) -> sqlite3.Connection | None:
        conn = None if self.arm == "fresh" else WorldPool.take(self, template)
        self.counts[self.arm][conn is not None] += 1
        return conn

    def give(self, template: WorldTemplate, conn: sqlite3.Connection) -> None:
        if self.arm == "fresh":
            conn.close()  # a world of its own: closed, never kept
        else:
            super().give(template, conn)


class _ArmStamps(TrialStamps):
    """Stamps that also tell the campaign's pools which arm the next trial is in."""

    def __init__(self, trials: int) -> None:
        super().__init__()
        self.trials = trials

    def _set_arm(self) -> None:
        arm = interleaved_arm(len(self.records), self.trials)
        for pool in _CountingPool.made:
            if isinstance(pool, _InterleavedPool):
                pool.arm = arm

    def start(self, total: int, already_done: int) -> None:
        for pool in _CountingPool.made:  # the preflight's clones are no arm's
            if isinstance(pool, _InterleavedPool):
                pool.counts = {"pooled": [0, 0], "fresh": [0, 0]}
        self._set_arm()
        super().start(total, already_done)

    def trial_done(self, record: TrialRecord) -> None:
        super().trial_done(record)
        self._set_arm()


def bench_pool_against_fresh(suite: str, pairs: int, limit: int | None = None) -> PoolComparison:
    """Pooled worlds against a fresh clone every trial, interleaved in one campaign.

    Each task runs ``2 * pairs`` oracle trials at concurrency 1, alternating arms
    (`interleaved_arm`); each trial's time and CPU go to its own arm.
    """
    registry = default_registry()
    tasks = registry.suite(suite)[:limit]
    trials = 2 * pairs
    stamps = _ArmStamps(trials)
    _CountingPool.made.clear()
    with tempfile.TemporaryDirectory() as tmp, _pool_class(_InterleavedPool):
        out = Path(tmp) / "run"
        campaign = Campaign(
            tasks=tasks, agents=[OracleFactory()], trials=trials, out=out, concurrency=1
        )
        asyncio.run(run_campaign(campaign, registry, progress=stamps))
        records = read_results(out)
        if not all(r.status == "passed" for r in records):
            raise SystemExit("the oracle failed a trial: run `statebox tasks validate`")
    arms = tuple(interleaved_arm(i, trials) for i in range(len(stamps.records)))
    cpu = [b - a for a, b in zip(stamps.cpu, stamps.cpu[1:], strict=False)]
    counts = {"pooled": [0, 0], "fresh": [0, 0]}
    for pool in _CountingPool.made:
        if isinstance(pool, _InterleavedPool):
            for arm, (f, r) in pool.counts.items():
                counts[arm][0] += f
                counts[arm][1] += r

    def arm_figures(arm: str) -> ArmFigures:
        mine = [i for i, a in enumerate(arms) if a == arm]
        return ArmFigures(
            _median_ms([stamps.gaps()[i] for i in mine]),
            sum(cpu[i] for i in mine) * 1000 / len(mine),
            _median_ms([stamps.records[i].timings.total_s for i in mine]),
            len(mine),
            counts[arm][0],
            counts[arm][1],
        )

    return PoolComparison(arm_figures("pooled"), arm_figures("fresh"), arms)


@contextlib.contextmanager
def _pool_class(factory: Any) -> Iterator[None]:
    """The runner's world caches make their pools with ``factory`` meanwhile."""
    real = worlds_module.WorldPool
    worlds_module.WorldPool = factory
    try:
        yield
    finally:
        worlds_module.WorldPool = real


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="retail")
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument(
        "--concurrency", type=int, nargs="+", default=[1, 50], help="levels to measure"
    )
    parser.add_argument(
        "--fresh-worlds",
        action="store_true",
        help="also: the pool against a fresh world clone every trial, interleaved",
    )
    args = parser.parse_args()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    bench_clone(args.suite)
    if args.fresh_worlds:
        c = bench_pool_against_fresh(args.suite, max(1, args.trials // 2))
        p, f0 = c.pooled, c.fresh
        print(
            f"pooled against fresh worlds, {args.suite}, interleaved trial by trial in one "
            f"campaign at concurrency 1 (odd tasks start fresh): pooled {p.trials} trials "
            f"({p.fresh_worlds} fresh clones, {p.reused_worlds} reused) median "
            f"{p.per_trial_ms:.2f} ms, CPU {p.cpu_per_trial_ms:.2f} ms; fresh {f0.trials} trials "
            f"({f0.fresh_worlds} fresh clones) median {f0.per_trial_ms:.2f} ms, CPU "
            f"{f0.cpu_per_trial_ms:.2f} ms; the pool {f0.per_trial_ms / p.per_trial_ms:.2f}x "
            f"faster (CPU {f0.cpu_per_trial_ms / p.cpu_per_trial_ms:.2f}x)"
        )
    for concurrency in args.concurrency:
        f = bench_campaign(args.suite, args.trials, concurrency)
        whole = (
            f"median trial end to end {f.per_trial_ms:.2f} ms (the record's own "
            f"timings {f.record_total_ms:.2f} ms, before the write); "
            if concurrency == 1
            else ""
        )
        print(
            f"oracle campaign, {args.suite}, {f.trials} trials, concurrency {concurrency} "
            f"({f.fresh_worlds} fresh world clones, {f.reused_worlds} reused): "
            f"wall {f.wall_s:.1f} s; {whole}CPU {f.cpu_per_trial_ms:.2f} ms per trial "
            f"({1000 / f.cpu_per_trial_ms:.0f} trials per CPU-second); "
            f"{f.trials_per_s:.0f} trials/s while trials run, "
            f"{f.trials_per_s_all:.0f} trials/s counting start-up (golden replay of every task)"
        )


if __name__ == "__main__":
    # The MCP peer is a stdio server: a child process, no sockets; kept inside anyway.
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from scripts.loopback import ensure

    ensure(__file__)
    main()
