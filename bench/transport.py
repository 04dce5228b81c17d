"""Per-step transport overhead over in-process, one sequential client (printed, not asserted).

Usage: python bench/transport.py [--episodes 20] [--steps 20] [--json] [--statebox PATH]

The same step — ``get_account`` of the toy transfer task, a read — taken ``--steps``
times per episode over ``--episodes`` episodes, several ways, all measured in this run:

- **in-process**: `Episode.step` on this event loop (the baseline);
- **MCP gateway, official client**: ``ClientSession.call_tool`` through `statebox serve`'s
  ``/mcp`` endpoint (one HTTP client, so one connection pool, for the whole run). A
  session's first ``call_tool`` is timed apart and not in the median: the client then
  also sends ``tools/list`` (to learn the tools' output schemas), two round trips;
- **MCP gateway, raw JSON-RPC**: the same ``tools/call`` request written by hand on one
  keep-alive HTTP/1.1 connection (the body encoded once): the transport and the
  server, with next to no client;
- **MCP gateway, raw JSON-RPC by httpx**: the same request posted with httpx, which
  alone costs the client about 1-2 ms of CPU per request here;
- **HTTP floor**: ``GET /health`` of the same server, a route that does nothing: what
  any HTTP request costs here before the gateway does anything, once with the raw
  keep-alive client and once with httpx (each beside the gateway row of its client);
- **OpenEnv HTTP**: ``POST /openenv/step`` with the episode id, by httpx;
- **OpenEnv HTTP, raw**: the same request written on one keep-alive HTTP/1.1 connection
  by hand (as the raw JSON-RPC row does for MCP): httpx alone costs about 2 ms of the
  client's CPU per request here, which the httpx row counts as transport overhead;
- **OpenEnv WebSocket**: the ``openenv`` client (`StateboxEnvClient.step`);
- **OpenEnv WebSocket, raw**: the same protocol spoken with the ``websockets`` package,
  the frame encoded once and every reply parsed and checked (as the raw HTTP rows do):
  openenv's client alone costs about 0.2-0.4 ms of the client's CPU per step here.

For every row but the in-process one the server's own CPU per step (``/proc`` scheduler
time of all its threads, in ns, summed over the timed steps only) is printed too: it
counts what the server spends whatever the client costs. So is the client's (this
process's CPU time over the same timed steps; the client's import and set-up are
outside them): a sequential client's wall step is about the two plus the loopback hops,
so a row's overhead over in-process can be no lower than its client's CPU, however
little the server spends (the official MCP client's own CPU per call is such a floor).

The server is `statebox serve` in its own process (as in use), on loopback. Prints the
median step of each and its overhead over in-process (difference and ratio), with the
machine's load. For the gateway rows and the floor it also prints the server's own CPU
per request (``/proc`` scheduler time of all its threads, summed over the timed
requests only, session set-up excluded): wall time on a loaded machine is mostly
waiting, CPU is what the server spends.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gateway import drain, server_cpu_s  # bench/ is not a package

ROOT = Path(__file__).resolve().parents[1]
TASKS = ROOT / "tests" / "serve" / "tasks"
TOY = ROOT / "tests" / "fixtures" / "toy" / "__init__.py"
TASK = "toy.transfer.train.001"
TOOL, ARGS = "get_account", {"account_id": "A1"}


def _toy_domain() -> Any:
    spec = importlib.util.spec_from_file_location("bench_toy", TOY)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.DOMAIN


class ServerCpu:
    """The server's CPU seconds over timed spans (``/proc/PID/task/*/schedstat``, ns)."""

    def __init__(self, pid: int | None) -> None:
        self.pid, self.spent, self._at = pid, 0.0, 0.0

    def _now(self) -> float:
        assert self.pid is not None
        return server_cpu_s(self.pid)

    def start(self) -> None:
        if self.pid is not None:
            self._at = self._now()

    def stop(self) -> None:
        if self.pid is not None:
            self.spent += self._now() - self._at


