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
- reset p50 over the WebSocket and in-process, and their ratio (target ≤ 20 ms at 256);
- steps per second (reset and steps, all sessions) both ways, their ratio, and the
  per-step overhead ``1/rate_ws - 1/rate_inproc`` in ms (target ≤ 1 ms at 256). The
  client's own CPU is in the WebSocket figure: the overhead is an upper bound;
- the server's own CPU per step beyond the in-process Episode's (``/proc`` CPU time of
  the server process over the stepping phase, minus the in-process run's, per action).

``--gateway N`` also runs bench/gateway.py's MCP-gateway episode at N concurrent
episodes against the same server, with the in-process episodes/s of that trajectory.
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


async def _client(url: str, n: int, timeout_s: float, server_pid: int) -> dict[str, Any]:
    from statebox.serve import StateboxAction, StateboxEnvClient

    envs: list[Any] = []
    connected = 0
    all_in = asyncio.Event()
    go = asyncio.Event()
    resets: list[float] = []
    steps: list[float] = []
    ok = 0

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
        t0 = time.perf_counter()
        await env.reset(task_id=TASK)
        resets.append(time.perf_counter() - t0)
        last = None
        for a in STEPS:
            t0 = time.perf_counter()
            last = await env.step(StateboxAction(**a))
            steps.append(time.perf_counter() - t0)
        if last is not None and last.done and last.reward == 1.0:
            ok += 1

    tasks = [asyncio.create_task(one()) for _ in range(n)]
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(all_in.wait(), timeout_s)
    held = connected
    server_cpu0, client_cpu0 = _cpu_s(server_pid), time.process_time()
    t0 = time.perf_counter()
    go.set()
    done, pending = await asyncio.wait(tasks, timeout=timeout_s)
    wall = time.perf_counter() - t0
    server_cpu, client_cpu = _cpu_s(server_pid) - server_cpu0, time.process_time() - client_cpu0
    for t in pending:
        t.cancel()
    errors = sorted({repr(t.exception())[:120] for t in done if t.exception() is not None})
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
    actions = 0
    passed = 0

    async def one() -> None:
        nonlocal actions, passed
        episode = cat.episode(task)
        t0 = time.perf_counter()
        await episode.reset()
        resets.append(time.perf_counter() - t0)
        for a in STEPS:
            if a["kind"] == "end":
                await episode.step(End(text=a["text"]))
                passed += (await cat.judge(task, episode)).passed
            else:
                await episode.step(CallTool(call=ToolCall(tool=a["tool"], args=a["args"])))
        actions += 1 + len(STEPS)
        episode.close()

    await one()  # warm the world cache, as the server's first reset does
    resets.clear()
    actions = passed = 0
    t0, cpu0 = time.perf_counter(), time.process_time()
    await asyncio.gather(*(one() for _ in range(n)))
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    return {
        "wall_s": wall,
        "cpu_s": cpu,
        "actions": actions,
        "passed": passed,
        "reset_p50_ms": _p50_ms(resets),
    }


def _load_client(url: str, n: int, timeout_s: float, server_pid: int) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--client", url, "--sessions", str(n)]
    cmd += ["--server-pid", str(server_pid)]
    run = subprocess.run(
        [*cmd, "--timeout-s", str(timeout_s)],
        capture_output=True,
        text=True,
        timeout=timeout_s * 3 + 30,
        check=True,
    )
    result: dict[str, Any] = json.loads(run.stdout.strip().splitlines()[-1])
    return result


async def _gateway(url: str, token: str, n: int, server_pid: int) -> dict[str, Any]:
    sys.path.insert(0, str(ROOT / "bench"))
    import gateway

    gateway.TOKEN = token
    return await gateway.level(url, n, n, server_pid)


async def _gateway_in_process(n: int) -> float:
    """Episodes/s of the gateway bench's trajectory (two calls, judged) in-process."""
    from statebox.episode import CallTool, End
    from statebox.serve import TaskCatalog
    from statebox.tasks import load_tasks
    from statebox.tools import ToolCall

    sys.path.insert(0, str(ROOT / "tests"))
    from fixtures.toy import make_domain

    cat = TaskCatalog(load_tasks(TASKS), {"toy": make_domain()})
    task = cat.task(TASK)

    async def one() -> None:
        episode = cat.episode(task)
        await episode.reset()
        for a in STEPS[:2]:
            await episode.step(CallTool(call=ToolCall(tool=a["tool"], args=a["args"])))
        await episode.step(End(text="done"))
        await cat.judge(task, episode)
        episode.close()

    await one()
    t0 = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(n)))
    return n / (time.perf_counter() - t0)


def main(levels: list[int], timeout_s: float, gateway_n: int) -> None:
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
            with httpx.Client() as c:
                first = None
                for _ in range(3000):
                    try:
                        r = c.get(url + "/openenv/ready")
                    except httpx.HTTPError:
                        time.sleep(0.01)
                        continue
                    first = first or time.perf_counter() - t_start
                    if r.status_code == 200:
                        break
                    time.sleep(0.01)
            print(f"first OpenEnv response {first:.2f} s after start (load {os.getloadavg()})")
            rows = []
            for n in levels:
                ws = _load_client(url + "/openenv", n, timeout_s, server.pid)
                inproc = asyncio.run(_in_process(n))
                rows.append((n, ws, inproc))
            gw = None
            if gateway_n:
                token = token_file.read_text().strip()
                gw = asyncio.run(_gateway(url, token, gateway_n, server.pid))
                gw["in_process_episodes_per_s"] = asyncio.run(_gateway_in_process(gateway_n))
        finally:
            server.terminate()
            server.wait(10)
    print(f"load average {os.getloadavg()} on {os.cpu_count()} cores")
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
        ratio = gw["episodes_per_s"] / gw["in_process_episodes_per_s"]
        print(
            f"MCP gateway at {gw['concurrency']}: {gw['episodes_per_s']:.1f} episodes/s, "
            f"in-process {gw['in_process_episodes_per_s']:.0f}/s (ratio {ratio:.4f}), "
            f"tool call p50 {gw['tool_call_p50_ms']:.1f} ms, passed {gw['passed_share']:.3f}; "
            f"CPU per episode: server {gw['server_cpu_ms_per_episode']:.1f} ms, load client "
            f"{gw['client_cpu_ms_per_episode']:.1f} ms"
        )
    print(json.dumps({"levels": out, "gateway": gw}))


if __name__ == "__main__":
    # Servers and clients here talk over loopback only (see scripts/loopback.py).
    sys.path.insert(0, str(ROOT))
    from scripts.loopback import ensure

    parser = argparse.ArgumentParser(description="OpenEnv sessions at scale vs in-process")
    parser.add_argument("--levels", default="256,512")
    parser.add_argument("--timeout-s", type=float, default=120.0)
    parser.add_argument("--gateway", type=int, default=0, help="MCP gateway episodes too")
    parser.add_argument("--client", help=argparse.SUPPRESS)
    parser.add_argument("--sessions", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--server-pid", type=int, default=0, help=argparse.SUPPRESS)
    ns = parser.parse_args()
    if ns.client:
        print(json.dumps(asyncio.run(_client(ns.client, ns.sessions, ns.timeout_s, ns.server_pid))))
    else:
        ensure(__file__)
        wanted = [int(x) for x in ns.levels.split(",")]
        if not wanted or min(wanted) < 1 or max(wanted) > MAX_SESSIONS:
            parser.error(f"--levels: 1..{MAX_SESSIONS} sessions")
        main(wanted, ns.timeout_s, ns.gateway)
