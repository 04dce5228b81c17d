"""OpenEnv WebSocket sessions at scale, as ratios against the in-process Episode (printed).

Usage: python bench/serve.py [--levels 256,512] [--gateway 0]

The server is ``statebox serve --openenv`` in its own process; the load client is a
second process (this script with ``--client``), so neither's CPU is the other's, though
on a 2-core machine they share the cores. Everything is loopback only, bounded in
count (``--levels``, at most 1024 sessions) and time (``--timeout-s`` per level).

At each level N the client opens N WebSocket sessions with openenv's client and holds
them all open at once, then every session plays the toy transfer task's golden
trajectory (reset, get_account, transfer, end: the end step is judged). A session
succeeds if it connected, played every step and got reward 1.0. The same N episodes
are then run in this process on the `Episode` directly (N concurrent on one event
loop, judged the same way). Printed per level:

- ``held``: sessions open at once, and the success share (target ≥ 0.99 at 512);
- reset p50 in a burst (target ≤ 20 ms at 256): every session's reset is sent at the
  same instant and timed from then, so the median reset waits behind about half the
  others. The in-process figure beside it is timed the same way (from the start of N
  concurrent resets on one loop, so it queues too), with the in-process reset alone
  (one reset's own time) printed as well;
- reset p50 staggered (labelled so; not the target's burst): the same held sessions
  play a second episode, session i resetting ``i * --stagger-s / N`` seconds after the
  first, so resets arrive spread evenly over ``--stagger-s`` seconds;
- steps per second (reset and steps, all sessions) both ways, their ratio, and the
  per-step overhead ``1/rate_ws - 1/rate_inproc`` in ms (target ≤ 1 ms at 256). The
  client's own CPU is in the WebSocket figure: the overhead is an upper bound;
- the server's own CPU per step beyond the in-process Episode's (``/proc`` CPU time of
  the server process over the stepping phase, minus the in-process run's, per action).

Start-up: the time from starting ``statebox serve --openenv`` to its first OpenEnv
response (``/openenv/ready``, any status), to its first ready answer (200, tasks
loaded) and to the first reset answered over the WebSocket, beside two baselines
started in the same run: the bare interpreter (``python -c pass``) and ``python -c
"import statebox"``; and ``statebox serve --help`` against the same baselines.

``--gateway N`` also runs bench/gateway.py's MCP-gateway episode at N concurrent
episodes against the same server, with both of its load clients (the official MCP
client and the lean one, each in its own process), beside the in-process episodes/s of
that trajectory.
The machine's load is printed with the figures (shared machines are noisy).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TASK = "toy.transfer.train.001"
TOY = f"{ROOT / 'tests' / 'fixtures' / 'toy' / '__init__.py'}:DOMAIN"
TASKS = ROOT / "tests" / "serve" / "tasks"
MAX_SESSIONS = 1024
STEPS: list[dict[str, Any]] = [
    {"kind": "call_tool", "tool": "get_account", "args": {"account_id": "A1"}},
    {"kind": "call_tool", "tool": "transfer", "args": {"src": "A1", "dst": "A2", "amount": 40}},
    {"kind": "end", "text": "Moved 40 dollars."},
]


def _cpu_s(pid: int) -> float:
    """CPU seconds (user + system) a process has used so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _p50_ms(values: list[float]) -> float:
    return statistics.median(values) * 1000 if values else float("nan")


# The load client (its own process).