async def in_process(episodes: int, steps: int) -> list[float]:
    """Seconds per `Episode.step` of the read, no transport."""
    from statebox.episode import CallTool, Episode
    from statebox.tasks import WorldCache, load_tasks
    from statebox.tools import ToolCall
    from statebox.users import RuleUser

    task = next(t for t in load_tasks(TASKS) if t.id == TASK)
    domain, worlds, out = _toy_domain(), WorldCache(), []
    for _ in range(episodes):
        ep = Episode(domain, task, RuleUser(task), worlds=worlds)
        await ep.reset()
        for i in range(steps):
            action = CallTool(call=ToolCall(id=f"c{i}", tool=TOOL, args=dict(ARGS)))
            t0 = time.perf_counter()
            obs = await ep.step(action)
            out.append(time.perf_counter() - t0)
            assert obs.tool_result is not None and obs.tool_result.ok
        ep.close()
    return out


async def _session(c: httpx.AsyncClient, token: str) -> dict[str, Any]:
    r = await c.post(
        "/control/sessions", json={"task_id": TASK}, headers={"Authorization": f"Bearer {token}"}
    )
    r.raise_for_status()
    info: dict[str, Any] = r.json()
    return info


async def _drop(c: httpx.AsyncClient, token: str, sid: str) -> None:
    await c.delete(f"/control/sessions/{sid}", headers={"Authorization": f"Bearer {token}"})


async def mcp_official(
    url: str,
    token: str,
    episodes: int,
    steps: int,
    firsts: list[float] | None = None,
    cpu: ServerCpu | None = None,
    client: list[float] | None = None,
) -> list[float]:
    """Seconds per ``call_tool`` with the official client (after its first call).

    ``firsts`` gets each session's first ``call_tool`` (which also lists the tools);
    ``client`` this process's CPU seconds over each timed call.
    """
    out: list[float] = []
    cpu = cpu or ServerCpu(None)
    client = [] if client is None else client
    async with httpx.AsyncClient(base_url=url, timeout=60) as c:
        for _ in range(episodes):
            info = await _session(c, token)
            # One client per session (its token rides in the headers), sharing nothing
            # costly: TLS is never used on loopback, and its context is built once.
            c.headers["Authorization"] = f"Bearer {info['mcp_token']}"
            async with (
                streamable_http_client(info["mcp_url"], http_client=c) as (read, write, _),
                ClientSession(read, write) as m,
            ):
                await m.initialize()
                t0 = time.perf_counter()
                await m.call_tool(TOOL, ARGS)  # its first call also lists the tools
                if firsts is not None:
                    firsts.append(time.perf_counter() - t0)
                cpu.start()
                for _ in range(steps):
                    c0, t0 = time.process_time(), time.perf_counter()
                    r = await m.call_tool(TOOL, ARGS)
                    out.append(time.perf_counter() - t0)
                    client.append(time.process_time() - c0)
                    assert not r.isError, r
                cpu.stop()
            del c.headers["Authorization"]
            await _drop(c, token, info["session_id"])
    return out


class RawHttp:
    """One keep-alive HTTP/1.1 connection written by hand: a request in one write.

    What a raw row costs the client is building the bytes and reading the answer,
    not a client library's machinery.
    """

    def __init__(self, url: str) -> None:
        host, _, port = url.removeprefix("http://").partition(":")
        self.host, self.port = host, int(port)
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def __aenter__(self) -> RawHttp:
        self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._writer is not None:
            self._writer.close()

    def head(self, method: str, path: str, body: bytes, headers: dict[str, str]) -> bytes:
        """A request's head (``Content-Type: application/json`` when it has a body)."""
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}"]
        lines += [f"{k}: {v}" for k, v in headers.items()]
        if body:
            lines.append("Content-Type: application/json")
        lines.append(f"Content-Length: {len(body)}")
        return ("\r\n".join(lines) + "\r\n\r\n").encode()

    async def send(self, head: bytes, body: bytes = b"") -> tuple[int, bytes]:
        """Write a request (head and body at once); its status and body."""
        assert self._reader is not None and self._writer is not None
        self._writer.write(head + body)
        lines = (await self._reader.readuntil(b"\r\n\r\n")).split(b"\r\n")
        length = next(
            (
                int(v)
                for k, _, v in (x.partition(b":") for x in lines)
                if k.lower() == b"content-length"
            ),
            0,
        )
        return int(lines[0].split()[1]), await self._reader.readexactly(length)

    async def json(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, Any]:
        """A JSON request and its decoded answer."""
        data = b"" if body is None else json.dumps(body).encode()
        status, raw = await self.send(self.head(method, path, data, headers or {}), data)
        return status, json.loads(raw) if raw else None


