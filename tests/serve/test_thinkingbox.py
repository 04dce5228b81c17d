"""A ThinkingBox dataset behind `statebox serve`: OpenEnv and MCP episodes judged by the
dataset's own checks, readiness that checks the servers, evaluation only, system errors.

Everything runs on the Tiny Shop fixture dataset (tests/fixtures/thinkingbox): real
server processes (forked), the built-in search service, openenv's own client and the
official ``mcp`` client. One served app is shared by the module (on its own loop, in a
thread); the verdicts it gives are compared with `statebox run`'s on the same trajectory.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import Future
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, NamedTuple

import httpx
import pytest

pytest.importorskip("openenv")

from serving import auth, mcp_session, text_of
from typer.testing import CliRunner

from fixtures.tb_support import DATASET, SERVERS
from statebox.cli import app
from statebox.cli._serve_catalogs import thinkingbox_catalog
from statebox.cli._thinkingbox import TbOptions
from statebox.records import TrialRecord, read_manifest, read_results
from statebox.serve import BackgroundServer, ServeApp, StateboxAction, StateboxEnvClient

# A task the oracle passes with no judge model (a rubric task would be unjudged: fail-closed).
PASSING = "tiny_shop.tiny_shop_group1.test_clear_note"
LOOKUP = "tiny_shop.tiny_shop_group1.test_lookup_only"
TESTS = (
    "tiny_shop_group1.py:test_clear_note",
    "tiny_shop_group1.py:test_lookup_only",
)
TOKEN = "operator-token-for-tb-tests"


def _options(**kw: Any) -> TbOptions:
    args: dict[str, Any] = {
        "test_list": None,
        "names": list(TESTS),
        "servers": SERVERS,
        "server_python": None,
        "drop_sources": False,
        "hidden_tools": None,
        "warm": 1,
        "check_timeout_s": 30,
    }
    return TbOptions.build(DATASET, **{**args, **kw})


class Live(NamedTuple):
    app: ServeApp
    url: str


@asynccontextmanager
async def _serve(options: TbOptions) -> AsyncIterator[Live]:
    serve_app = ServeApp(
        thinkingbox_catalog(options, None, None), control_token=TOKEN, openenv=True
    )
    async with BackgroundServer(serve_app.app) as server:
        yield Live(serve_app, server.url)


async def _wait(url: str, until: Any, path: str = "/ready") -> httpx.Response:
    async with httpx.AsyncClient(base_url=url) as http:
        for _ in range(1200):
            r = await http.get(path)
            if until(r):
                return r
            await asyncio.sleep(0.025)
    raise AssertionError(f"{path} never got there: {r.status_code} {r.text}")


@pytest.fixture(scope="module")
def served() -> Iterator[Live]:
    """The fixture dataset served (ready) on its own loop in a thread, for the module."""
    loop = asyncio.new_event_loop()
    started: Future[Live] = Future()
    stop = asyncio.Event()

    async def main() -> None:
        try:
            async with _serve(_options()) as live:
                started.set_result(live)
                await stop.wait()
        except BaseException as exc:
            if not started.done():
                started.set_exception(exc)
            raise

    thread = threading.Thread(target=loop.run_until_complete, args=(main(),), daemon=True)
    thread.start()
    live = started.result(timeout=60)
    asyncio.run(_wait(live.url, lambda r: r.status_code == 200))
    try:
        yield live
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(30)
        loop.close()


@pytest.fixture(scope="module")
def run_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`statebox run --thinkingbox` of the same two tests with the oracle agent: its campaign."""
    out = tmp_path_factory.mktemp("tb-run") / "oracle"
    tests = [a for t in TESTS for a in ("--test", t)]
    result = CliRunner().invoke(
        app,
        ["run", "--thinkingbox", str(DATASET), "--tb-servers", str(SERVERS), *tests,
         "--agent", "oracle", "--trials", "1", "--warm-pool", "0", "--out", str(out)],
        catch_exceptions=False,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def run_records(run_out: Path) -> dict[str, TrialRecord]:
    """The trial records of `run_out`, by task id."""
    return {r.task_id: r for r in read_results(run_out)}


def _replay(record: TrialRecord) -> list[StateboxAction]:
    """The trajectory `statebox run` recorded, as OpenEnv actions (tool calls, then the end)."""
    actions = []
    for e in record.transcript:
        if e.kind == "tool_call" and e.call is not None:
            actions.append(StateboxAction(kind="call_tool", tool=e.call.tool, args=e.call.args))
        elif e.kind == "end":
            actions.append(StateboxAction(kind="end", text=e.text))
    return actions


def _verdict_of(record: TrialRecord) -> dict[str, Any]:
    assert record.verdict is not None
    return record.verdict.model_dump(mode="json")


def test_openenv_episodes_get_the_datasets_reward_and_the_verdict_of_statebox_run(
    served: Live, run_records: dict[str, TrialRecord]
) -> None:
    assert run_records[PASSING].status == "passed" and run_records[LOOKUP].status == "failed"

    async def go() -> list[Any]:
        async with StateboxEnvClient(base_url=served.url + "/openenv") as env:
            ends = []
            for task_id in (PASSING, LOOKUP):
                start = await env.reset(task_id=task_id)
                obs = start.observation
                assert obs.metadata["mode"] == "evaluation"
                assert "search_policy" in {t["name"] for t in obs.tools}
                assert not any(t["name"].startswith("__reserved__") for t in obs.tools)
                result = None
                for action in _replay(run_records[task_id]):
                    result = await env.step(action)
                    assert result.done == (action.kind == "end")
                    if action.kind == "call_tool":
                        assert result.reward is None
                        assert result.observation.tool_result["ok"] is True
                ends.append(result)
            return ends

    passed, failed = asyncio.run(go())
    assert (passed.reward, failed.reward) == (1.0, 0.0)
    assert passed.metadata["verdict"] == _verdict_of(run_records[PASSING])
    assert failed.metadata["verdict"] == _verdict_of(run_records[LOOKUP])
    assert failed.metadata["verdict"]["signature"] == "incomplete_resolution"
    assert passed.metadata["mode"] == failed.metadata["mode"] == "evaluation"


def test_an_mcp_client_episode_gets_the_verdict_of_statebox_run(
    served: Live, run_records: dict[str, TrialRecord]
) -> None:
    record = run_records[PASSING]

    async def go() -> dict[str, Any]:
        async with httpx.AsyncClient(base_url=served.url, headers=auth(TOKEN)) as http:
            r = await http.post("/control/sessions", json={"task_id": PASSING})
            assert r.status_code == 201, r.text
            info = r.json()
            assert info["mode"] == "evaluation"
            async with mcp_session(info["mcp_url"], info["mcp_token"]) as m:
                names = {t.name for t in (await m.list_tools()).tools}
                assert "cancel_order" in names and not any("reserved" in n for n in names)
                refused = await m.call_tool("__reserved__geteffects", {})
                assert refused.isError and "not_allowed" in text_of(refused)
                for a in _replay(record)[:-1]:
                    out = await m.call_tool(a.tool, a.args)
                    assert not out.isError, text_of(out)
            sid, final = info["session_id"], _replay(record)[-1].text
            r = await http.post(f"/control/sessions/{sid}/verdict", json={"text": final})
            assert r.status_code == 200, r.text
            effects = await http.get(f"/control/sessions/{sid}/effects")
            assert effects.status_code == 409  # golden data: only in the verdict
            assert (await http.delete(f"/control/sessions/{sid}")).status_code == 204
            data: dict[str, Any] = r.json()
            return data

    data = asyncio.run(go())
    assert data["passed"] is True
    # The refused lifecycle call is the one step the `run` trajectory lacks; the
    # dataset's check and the effects do not see it.
    assert data["verdict"] == _verdict_of(record)


def test_training_requests_are_refused_with_the_dataset_cards_reason(
    served: Live, run_out: Path
) -> None:
    async def go() -> None:
        async with StateboxEnvClient(base_url=served.url + "/openenv") as env:
            with pytest.raises(RuntimeError, match=r"evaluation only.*reinforcement learning"):
                await env.reset(split="train")
            with pytest.raises(RuntimeError, match="never as training tasks"):
                await env.reset(task_id=PASSING, split="train")
            sampled = await env.reset(seed=3)  # no split: the test split, as an evaluation
            assert sampled.observation.task_id in {PASSING, LOOKUP}
            assert sampled.observation.metadata["mode"] == "evaluation"
        async with httpx.AsyncClient(base_url=served.url) as http:
            r = await http.post("/openenv/reset", json={"split": "train"})
            assert r.status_code == 400 and "dataset card" in r.json()["error"]
            meta = (await http.get("/openenv/metadata")).json()
            assert "evaluation only" in meta["description"]
            for path in ("/ready", "/openenv/ready", "/control/health"):
                body = (await http.get(path)).json()
                assert body["mode"] == "evaluation" and "fine-tuning" in body["terms"], path

    asyncio.run(go())
    # `statebox run`'s campaign manifest says the same of the dataset's trials.
    settings = read_manifest(run_out).settings
    assert settings["mode"] == "evaluation"
    assert "reinforcement learning" in settings["evaluation_terms"]


def test_readiness_is_503_with_a_broken_server_python_and_200_with_a_good_one(
    served: Live, tmp_path: Path
) -> None:
    # A python that runs but has none of the server's packages (no site-packages).
    broken = tmp_path / "python-without-packages"
    broken.write_text(f'#!/bin/sh\nexec "{sys.executable}" -I -S "$@"\n')
    broken.chmod(0o755)

    async def go() -> None:
        async with _serve(_options(server_python=str(broken))) as live:
            r = await _wait(live.url, lambda r: "failed" in r.json())
            assert r.status_code == 503
            body = r.json()
            assert body["ready"] is False and body["failed"] == "server_package:tiny_shop"
            assert "No module named 'mcp'" in body["error"]
            checks = {c["name"]: c for c in body["checks"]}
            assert checks["search"]["ok"] is True
            assert checks["init:tiny_shop"]["skipped"] is True
            async with httpx.AsyncClient(base_url=live.url) as http:
                for path in ("/openenv/ready", "/control/health"):
                    other = await http.get(path)
                    assert other.status_code == 503 and other.json()["failed"] == body["failed"]
                refused = await http.post(
                    "/control/sessions", json={"task_id": PASSING}, headers=auth(TOKEN)
                )
                assert refused.status_code == 503

    asyncio.run(go())

    async def good() -> dict[str, Any]:
        r = await _wait(served.url, lambda r: True)
        assert r.status_code == 200
        data: dict[str, Any] = r.json()
        return data

    body = asyncio.run(good())
    assert [(c["name"], c["ok"]) for c in body["checks"]] == [
        ("server_package:tiny_shop", True),
        ("search", True),
        ("init:tiny_shop", True),
    ]
    assert body["tasks"] == 2 and "failed" not in body


def test_readiness_is_503_naming_the_search_service_while_it_does_not_answer() -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]

    async def go() -> None:
        async with _serve(_options(typesense_url=f"http://127.0.0.1:{port}")) as live:
            r = await _wait(live.url, lambda r: "failed" in r.json())
            assert r.status_code == 503
            body = r.json()
            assert body["failed"] == "search" and f"127.0.0.1:{port}" in body["error"]
            checks = {c["name"]: c for c in body["checks"]}
            assert checks["server_package:tiny_shop"]["ok"] is True
            # Its config indexes sources: the init is not run without the search service.
            assert checks["init:tiny_shop"]["skipped"] is True

    asyncio.run(go())


