"""Every statebox performance figure in one table (printed, not asserted).

Usage: python bench/suite.py [--quick] [--no-ray] [--latency-s 0.05] [--json FILE]

Every row carries a baseline measured in this same run (no constants) and the ratio
(above 1: statebox better, or for a ratio of two statebox figures, the first faster):

- harness time per trial with the oracle, end to end (the previous record written to
  this one's: clone, golden calls, judge, record write; `bench/run.py`), beside the
  record's own timings (which stop before the write); a task's later trials reuse its
  first trial's world connection rolled back (the row says how many cloned afresh);
  the pool against a fresh clone every trial is its own campaign, the two arms
  interleaved trial by trial (`bench/run.py`'s ``bench_pool_against_fresh``: a task's
  trials alternate arms, odd tasks start fresh), so neither runs on the warmer machine;
- world clone to first query (`bench/run.py`: the deserialise plus SQLite's schema
  parse), beside a peer's fresh world: a tau2-style JSON database load of the same rows,
  and a fresh MCP stdio server start to its first tool result (the official ``mcp``
  SDK);
- with tau2-bench importable, its own retail oracle trial (`bench/tau2_side.py`: fresh
  environment, golden actions as tool calls, its database check with fresh and gold
  environments replayed; no result write) against statebox's (clone, golden calls,
  judge against each task's golden end state, replayed once per campaign and kept;
  record write), wall and CPU; skipped
  with a line saying so where it is not installed (never a dependency);
- with the simulated-latency agent (``sleepy:latency_s=L``: an oracle that waits L s
  before each action, standing for a model call) at 1, 100 and 1,000 trials in flight,
  on the local executor and on Ray (a local Ray started here, one worker per CPU):
  trials/s while trials ran, CPU time per trial (this process and every child, Ray's
  workers included) against the oracle's CPU per trial at concurrency 1, trials per
  CPU-second (the rate per fully used core), and Ray's trials/s against local's;
- peak memory per live episode: a fresh process runs 1,000 sleepy trials all in flight
  (1 s per call); (peak RSS − RSS before) ÷ 1,000, against the world's own bytes;
- harness time per trial with 2 s model calls (trial time less the calls' sleeps; its
  share of the trial beside it), against an oracle trial's own timings (no model);
- report over 200,000 records in a fresh process (`bench/report.py`): time against
  reading the file alone, peak memory (the process's own VmHWM) against the file size;
- per-step transport overhead, one sequential client (`bench/transport.py`): MCP
  gateway (official client and raw JSON-RPC), OpenEnv HTTP and WebSocket (each by its
  own client and spoken directly), against
  `Episode.step` in process;
- MCP gateway episodes/s at 1 and 50 in flight (`bench/gateway.py`'s lean load client and
  the official MCP client, each in its own process), against one fresh MCP stdio server
  start per episode, measured, and against the same trajectory in process.

``--quick`` shrinks every sample (20,000 report records, fewer trials) to finish in a
few minutes; the full run takes longer mostly for the report's 200,000 records.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib.util
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

from run import TrialStamps, bench_campaign, bench_clone, bench_pool_against_fresh  # noqa: E402
from tau2_side import tau2_side_by_side  # noqa: E402

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


def cpu_s() -> float:
    """CPU seconds of this process and of all its descendants, exited ones included.

    Read from /proc: each live descendant's own CPU plus what its exited children left
    it (``cutime``/``cstime``: the kernel adds a reaped child's whole CPU to its parent's),
    and this process's own reaped children (`os.times`). So the sum never drops when a
    Ray worker exits: before, it counted live descendants only, and an exit made a
    window's CPU negative (-28 ms a trial in one run) or too small (Ray at 1,000 in
    flight looked a third as costly as local). A descendant orphaned by its parent's exit
    stays counted because `adopt_orphans` makes this process their reaper.
    """
    times = os.times()
    own = time.process_time() + times.children_user + times.children_system
    tick = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    ticks: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        pid = int(entry.name)
        parents[pid] = int(fields[1])
        # utime + stime + cutime + cstime: its own and its reaped children's
        ticks[pid] = sum(int(fields[i]) for i in (11, 12, 13, 14))
    me, children = os.getpid(), 0
    for pid in ticks:
        p = parents.get(pid)
        while p is not None and p > 1 and p != me:
            p = parents.get(p)
        if p == me:
            children += ticks[pid]
    return own + children / tick


def adopt_orphans() -> None:
    """Make this process the reaper of its orphaned descendants (Linux), so `cpu_s` keeps them.

    Without it, a Ray process whose parent exits is adopted by init, leaves this
    process's tree, and its CPU drops out of `cpu_s` mid-window.
    """
    import ctypes

    pr_set_child_subreaper = 36
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(pr_set_child_subreaper, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")


class SleepyFigures(NamedTuple):
    trials: int
    trials_per_s: float  # while trials ran
    wall_s: float  # whole campaign, start-up included
    cpu_per_trial_ms: float  # CPU of this process and its children, per trial
    harness_share: float  # median 1 - model time / trial time
    harness_ms: float  # median trial time less its model calls' sleeps


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
    cpu0 = [0.0]

    class Sink(TrialStamps):
        def start(self, total: int, already_done: int) -> None:
            cpu0[0] = cpu_s()  # after start-up (golden replay, Ray workers)
            super().start(total, already_done)

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
        result = asyncio.run(run_campaign(c, registry, progress=Sink(), executor=executor))
        cpu = cpu_s() - cpu0[0]
        if cpu < 0:  # a descendant's CPU left the tree: no figure rather than a wrong one
            raise SystemExit(f"sleepy campaign at {concurrency}: CPU reading went back {cpu:.3f} s")
        wall = time.perf_counter() - t0
        records = read_results(out)
    if result.system_errors or not all(r.status == "passed" for r in records):
        raise SystemExit(f"sleepy campaign at {concurrency}: not every trial passed")
    first = min(r.started_at.timestamp() for r in records)
    last = max(r.started_at.timestamp() + r.timings.total_s for r in records)
    model_s = [len(r.model_calls) * latency_s for r in records]
    shares = [1 - m / r.timings.total_s for m, r in zip(model_s, records, strict=True)]
    harness = [r.timings.total_s - m for m, r in zip(model_s, records, strict=True)]
    return SleepyFigures(
        len(records),
        len(records) / (last - first),
        wall,
        cpu * 1000 / len(records),
        statistics.median(shares),
        statistics.median(harness) * 1000,
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


def gateway_figures(level: int, episodes: int) -> dict[str, dict[str, Any]]:
    """bench/gateway.py's rows at one level by client: lean, official and in-process."""
    cmd = [sys.executable, str(BENCH / "gateway.py"), "--levels", str(level)]
    out = subprocess.run(
        [*cmd, "--episodes-per-level", str(episodes)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    rows: list[dict[str, Any]] = json.loads(out.strip().splitlines()[-1])
    return {r["client"]: r for r in rows}


def transport_figures(episodes: int, steps: int) -> dict[str, float]:
    cmd = [sys.executable, str(BENCH / "transport.py"), "--json"]
    out = subprocess.run(
        [*cmd, "--episodes", str(episodes), "--steps", str(steps)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    r: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return r


TAU2_SKIPPED = (
    "tau2 side-by-side: skipped (tau2-bench is not importable here; it is never a "
    "statebox dependency: install it from its repository into the venv that runs this)"
)


def tau2_row(tau2: dict[str, float], oracle: Any) -> Row:
    """tau2-bench's oracle trial against statebox's, wall and CPU (`bench/tau2_side.py`).

    tau2's side: fresh environment, golden actions as tool calls, then its database
    check (fresh and gold environments replayed, hashes compared); no result write.
    statebox's side: clone, golden calls, judge (against each task's golden end state,
    replayed once per campaign), record written.
    """
    return Row(
        f"oracle trial, tau2-bench retail ({int(tau2['trials'])} trials, "
        f"{int(tau2['passed'])} rewarded 1; episode + env/DB check, no result write)",
        f"{tau2['trial_ms']:.1f} ms ({tau2['cpu_ms']:.1f} ms CPU)",
        f"{oracle.per_trial_ms:.2f} ms ({oracle.cpu_per_trial_ms:.2f} ms CPU) (statebox "
        "oracle trial: clone, golden calls, judge, record write)",
        f"{_ratio(oracle.per_trial_ms, tau2['trial_ms'], 'lower')} "
        f"({_ratio(oracle.cpu_per_trial_ms, tau2['cpu_ms'], 'lower')} CPU)",
    )


def _ms(x: float) -> str:
    return f"{x:.3f} ms" if x < 10 else f"{x:.0f} ms"


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
    load = os.getloadavg()
    figures: dict[str, Any] = {
        "quick": q,
        "latency_s": args.latency_s,
        "cpus": os.cpu_count(),
        "load_before": load,
    }
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} CPUs")

    def add(row: Row) -> None:
        rows.append(row)
        print(" | ".join(row), file=sys.stderr, flush=True)

    oracle = bench_campaign(SUITE, 2 if q else 5, 1)
    figures["oracle"] = oracle._asdict()
    # Two pairs at least: with one, every pooled trial would be its task's first (a clone).
    arms = bench_pool_against_fresh(SUITE, 2 if q else 3)
    pooled, fresh = arms.pooled, arms.fresh
    figures["oracle_pooled_interleaved"] = pooled._asdict()
    figures["oracle_fresh_worlds_interleaved"] = fresh._asdict()
    add(
        Row(
            f"trial end to end, oracle ({SUITE}, {oracle.trials}; record write included; "
            f"{oracle.fresh_worlds} fresh world clones, {oracle.reused_worlds} reused)",
            f"{oracle.per_trial_ms:.2f} ms",
            f"{oracle.record_total_ms:.2f} ms (the record's timings, before the write)",
            f"{oracle.per_trial_ms / oracle.record_total_ms:.2f}x as long",
        )
    )
    add(
        Row(
            "trial end to end, oracle, pooled worlds against a fresh clone every trial "
            f"(arms interleaved trial by trial; {pooled.trials} + {fresh.trials} trials)",
            f"{pooled.per_trial_ms:.2f} ms (CPU {pooled.cpu_per_trial_ms:.2f} ms; "
            f"{pooled.fresh_worlds} fresh clones, {pooled.reused_worlds} reused)",
            f"{fresh.per_trial_ms:.2f} ms (CPU {fresh.cpu_per_trial_ms:.2f} ms; "
            f"{fresh.fresh_worlds} fresh clones)",
            _ratio(pooled.per_trial_ms, fresh.per_trial_ms, "lower")
            + f" (CPU {_ratio(pooled.cpu_per_trial_ms, fresh.cpu_per_trial_ms, 'lower')})",
        )
    )
    add(
        Row(
            "CPU time per trial, oracle, concurrency 1",
            f"{oracle.cpu_per_trial_ms:.2f} ms",
            f"{oracle.wall_per_trial_ms:.2f} ms (its mean wall time, same window)",
            f"{oracle.cpu_per_trial_ms / oracle.wall_per_trial_ms:.2f} of wall",
        )
    )
    tau2 = tau2_side_by_side(10 if q else 50)
    if tau2 is None:
        print(TAU2_SKIPPED, file=sys.stderr)
    else:
        figures["tau2"] = tau2
        add(tau2_row(tau2, oracle))
    clone = bench_clone(SUITE, quiet=True, clones=500 if q else 2000, mcp_starts=3 if q else 5)
    figures["clone"] = clone._asdict()
    add(
        Row(
            f"world clone to first query ({clone.domain}, {clone.size_kib:.0f} KiB)",
            f"{clone.clone_ms:.3f} ms",
            f"{clone.json_load_ms:.2f} ms (tau2-style JSON DB load, {clone.json_kib:.0f} KiB)",
            _ratio(clone.clone_ms, clone.json_load_ms, "lower"),
        )
    )
    add(
        Row(
            "world clone to first query, against a process per trial",
            f"{clone.clone_ms:.3f} ms",
            f"{clone.mcp_start_ms:.0f} ms (fresh MCP stdio server to first result)",
            _ratio(clone.clone_ms, clone.mcp_start_ms, "lower"),
        )
    )
    levels = [int(x) for x in args.levels.split(",")]
    executors: list[tuple[str, Any]] = [("local", None)]
    if not args.no_ray and importlib.util.find_spec("ray") is None:
        print("Ray rows: skipped (ray is not importable: the [ray] extra)", file=sys.stderr)
        args.no_ray = True
    if not args.no_ray:
        import ray

        adopt_orphans()  # before Ray starts its processes (see cpu_s)

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
                    f"sleepy {args.latency_s} s/call, {name}, {n} in flight "
                    f"({f.trials} trials, wall {f.wall_s:.1f} s): trials/s; CPU/trial",
                    f"{f.trials_per_s:.1f}/s; {f.cpu_per_trial_ms:.2f} ms "
                    f"({1000 / f.cpu_per_trial_ms:.0f} trials per CPU-s)",
                    f"{oracle.cpu_per_trial_ms:.2f} ms CPU/trial (oracle, concurrency 1)",
                    _ratio(f.cpu_per_trial_ms, oracle.cpu_per_trial_ms, "lower"),
                )
            )
            local = figures["sleepy"].get(f"local@{n}")
            if name == "ray" and local is not None:
                add(
                    Row(
                        f"Ray against local, {n} in flight: trials/s; CPU/trial",
                        f"{f.trials_per_s:.1f}/s; {f.cpu_per_trial_ms:.2f} ms",
                        f"{local['trials_per_s']:.1f}/s; {local['cpu_per_trial_ms']:.2f} ms",
                        f"{f.trials_per_s / local['trials_per_s']:.2f}x trials/s; "
                        f"{f.cpu_per_trial_ms / local['cpu_per_trial_ms']:.2f}x CPU",
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
            f"{clone.size_kib:.0f} KiB (the world's own bytes)",
            f"{mem['per_episode_kib'] / clone.size_kib:.2f}x the world",
        )
    )
    slow = sleepy_campaign(3 if q else 6, 3 if q else 12, 2.0)
    figures["two_second_calls"] = slow._asdict()
    add(
        Row(
            f"harness time per trial with 2 s model calls ({slow.trials} trials; trial "
            "time less the calls' sleeps, oversleep included)",
            f"{slow.harness_ms:.2f} ms ({slow.harness_share * 100:.3f} % of the trial)",
            f"{oracle.record_total_ms:.2f} ms (an oracle trial's own timings, no model)",
            f"{slow.harness_ms / oracle.record_total_ms:.2f}x as long",
        )
    )
    n_records = 20_000 if q else 200_000
    rep = report_figures(n_records)
    figures["report"] = rep
    add(
        Row(
            f"report time, {int(rep['trials']):,} records (read + summary + tables), alone",
            f"{rep['report_total_s']:.2f} s ({rep['report_total_cpu_s']:.2f} s CPU)",
            f"{rep['read_floor_s']:.2f} s ({rep['read_floor_cpu_s']:.2f} s CPU) "
            "(reading the file's lines alone)",
            f"{rep['report_total_s'] / rep['read_floor_s']:.1f}x as long "
            f"({rep['report_total_cpu_s'] / rep['read_floor_cpu_s']:.1f}x CPU)",
        )
    )
    add(
        Row(
            f"report peak memory, {int(rep['trials']):,} records (own VmHWM)",
            f"{rep['peak_rss_report_mib']:.0f} MiB",
            f"{rep['file_mib']:.0f} MiB (the results file)",
            f"{rep['peak_rss_report_mib'] / rep['file_mib']:.2f}x the file",
        )
    )
    tr = transport_figures(5 if q else 20, 20)
    figures["transport"] = tr
    base = tr["in_process"] * 1000
    for key, label in [
        ("mcp_official", "MCP gateway, official client"),
        ("mcp_raw", "MCP gateway, raw JSON-RPC (raw keep-alive client)"),
        ("mcp_raw_httpx", "MCP gateway, raw JSON-RPC (httpx)"),
        ("openenv_http", "OpenEnv HTTP /step (httpx)"),
        ("openenv_http_raw", "OpenEnv HTTP /step (raw keep-alive client)"),
        ("openenv_ws", "OpenEnv WebSocket (openenv's client)"),
        ("openenv_ws_raw", "OpenEnv WebSocket (raw: the protocol spoken directly)"),
    ]:
        ms = tr[key] * 1000
        # Each side's CPU per step: the client's own is a floor no server can take a
        # sequential client's step below.
        server, own = tr.get(f"{key}_server_cpu"), tr.get(f"{key}_client_cpu")
        cpu = (
            f"; CPU per step: server {server * 1000:.3f} ms, client {own * 1000:.3f} ms"
            if server is not None and own is not None
            else ""
        )
        add(
            Row(
                f"per-step overhead, {label} (one sequential client)",
                f"+{ms - base:.3f} ms ({ms:.3f} ms a step{cpu})",
                f"{base:.3f} ms (Episode.step in process)",
                f"{ms / base:.1f}x as long",
            )
        )
    per_episode_start_s = clone.mcp_start_ms / 1000
    gw1 = gateway_figures(1, 30 if q else 100)
    gw = gateway_figures(50, 100 if q else 400)
    figures["gateway"] = {"1": gw1, "50": gw}
    for client in ("lean", "official"):
        one, many = gw1[client], gw[client]
        add(
            Row(
                f"MCP gateway episodes/s, 1 in flight, {client} client "
                f"(p50 tool call {one['tool_call_p50_ms']:.1f} ms)",
                f"{one['episodes_per_s']:.1f}",
                f"{1 / per_episode_start_s:.2f} (a fresh MCP server per episode, measured)",
                _ratio(one["episodes_per_s"], 1 / per_episode_start_s),
            )
        )
        add(
            Row(
                f"MCP gateway episodes/s, 50 in flight, {client} client (p50 tool call "
                f"{many['tool_call_p50_ms']:.0f} ms; CPU per episode: server "
                f"{many['server_cpu_ms_per_episode']:.1f} ms, client "
                f"{many['client_cpu_ms_per_episode']:.1f} ms)",
                f"{many['episodes_per_s']:.1f}",
                f"{gw['in-process']['episodes_per_s']:.0f} (the trajectory in process)",
                _ratio(many["episodes_per_s"], gw["in-process"]["episodes_per_s"]),
            )
        )
    after = os.getloadavg()
    figures["load_after"] = after
    header = Row("figure", "value", "baseline (same run)", "ratio (>1x: better)")
    widths = [max(len(r[i]) for r in [*rows, header]) for i in range(4)]
    print()
    for r in [header, Row(*("-" * w for w in widths)), *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
    print(
        f"load average before {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, "
        f"after {after[0]:.2f} {after[1]:.2f} {after[2]:.2f}, on {os.cpu_count()} CPUs"
    )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2, default=str) + "\n")


if __name__ == "__main__":
    # Servers, clients and Ray here talk over loopback only (see scripts/loopback.py).
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from scripts.loopback import ensure

    ensure(__file__)
    main()