async def _raw_session(c: RawHttp, token: str) -> dict[str, Any]:
    status, info = await c.json(
        "POST", "/control/sessions", {"task_id": TASK}, {"Authorization": f"Bearer {token}"}
    )
    assert status == 201, info
    return dict(info)


async def mcp_raw(
    url: str,
    token: str,
    episodes: int,
    steps: int,
    cpu: ServerCpu | None = None,
    client: list[float] | None = None,
) -> list[float]:
    """Seconds per hand-written ``tools/call`` on one keep-alive connection."""
    out: list[float] = []
    cpu = cpu or ServerCpu(None)
    client = [] if client is None else client
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": TOOL, "arguments": ARGS},
        }
    ).encode()
    async with RawHttp(url) as c:
        for _ in range(episodes):
            info = await _raw_session(c, token)
            h = {
                "Authorization": f"Bearer {info['mcp_token']}",
                "Accept": "application/json, text/event-stream",
            }
            head = c.head("POST", info["mcp_url"].removeprefix(url), body, h)
            cpu.start()
            for _ in range(steps):
                c0, t0 = time.process_time(), time.perf_counter()
                status, raw = await c.send(head, body)
                out.append(time.perf_counter() - t0)
                client.append(time.process_time() - c0)
                reply = json.loads(raw)
                assert status == 200 and reply["result"]["isError"] is False, reply
            cpu.stop()
            await c.json(
                "DELETE",
                f"/control/sessions/{info['session_id']}",
                None,
                {"Authorization": f"Bearer {token}"},
            )
    return out


async def mcp_raw_httpx(
    url: str,
    token: str,
    episodes: int,
    steps: int,
    cpu: ServerCpu | None = None,
    client: list[float] | None = None,
) -> list[float]:
    """Seconds per ``tools/call`` JSON-RPC request posted with httpx."""
    out: list[float] = []
    cpu = cpu or ServerCpu(None)
    client = [] if client is None else client
    async with httpx.AsyncClient(base_url=url, timeout=60) as c:
        for _ in range(episodes):
            info = await _session(c, token)
            h = {
                "Authorization": f"Bearer {info['mcp_token']}",
                "Accept": "application/json, text/event-stream",
                "Content-Type": "application/json",
            }
            cpu.start()
            for i in range(steps):
                body = {
                    "jsonrpc": "2.0",
                    "id": i,
                    "method": "tools/call",
                    "params": {"name": TOOL, "arguments": ARGS},
                }
                c0, t0 = time.process_time(), time.perf_counter()
                r = await c.post(info["mcp_url"], content=json.dumps(body), headers=h)
                out.append(time.perf_counter() - t0)
                client.append(time.process_time() - c0)
                reply = r.json()
                assert r.status_code == 200 and not reply["result"].get("isError"), reply
            cpu.stop()
            await _drop(c, token, info["session_id"])
    return out


