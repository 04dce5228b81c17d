"""Every statebox performance figure in one table (printed, not asserted).

Usage: python bench/suite.py [--quick] [--no-ray] [--latency-s 0.05] [--json FILE]

Rows (each with the baseline it is compared with, where one exists):

- harness time per trial with the oracle (`bench/run.py`; baseline: the 5 ms target);
- world clone time (`bench/run.py`; baseline: a rebuild from schema + seed);
- trials per second with the simulated-latency agent (``sleepy:latency_s=L``: an oracle
  that waits L seconds before each action, standing for a model call) at 1, 100 and
  1,000 trials in flight, on the local executor and on Ray (a local Ray started here,
  one trial worker per CPU); baseline: the ideal rate, concurrency ÷ the trial's pure
  model time (actions × L), i.e. zero harness cost and perfect overlap. Rates count
  the time trials ran (first start to last end), not start-up (golden replay, Ray
  workers), which is given beside;
- peak memory per live episode: a fresh process runs 1,000 sleepy trials all in flight
  at once (1 s per call); (peak RSS − RSS before) ÷ 1,000;
- harness share of trial time with a 2 s model call: sleepy trials at ``latency_s=2``;
  1 − model time ÷ trial time;
- report time for 200,000 records (`bench/report.py`; baseline: the 10 s target);
- MCP gateway throughput (`bench/gateway.py`, concurrency 50; baseline: one backend
  process start per episode, ~1.3 s, as ThinkingBox resets).

``--quick`` shrinks every sample (20,000 report records, fewer trials) to finish in a
few minutes; the full run takes longer mostly for the report's 200,000 records.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, NamedTuple

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from run import bench_campaign, bench_clone  # noqa: E402

from statebox.records import read_results  # noqa: E402
from statebox.registry import default_registry  # noqa: E402
from statebox.runner import Campaign, RayExecutor, RegistrySetup, run_campaign  # noqa: E402

SUITE = "retail"


class Row(NamedTuple):
    figure: str
    value: str
    baseline: str
    ratio: str


def _ratio(x: float, base: float, better: str = "higher") -> str:
    """How many times better than the baseline (above 1: better)."""
    if base <= 0 or x <= 0:
        return "-"
    return f"{x / base:.2f}x" if better == "higher" else f"{base / x:.2f}x"


class SleepyFigures(NamedTuple):
    trials: int
    trials_per_s: float  # while trials ran
    wall_s: float  # whole campaign, start-up included
    ideal_per_s: float  # concurrency / model time per trial
    harness_share: float  # median 1 - model time / trial time


def sleepy_campaign(
    concurrency: int, trials_total: int, latency_s: float, executor: Any = None
) -> SleepyFigures:
    """Run ``trials_total`` sleepy trials of the retail suite at ``concurrency``."""
    registry = default_registry()
    tasks = registry.suite(SUITE)
    per_task = max(1, math.ceil(trials_total / len(tasks)))
    if per_task == 1:
        tasks = tasks[:trials_total]
    spec = f"sleepy:latency_s={latency_s}"
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run"
        c = Campaign(
            tasks=tasks,
            agents=[registry.agent(spec)],
            agent_specs=(spec,),
            trials=per_task,
            out=out,
            concurrency=concurrency,
            trial_timeout_s=3600,
        )
        t0 = time.perf_counter()
        result = asyncio.run(run_campaign(c, registry, executor=executor))
        wall = time.perf_counter() - t0
        records = read_results(out)
    if result.system_errors or not all(r.status == "passed" for r in records):
        raise SystemExit(f"sleepy campaign at {concurrency}: not every trial passed")
    first = min(r.started_at.timestamp() for r in records)
    last = max(r.started_at.timestamp() + r.timings.total_s for r in records)
    model_s = [len(r.model_calls) * latency_s for r in records]
    ideal = concurrency / statistics.mean(model_s)
    shares = [1 - m / r.timings.total_s for m, r in zip(model_s, records, strict=True)]
    return SleepyFigures(
        len(records), len(records) / (last - first), wall, ideal, statistics.median(shares)
    )


def memory_per_episode(live: int, latency_s: float) -> dict[str, float]:
    """In this (fresh) process: RSS growth per trial with ``live`` trials in flight."""
    registry = default_registry()
    tasks = registry.suite(SUITE)
    spec = f"sleepy:latency_s={latency_s}"
    with tempfile.TemporaryDirectory() as tmp:
        # Warm up: imports, templates and golden caches, so only live episodes remain.
        warm = Campaign(
            tasks=tasks,
            agents=[registry.agent(spec)],
            agent_specs=(spec,),
            trials=1,
            out=Path(tmp) / "warm",
            concurrency=len(tasks),
        )
        asyncio.run(run_campaign(warm, registry))
        gc.collect()
        before = _rss_mib()
        per_task = math.ceil(live / len(tasks))
        c = warm._replace(trials=per_task, out=Path(tmp) / "run", concurrency=live)
        peak = [before]

        async def go() -> None:
            run = asyncio.create_task(run_campaign(c, registry))
            while not run.done():  # RSS sampled while every trial is live
                peak[0] = max(peak[0], _rss_mib())
                await asyncio.sleep(0.02)
            await run

        asyncio.run(go())
    return {
        "live": live,
        "rss_before_mib": before,
        "peak_mib": peak[0],
        "per_episode_kib": (peak[0] - before) * 1024 / live,
    }


def _rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def report_figures(records: int) -> dict[str, float]:
    import report as report_bench

    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp) / "bench-campaign"
        report_bench.generate(directory, records)
        out = subprocess.run(
            [sys.executable, str(BENCH / "report.py"), "--measure", str(directory)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    r: dict[str, float] = json.loads(out)
    return r


def gateway_figures(episodes: int) -> dict[str, float]:
    cmd = [sys.executable, str(BENCH / "gateway.py"), "--levels", "50"]
    out = subprocess.run(
        [*cmd, "--episodes-per-level", str(episodes)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    row: dict[str, float] = json.loads(out.strip().splitlines()[-1])[0]
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller samples, minutes")
    parser.add_argument("--no-ray", action="store_true", help="skip the Ray rows")
    parser.add_argument("--latency-s", type=float, default=0.05, help="sleepy call time")
    parser.add_argument("--levels", default="1,100,1000", help="concurrency levels")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--memory", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory:
        print(json.dumps(memory_per_episode(args.memory, 1.0)))
        return
    q = args.quick
    rows: list[Row] = []
    figures: dict[str, Any] = {"quick": q, "latency_s": args.latency_s, "cpus": os.cpu_count()}

    def add(row: Row) -> None:
        rows.append(row)
        print(" | ".join(row), file=sys.stderr, flush=True)

    oracle = bench_campaign(SUITE, 2 if q else 5, 1)
    figures["oracle"] = oracle._asdict()
    add(
        Row(
            f"harness time per trial, oracle ({SUITE})",
            f"{oracle.per_trial_ms:.2f} ms",
            "5 ms (target)",
            _ratio(oracle.per_trial_ms, 5.0, "lower"),
        )
    )
    clone = bench_clone(SUITE, quiet=True)
    figures["clone"] = clone._asdict()
    add(
        Row(
            f"world clone ({clone.domain}, {clone.size_kib:.0f} KiB)",
            f"{clone.clone_ms:.3f} ms",
            f"{clone.rebuild_ms:.2f} ms (rebuild from schema+seed)",
            _ratio(clone.clone_ms, clone.rebuild_ms, "lower"),
        )
    )
    levels = [int(x) for x in args.levels.split(",")]
    executors: list[tuple[str, Any]] = [("local", None)]
    if not args.no_ray:
        import ray

        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        ray.init(include_dashboard=False, logging_level="warning", log_to_driver=False)
        executors.append(("ray", RayExecutor(RegistrySetup())))
    figures["sleepy"] = {}
    for name, executor in executors:
        for n in levels:
            total = max(10 if q else 20, n * (2 if q else 3))
            f = sleepy_campaign(n, total, args.latency_s, executor)
            figures["sleepy"][f"{name}@{n}"] = f._asdict()
            add(
                Row(
                    f"trials/s, sleepy {args.latency_s} s/call, {name}, {n} in flight "
                    f"({f.trials} trials; wall {f.wall_s:.1f} s)",
                    f"{f.trials_per_s:.1f}",
                    f"{f.ideal_per_s:.1f} (ideal: zero harness, full overlap)",
                    _ratio(f.trials_per_s, f.ideal_per_s),
                )
            )
    if not args.no_ray:
        ray.shutdown()
    live = 200 if q else 1000
    mem = json.loads(
        subprocess.run(
            [sys.executable, __file__, "--memory", str(live)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    figures["memory"] = mem
    add(
        Row(
            f"peak memory per live episode ({live} sleepy trials in flight, {SUITE})",
            f"{mem['per_episode_kib']:.0f} KiB",
            f"{mem['rss_before_mib']:.0f} MiB process before",
            "-",
        )
    )
    slow = sleepy_campaign(3 if q else 6, 3 if q else 12, 2.0)
    figures["two_second_calls"] = slow._asdict()
    add(
        Row(
            f"harness share of trial time, 2 s per model call ({slow.trials} trials)",
            f"{slow.harness_share * 100:.3f} %",
            "0 % (all model time)",
            "-",
        )
    )
    n_records = 20_000 if q else 200_000
    rep = report_figures(n_records)
    figures["report"] = rep
    add(
        Row(
            f"report time, {int(rep['trials']):,} records (read + summary + tables)",
            f"{rep['report_total_s']:.2f} s",
            "10 s (target)",
            _ratio(rep["report_total_s"], 10.0, "lower"),
        )
    )
    add(
        Row(
            f"report peak memory, {int(rep['trials']):,} records",
            f"{rep['peak_rss_report_mib']:.0f} MiB",
            "-",
            "-",
        )
    )
    gw = gateway_figures(100 if q else 400)
    figures["gateway"] = gw
    add(
        Row(
            f"MCP gateway episodes/s, 50 in flight (p50 tool call {gw['tool_call_p50_ms']:.0f} ms)",
            f"{gw['episodes_per_s']:.1f}",
            "0.77 (one 1.3 s process start per episode)",
            _ratio(gw["episodes_per_s"], 1 / 1.3),
        )
    )
    header = Row("figure", "value", "baseline", "vs baseline (>1: better)")
    widths = [max(len(r[i]) for r in [*rows, header]) for i in range(4)]
    print()
    for r in [header, Row(*("-" * w for w in widths)), *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2, default=str) + "\n")


if __name__ == "__main__":
    # Servers, clients and Ray here talk over loopback only (see scripts/loopback.py).
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from scripts.loopback import ensure

    ensure(__file__)
    main()
