"""statebox performance figures (printed, not asserted).

Usage: python bench/run.py [--suite retail] [--trials 3] [--concurrency 1 50]

The whole built-in suite at the published scale: --suite all --trials 20 --concurrency 8

Prints:
- world clone time (median over 2,000 clones of one task's template; target <= 1 ms),
  beside a rebuild from schema + seed as the baseline it replaces (ratio);
- median harness time per trial with the oracle (reset, every golden call, judge,
  record write; target <= 5 ms);
- trials per second at concurrency 1 and 50 (oracle, so the figure is pure harness).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

from statebox.agents import OracleFactory
from statebox.records import read_results
from statebox.registry import default_registry
from statebox.runner import Campaign, run_campaign
from statebox.tasks import WorldCache
from statebox.world import WorldTemplate


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


class CloneFigures(NamedTuple):
    clone_ms: float  # median clone of a cached template
    rebuild_ms: float  # median rebuild from schema + seed (the baseline)
    size_kib: float
    domain: str


def bench_clone(suite: str, quiet: bool = False) -> CloneFigures:
    registry = default_registry()
    tasks = registry.suite(suite)
    task = tasks[0]
    domain = registry.domain(task.domain)
    template = WorldCache().template(domain, task)
    clones = []
    for _ in range(2000):
        t0 = time.perf_counter()
        w = template.clone(task.now)
        clones.append(time.perf_counter() - t0)
        w.close()
    seed = domain._seed() if callable(domain._seed) else domain._seed
    rebuilds = []
    for _ in range(20):
        t0 = time.perf_counter()
        WorldTemplate.build(domain.schema_sql, seed)
        rebuilds.append(time.perf_counter() - t0)
    c, r = _median_ms(clones), _median_ms(rebuilds)
    size_kib = len(template.data) / 1024
    if not quiet:
        print(
            f"world clone ({domain.name}, {size_kib:.0f} KiB): median {c:.3f} ms "
            f"(target <= 1 ms); rebuild from schema+seed {r:.2f} ms; clone is {r / c:.0f}x faster"
        )
    return CloneFigures(c, r, size_kib, domain.name)


class CampaignFigures(NamedTuple):
    per_trial_ms: float  # median harness time per trial (reset, agent loop, judge)
    trials_per_s: float  # while trials run
    trials_per_s_all: float  # counting start-up (golden replay of every task)
    wall_s: float  # the whole campaign, start-up included
    trials: int


def bench_campaign(suite: str, trials: int, concurrency: int) -> CampaignFigures:
    registry = default_registry()
    tasks = registry.suite(suite)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run"
        campaign = Campaign(
            tasks=tasks, agents=[OracleFactory()], trials=trials, out=out, concurrency=concurrency
        )
        t0 = time.perf_counter()
        result = asyncio.run(run_campaign(campaign, registry))
        wall = time.perf_counter() - t0
        records = read_results(out)
        if not all(r.status == "passed" for r in records):
            raise SystemExit("the oracle failed a trial: run `statebox tasks validate`")
        per_trial = _median_ms([r.timings.total_s for r in records])
        first = min(r.started_at for r in records)
        last = max(r.started_at.timestamp() + r.timings.total_s for r in records)
        trials_wall = last - first.timestamp()
    return CampaignFigures(per_trial, result.ran / trials_wall, result.ran / wall, wall, result.ran)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="retail")
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument(
        "--concurrency", type=int, nargs="+", default=[1, 50], help="levels to measure"
    )
    args = parser.parse_args()
    bench_clone(args.suite)
    for concurrency in args.concurrency:
        f = bench_campaign(args.suite, args.trials, concurrency)
        print(
            f"oracle campaign, {args.suite}, {f.trials} trials, concurrency {concurrency}: "
            f"wall {f.wall_s:.1f} s; median harness time per trial {f.per_trial_ms:.2f} ms "
            f"(target <= 5 ms); {f.trials_per_s:.0f} trials/s while trials run, "
            f"{f.trials_per_s_all:.0f} trials/s counting start-up (golden replay of every task)"
        )


if __name__ == "__main__":
    main()