async def http_floor(
    url: str, n: int, cpu: ServerCpu | None = None, client: list[float] | None = None
) -> list[float]:
    """Seconds per ``GET /health`` (a route that does nothing) with httpx."""
    out: list[float] = []
    cpu = cpu or ServerCpu(None)
    client = [] if client is None else client
    async with httpx.AsyncClient(base_url=url, timeout=60) as c:
        await c.get("/health")
        cpu.start()
        for _ in range(n):
            c0, t0 = time.process_time(), time.perf_counter()
            r = await c.get("/health")
            out.append(time.perf_counter() - t0)
            client.append(time.process_time() - c0)
            assert r.status_code == 200, r.text
        cpu.stop()
    return out


async def http_floor_raw(
    url: str, n: int, cpu: ServerCpu | None = None, client: list[float] | None = None
) -> list[float]:
    """Seconds per ``GET /health`` written by hand on one keep-alive connection."""
    out: list[float] = []
    cpu = cpu or ServerCpu(None)
    client = [] if client is None else client
    async with RawHttp(url) as c:
        head = c.head("GET", "/health", b"", {})
        await c.send(head)
        cpu.start()
        for _ in range(n):
            c0, t0 = time.process_time(), time.perf_counter()
            status, raw = await c.send(head)
            out.append(time.perf_counter() - t0)
            client.append(time.process_time() - c0)
            assert status == 200, raw
        cpu.stop()
    return out


async def openenv_http(
    url: str, episodes: int, steps: int, cpu: ServerCpu, client: list[float]
) -> list[float]:
    """Seconds per ``POST /openenv/step``."""
    out: list[float] = []
    action = {"kind": "call_tool", "tool": TOOL, "args": ARGS}
    async with httpx.AsyncClient(base_url=url, timeout=60) as c:
        for _ in range(episodes):
            r = await c.post("/openenv/reset", json={"task_id": TASK})
            eid = r.json()["observation"]["episode_id"]
            for _ in range(steps):
                cpu.start()
                c0, t0 = time.process_time(), time.perf_counter()
                r = await c.post("/openenv/step", json={"action": action, "episode_id": eid})
                out.append(time.perf_counter() - t0)
                client.append(time.process_time() - c0)
                cpu.stop()
                assert r.json()["observation"]["tool_result"]["ok"], r.text
            end = {"kind": "end", "text": "done"}
            await c.post("/openenv/step", json={"action": end, "episode_id": eid})
    return out


async def openenv_http_raw(
    url: str, episodes: int, steps: int, cpu: ServerCpu, client: list[float]
) -> list[float]:
    """Seconds per ``POST /openenv/step`` written by hand on one keep-alive connection."""

    out: list[float] = []
    action = {"kind": "call_tool", "tool": TOOL, "args": ARGS}
    async with RawHttp(url) as c:

        async def post(path: str, body: dict[str, Any]) -> dict[str, Any]:
            status, reply = await c.json("POST", path, body)
            assert status == 200, reply
            return dict(reply)

        for _ in range(episodes):
            eid = (await post("/openenv/reset", {"task_id": TASK}))["observation"]["episode_id"]
            for _ in range(steps):
                cpu.start()
                c0, t0 = time.process_time(), time.perf_counter()
                r = await post("/openenv/step", {"action": action, "episode_id": eid})
                out.append(time.perf_counter() - t0)
                client.append(time.process_time() - c0)
                cpu.stop()
                assert r["observation"]["tool_result"]["ok"], r
            await post(
                "/openenv/step", {"action": {"kind": "end", "text": "done"}, "episode_id": eid}
            )
    return out


async def openenv_ws(
    url: str, episodes: int, steps: int, cpu: ServerCpu, client: list[float]
) -> list[float]:
    """Seconds per `StateboxEnvClient.step` over one WebSocket."""
    from statebox.serve import StateboxAction, StateboxEnvClient

    out: list[float] = []
    action = StateboxAction(kind="call_tool", tool=TOOL, args=ARGS)
    async with StateboxEnvClient(base_url=url + "/openenv") as env:
        for _ in range(episodes):
            await env.reset(task_id=TASK)
            for _ in range(steps):
                cpu.start()
                c0, t0 = time.process_time(), time.perf_counter()
                r = await env.step(action)
                out.append(time.perf_counter() - t0)
                client.append(time.process_time() - c0)
                cpu.stop()
                assert r.observation.tool_result and r.observation.tool_result["ok"]
            await env.step(StateboxAction(kind="end", text="done"))
    return out


