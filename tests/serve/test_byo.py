"""Bring your own agent: the example outside agent, evaluated by `statebox run --agent URL`."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from serving import SERVE_TASKS, serve_tasks
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from fixtures.support import TOY_REF
from fixtures.toy import SCHEMA, SEED, TOOLS, make_domain
from statebox.domains import Domain
from statebox.episode import Limits
from statebox.records import read_errors, read_results
from statebox.registry import Registry, default_registry
from statebox.runner import Campaign, run_campaign
from statebox.serve import BackgroundServer, HttpAgentFactory
from statebox.tools import tool
from statebox.world import WorldTx

ROOT = Path(__file__).resolve().parents[2]


@tool(mutates=False)
def crash(tx: WorldTx, account_id: str) -> None:
    """A tool with a bug.

    Args:
        account_id: Account id.
    """
    raise KeyError("bug in the tool")


EXAMPLE = ROOT / "examples" / "byo_agent.py"
STATEBOX = Path(sys.executable).with_name("statebox")


def test_example_agent_is_evaluated_end_to_end_by_statebox_run(tmp_path: Path) -> None:
    agent = subprocess.Popen(
        [sys.executable, str(EXAMPLE), "--port", "0"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert agent.stdout is not None
        url = agent.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/agent")
        args = ["--tasks", str(SERVE_TASKS), "--domain", TOY_REF, "--agent", url]
        run = subprocess.run(  # no --out: the default folder under runs/
            [str(STATEBOX), "run", *args, "--trials", "2", "--json"],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
            cwd=tmp_path,
        )
        assert run.returncode == 0, run.stderr
    finally:
        agent.terminate()
        agent.wait(10)
    # Found by a new user: the agent's URL in the folder name made nested folders.
    (out,) = (tmp_path / "runs").iterdir()
    assert (out / "manifest.json").is_file() and out.name.startswith("tasks-http-127.0.0.1-")
    summary = json.loads(run.stdout)
    assert summary["overall"]["pass_at_1"] == 1.0
    records = read_results(out)
    assert len(records) == 8 and all(r.status == "passed" for r in records)
    by_task = {r.task_id: r for r in records if r.trial == 0}
    ask = by_task["toy.transfer.ask.001"]  # multi-turn: a question, then the transfer
    assert [e.kind for e in ask.transcript] == [
        "user_message",
        "agent_message",
        "user_message",
        "tool_call",
        "tool_call",
        "end",
    ]
    assert ask.transcript[1].text == "Which account should the money come from?"
    assert ask.transcript[4].call is not None
    assert ask.transcript[4].call.args == {"src": "A1", "dst": "A2", "amount": 30.0}
    assert {r.agent_id for r in records} == {"http-" + url.split("://")[1]}


def test_registry_maps_a_url_to_the_http_agent() -> None:
    factory = default_registry().agent("http://127.0.0.1:9/agent")
    assert isinstance(factory, HttpAgentFactory)
    assert factory.agent_id == "http-127.0.0.1:9/agent"
    assert factory.config == {"url": "http://127.0.0.1:9/agent", "timeout_s": 300.0}


def _campaign(tmp_path: Path, url: str, **kw: Any) -> Campaign:
    tasks = [t for t in serve_tasks() if t.id == "toy.transfer.train.001"]
    return Campaign(
        tasks=tasks,
        agents=[HttpAgentFactory(url)],
        trials=1,
        out=tmp_path / "c",
        concurrency=1,
        **kw,
    )


async def _with_agent(app: Starlette, body: Any) -> None:
    async with BackgroundServer(app) as server:
        await body(server.url + "/agent")


@pytest.mark.parametrize(
    ("answer", "status", "why"),
    [
        ({"action": "dance"}, 200, "action"),
        # A claim of success outside the protocol (issue 17: was a re-rollable system error).
        ({"action": "end", "passed": True}, 200, "passed"),
        ({"action": "end", "text": "x" * 5000}, 200, "more than 4096 bytes"),
        ({"error": "I give up"}, 503, "HTTP 503"),
    ],
)
def test_an_agent_answering_outside_the_protocol_fails_its_trial_and_is_never_a_system_error(
    tmp_path: Path, answer: Any, status: int, why: str
) -> None:
    async def bad(request: Request) -> Response:
        return JSONResponse(answer, status_code=status)

    async def go(url: str) -> None:
        c = _campaign(tmp_path, url)
        c = c._replace(agents=[HttpAgentFactory(url, max_answer_bytes=4096)])
        result = await run_campaign(c, Registry([make_domain()]))
        assert result.system_errors == 0
        # Nothing for --retry-errors to re-run: the agent cannot re-roll its failure.
        again = await run_campaign(
            c._replace(resume=True, retry_errors=True), Registry([make_domain()])
        )
        assert again.ran == 0

    asyncio.run(_with_agent(Starlette(routes=[Route("/agent", bad, methods=["POST"])]), go))
    assert read_errors(tmp_path / "c") == []
    (record,) = read_results(tmp_path / "c")
    assert record.status == "failed"
    assert record.termination == "agent_error"
    assert record.verdict is not None and record.verdict.signature == "agent_error"
    assert record.error is not None and why in record.error


def test_an_unreachable_agent_is_a_system_error(tmp_path: Path) -> None:
    import socket

    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/agent"
    result = asyncio.run(run_campaign(_campaign(tmp_path, url), Registry([make_domain()])))
    assert result.system_errors == 1
    assert [e.type for e in read_errors(tmp_path / "c")] == ["ModelEndpointError"]


def test_tool_calls_that_exhaust_the_step_limit_end_the_trial_cleanly(tmp_path: Path) -> None:
    async def spam(request: Request) -> Response:
        from mcp import ClientSession
        from serving import mcp_session

        turn = await request.json()
        token = turn["mcp"]["headers"]["Authorization"].split()[1]
        async with mcp_session(turn["mcp"]["url"], token) as m:
            assert isinstance(m, ClientSession)
            results = [await m.call_tool("get_account", {"account_id": "A1"}) for _ in range(4)]
        assert [r.isError for r in results] == [False, False, False, True]
        return JSONResponse({"action": "end", "text": "done"})

    async def go(url: str) -> None:
        c = _campaign(tmp_path, url, limits=Limits(max_steps=3))
        result = await run_campaign(c, Registry([make_domain()]))
        assert result.system_errors == 0

    asyncio.run(_with_agent(Starlette(routes=[Route("/agent", spam, methods=["POST"])]), go))
    (record,) = read_results(tmp_path / "c")
    assert record.status == "failed"
    assert record.termination == "max_steps"
    assert [e.kind for e in record.transcript] == ["user_message"] + ["tool_call"] * 3


def test_a_gateway_call_that_breaks_statebox_is_a_system_error_with_the_call_recorded(
    tmp_path: Path,
) -> None:
    domain = Domain(name="toy", schema_sql=SCHEMA, seed=SEED, tools=[*TOOLS, crash], policy="p")

    async def agent(request: Request) -> Response:
        from serving import mcp_session

        turn = await request.json()
        token = turn["mcp"]["headers"]["Authorization"].split()[1]
        async with mcp_session(turn["mcp"]["url"], token) as m:
            await m.call_tool("crash", {"account_id": "A1"})
        return JSONResponse({"action": "end", "text": "done"})

    async def go(url: str) -> None:
        result = await run_campaign(_campaign(tmp_path, url), Registry([domain]))
        assert result.system_errors == 1

    asyncio.run(_with_agent(Starlette(routes=[Route("/agent", agent, methods=["POST"])]), go))
    (record,) = read_results(tmp_path / "c")
    assert record.status == "system_error"
    crashed = [e for e in record.transcript if e.call is not None and e.call.tool == "crash"]
    assert len(crashed) == 1 and crashed[0].result is not None
    assert crashed[0].result.error is not None
    assert crashed[0].result.error.kind == "internal_error"
    assert [e.type for e in read_errors(tmp_path / "c")] == ["KeyError"]