async def _client(
    url: str, n: int, timeout_s: float, server_pid: int, stagger_s: float = 0.0
) -> dict[str, Any]:
    from statebox.serve import StateboxAction, StateboxEnvClient

    envs: list[Any] = []
    connected = 0
    all_in = asyncio.Event()
    go = asyncio.Event()
    resets: list[float] = []
    steps: list[float] = []
    staggered: list[float] = []
    ok = staggered_ok = 0

    async def play(env: Any, times: list[float] | None) -> bool:
        last = None
        for a in STEPS:
            t0 = time.perf_counter()
            last = await env.step(StateboxAction(**a))
            if times is not None:
                times.append(time.perf_counter() - t0)
        return last is not None and last.done and last.reward == 1.0

    async def second(env: Any, i: int) -> None:
        nonlocal staggered_ok
        await asyncio.sleep(i * stagger_s / n)
        t0 = time.perf_counter()
        await env.reset(task_id=TASK)
        staggered.append(time.perf_counter() - t0)
        passed = await play(env, None)  # awaited first: `x += await` would lose updates
        staggered_ok += passed

    async def one() -> None:
        nonlocal connected, ok
        env = StateboxEnvClient(
            base_url=url, connect_timeout_s=timeout_s, message_timeout_s=timeout_s
        )
        await env.__aenter__()
        envs.append(env)
        connected += 1
        if connected == n:
            all_in.set()
        await go.wait()
        await env.reset(task_id=TASK)
        resets.append(time.perf_counter() - burst)  # from the burst's start: queueing counts
        passed = await play(env, steps)
        ok += passed

    tasks = [asyncio.create_task(one()) for _ in range(n)]
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(all_in.wait(), timeout_s)
    held = connected
    server_cpu0, client_cpu0 = _cpu_s(server_pid), time.process_time()
    burst = time.perf_counter()
    go.set()
    done, pending = await asyncio.wait(tasks, timeout=timeout_s)
    wall = time.perf_counter() - burst
    server_cpu, client_cpu = _cpu_s(server_pid) - server_cpu0, time.process_time() - client_cpu0
    for t in pending:
        t.cancel()
    errors = sorted({repr(t.exception())[:120] for t in done if t.exception() is not None})
    if stagger_s > 0 and not pending:
        again = [asyncio.create_task(second(env, i)) for i, env in enumerate(envs)]
        done2, pending2 = await asyncio.wait(again, timeout=timeout_s + stagger_s)
        for t in pending2:
            t.cancel()
        errors += sorted({repr(t.exception())[:120] for t in done2 if t.exception() is not None})
    for env in envs:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(env.__aexit__(None, None, None), 5)
    return {
        "sessions": n,
        "held": held,
        "succeeded": ok,
        "wall_s": wall,
        "server_cpu_s": server_cpu,
        "client_cpu_s": client_cpu,
        "actions": len(resets) + len(steps),
        "reset_p50_ms": _p50_ms(resets),
        "step_p50_ms": _p50_ms(steps),
        "staggered_reset_p50_ms": _p50_ms(staggered),
        "staggered_succeeded": staggered_ok,
        "stagger_s": stagger_s,
        "errors": errors[:3],
    }


# The in-process baseline (this process).


async def _in_process(n: int) -> dict[str, Any]:
    sys.path.insert(0, str(ROOT / "tests"))
    from fixtures.toy import make_domain
    from statebox.episode import CallTool, End
    from statebox.serve import TaskCatalog
    from statebox.tasks import load_tasks
    from statebox.tools import ToolCall

    cat = TaskCatalog(load_tasks(TASKS), {"toy": make_domain()})
    task = cat.task(TASK)
    resets: list[float] = []
    from_burst: list[float] = []
    actions = 0
    passed = 0
    burst = 0.0

    reset_all = asyncio.Barrier(1)

    async def one() -> None:
        nonlocal actions, passed
        episode = cat.episode(task)
        t0 = time.perf_counter()
        await episode.reset()
        resets.append(time.perf_counter() - t0)
        from_burst.append(time.perf_counter() - burst)
        # Every reset of the burst before any step, as the server sees them arrive.
        await reset_all.wait()
        for a in STEPS:
            if a["kind"] == "end":
                await episode.step(End(text=a["text"]))
                verdict = await cat.judge(task, episode)
                passed += verdict.passed
            else:
                await episode.step(CallTool(call=ToolCall(tool=a["tool"], args=a["args"])))
        actions += 1 + len(STEPS)
        episode.close()

    await one()  # warm the world cache, as the server's first reset does
    resets.clear()
    from_burst.clear()
    actions = passed = 0
    reset_all = asyncio.Barrier(n)
    cpu0 = time.process_time()
    burst = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(n)))
    wall, cpu = time.perf_counter() - burst, time.process_time() - cpu0
    return {
        "wall_s": wall,
        "cpu_s": cpu,
        "actions": actions,
        "passed": passed,
        "reset_p50_ms": _p50_ms(from_burst),
        "reset_alone_p50_ms": _p50_ms(resets),
    }


def _load_client(
    url: str, n: int, timeout_s: float, server_pid: int, stagger_s: float
) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--client", url, "--sessions", str(n)]
    cmd += ["--server-pid", str(server_pid), "--stagger-s", str(stagger_s)]
    run = subprocess.run(
        [*cmd, "--timeout-s", str(timeout_s)],
        capture_output=True,
        text=True,
        timeout=timeout_s * 3 + 30,
        check=True,
    )
    result: dict[str, Any] = json.loads(run.stdout.strip().splitlines()[-1])
    return result