async def openenv_ws_raw(
    url: str, episodes: int, steps: int, cpu: ServerCpu, client: list[float]
) -> list[float]:
    """Seconds per step over one WebSocket spoken directly (`websockets`), frame encoded once.

    openenv's own wire protocol without openenv's client (its pydantic parsing and
    observation building cost the client about 0.2-0.4 ms of CPU a step here), as the
    raw rows do for HTTP. Every reply is still parsed and checked: an observation of this
    episode holding the tool's successful result.
    """
    from websockets.asyncio.client import connect

    ws_url = url.replace("http://", "ws://", 1) + "/openenv/ws"
    reset = json.dumps({"type": "reset", "data": {"task_id": TASK}}).encode()
    step = json.dumps(
        {"type": "step", "data": {"kind": "call_tool", "tool": TOOL, "args": ARGS}}
    ).encode()
    end = json.dumps({"type": "step", "data": {"kind": "end", "text": "done"}}).encode()
    out: list[float] = []
    async with connect(ws_url, compression=None, max_size=2**24) as ws:
        for _ in range(episodes):
            await ws.send(reset, text=True)
            episode = json.loads(await ws.recv(decode=False))["data"]["observation"]
            for _ in range(steps):
                cpu.start()
                c0, t0 = time.process_time(), time.perf_counter()
                await ws.send(step, text=True)
                reply = json.loads(await ws.recv(decode=False))
                out.append(time.perf_counter() - t0)
                client.append(time.process_time() - c0)
                cpu.stop()
                obs = reply["data"]["observation"]
                assert reply["type"] == "observation", reply
                assert obs["episode_id"] == episode["episode_id"], reply
                assert obs["tool_result"]["ok"] and not reply["data"]["done"], reply
            await ws.send(end, text=True)
            assert json.loads(await ws.recv(decode=False))["data"]["done"] is True
    return out


