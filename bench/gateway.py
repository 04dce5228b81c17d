"""MCP gateway throughput and latency, two load clients against in-process (printed, not asserted).

Usage: python bench/gateway.py [--levels 1,50,200] [--episodes-per-level 200]
       [--clients lean,official] [--statebox PATH[,PATH...]] [--rounds 1] [--per-request N]

The server is `statebox serve` in its own process (as in use); each load client runs in
a process of its own (this script with ``--client``), so neither's CPU is the other's,
though on a 2-core machine they share the cores. Each episode, over real loopback HTTP:
the control API creates a session of the toy transfer task; on the session's MCP
endpoint the agent sends ``initialize``, ``notifications/initialized`` and
``tools/list``, and makes two tool calls (get_account, transfer); the control API
ends and judges it, then deletes the session. Two clients play that episode:

- **official**: the ``mcp`` SDK's `ClientSession` over ``streamable_http_client`` (one
  httpx client per episode, all sharing one TLS context `SSL`: httpx builds a fresh one
  by default, ~25 ms of CPU that a real agent pays once, not per episode). Its first
  ``call_tool`` sends the ``tools/list`` itself;
- **lean**: asyncio streams, one HTTP/1.1 keep-alive connection per concurrent
  episode, JSON-RPC bodies encoded once: what the server can carry when the client
  costs little.

Both check every answer: the tool list, each call's result against the result the
same call gives in-process, and the verdict (must pass). A wrong answer, a refused
request or a broken connection is a failed episode, counted, never retried.

Beside them, the same trajectory (reset, the two calls, end, judge) runs on the
`Episode` in this process at the same concurrency, measured in the same run: the
baseline of the ratio. It is the trajectory without any transport, MCP handshake or
session bookkeeping, so the ratio is what serving costs on top of the episode.

Prints, per server, level and client: episodes per second (wall clock, whole episode),
the ratio to in-process, p50 and p95 latency of one tool call (client-side round
trip), the share of episodes passed (must be 1.0), and the CPU each side spent per
episode: the server's (``/proc`` scheduler time of all its threads over the level)
and the load client's (``time.process_time`` of its process over the level). Both
share the machine's cores, so episodes/s is bounded by their sum; ``projected
server-bound episodes/s per core`` (1000 / server CPU ms per episode) is a projection,
not a measured rate: what one core of server could carry with the client's CPU
elsewhere.

``--per-request N`` adds the server's CPU per request of each kind (create the session,
initialize, initialized (the notification), tools/list, tools/call, end+judge, delete,
and ``GET /health`` as the HTTP floor) over N episodes played one request at a time.

``--statebox`` runs the whole thing against each given ``statebox`` executable in turn
(``--rounds`` times, alternating), e.g. another checkout's, to compare two servers in
one run; the in-process baseline is always this checkout's code.
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
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

ROOT = Path(__file__).resolve().parents[1]
TOKEN = ""
TASK = "toy.transfer.train.001"
TASKS = ROOT / "tests" / "serve" / "tasks"
TOY = ROOT / "tests" / "fixtures" / "toy" / "__init__.py"
SSL = ssl.create_default_context()
"""Built once: loopback is plain HTTP, but every client would otherwise build its own."""
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("get_account", {"account_id": "A1"}),
    ("transfer", {"src": "A1", "dst": "A2", "amount": 40}),
]
"""The episode's tool calls: the task's golden trajectory."""
PROTOCOL = "2025-06-18"
CLIENTS = ("lean", "official")


@dataclass
class Expected:
    """What a correct server answers the episode with (from the in-process run)."""

    tools: list[str]
    """The tool names of the task's start, in order."""
    outputs: list[Any]
    """Each call's result (JSON values), in call order."""
    passed: bool
    """The verdict."""
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=lambda: list(CALLS))

    def to_json(self) -> str:
        return json.dumps(self.__dict__)

    @classmethod
    def from_json(cls, text: str) -> Expected:
        d = json.loads(text)
        return cls(d["tools"], d["outputs"], d["passed"], [tuple(c) for c in d["calls"]])


def drain(stream: Any) -> list[int]:
    """Read a server's stderr to its end on a thread; returns a one-item count of its lines.

    A pipe nobody reads fills at 64 KiB and then blocks the server's next write, which
    would be measured as the server being slow; the count shows what it logged.
    """
    lines = [0]

    def read() -> None:
        for _ in stream:
            lines[0] += 1

    threading.Thread(target=read, daemon=True).start()
    return lines


