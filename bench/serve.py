"""OpenEnv WebSocket sessions at scale, as ratios against the in-process Episode (printed).

Usage: python bench/serve.py [--levels 256,512] [--gateway 0] [--clients openenv,lean]
       [--per-message N] [--statebox PATH[,PATH...]] [--rounds 1] [--no-floors]

The server is ``statebox serve --openenv`` in its own process; the load client is a
second process (this script with ``--client``), so neither's CPU is the other's, though
on a 2-core machine they share the cores. Everything is loopback only, bounded in
count (``--levels``, at most 1024 sessions) and time (``--timeout-s`` per level).

At each level N the client opens N WebSocket sessions and holds them all open at once,
then every session plays the toy transfer task's golden trajectory (reset, get_account,
transfer, end: the end step is judged). Two load clients play it, each row labelled:

- **openenv**: openenv's own `EnvClient` (`StateboxEnvClient`), what a trainer runs;
- **lean**: the same openenv WebSocket protocol spoken with `websockets`, its frames
  encoded once (they are the same every episode): what the server carries when its
  client costs little. Every reply is still parsed and checked against the in-process
  answers (the tools at reset, each call's output, reward 1.0, done and a passing
  verdict at the end), so a broken server cannot look fast.

A session succeeds if it connected, played every step and got reward 1.0 (and, for the
lean client, every reply was the right one). The same N episodes
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
- the next batch: the held sessions then play a third episode, all reset at once
  again (a trainer's next batch, its worlds' connections back in the server's pool
  from the batches before): reset p50 from that burst's start, the server's CPU per
  action over it and its success share;
- steps per second (reset and steps, all sessions) both ways, their ratio, and the
  per-step overhead ``1/rate_ws - 1/rate_inproc`` in ms (target ≤ 1 ms at 256). The
  client's own CPU is in the WebSocket figure: the overhead is an upper bound;
- the server's own CPU per step (``/proc`` CPU time of the server process over the
  stepping phase, per action), the same beyond the in-process Episode's (minus the
  in-process run's), and the load client's CPU per step.

``--per-message N`` adds the CPU of each kind of message (reset, each tool call, the
judged end), the server's (all its threads) and the lean client's, over N episodes of
one lean session, one message at a time. ``--statebox`` runs everything against each
given ``statebox`` executable in turn (``--rounds`` times, alternating), e.g. another
checkout's, to compare two servers in one run; the load clients and the in-process
baseline are always this checkout's.

Start-up: the time from starting ``statebox serve --openenv`` to its first OpenEnv
response (``/openenv/ready``, any status), to its first ready answer (200, tasks
loaded) and to the first reset answered over the WebSocket, beside two baselines
started in the same run: the bare interpreter (``python -c pass``) and ``python -c
"import statebox"``; and ``statebox serve --help`` against the same baselines.

The floors (left out with ``--no-floors``): each round, after the statebox servers,
bench/serve_floor.py's two servers (openenv's own handler over an environment that only
replays, and a bare uvicorn WebSocket app) answer the lean client at every level with
the replies ``statebox serve`` gave (recorded once, from one episode), so every check
still passes. A last line per level gives each server's burst and next-batch reset p50
(medians over rounds), and each statebox server's excess over openenv's floor: no
server on openenv's handler can beat that handler doing no work at all.

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

import serve_floor

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


# The load clients (each in its own process).


class WrongAnswer(Exception):
    """A reply that is not what a correct server answers."""


class _Official:
    """openenv's own client (`StateboxEnvClient`): what a trainer's code uses."""

    def __init__(self, url: str, timeout_s: float) -> None:
        from statebox.serve import StateboxEnvClient

        self.env = StateboxEnvClient(
            base_url=url, connect_timeout_s=timeout_s, message_timeout_s=timeout_s
        )

    async def open(self) -> None:
        await self.env.__aenter__()

    async def reset(self) -> None:
        await self.env.reset(task_id=TASK)

    async def play(self, times: list[float] | None) -> bool:
        from statebox.serve import StateboxAction

        last = None
        for a in STEPS:
            t0 = time.perf_counter()
            last = await self.env.step(StateboxAction(**a))
            if times is not None:
                times.append(time.perf_counter() - t0)
        return last is not None and last.done and last.reward == 1.0

    async def close(self) -> None:
        await self.env.__aexit__(None, None, None)


_RESET_FRAME = json.dumps({"type": "reset", "data": {"task_id": TASK}}).encode()
_STEP_FRAMES = [json.dumps({"type": "step", "data": a}).encode() for a in STEPS]
"""The lean client's frames: the same every episode, so encoded once."""


