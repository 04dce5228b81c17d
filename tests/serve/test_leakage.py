"""Nothing an agent can receive carries evaluator data.

The fixture task ``toy.freeze.secret.001`` marks every evaluator-side value it can
(description, persona, goal, private facts, reference response, check descriptions,
SQL, response checks) with ``SECRET-...``. Every surface an agent reads — the MCP tool
list and tool results (refusals too), the OpenEnv observations before the terminal
step, the bring-your-own turn requests, the start observation the control API hands
out — is captured and searched for them and for the golden trajectory.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from serving import auth, create, mcp_session, serve_tasks, serving
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from fixtures.toy import SEED, make_domain
from statebox.registry import Registry
from statebox.runner import Campaign, run_campaign
from statebox.serve import BackgroundServer, HttpAgentFactory, StateboxAction, StateboxEnvClient
from statebox.tasks import Task

TASK_ID = "toy.freeze.secret.001"


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in _strings(v)]
    return []


def _hidden(task: Task) -> set[str]:
    """Evaluator-side strings an agent could not read from the user or the world."""
    data = task.model_dump(mode="json")
    evaluator = _strings(
        [
            data["description"],
            data["user"]["persona"],
            data["user"]["goal"],
            data["user"]["facts"],
            data["reference_response"],
            data["checks"],
        ]
    )
    domain = make_domain()
    world = [domain.policy, json.dumps(SEED)]
    world += [json.dumps(t.input_schema()) for t in domain.tools.values()]
    visible = " ".join([task.user.opening, *world])
    return {s for s in evaluator if len(s) >= 6 and s not in visible}


def _received_mcp_and_control() -> list[str]:
    out: list[str] = []

    async def go() -> None:
        async with serving() as s:
            info = await create(s, TASK_ID)
            out.append(json.dumps(info["observation"]))
            async with mcp_session(info["mcp_url"], info["mcp_token"]) as m:
                out.append((await m.list_tools()).model_dump_json())
                for name, args in [
                    ("get_account", {"account_id": "A2"}),
                    ("set_status", {"account_id": "A2", "status": "frozen"}),
                    ("transfer", {"src": "A1", "dst": "A2", "amount": 1}),
                    ("set_status", {"account_id": "A9", "status": "bogus"}),
                    ("verdict", {}),
                    ("__reserved__geteffects", {}),
                ]:
                    out.append((await m.call_tool(name, args)).model_dump_json())
            r = await s.http.post(
                f"/control/sessions/{info['session_id']}/message",
                json={"text": "Anything else?"},
                headers=auth(),
            )
            out.append(json.dumps(r.json()["observation"]))

    asyncio.run(go())
    return out


def _received_openenv() -> list[str]:
    out: list[str] = []

    async def go() -> None:
        async with (
            serving(openenv=True) as s,
            StateboxEnvClient(base_url=s.url + "/openenv") as env,
        ):
            r = await env.reset(task_id=TASK_ID)
            out.append(r.observation.model_dump_json())
            for a in [
                StateboxAction(kind="call_tool", tool="get_account", args={"account_id": "A2"}),
                StateboxAction(kind="call_tool", tool="transfer", args={"src": "A1"}),
                StateboxAction(kind="call_tool", tool="reset", args={}),
            ]:
                r = await env.step(a)
                assert not r.done
                out.append(r.observation.model_dump_json() + json.dumps(r.metadata or {}))

    asyncio.run(go())
    return out


def _received_byo(tmp_path: Path) -> list[str]:
    out: list[str] = []

    async def agent(request: Request) -> Response:
        out.append((await request.body()).decode())
        turn = await request.json()
        token = turn["mcp"]["headers"]["Authorization"].split()[1]
        async with mcp_session(turn["mcp"]["url"], token) as m:
            out.append((await m.list_tools()).model_dump_json())
            r = await m.call_tool("set_status", {"account_id": "A2", "status": "frozen"})
            out.append(r.model_dump_json())
        return JSONResponse({"action": "end", "text": "Frozen."})

    async def go() -> None:
        app = Starlette(routes=[Route("/agent", agent, methods=["POST"])])
        async with BackgroundServer(app) as server:
            task = next(t for t in serve_tasks() if t.id == TASK_ID)
            c = Campaign(
                tasks=[task],
                agents=[HttpAgentFactory(server.url + "/agent")],
                trials=1,
                out=tmp_path / "c",
            )
            result = await run_campaign(c, Registry([make_domain()]))
            assert result.system_errors == 0

    asyncio.run(go())
    return out


def test_no_agent_facing_surface_carries_golden_or_evaluator_data(tmp_path: Path) -> None:
    task = next(t for t in serve_tasks() if t.id == TASK_ID)
    hidden = _hidden(task)
    markers = {s for s in hidden if "SECRET-" in s}
    assert len(markers) == 8  # the fixture's markers are all found by _hidden
    received = _received_mcp_and_control() + _received_openenv() + _received_byo(tmp_path)
    assert len(received) == 16
    blob = "\n".join(received)
    assert "SECRET" not in blob
    for s in hidden:
        assert s not in blob, s
    golden = json.dumps([c.model_dump(mode="json") for c in task.golden])
    assert golden not in blob
    assert '"golden"' not in blob and "reference_response" not in blob
    # What the agent does get: the opening, the allowlisted tools, real tool results.
    assert task.user.opening in blob
    assert '"name":"add_note"' in blob and '"name":"transfer"' not in blob
    assert '"status":"active"' in blob.replace(" ", "")