def server_cpu_s(pid: int) -> float:
    """CPU seconds all of a process's live threads have run (``/proc/PID/task/*/schedstat``).

    A thread that ends between the listing and its read is left out (its CPU with it:
    the servers measured here keep their threads for their whole life).
    """
    total = 0
    for t in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((t / "schedstat").read_text().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            continue
    return total / 1e9


# The in-process baseline (and where the expected answers come from).


def _catalog() -> Any:
    from statebox.serve import TaskCatalog
    from statebox.tasks import load_tasks

    sys.path.insert(0, str(ROOT / "tests"))
    from fixtures.toy import make_domain

    return TaskCatalog(load_tasks(TASKS), {"toy": make_domain()})


async def _in_process_episode(cat: Any, calls: list[tuple[str, dict[str, Any]]]) -> Expected:
    from statebox.episode import CallTool, End
    from statebox.tools import ToolCall

    task = cat.task(TASK)
    episode = cat.episode(task)
    obs = await episode.reset()
    outputs = []
    for name, args in calls:
        step = await episode.step(CallTool(call=ToolCall(tool=name, args=dict(args))))
        assert step.tool_result is not None
        outputs.append(step.tool_result.output if step.tool_result.ok else None)
    await episode.step(End(text="done"))
    verdict = await cat.judge(task, episode)
    episode.close()
    tools = [t.name for t in obs.tools]
    return Expected(tools, json.loads(json.dumps(outputs)), verdict.passed, list(calls))


def expected(calls: list[tuple[str, dict[str, Any]]] = CALLS) -> Expected:
    """The answers of one in-process episode playing ``calls``."""
    return asyncio.run(_in_process_episode(_catalog(), calls))


async def in_process(concurrency: int, episodes: int) -> dict[str, float]:
    """Episodes/s and CPU per episode of the trajectory on the `Episode` (no transport)."""
    cat = _catalog()
    await _in_process_episode(cat, CALLS)  # warm: the task's template and golden state
    queue = iter(range(episodes))

    async def worker() -> None:
        for _ in queue:
            await _in_process_episode(cat, CALLS)

    t0, cpu0 = time.perf_counter(), time.process_time()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    return {"episodes_per_s": episodes / wall, "cpu_ms_per_episode": 1000 * cpu / episodes}


# The official client.


async def episode(
    c: httpx.AsyncClient, latencies: list[float], want: Expected | None = None
) -> bool:
    """One episode with the official MCP client; whether every answer was right."""
    h = {"Authorization": f"Bearer {TOKEN}"}
    info = (await c.post("/control/sessions", json={"task_id": TASK}, headers=h)).json()
    mh = {"Authorization": f"Bearer {info['mcp_token']}"}
    right = True
    async with (
        httpx.AsyncClient(headers=mh, timeout=120, verify=SSL) as http,
        streamable_http_client(info["mcp_url"], http_client=http) as (read, write, _),
        ClientSession(read, write) as m,
    ):
        await m.initialize()
        for i, (name, args) in enumerate(want.calls if want else CALLS):
            t0 = time.perf_counter()
            r = await m.call_tool(name, args)
            latencies.append(time.perf_counter() - t0)
            if want is not None:
                right = (
                    right and not r.isError and r.structuredContent == {"result": want.outputs[i]}
                )
    sid = info["session_id"]
    v = await c.post(f"/control/sessions/{sid}/verdict", json={"text": "done"}, headers=h)
    await c.delete(f"/control/sessions/{sid}", headers=h)
    return right and bool(v.json()["passed"]) == (want.passed if want else True)


async def level(
    url: str,
    concurrency: int,
    episodes: int,
    server_pid: int | None = None,
    want: Expected | None = None,
) -> dict[str, Any]:
    """The official client at ``concurrency`` episodes in flight."""
    latencies: list[float] = []
    queue = iter(range(episodes))
    passed: list[bool] = []
    limits = httpx.Limits(max_connections=concurrency + 10)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits, verify=SSL) as c:

        async def worker() -> None:
            for _ in queue:
                try:
                    passed.append(await episode(c, latencies, want))
                except Exception:  # a refused or broken request fails its episode
                    passed.append(False)

        server0 = server_cpu_s(server_pid) if server_pid else 0.0
        t0, client0 = time.perf_counter(), time.process_time()
        async with asyncio.TaskGroup() as tg:
            for _ in range(concurrency):
                tg.create_task(worker())
        wall, client = time.perf_counter() - t0, time.process_time() - client0
        server = server_cpu_s(server_pid) - server0 if server_pid else float("nan")
    return _row("official", concurrency, episodes, wall, latencies, passed, server, client)