class _Lean:
    """openenv's WebSocket protocol spoken directly (`websockets`), frames encoded once.

    What the server can carry when its client costs little. Every reply is parsed and
    checked against the in-process answers (``want``: the tool names, each call's
    output, a passing verdict): a wrong one raises `WrongAnswer`, failing the session.
    """

    def __init__(self, url: str, timeout_s: float, want: Any) -> None:
        self.url = url.replace("http://", "ws://", 1) + "/ws"
        self.timeout_s = timeout_s
        self.want = want
        self.ws: Any = None
        self.episode_id: str | None = None

    async def open(self) -> None:
        from websockets.asyncio.client import connect

        self.ws = await connect(
            self.url, open_timeout=self.timeout_s, compression=None, max_size=2**24
        )

    async def _ask(self, frame: bytes) -> dict[str, Any]:
        await self.ws.send(frame, text=True)
        reply = json.loads(await self.ws.recv(decode=False))
        if not isinstance(reply, dict) or reply.get("type") != "observation":
            raise WrongAnswer(f"not an observation: {str(reply)[:200]}")
        data: dict[str, Any] = reply["data"]
        return data

    async def reset(self) -> None:
        data = await self._ask(_RESET_FRAME)
        obs = data["observation"]
        tools = [t["name"] for t in obs["tools"]]
        if (obs["kind"], obs["task_id"], tools, data["done"], data["reward"]) != (
            "start",
            TASK,
            self.want.tools,
            False,
            None,
        ):
            raise WrongAnswer(f"reset: {str(data)[:200]}")
        self.episode_id = obs["episode_id"]

    async def play(self, times: list[float] | None) -> bool:
        last: dict[str, Any] = {}
        for i, frame in enumerate(_STEP_FRAMES):
            t0 = time.perf_counter()
            last = await self._ask(frame)
            if times is not None:
                times.append(time.perf_counter() - t0)
            obs = last["observation"]
            if obs["episode_id"] != self.episode_id:
                raise WrongAnswer(f"step {i}: another episode's answer {str(last)[:200]}")
            if i < len(self.want.outputs):
                result = obs["tool_result"] or {}
                if (obs["kind"], result.get("ok"), result.get("output"), last["done"]) != (
                    "tool_result",
                    True,
                    self.want.outputs[i],
                    False,
                ):
                    raise WrongAnswer(f"step {i}: {str(last)[:200]}")
        verdict = last.get("metadata", {}).get("verdict", {})
        return last["done"] is True and last["reward"] == 1.0 and verdict.get("passed") is True

    async def close(self) -> None:
        await self.ws.close()


CLIENTS = ("openenv", "lean")