def _started_s(argv: list[str]) -> float:
    """Wall seconds a command takes from start to exit (a start-up baseline)."""
    t0 = time.perf_counter()
    subprocess.run(argv, capture_output=True, check=True, timeout=120)
    return time.perf_counter() - t0


def start_baselines() -> dict[str, float]:
    """Bare interpreter, ``import statebox`` and ``statebox serve --help``, each the best of 3.

    Best of three: the least-disturbed start on a shared machine, for the baselines and
    for ``--help`` alike (the server's own start is timed once, so it is not flattered).
    """
    statebox = str(Path(sys.executable).with_name("statebox"))
    runs = {
        "python": [sys.executable, "-c", "pass"],
        "import_statebox": [sys.executable, "-c", "import statebox"],
        "serve_help": [statebox, "serve", "--help"],
    }
    return {k: min(_started_s(v) for _ in range(3)) for k, v in runs.items()}


async def _first_reset_s(url: str, t_start: float) -> float:
    """Seconds from the server's start to its first WebSocket reset answered."""
    from statebox.serve import StateboxEnvClient

    async with StateboxEnvClient(base_url=url) as env:
        await env.reset(task_id=TASK)
    return time.perf_counter() - t_start


def _gateway(url: str, token: str, n: int, server_pid: int) -> dict[str, Any]:
    """bench/gateway.py's episode at ``n`` in flight, both load clients (each its own process)."""
    sys.path.insert(0, str(ROOT / "bench"))
    import gateway

    want = gateway.expected()
    rows = {
        c: gateway.client_process(c, url, token, n, n, server_pid, want) for c in gateway.CLIENTS
    }
    base = asyncio.run(gateway.in_process(n, n))
    return {"clients": rows, "in_process_episodes_per_s": base["episodes_per_s"], "concurrency": n}