def _row(
    client_name: str,
    concurrency: int,
    episodes: int,
    wall: float,
    latencies: list[float],
    passed: list[bool],
    server: float,
    client: float,
) -> dict[str, Any]:
    q = statistics.quantiles(latencies, n=20) if len(latencies) > 1 else latencies * 19
    return {
        "client": client_name,
        "concurrency": concurrency,
        "episodes": episodes,
        "episodes_per_s": episodes / wall,
        "tool_call_p50_ms": statistics.median(latencies) * 1000 if latencies else float("nan"),
        "tool_call_p95_ms": q[18] * 1000 if q else float("nan"),
        "passed_share": sum(passed) / len(passed),
        "failed": len(passed) - sum(passed),
        "server_cpu_ms_per_episode": 1000 * server / episodes,
        "client_cpu_ms_per_episode": 1000 * client / episodes,
        "server_bound_episodes_per_s_per_core": episodes / server if server else float("nan"),
    }


# The lean client.


class WrongAnswer(Exception):
    """A response that is not what a correct server answers."""


class _Connection:
    """One HTTP/1.1 keep-alive connection: a request written at once, its answer read."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, head: bytes, body: bytes = b"") -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        self.writer.write(head + body)
        raw = await self.reader.readuntil(b"\r\n\r\n")
        status, length = int(raw[9:12]), 0
        for line in raw.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            name = name.strip().lower()
            if name == b"content-length":
                length = int(value)
            elif name == b"transfer-encoding":
                raise WrongAnswer("a chunked answer (the gateway sends a length)")
        return status, await self.reader.readexactly(length) if length else b""

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


def _rpc(rid: int, method: str, params: dict[str, Any] | None = None) -> bytes:
    body: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if rid >= 0:
        body["id"] = rid
    if params is not None:
        body["params"] = params
    return json.dumps(body).encode()


class LeanEpisodes:
    """The episode as pre-encoded requests, and the checks of every answer.

    Args:
        url: The server's base URL.
        token: The control API's operator token.
        want: The right answers.
    """

    def __init__(self, url: str, token: str, want: Expected) -> None:
        parts = urlsplit(url)
        assert parts.hostname is not None and parts.port is not None
        self.host, self.port, self.want = parts.hostname, parts.port, want
        self._host = f"Host: {parts.hostname}:{parts.port}\r\n".encode()
        self._operator = f"Authorization: Bearer {token}\r\n".encode()
        self._create = json.dumps({"task_id": TASK}).encode()
        self._end = json.dumps({"text": "done"}).encode()
        init = {
            "protocolVersion": PROTOCOL,
            "capabilities": {},
            "clientInfo": {"name": "statebox-bench", "version": "1"},
        }
        self._mcp = [_rpc(0, "initialize", init), _rpc(-1, "notifications/initialized")]
        self._mcp.append(_rpc(1, "tools/list"))
        self._calls = [
            _rpc(2 + i, "tools/call", {"name": name, "arguments": args})
            for i, (name, args) in enumerate(want.calls)
        ]

    def _head(self, method: str, path: str, auth: bytes, body: bytes, mcp: bool) -> bytes:
        head = f"{method} {path} HTTP/1.1\r\n".encode() + self._host + auth
        if mcp:
            head += b"Accept: application/json, text/event-stream\r\n"
            head += f"MCP-Protocol-Version: {PROTOCOL}\r\n".encode()
        if body:
            head += b"Content-Type: application/json\r\n"
        return head + f"Content-Length: {len(body)}\r\n\r\n".encode()

    async def play(self, conn: _Connection, latencies: list[float]) -> None:
        """One episode on ``conn``.

        Raises:
            WrongAnswer: Any answer is not the right one (the session is deleted first).
        """
        status, raw = await conn.request(
            self._head("POST", "/control/sessions", self._operator, self._create, False),
            self._create,
        )
        if status != 201:
            raise WrongAnswer(f"create: {status} {raw[:200]!r}")
        info = json.loads(raw)
        try:
            await self._mcp_steps(conn, info, latencies)
            sid = info["session_id"]
            path = f"/control/sessions/{sid}/verdict"
            status, raw = await conn.request(
                self._head("POST", path, self._operator, self._end, False), self._end
            )
            if status != 200 or json.loads(raw).get("passed") is not self.want.passed:
                raise WrongAnswer(f"verdict: {status} {raw[:200]!r}")
        finally:
            path = f"/control/sessions/{info['session_id']}"
            status, raw = await conn.request(self._head("DELETE", path, self._operator, b"", False))
        if status != 204:
            raise WrongAnswer(f"delete: {status} {raw[:200]!r}")

    async def _mcp_steps(
        self, conn: _Connection, info: dict[str, Any], latencies: list[float]
    ) -> None:
        path = urlsplit(info["mcp_url"]).path
        auth = f"Authorization: Bearer {info['mcp_token']}\r\n".encode()

        async def post(body: bytes) -> tuple[int, bytes]:
            return await conn.request(self._head("POST", path, auth, body, True), body)

        status, raw = await post(self._mcp[0])
        result = json.loads(raw).get("result", {}) if status == 200 else {}
        if result.get("protocolVersion") != PROTOCOL or "serverInfo" not in result:
            raise WrongAnswer(f"initialize: {status} {raw[:200]!r}")
        status, raw = await post(self._mcp[1])
        if status != 202 or raw:
            raise WrongAnswer(f"notifications/initialized: {status} {raw[:200]!r}")
        status, raw = await post(self._mcp[2])
        tools = json.loads(raw).get("result", {}).get("tools", []) if status == 200 else []
        if [t.get("name") for t in tools] != self.want.tools:
            raise WrongAnswer(f"tools/list: {status} {raw[:200]!r}")
        for i, body in enumerate(self._calls):
            t0 = time.perf_counter()
            status, raw = await post(body)
            latencies.append(time.perf_counter() - t0)
            reply = json.loads(raw) if status == 200 else {}
            result = reply.get("result", {})
            if (
                reply.get("id") != 2 + i
                or result.get("isError") is not False
                or result.get("structuredContent") != {"result": self.want.outputs[i]}
            ):
                raise WrongAnswer(f"tools/call {i}: {status} {raw[:200]!r}")


async def lean_level(
    url: str,
    token: str,
    concurrency: int,
    episodes: int,
    want: Expected,
    server_pid: int | None = None,
    errors: list[str] | None = None,
) -> dict[str, Any]:
    """The lean client at ``concurrency`` episodes in flight, a connection each."""
    plan = LeanEpisodes(url, token, want)
    latencies: list[float] = []
    passed: list[bool] = []
    queue = iter(range(episodes))
    errors = errors if errors is not None else []

    async def worker() -> None:
        conn = _Connection(plan.host, plan.port)
        try:
            for _ in queue:
                try:
                    await plan.play(conn, latencies)
                    passed.append(True)
                except Exception as e:  # a wrong or broken answer fails its episode
                    passed.append(False)
                    errors.append(f"{type(e).__name__}: {e}")
                    conn.close()  # whatever came after a wrong answer is not trusted
        finally:
            conn.close()

    server0 = server_cpu_s(server_pid) if server_pid else 0.0
    t0, client0 = time.perf_counter(), time.process_time()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    wall, client = time.perf_counter() - t0, time.process_time() - client0
    server = server_cpu_s(server_pid) - server0 if server_pid else float("nan")
    return _row("lean", concurrency, episodes, wall, latencies, passed, server, client)


# Server CPU per request, one sequential lean client.


class _MeteredConnection(_Connection):
    """A connection that charges the server's CPU over each request to its kind."""

    def __init__(self, host: str, port: int, pid: int, spent: dict[str, list[float]]) -> None:
        super().__init__(host, port)
        self.pid, self.spent = pid, spent

    async def request(self, head: bytes, body: bytes = b"") -> tuple[int, bytes]:
        kind = _kind(head, body)
        cpu0 = server_cpu_s(self.pid)
        answer = await super().request(head, body)
        self.spent.setdefault(kind, []).append(server_cpu_s(self.pid) - cpu0)
        return answer