async def _client(
    url: str,
    n: int,
    timeout_s: float,
    server_pid: int,
    stagger_s: float = 0.0,
    kind: str = "openenv",
    want: Any = None,
) -> dict[str, Any]:
    envs: list[Any] = []
    connected = 0
    all_in = asyncio.Event()
    go = asyncio.Event()
    resets: list[float] = []
    steps: list[float] = []
    staggered: list[float] = []
    ok = staggered_ok = 0

    def make() -> Any:
        return _Lean(url, timeout_s, want) if kind == "lean" else _Official(url, timeout_s)

    async def second(env: Any, i: int) -> None:
        nonlocal staggered_ok
        await asyncio.sleep(i * stagger_s / n)
        t0 = time.perf_counter()
        await env.reset()
        staggered.append(time.perf_counter() - t0)
        passed = await env.play(None)  # awaited first: `x += await` would lose updates
        staggered_ok += passed

    async def one() -> None:
        nonlocal connected, ok
        env = make()
        await env.open()
        envs.append(env)
        connected += 1
        if connected == n:
            all_in.set()
        await go.wait()
        await env.reset()
        resets.append(time.perf_counter() - burst)  # from the burst's start: queueing counts
        passed = await env.play(steps)
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
    # The next batch: every held session resets at once again, as a trainer's next
    # GRPO batch does; the worlds the first batch closed are there to be reused.
    again: list[float] = []
    steps2: list[float] = []
    again_cpu = 0.0
    again_ok = 0
    if not pending:

        async def next_batch(env: Any) -> None:
            nonlocal again_ok
            await env.reset()
            again.append(time.perf_counter() - burst2)
            passed = await env.play(steps2)
            again_ok += passed

        cpu2 = _cpu_s(server_pid)
        burst2 = time.perf_counter()
        done3, pending3 = await asyncio.wait(
            [asyncio.create_task(next_batch(env)) for env in envs], timeout=timeout_s
        )
        again_cpu = _cpu_s(server_pid) - cpu2
        for t in pending3:
            t.cancel()
        errors += sorted({repr(t.exception())[:120] for t in done3 if t.exception() is not None})
    for env in envs:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(env.close(), 5)
    return {
        "next_batch_reset_p50_ms": _p50_ms(again),
        "next_batch_server_cpu_ms_per_action": again_cpu * 1000 / max(1, len(again) + len(steps2)),
        "next_batch_succeeded": again_ok,
        "client": kind,
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
    url: str, n: int, timeout_s: float, server_pid: int, stagger_s: float, kind: str, want: Any
) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--client", url, "--sessions", str(n)]
    cmd += ["--server-pid", str(server_pid), "--stagger-s", str(stagger_s)]
    cmd += ["--client-kind", kind, "--expected", want.to_json()]
    run = subprocess.run(
        [*cmd, "--timeout-s", str(timeout_s)],
        capture_output=True,
        text=True,
        timeout=timeout_s * 3 + 30,
        check=True,
    )
    result: dict[str, Any] = json.loads(run.stdout.strip().splitlines()[-1])
    return result


class _Metered(_Lean):
    """The lean client, charging the server's CPU (and its own) over each message to its kind."""

    def __init__(self, url: str, want: Any, pid: int) -> None:
        super().__init__(url, 30.0, want)
        self.pid = pid
        self.kinds = iter(())
        self.server: dict[str, list[float]] = {}
        self.client: dict[str, list[float]] = {}

    async def _ask(self, frame: bytes) -> dict[str, Any]:
        from gateway import server_cpu_s

        kind = next(self.kinds)
        cpu0, own0 = server_cpu_s(self.pid), time.process_time()
        data = await super()._ask(frame)
        self.server.setdefault(kind, []).append(server_cpu_s(self.pid) - cpu0)
        self.client.setdefault(kind, []).append(time.process_time() - own0)
        return data


MESSAGES = ["reset", *(a.get("tool", "end (judged)") for a in STEPS)]
"""The kinds of message an episode sends, in order (`per_message`'s columns)."""


async def per_message(url: str, episodes: int, server_pid: int, want: Any) -> dict[str, Any]:
    """Mean CPU ms per message of each kind, server's and lean client's, one at a time.

    One session plays ``episodes`` episodes, one message in flight, so the server's CPU
    between two readings (all its threads, ``/proc`` schedstat) is that message's; the
    first five episodes warm the server and are left out.
    """
    env = _Metered(url, want, server_pid)
    await env.open()
    try:
        for i in range(episodes + 5):
            if i == 5:
                env.server.clear()
                env.client.clear()
            env.kinds = iter(MESSAGES)
            await env.reset()
            if not await env.play(None):
                raise WrongAnswer("the episode did not pass")
    finally:
        await env.close()
    return {
        "episodes": episodes,
        "server_ms": {k: 1000 * statistics.mean(v) for k, v in env.server.items()},
        "client_ms": {k: 1000 * statistics.mean(v) for k, v in env.client.items()},
    }


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


