"""How long ``statebox verify`` takes on a large campaign (printed, not asserted).

Usage: python bench/verify.py [--suite all] [--trials 5] [--concurrency 8]

The default is the whole built-in suite (``all``; ``all@1.0`` is 573 tasks × 5 oracle
trials = 2,865 trials).
It runs the campaign (oracle: the figure is harness time, no model), then verifies it —
rebuilding every trial's world, replaying its recorded calls, re-judging, comparing —
and prints both wall times, the time per verified trial and the ratio verify / run
measured in the same process. Record ``uptime`` beside the figures: on a shared machine
they are noisy.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from pathlib import Path

from statebox.agents import OracleFactory
from statebox.records import read_manifest, read_results
from statebox.registry import default_registry
from statebox.runner import Campaign, run_campaign, verify_campaign


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="all")
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    registry = default_registry()
    ref = registry.resolve_suite(args.suite)
    tasks = registry.suite(ref)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "campaign"
        c = Campaign(
            tasks, [OracleFactory()], args.trials, out, concurrency=args.concurrency,
            task_source=f"suite:{ref}",
        )  # fmt: skip
        t0 = time.perf_counter()
        asyncio.run(run_campaign(c, registry))
        run_s = time.perf_counter() - t0
        records = read_results(out)
        t1 = time.perf_counter()
        found = asyncio.run(verify_campaign(read_manifest(out), records, registry))
        verify_s = time.perf_counter() - t1
    n = len(found.trials)
    print(f"campaign: {len(tasks)} tasks x {args.trials} oracle trials = {len(records)} trials")
    print(f"run (preflight + trials, concurrency {args.concurrency}): {run_s:.1f} s")
    print(
        f"verify: {verify_s:.1f} s for {n} trials ({verify_s / max(n, 1) * 1000:.2f} ms per "
        f"trial); {n - len(found.mismatches)} reproduced exactly, {len(found.mismatches)} differ"
    )
    print(f"verify / run: {verify_s / run_s:.2f}")
    for d in found.differences:
        print(f"differs: {d}")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