def _kind(head: bytes, body: bytes) -> str:
    method, path = head.split(b"\r\n", 1)[0].decode().split()[:2]
    if path.startswith("/mcp/"):  # the JSON-RPC method (initialized: the notification)
        return str(json.loads(body)["method"]).removeprefix("notifications/")
    if path == "/control/sessions":
        return "create"
    if path.endswith("/verdict"):
        return "end+judge"
    if method == "DELETE":
        return "delete"
    return f"{method} {path}"


async def per_request(
    url: str, token: str, episodes: int, want: Expected, server_pid: int
) -> dict[str, Any]:
    """Mean server CPU ms per request of each kind, over sequential lean episodes.

    One request at a time, so the server's CPU between two readings is that request's
    (and whatever the server did after answering the previous one). ``GET /health``
    after each episode is the HTTP floor, measured the same way. ``episode_ms``: the
    server's CPU per episode (every request but the floor's).
    """
    plan = LeanEpisodes(url, token, want)
    spent: dict[str, list[float]] = {}
    conn = _MeteredConnection(plan.host, plan.port, server_pid, spent)
    health = f"GET /health HTTP/1.1\r\nHost: {plan.host}:{plan.port}\r\n\r\n".encode()
    try:
        for i in range(episodes + 5):
            if i == 5:
                spent.clear()  # the first episodes warm the server's caches
            await plan.play(conn, [])
            status, _ = await conn.request(health)
            assert status == 200
    finally:
        conn.close()
    floor = "GET /health"
    mean = {k: 1000 * statistics.mean(v) for k, v in spent.items()}
    total = sum(sum(v) for k, v in spent.items() if k != floor)
    return {
        "client": "per-request",
        "episodes": episodes,
        "ms_per_request": mean,
        "episode_ms": 1000 * total / episodes,
    }