def _expected() -> Any:
    """The in-process answers of the episode's tool calls (bench/gateway.py's `Expected`)."""
    sys.path.insert(0, str(ROOT / "bench"))
    import gateway

    calls = [(a["tool"], a["args"]) for a in STEPS if a["kind"] == "call_tool"]
    want = gateway.expected(calls)
    assert want.passed, "the golden trajectory must pass in-process"
    return want


def _serve(statebox: str, tmp: Path) -> tuple[subprocess.Popen[str], str, dict[str, Any]]:
    """Start ``statebox serve --openenv``; its URL and start-up times (seconds from start)."""
    import httpx

    token_file = tmp / "token"
    token_file.unlink(missing_ok=True)
    cmd = [statebox, "serve", "--openenv", "--tasks", str(TASKS), "--domain", TOY]
    cmd += ["--port", "0", "--max-per-client", str(MAX_SESSIONS + 64)]
    cmd += ["--token-file", str(token_file)]
    t_start = time.perf_counter()
    server = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
    assert server.stderr is not None
    url = server.stderr.readline().split()[-1]
    sys.path.insert(0, str(ROOT / "bench"))
    from gateway import drain

    drain(server.stderr)
    first = ready = None
    with httpx.Client() as c:
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
    start = {"first_response_s": first, "ready_s": ready, "reset_s": first_reset}
    start["token"] = token_file.read_text().strip()
    return server, url, start


FLOORS = {"openenv": "floor: openenv, no env", "uvicorn": "floor: bare uvicorn"}
"""bench/serve_floor.py's servers, by kind, and their rows' server labels."""


def _floor_server(kind: str, replies: Path) -> tuple[subprocess.Popen[str], str]:
    """Start bench/serve_floor.py's ``kind`` server (its own process); its URL."""
    cmd = [sys.executable, str(ROOT / "bench" / "serve_floor.py"), "--kind", kind]
    server = subprocess.Popen([*cmd, "--replies", str(replies)], stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    url = server.stdout.readline().strip()
    if not url.startswith("http://127.0.0.1:"):
        server.kill()
        raise RuntimeError(f"floor server {kind} did not start: {url!r}")
    return server, url


def main(
    levels: list[int],
    timeout_s: float,
    gateway_n: int,
    stagger_s: float,
    clients: list[str],
    servers: list[str],
    rounds: int,
    per_message_n: int,
    floors: bool = True,
) -> None:
    base = start_baselines()
    want = _expected()
    load0 = os.getloadavg()
    rows: list[dict[str, Any]] = []
    per: list[dict[str, Any]] = []
    starts: list[dict[str, Any]] = []
    gw = None
    with tempfile.TemporaryDirectory() as tmp:
        replies = Path(tmp) / "replies.json"
        for r in range(rounds):
            for statebox in servers:
                server, url, start = _serve(statebox, Path(tmp))
                token = start.pop("token")
                starts.append(start | {"server": statebox, "round": r})
                try:
                    if floors and not replies.exists():
                        ws_url = url.replace("http://", "ws://", 1) + "/openenv/ws"
                        recorded = asyncio.run(serve_floor.record(ws_url, *_frames()))
                        replies.write_text(json.dumps(recorded))
                    if per_message_n:
                        pm = _per_message_process(url + "/openenv", per_message_n, server.pid, want)
                        per.append(pm | {"server": statebox, "round": r})
                    for n in levels:
                        for kind in clients:
                            ws = _load_client(
                                url + "/openenv", n, timeout_s, server.pid, stagger_s, kind, want
                            )
                            inproc = asyncio.run(_in_process(n))
                            rows.append(_row(ws, inproc) | {"server": statebox, "round": r})
                    if gateway_n and r == 0 and statebox == servers[0]:
                        gw = _gateway(url, token, gateway_n, server.pid)
                finally:
                    server.terminate()
                    server.wait(10)
            # The floors in the same round, with the lean client (the one whose own cost
            # is small), answering with the replies statebox gave.
            for kind, label in FLOORS.items() if floors else ():
                floor, url = _floor_server(kind, replies)
                try:
                    for n in levels:
                        ws = _load_client(url, n, timeout_s, floor.pid, stagger_s, "lean", want)
                        inproc = asyncio.run(_in_process(n))
                        rows.append(_row(ws, inproc) | {"server": label, "round": r})
                finally:
                    floor.terminate()
                    floor.wait(10)
    load1 = os.getloadavg()
    _print(base, starts, rows, per, gw, load0, load1)
    print(json.dumps({"levels": rows, "per_message": per, "gateway": gw, "start": starts}))


def _frames() -> tuple[bytes, list[bytes]]:
    return _RESET_FRAME, _STEP_FRAMES


def _per_message_process(url: str, episodes: int, pid: int, want: Any) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--client", url, "--client-kind", "per-message"]
    cmd += ["--sessions", str(episodes), "--server-pid", str(pid), "--expected", want.to_json()]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=True).stdout
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return result