def main(levels: list[int], timeout_s: float, gateway_n: int, stagger_s: float) -> None:
    base = start_baselines()
    with tempfile.TemporaryDirectory() as tmp:
        token_file = Path(tmp) / "token"
        cmd = [str(Path(sys.executable).with_name("statebox")), "serve", "--openenv"]
        cmd += ["--tasks", str(TASKS), "--domain", TOY, "--port", "0"]
        cmd += ["--max-per-client", str(MAX_SESSIONS + 64), "--token-file", str(token_file)]
        t_start = time.perf_counter()
        server = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
        try:
            import httpx

            assert server.stderr is not None
            url = server.stderr.readline().split()[-1]
            sys.path.insert(0, str(ROOT / "bench"))
            from gateway import drain

            drain(server.stderr)
            with httpx.Client() as c:
                first = ready = None
                for _ in range(3000):
                    try:
                        r = c.get(url + "/openenv/ready")
                    except httpx.HTTPError:
                        time.sleep(0.01)
                        continue
                    first = first or time.perf_counter() - t_start
                    if r.status_code == 200:
                        ready = time.perf_counter() - t_start
                        break
                    time.sleep(0.01)
            first_reset = asyncio.run(_first_reset_s(url + "/openenv", t_start))
            print(f"load average {os.getloadavg()} at start-up")
            py, imp = base["python"], base["import_statebox"]
            for label, t in (
                ("statebox serve --help", base["serve_help"]),
                ("statebox serve: first OpenEnv response (any status)", first),
                ("statebox serve: first ready (200, tasks loaded)", ready),
                ("statebox serve: first WebSocket reset answered", first_reset),
            ):
                if t is None:
                    print(f"{label}: none")
                    continue
                print(
                    f"{label}: {t:.2f} s after start; bare python {py:.2f} s ({t / py:.1f}x), "
                    f"python + import statebox {imp:.2f} s ({t / imp:.1f}x)"
                )
            rows = []
            for n in levels:
                ws = _load_client(url + "/openenv", n, timeout_s, server.pid, stagger_s)
                inproc = asyncio.run(_in_process(n))
                rows.append((n, ws, inproc))
            gw = None
            if gateway_n:
                token = token_file.read_text().strip()
                gw = _gateway(url, token, gateway_n, server.pid)
        finally:
            server.terminate()
            server.wait(10)
    print(f"load average {os.getloadavg()} on {os.cpu_count()} cores")
    print(
        "reset p50 (burst): all N resets sent at once, each timed from the burst's start, "
        "over the WebSocket / in-process (N resets on one loop, timed the same way)"
    )
    head = (
        f"{'sessions':>8} {'held':>5} {'success':>7} {'reset p50 ws/in ms':>19} "
        f"{'ratio':>6} {'actions/s ws/in':>16} {'ratio':>6} {'overhead ms/step':>16} "
        f"{'server CPU ms/step':>18}"
    )
    print(head)
    out = []
    for n, ws, inproc in rows:
        rate_ws = ws["actions"] / ws["wall_s"]
        rate_in = inproc["actions"] / inproc["wall_s"]
        overhead = 1000 / rate_ws - 1000 / rate_in
        # CPU the server spent per action beyond what the Episode itself costs in-process.
        server_ms = 1000 * (ws["server_cpu_s"] - inproc["cpu_s"]) / ws["actions"]
        share = ws["succeeded"] / n
        print(
            f"{n:>8} {ws['held']:>5} {share:>7.3f} "
            f"{ws['reset_p50_ms']:>9.1f}/{inproc['reset_p50_ms']:<9.2f} "
            f"{ws['reset_p50_ms'] / inproc['reset_p50_ms']:>6.1f} "
            f"{rate_ws:>7.0f}/{rate_in:<8.0f} {rate_ws / rate_in:>6.3f} {overhead:>16.3f} "
            f"{server_ms:>18.3f}"
        )
        print(
            f"         in-process reset alone p50 {inproc['reset_alone_p50_ms']:.2f} ms; "
            f"staggered (resets spread over {ws['stagger_s']:.1f} s, not a burst): "
            f"reset p50 {ws['staggered_reset_p50_ms']:.1f} ms, "
            f"success {ws['staggered_succeeded'] / n:.3f}"
        )
        if ws["errors"]:
            print(f"         errors: {ws['errors']}")
        out.append(
            {
                "sessions": n,
                "ws": ws,
                "in_process": inproc,
                "success_share": share,
                "actions_per_s_ratio": rate_ws / rate_in,
                "overhead_ms_per_step": overhead,
                "server_cpu_overhead_ms_per_step": server_ms,
            }
        )
    if gw is not None:
        for client, row in gw["clients"].items():
            ratio = row["episodes_per_s"] / gw["in_process_episodes_per_s"]
            print(
                f"MCP gateway at {gw['concurrency']}, {client} client: "
                f"{row['episodes_per_s']:.1f} episodes/s, in-process "
                f"{gw['in_process_episodes_per_s']:.0f}/s (ratio {ratio:.4f}), tool call p50 "
                f"{row['tool_call_p50_ms']:.1f} ms, passed {row['passed_share']:.3f}; CPU per "
                f"episode: server {row['server_cpu_ms_per_episode']:.1f} ms, load client "
                f"{row['client_cpu_ms_per_episode']:.1f} ms"
            )
    starts = {"baselines": base, "first_response_s": first, "ready_s": ready}
    print(json.dumps({"levels": out, "gateway": gw, "start": starts | {"reset_s": first_reset}}))


if __name__ == "__main__":
    # Servers and clients here talk over loopback only (see scripts/loopback.py).
    sys.path.insert(0, str(ROOT))
    from scripts.loopback import ensure

    parser = argparse.ArgumentParser(description="OpenEnv sessions at scale vs in-process")
    parser.add_argument("--levels", default="256,512")
    parser.add_argument("--timeout-s", type=float, default=120.0)
    parser.add_argument("--gateway", type=int, default=0, help="MCP gateway episodes too")
    parser.add_argument(
        "--stagger-s", type=float, default=1.0, help="spread of the staggered resets (0: none)"
    )
    parser.add_argument("--client", help=argparse.SUPPRESS)
    parser.add_argument("--sessions", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--server-pid", type=int, default=0, help=argparse.SUPPRESS)
    ns = parser.parse_args()
    if ns.client:
        run = _client(ns.client, ns.sessions, ns.timeout_s, ns.server_pid, ns.stagger_s)
        print(json.dumps(asyncio.run(run)))
    else:
        ensure(__file__)
        wanted = [int(x) for x in ns.levels.split(",")]
        if not wanted or min(wanted) < 1 or max(wanted) > MAX_SESSIONS:
            parser.error(f"--levels: 1..{MAX_SESSIONS} sessions")
        main(wanted, ns.timeout_s, ns.gateway, ns.stagger_s)