# The driver.


def client_process(
    client: str, url: str, token: str, n: int, episodes: int, pid: int, want: Expected
) -> dict[str, Any]:
    # ``--token=...``: a token may start with "-", which argparse would read as an option.
    cmd = [sys.executable, __file__, "--client", client, f"--url={url}", f"--token={token}"]
    cmd += ["--concurrency", str(n), "--episodes", str(episodes), "--server-pid", str(pid)]
    out = subprocess.run(
        [*cmd, "--expected", want.to_json()], check=True, capture_output=True, text=True
    ).stdout
    row: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return row


def _serve(statebox: str, tmp: Path) -> tuple[subprocess.Popen[str], str, str]:
    token_file = tmp / "token"
    token_file.unlink(missing_ok=True)
    cmd = [statebox, "serve", "--no-openenv", "--tasks", str(TASKS), "--port", "0"]
    cmd += ["--domain", f"{TOY}:DOMAIN", "--token-file", str(token_file)]
    server = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
    assert server.stderr is not None
    url = server.stderr.readline().split()[-1]
    drain(server.stderr)
    token = token_file.read_text().strip()
    for _ in range(1200):
        if httpx.get(url + "/ready").status_code == 200:
            break
        time.sleep(0.05)
    return server, url, token


def run(
    levels: list[int],
    per_level: int,
    clients: list[str],
    servers: list[str],
    rounds: int,
    per_request_episodes: int = 0,
) -> list[dict[str, Any]]:
    want = expected()
    assert want.passed, "the golden trajectory must pass in-process"
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(rounds):
            for statebox in servers:
                server, url, token = _serve(statebox, Path(tmp))
                try:
                    if per_request_episodes:
                        row = client_process(
                            "per-request", url, token, 1, per_request_episodes, server.pid, want
                        )
                        rows.append(row | {"server": statebox, "round": r})
                    for n in levels:
                        episodes = max(per_level, n)
                        for client in clients:
                            row = client_process(client, url, token, n, episodes, server.pid, want)
                            rows.append(row | {"server": statebox, "round": r})
                        base = asyncio.run(in_process(n, episodes))
                        rows.append(
                            {"client": "in-process", "concurrency": n, "episodes": episodes}
                            | base
                            | {"server": statebox, "round": r}
                        )
                finally:
                    server.terminate()
                    server.wait(10)
    return rows