def _row(ws: dict[str, Any], inproc: dict[str, Any]) -> dict[str, Any]:
    n = ws["sessions"]
    rate_ws = ws["actions"] / ws["wall_s"]
    rate_in = inproc["actions"] / inproc["wall_s"]
    return {
        "sessions": n,
        "ws": ws,
        "in_process": inproc,
        "success_share": ws["succeeded"] / n,
        "actions_per_s_ratio": rate_ws / rate_in,
        "overhead_ms_per_step": 1000 / rate_ws - 1000 / rate_in,
        # CPU the server spent per action beyond what the Episode itself costs in-process.
        "server_cpu_overhead_ms_per_step": 1000
        * (ws["server_cpu_s"] - inproc["cpu_s"])
        / max(ws["actions"], 1),
        "server_cpu_ms_per_step": 1000 * ws["server_cpu_s"] / max(ws["actions"], 1),
        "client_cpu_ms_per_step": 1000 * ws["client_cpu_s"] / max(ws["actions"], 1),
    }


def _print(
    base: dict[str, float],
    starts: list[dict[str, Any]],
    rows: list[dict[str, Any]],
    per: list[dict[str, Any]],
    gw: dict[str, Any] | None,
    load0: tuple[float, ...],
    load1: tuple[float, ...],
) -> None:
    print(
        f"load average before {' '.join(f'{x:.2f}' for x in load0)}, "
        f"after {' '.join(f'{x:.2f}' for x in load1)}, on {os.cpu_count()} cores"
    )
    py, imp = base["python"], base["import_statebox"]
    print(
        f"start-up baselines: bare python {py:.2f} s, python + import statebox {imp:.2f} s, "
        f"statebox serve --help {base['serve_help']:.2f} s ({base['serve_help'] / py:.1f}x, "
        f"{base['serve_help'] / imp:.1f}x)"
    )
    for st in starts:
        cells = []
        for label, key in (
            ("first OpenEnv response", "first_response_s"),
            ("first ready", "ready_s"),
            ("first WebSocket reset", "reset_s"),
        ):
            t = st[key]
            cells.append(f"{label} none" if t is None else f"{label} {t:.2f} s ({t / imp:.1f}x)")
        print(f"statebox serve {str(st['server'])[-40:]} round {st['round']}: " + ", ".join(cells))
    if per:
        print(
            "CPU ms per message, one lean session, one message at a time: server (all its "
            "threads) / lean client"
        )
        print(f"{'server':<32} {'round':>5} " + " ".join(f"{k:>17}" for k in MESSAGES))
        for pm in per:
            cells = " ".join(
                f"{pm['server_ms'][k]:>8.3f}/{pm['client_ms'][k]:<8.3f}" for k in MESSAGES
            )
            print(f"{str(pm['server'])[-32:]:<32} {pm['round']:>5} {cells}")
    print(
        "reset p50 (burst): all N resets sent at once, each timed from the burst's start, "
        "over the WebSocket / in-process (N resets on one loop, timed the same way); "
        "CPU ms per action (reset or step) over the level: the server's, the server's "
        "beyond the in-process Episode's, and the load client's"
    )
    print(
        f"{'server':<24} {'round':>5} {'client':<8} {'sessions':>8} {'held':>5} "
        f"{'success':>7} {'reset p50 ws/in ms':>19} {'ratio':>6} {'actions/s ws/in':>16} "
        f"{'ratio':>6} {'overhead ms/step':>16} {'server CPU':>10} {'beyond':>7} "
        f"{'client CPU':>10}"
    )
    for row in rows:
        ws, inproc, n = row["ws"], row["in_process"], row["sessions"]
        rate_ws = ws["actions"] / ws["wall_s"]
        rate_in = inproc["actions"] / inproc["wall_s"]
        print(
            f"{str(row['server'])[-24:]:<24} {row['round']:>5} {ws['client']:<8} {n:>8} "
            f"{ws['held']:>5} {row['success_share']:>7.3f} "
            f"{ws['reset_p50_ms']:>9.1f}/{inproc['reset_p50_ms']:<9.2f} "
            f"{ws['reset_p50_ms'] / inproc['reset_p50_ms']:>6.1f} "
            f"{rate_ws:>7.0f}/{rate_in:<8.0f} {row['actions_per_s_ratio']:>6.3f} "
            f"{row['overhead_ms_per_step']:>16.3f} {row['server_cpu_ms_per_step']:>10.3f} "
            f"{row['server_cpu_overhead_ms_per_step']:>7.3f} {row['client_cpu_ms_per_step']:>10.3f}"
        )
        print(
            f"{'':<24} in-process reset alone p50 {inproc['reset_alone_p50_ms']:.2f} ms; "
            f"staggered (resets spread over {ws['stagger_s']:.1f} s, not a burst): "
            f"reset p50 {ws['staggered_reset_p50_ms']:.1f} ms, "
            f"success {ws['staggered_succeeded'] / n:.3f}; the next batch (all reset at once "
            f"again, the first batch's worlds closed): reset p50 "
            f"{ws['next_batch_reset_p50_ms']:.1f} ms, server CPU "
            f"{ws['next_batch_server_cpu_ms_per_action']:.3f} ms per action, success "
            f"{ws['next_batch_succeeded'] / n:.3f}"
        )
        if ws["errors"]:
            print(f"{'':<24} errors: {ws['errors']}")
    _print_floors(rows)
    if gw is not None:
        for client, g in gw["clients"].items():
            ratio = g["episodes_per_s"] / gw["in_process_episodes_per_s"]
            print(
                f"MCP gateway at {gw['concurrency']}, {client} client: "
                f"{g['episodes_per_s']:.1f} episodes/s, in-process "
                f"{gw['in_process_episodes_per_s']:.0f}/s (ratio {ratio:.4f}), tool call p50 "
                f"{g['tool_call_p50_ms']:.1f} ms, passed {g['passed_share']:.3f}; CPU per "
                f"episode: server {g['server_cpu_ms_per_episode']:.1f} ms, load client "
                f"{g['client_cpu_ms_per_episode']:.1f} ms"
            )