def _descendants(root: int) -> set[int]:
    """Live (not zombie) processes below ``root``, from /proc."""
    parents: dict[int, int] = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        state, ppid = stat[stat.rindex(")") + 2 :].split()[:2]
        if state != "Z":
            parents[int(d.name)] = int(ppid)
    out: set[int] = set()
    frontier = {root}
    while frontier:
        frontier = {p for p, pp in parents.items() if pp in frontier} - out
        out |= frontier
    return out


def _alive(pids: set[int]) -> set[int]:
    alive = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            alive.add(pid)
    return alive


def test_a_server_that_times_out_ends_the_episode_as_a_system_error_not_a_reward_of_0(
    tmp_path: Path,
) -> None:
    # get_order sleeps 30 s; a server call may take 1 s: the call times out, the server
    # process is killed.
    servers = tmp_path / "servers.yaml"
    text = SERVERS.read_text().replace(
        'TINY_SHOP_MODE: "test"', 'TINY_SHOP_MODE: "test"\n      TINY_SHOP_CALL_DELAY_S: "30"'
    )
    servers.write_text(text.replace('cwd: "."', f'cwd: "{SERVERS.parent}"'))
    options = _options(servers=servers, tool_timeout_s=1.0, warm=0)
    get_order = {"order_id": "O1"}

    async def go() -> None:
        async with _serve(options) as live:
            await _wait(live.url, lambda r: r.status_code == 200)
            async with StateboxEnvClient(base_url=live.url + "/openenv") as env:
                eid = (await env.reset(task_id=PASSING)).observation.episode_id
                call = StateboxAction(kind="call_tool", tool="get_order", args=get_order)
                # No reward at all (not 0.0): an error naming the episode, which is dropped.
                with pytest.raises(RuntimeError, match=f"system_error in episode {eid}.*Backend"):
                    await env.step(call)
                with pytest.raises(RuntimeError, match="no live episode"):
                    await env.step(call)
                await env.reset(task_id=LOOKUP)  # left live, as the control session below
            async with httpx.AsyncClient(base_url=live.url, headers=auth(TOKEN)) as http:
                info = (await http.post("/control/sessions", json={"task_id": PASSING})).json()
                async with mcp_session(info["mcp_url"], info["mcp_token"]) as m:
                    out = await m.call_tool("get_order", get_order)
                    assert out.isError and '"system_error"' in text_of(out)
                    assert "BackendError" not in text_of(out)  # no internals to the agent
                r = await http.post(f"/control/sessions/{info['session_id']}/verdict", json={})
                assert r.status_code == 502
                assert r.json()["status"] == "system_error" and r.json()["passed"] is None
                listed = (await http.get("/control/sessions")).json()["sessions"]
                assert listed[0]["system_error"] and listed[0]["termination"] == "system_error"
                r = await http.post("/control/sessions", json={"task_id": LOOKUP})
                assert r.status_code == 201
            started = _descendants(os.getpid()) - before
            assert started  # the fork server, the live episode's server, the search service
        assert _alive(started) == set()

    before = _descendants(os.getpid())  # the module's shared app, idle meanwhile
    asyncio.run(go())


def test_statebox_serve_thinkingbox_command_serves_and_stops_its_servers_on_sigterm(
    tmp_path: Path,
) -> None:
    token_file = tmp_path / "token"
    statebox = Path(sys.executable).with_name("statebox")
    proc = subprocess.Popen(
        [str(statebox), "serve", "--thinkingbox", str(DATASET), "--tb-servers", str(SERVERS),
         "--test", TESTS[1], "--warm-pool", "0", "--no-openenv", "--port", "0",
         "--token-file", str(token_file)],
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        assert proc.stderr is not None
        first = proc.stderr.readline()
        assert first.startswith("statebox serve on http://127.0.0.1:"), first
        url = first.split()[-1]
        r = asyncio.run(_wait(url, lambda r: r.status_code != 503, "/control/health"))
        assert r.status_code == 200 and r.json()["mode"] == "evaluation", r.text
        headers = {"Authorization": f"Bearer {token_file.read_text().strip()}"}
        created = httpx.post(url + "/control/sessions", json={"task_id": LOOKUP}, headers=headers)
        assert created.status_code == 201 and created.json()["mode"] == "evaluation"
        servers = _descendants(proc.pid)
        assert servers  # the fork server, the live episode's server, the search service
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
        assert _alive(servers) == set()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