def print_rows(rows: list[dict[str, Any]]) -> None:
    print(
        f"{'server':<32} {'client':<10} {'in flight':>9} {'episodes':>8} {'episodes/s':>10} "
        f"{'/in-proc':>8} {'p50 ms':>7} {'p95 ms':>7} {'passed':>6} "
        f"{'server CPU ms/ep':>16} {'client CPU ms/ep':>16} "
        f"{'projected server-bound ep/s/core':>32}"
    )
    bases = {
        (r["server"], r["round"], r["concurrency"]): r["episodes_per_s"]
        for r in rows
        if r["client"] == "in-process"
    }
    for r in rows:
        label = str(r["server"])[-32:]
        if r["client"] == "per-request":
            continue
        if r["client"] == "in-process":
            print(
                f"{label:<32} {'in-proc':<10} {r['concurrency']:>9} {r['episodes']:>8} "
                f"{r['episodes_per_s']:>10.1f} {1:>8.3f} {'':>7} {'':>7} {'':>6} "
                f"{'':>16} {r['cpu_ms_per_episode']:>16.2f} (the Episode, no transport)"
            )
            continue
        base = bases[(r["server"], r["round"], r["concurrency"])]
        print(
            f"{label:<32} {r['client']:<10} {r['concurrency']:>9} {r['episodes']:>8} "
            f"{r['episodes_per_s']:>10.1f} {r['episodes_per_s'] / base:>8.3f} "
            f"{r['tool_call_p50_ms']:>7.1f} {r['tool_call_p95_ms']:>7.1f} "
            f"{r['passed_share']:>6.3f} {r['server_cpu_ms_per_episode']:>16.2f} "
            f"{r['client_cpu_ms_per_episode']:>16.2f} "
            f"{r['server_bound_episodes_per_s_per_core']:>32.1f}"
        )


def print_per_request(rows: list[dict[str, Any]]) -> None:
    rows = [r for r in rows if r["client"] == "per-request"]
    if not rows:
        return
    kinds = list(rows[0]["ms_per_request"])
    print("server CPU ms per request, one sequential lean client (GET /health: the HTTP floor)")
    print(f"{'server':<32} {'round':>5} " + " ".join(f"{k:>11}" for k in kinds) + " episode")
    for r in rows:
        cells = " ".join(f"{r['ms_per_request'].get(k, float('nan')):>11.3f}" for k in kinds)
        print(f"{str(r['server'])[-32:]:<32} {r['round']:>5} {cells} {r['episode_ms']:>7.2f}")


def _client_main(ns: argparse.Namespace) -> None:
    want = Expected.from_json(ns.expected)
    global TOKEN
    TOKEN = ns.token
    if ns.client == "per-request":
        row = asyncio.run(per_request(ns.url, ns.token, ns.episodes, want, ns.server_pid))
    elif ns.client == "lean":
        errors: list[str] = []
        row = asyncio.run(
            lean_level(ns.url, ns.token, ns.concurrency, ns.episodes, want, ns.server_pid, errors)
        )
        row["errors"] = errors[:5]
    else:
        row = asyncio.run(level(ns.url, ns.concurrency, ns.episodes, ns.server_pid, want))
    print(json.dumps(row))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", default="1,50,200")
    parser.add_argument("--episodes-per-level", type=int, default=200)
    parser.add_argument(
        "--clients", default="lean,official", help="comma-separated: lean, official (default: both)"
    )
    parser.add_argument(
        "--statebox",
        default=str(Path(sys.executable).with_name("statebox")),
        help="the statebox executable(s) to serve with, comma-separated (alternated)",
    )
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument(
        "--per-request",
        type=int,
        default=0,
        metavar="N",
        help="also the server CPU per request kind over N sequential lean episodes",
    )
    # The load client's own process (internal).
    parser.add_argument(
        "--client", choices=["lean", "official", "per-request"], help=argparse.SUPPRESS
    )
    for name in ("--url", "--token", "--expected"):
        parser.add_argument(name, help=argparse.SUPPRESS)
    for name in ("--concurrency", "--episodes", "--server-pid"):
        parser.add_argument(name, type=int, help=argparse.SUPPRESS)
    ns = parser.parse_args()
    if ns.client is not None:
        _client_main(ns)
        return
    clients = [c for c in ns.clients.split(",") if c]
    if not clients or not set(clients) <= set(CLIENTS):
        parser.error(f"--clients: comma-separated from {', '.join(CLIENTS)}; got {ns.clients!r}")
    load0 = os.getloadavg()
    rows = run(
        [int(x) for x in ns.levels.split(",")],
        ns.episodes_per_level,
        clients,
        ns.statebox.split(","),
        ns.rounds,
        ns.per_request,
    )
    load1 = os.getloadavg()
    print(
        f"load average before {' '.join(f'{x:.2f}' for x in load0)}, "
        f"after {' '.join(f'{x:.2f}' for x in load1)}, on {os.cpu_count()} cores"
    )
    print_rows(rows)
    print_per_request(rows)
    print(json.dumps(rows))


if __name__ == "__main__":
    # Servers, clients and Ray here talk over loopback only (see scripts/loopback.py).
    sys.path.insert(0, str(ROOT))
    from scripts.loopback import ensure

    ensure(__file__)
    main()