RESET_TARGET_MS = 20.0
"""#18's target for the burst reset p50 at 256 sessions."""


def floor_summary(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per level with floor rows: each server's median burst and next-batch reset p50.

    Only lean-client rows count (the floors are played by the lean client alone), each
    figure the median over rounds; ``in_process`` is the Episode's own burst on one loop.
    """
    out = []
    for n in sorted({row["sessions"] for row in rows}):
        mine = [row for row in rows if row["sessions"] == n and row["ws"]["client"] == "lean"]
        labels = list(dict.fromkeys(str(row["server"]) for row in mine))
        if not set(FLOORS.values()) & set(labels):
            continue
        med = {
            label: (
                statistics.median(r["ws"]["reset_p50_ms"] for r in mine if r["server"] == label),
                statistics.median(
                    r["ws"]["next_batch_reset_p50_ms"] for r in mine if r["server"] == label
                ),
            )
            for label in labels
        }
        inproc = statistics.median(r["in_process"]["reset_p50_ms"] for r in mine)
        rounds = len({r["round"] for r in mine})
        out.append({"sessions": n, "rounds": rounds, "reset_p50_ms": med, "in_process": inproc})
    return out


def _print_floors(rows: list[dict[str, Any]]) -> None:
    for level in floor_summary(rows):
        n, med, inproc = level["sessions"], level["reset_p50_ms"], level["in_process"]
        cells = [
            f"{label} {burst:.1f} ms (next batch {nxt:.1f})" for label, (burst, nxt) in med.items()
        ]
        print(
            f"burst reset p50 at {n} sessions, lean client, median of {level['rounds']} "
            f"round(s) (target at 256: {RESET_TARGET_MS:.0f} ms): " + "; ".join(cells)
        )
        floor = med.get(FLOORS["openenv"])
        if floor is None:
            continue
        # No server on openenv's handler can beat that handler doing no work at all.
        beyond = [
            f"{label} {burst - floor[0]:+.1f} ms (next batch {nxt - floor[1]:+.1f})"
            for label, (burst, nxt) in med.items()
            if label not in FLOORS.values()
        ]
        print(
            f"{'':<24} beyond openenv's floor (the least a server on its handler takes): "
            + "; ".join(beyond)
            + f"; the Episode's own burst on one loop, in-process: {inproc:.1f} ms"
        )


def _client_main(ns: argparse.Namespace) -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    from gateway import Expected

    want = Expected.from_json(ns.expected) if ns.expected else None
    if ns.client_kind == "per-message":
        out = asyncio.run(per_message(ns.client, ns.sessions, ns.server_pid, want))
    else:
        run = _client(
            ns.client,
            ns.sessions,
            ns.timeout_s,
            ns.server_pid,
            ns.stagger_s,
            ns.client_kind,
            want,
        )
        out = asyncio.run(run)
    print(json.dumps(out))


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
    parser.add_argument(
        "--clients",
        default=",".join(CLIENTS),
        help="comma-separated load clients: openenv (openenv's EnvClient), lean (default: both)",
    )
    parser.add_argument(
        "--statebox",
        default=str(Path(sys.executable).with_name("statebox")),
        help="the statebox executable(s) to serve with, comma-separated (alternated)",
    )
    parser.add_argument("--rounds", type=int, default=1, help="rounds over the --statebox list")
    parser.add_argument(
        "--per-message",
        type=int,
        default=0,
        metavar="N",
        help="also CPU per message kind over N sequential lean episodes",
    )
    parser.add_argument(
        "--no-floors",
        action="store_true",
        help="leave out the floor servers (bench/serve_floor.py) run beside statebox's",
    )
    parser.add_argument("--client", help=argparse.SUPPRESS)
    parser.add_argument("--client-kind", default="openenv", help=argparse.SUPPRESS)
    parser.add_argument("--expected", help=argparse.SUPPRESS)
    parser.add_argument("--sessions", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--server-pid", type=int, default=0, help=argparse.SUPPRESS)
    ns = parser.parse_args()
    if ns.client:
        _client_main(ns)
    else:
        ensure(__file__)
        wanted = [int(x) for x in ns.levels.split(",")]
        if not wanted or min(wanted) < 1 or max(wanted) > MAX_SESSIONS:
            parser.error(f"--levels: 1..{MAX_SESSIONS} sessions")
        kinds = [c for c in ns.clients.split(",") if c]
        if not kinds or not set(kinds) <= set(CLIENTS):
            parser.error(f"--clients: comma-separated from {', '.join(CLIENTS)}")
        main(
            wanted,
            ns.timeout_s,
            ns.gateway,
            ns.stagger_s,
            kinds,
            ns.statebox.split(","),
            ns.rounds,
            ns.per_message,
            not ns.no_floors,
        )
