"""MCP gateway throughput and latency (printed, not asserted).

Usage: python bench/gateway.py [--levels 1,50,200] [--episodes-per-level 200]

The server is `statebox serve` in its own process (as in use); the clients run here.
Each episode, over real loopback HTTP: the control API creates a session of the toy
transfer task, the official ``mcp`` client initialises on the session's endpoint and
makes two tool calls (get_account, transfer), the control API ends and judges it.
The clients share one TLS context (`SSL`): an ``httpx.AsyncClient`` builds a fresh one
by default, ~25 ms of CPU that a real agent pays once, not per episode.
Prints, per concurrency level: episodes per second (wall clock, whole episode), p50
and p95 latency of one tool call (client-side, ``call_tool`` round trip), the share of
episodes judged passed (must be 1.0), and the CPU each side spent per episode: the
server's (``/proc`` time of all its threads over the level) and this load client's
(``time.process_time``). Both share the machine's cores, so episodes/s is bounded by
their sum; ``server-bound episodes/s per core`` (1000 / server CPU ms per episode) is
what one core of server could carry with the client's CPU elsewhere.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

ROOT = Path(__file__).resolve().parents[1]
TOKEN = ""
TASK = "toy.transfer.train.001"
SSL = ssl.create_default_context()
"""Built once: loopback is plain HTTP, but every client would otherwise build its own."""


async def episode(c: httpx.AsyncClient, latencies: list[float]) -> bool:
    h = {"Authorization": f"Bearer {TOKEN}"}
    info = (await c.post("/control/sessions", json={"task_id": TASK}, headers=h)).json()
    mh = {"Authorization": f"Bearer {info['mcp_token']}"}
    async with (
        httpx.AsyncClient(headers=mh, timeout=120, verify=SSL) as http,
        streamable_http_client(info["mcp_url"], http_client=http) as (read, write, _),
        ClientSession(read, write) as m,
    ):
        await m.initialize()
        for name, args in [
            ("get_account", {"account_id": "A1"}),
            ("transfer", {"src": "A1", "dst": "A2", "amount": 40}),
        ]:
            t0 = time.perf_counter()
            await m.call_tool(name, args)
            latencies.append(time.perf_counter() - t0)
    sid = info["session_id"]
    v = await c.post(f"/control/sessions/{sid}/verdict", json={"text": "done"}, headers=h)
    await c.delete(f"/control/sessions/{sid}", headers=h)
    return bool(v.json()["passed"])


def server_cpu_s(pid: int) -> float:
    """CPU seconds all of a process's threads have run (``/proc/PID/task/*/schedstat``)."""
    tasks = Path(f"/proc/{pid}/task")
    return sum(int((t / "schedstat").read_text().split()[0]) for t in tasks.iterdir()) / 1e9


async def level(
    url: str, concurrency: int, episodes: int, server_pid: int | None = None
) -> dict[str, float]:
    latencies: list[float] = []
    queue = iter(range(episodes))
    passed: list[bool] = []
    limits = httpx.Limits(max_connections=concurrency + 10)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits, verify=SSL) as c:

        async def worker() -> None:
            for _ in queue:
                passed.append(await episode(c, latencies))

        server0 = server_cpu_s(server_pid) if server_pid else 0.0
        t0, client0 = time.perf_counter(), time.process_time()
        async with asyncio.TaskGroup() as tg:
            for _ in range(concurrency):
                tg.create_task(worker())
        wall, client = time.perf_counter() - t0, time.process_time() - client0
        server = server_cpu_s(server_pid) - server0 if server_pid else float("nan")
    q = statistics.quantiles(latencies, n=20)
    return {
        "concurrency": concurrency,
        "episodes": episodes,
        "episodes_per_s": episodes / wall,
        "tool_call_p50_ms": statistics.median(latencies) * 1000,
        "tool_call_p95_ms": q[18] * 1000,
        "passed_share": sum(passed) / len(passed),
        "server_cpu_ms_per_episode": 1000 * server / episodes,
        "client_cpu_ms_per_episode": 1000 * client / episodes,
        "server_bound_episodes_per_s_per_core": episodes / server,
    }


async def main(levels: list[int], per_level: int) -> None:
    global TOKEN
    with tempfile.TemporaryDirectory() as tmp:
        token_file = Path(tmp) / "token"
        cmd = [str(Path(sys.executable).with_name("statebox")), "serve", "--no-openenv"]
        cmd += ["--tasks", str(ROOT / "tests" / "serve" / "tasks"), "--port", "0"]
        cmd += ["--domain", f"{ROOT / 'tests' / 'fixtures' / 'toy' / '__init__.py'}:DOMAIN"]
        server = subprocess.Popen(
            [*cmd, "--token-file", str(token_file)], stderr=subprocess.PIPE, text=True
        )
        try:
            assert server.stderr is not None
            url = server.stderr.readline().split()[-1]
            TOKEN = token_file.read_text().strip()
            async with httpx.AsyncClient() as c:
                while (await c.get(url + "/ready")).status_code != 200:
                    await asyncio.sleep(0.05)
            rows = [await level(url, n, max(per_level, n), server.pid) for n in levels]
        finally:
            server.terminate()
            server.wait(10)
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(
        f"{'concurrency':>11} {'episodes':>8} {'episodes/s':>10} {'p50 ms':>8} {'p95 ms':>8} "
        f"{'server CPU ms/ep':>16} {'client CPU ms/ep':>16} {'server-bound ep/s/core':>22}"
    )
    for r in rows:
        print(
            f"{r['concurrency']:>11} {r['episodes']:>8} {r['episodes_per_s']:>10.1f} "
            f"{r['tool_call_p50_ms']:>8.1f} {r['tool_call_p95_ms']:>8.1f} "
            f"{r['server_cpu_ms_per_episode']:>16.1f} {r['client_cpu_ms_per_episode']:>16.1f} "
            f"{r['server_bound_episodes_per_s_per_core']:>22.1f}"
        )
    print(json.dumps(rows))


if __name__ == "__main__":
    # Servers, clients and Ray here talk over loopback only (see scripts/loopback.py).
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from scripts.loopback import ensure

    ensure(__file__)
    parser = argparse.ArgumentParser(description="MCP gateway throughput and latency")
    parser.add_argument("--levels", default="1,50,200")
    parser.add_argument("--episodes-per-level", type=int, default=200)
    ns = parser.parse_args()
    asyncio.run(main([int(x) for x in ns.levels.split(",")], ns.episodes_per_level))