async def measure(episodes: int, steps: int, statebox: str | None = None) -> dict[str, float]:
    """Median seconds per step of each way (keys: in_process, mcp_official, …).

    Also ``mcp_official_first_call`` (a session's first call, with the client's
    ``tools/list``), and for every way served ``<way>_server_cpu`` and
    ``<way>_client_cpu``: mean server and client CPU seconds per timed request.
    """
    medians = {"in_process": statistics.median(await in_process(episodes, steps))}
    with tempfile.TemporaryDirectory() as tmp:
        token_file = Path(tmp) / "token"
        statebox = statebox or str(Path(sys.executable).with_name("statebox"))
        cmd = [statebox, "serve", "--tasks", str(TASKS)]
        cmd += ["--domain", f"{TOY}:DOMAIN", "--port", "0", "--token-file", str(token_file)]
        server = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
        try:
            assert server.stderr is not None
            url = server.stderr.readline().split()[-1]
            drain(server.stderr)
            token = token_file.read_text().strip()
            async with httpx.AsyncClient() as c:
                for _ in range(600):
                    if (await c.get(url + "/ready")).status_code == 200:
                        break
                    await asyncio.sleep(0.05)
            n = episodes * steps
            firsts: list[float] = []
            meters = ("mcp_official", "mcp_raw", "mcp_raw_httpx", "http_floor", "http_floor_raw")
            cpus = {k: ServerCpu(server.pid) for k in meters}
            clients: dict[str, list[float]] = {k: [] for k in meters}
            medians["mcp_official"] = statistics.median(
                await mcp_official(
                    url,
                    token,
                    episodes,
                    steps,
                    firsts,
                    cpus["mcp_official"],
                    clients["mcp_official"],
                )
            )
            medians["mcp_official_first_call"] = statistics.median(firsts)
            medians["mcp_raw"] = statistics.median(
                await mcp_raw(url, token, episodes, steps, cpus["mcp_raw"], clients["mcp_raw"])
            )
            medians["http_floor_raw"] = statistics.median(
                await http_floor_raw(url, n, cpus["http_floor_raw"], clients["http_floor_raw"])
            )
            medians["mcp_raw_httpx"] = statistics.median(
                await mcp_raw_httpx(
                    url, token, episodes, steps, cpus["mcp_raw_httpx"], clients["mcp_raw_httpx"]
                )
            )
            medians["http_floor"] = statistics.median(
                await http_floor(url, n, cpus["http_floor"], clients["http_floor"])
            )
            for key, meter in cpus.items():
                medians[f"{key}_server_cpu"] = meter.spent / n
                # The client's own CPU over the same requests: a sequential client's wall
                # time holds all of it, so no server can bring a row's overhead below it.
                medians[f"{key}_client_cpu"] = sum(clients[key]) / n
            openenv_rows = {
                "openenv_http": openenv_http,
                "openenv_http_raw": openenv_http_raw,
                "openenv_ws": openenv_ws,
                "openenv_ws_raw": openenv_ws_raw,
            }
            for key, row in openenv_rows.items():
                meter, client = ServerCpu(server.pid), []
                medians[key] = statistics.median(await row(url, episodes, steps, meter, client))
                # The timed steps only, as the gateway rows: not the client's import or
                # set-up, nor the reset and end steps.
                medians[f"{key}_server_cpu"] = meter.spent / n
                medians[f"{key}_client_cpu"] = sum(client) / n
        finally:
            server.terminate()
            server.wait(10)
    return medians


LABELS = {
    "mcp_official": "MCP gateway, official client",
    "mcp_official_first_call": "MCP gateway, official client, first call (+ tools/list)",
    "mcp_raw": "MCP gateway, raw JSON-RPC (raw keep-alive client)",
    "http_floor_raw": "HTTP floor, GET /health (same server, raw keep-alive client)",
    "mcp_raw_httpx": "MCP gateway, raw JSON-RPC (httpx)",
    "http_floor": "HTTP floor, GET /health (same server, httpx)",
    "openenv_http": "OpenEnv HTTP /step (httpx)",
    "openenv_http_raw": "OpenEnv HTTP /step (raw keep-alive client)",
    "openenv_ws": "OpenEnv WebSocket (openenv's client)",
    "openenv_ws_raw": "OpenEnv WebSocket (raw: the protocol spoken directly)",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--json", action="store_true", help="print the medians as JSON")
    parser.add_argument(
        "--statebox", help="the statebox executable to serve with (another checkout's)"
    )
    args = parser.parse_args()
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    m = asyncio.run(measure(args.episodes, args.steps, args.statebox))
    if args.json:
        print(json.dumps(m))
        return
    base = m["in_process"]
    print(f"load average {load}; {args.episodes} episodes x {args.steps} steps each")
    print(f"in-process Episode.step: median {base * 1000:.3f} ms")
    for key, label in LABELS.items():
        print(
            f"{label}: median {m[key] * 1000:.3f} ms, +{(m[key] - base) * 1000:.3f} ms "
            f"over in-process ({m[key] / base:.1f}x)"
        )
        if f"{key}_server_cpu" in m:
            cpu, client = m[f"{key}_server_cpu"], m[f"{key}_client_cpu"]
            print(
                f"    server CPU per step {cpu * 1000:.3f} ms ({cpu / base:.1f}x in-process step);"
                f" client CPU per step {client * 1000:.3f} ms"
            )


if __name__ == "__main__":
    # Servers and clients here talk over loopback only (see scripts/loopback.py).
    sys.path.insert(0, str(ROOT))
    from scripts.loopback import ensure

    ensure(__file__)
    main()
