"""The OpenEnv server, driven by the openenv package's own WebSocket client."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

pytest.importorskip("openenv")

from serving import catalog, serve_tasks, serving

from statebox.serve import StateboxAction, StateboxEnvClient, TaskCatalog
from statebox.tasks import Task


def _golden_actions(task: Task, change_amount: bool = False) -> list[StateboxAction]:
    out = []
    for call in task.golden:
        args = dict(call.args)
        if change_amount and "amount" in args:
            args["amount"] = args["amount"] + 1
        out.append(StateboxAction(kind="call_tool", tool=call.tool, args=args))
    out.append(StateboxAction(kind="end", text=task.reference_response or "Done."))
    return out


async def _play(env: StateboxEnvClient, actions: list[StateboxAction]) -> Any:
    result = None
    for a in actions:
        result = await env.step(a)
        if result.done:
            break
    return result


def test_openenv_client_oracle_gets_reward_1_and_a_perturbed_trajectory_reward_0() -> None:
    task = next(t for t in serve_tasks() if t.id == "toy.transfer.train.001")

    async def go() -> None:
        async with (
            serving(openenv=True) as s,
            StateboxEnvClient(base_url=s.url + "/openenv") as env,
        ):
            start = await env.reset(task_id=task.id)
            obs = start.observation
            assert (obs.kind, obs.task_id, start.done, start.reward) == (
                "start",
                task.id,
                False,
                None,
            )
            assert obs.user_message == task.user.opening
            assert sorted(t["name"] for t in obs.tools) == [
                "add_note",
                "delete_note",
                "get_account",
                "set_status",
                "transfer",
            ]
            first = await env.step(_golden_actions(task)[0])
            assert first.reward is None and not first.done
            assert first.observation.tool_result == {
                "tool": "get_account",
                "ok": True,
                "output": {
                    "id": "A1",
                    "owner": "Ada Example",
                    "balance": 100,
                    "status": "active",
                },
                "error": None,
            }
            last = await _play(env, _golden_actions(task)[1:])
            assert last.done and last.reward == 1.0
            assert last.metadata["verdict"]["passed"] is True
            assert last.observation.termination == "agent_end"

            await env.reset(task_id=task.id)
            bad = await _play(env, _golden_actions(task, change_amount=True))
            assert bad.done and bad.reward == 0.0
            assert bad.metadata["verdict"]["passed"] is False
            assert bad.metadata["verdict"]["signature"] == "wrong_state_update"

            # A multi-turn train task: message the user, read the reply; the user ends
            # the conversation once told the request is done (nothing changed: reward 0).
            r = await env.reset(task_id="toy.freeze.train.001")
            r = await env.step(StateboxAction(kind="message_user", text="Which account?"))
            assert not r.done and r.observation.user_message == "Sorry, I don't know that."
            r = await env.step(StateboxAction(kind="message_user", text="It has been frozen."))
            assert r.done and r.observation.termination == "user_end" and r.reward == 0.0

    asyncio.run(go())


def test_test_split_needs_the_flag_and_sampling_is_seeded() -> None:
    async def go() -> None:
        async with serving(openenv=True) as s:
            async with StateboxEnvClient(base_url=s.url + "/openenv") as env:
                with pytest.raises(RuntimeError, match="only train tasks"):
                    await env.reset(task_id="toy.transfer.ask.001")
                with pytest.raises(RuntimeError, match="not served"):
                    await env.reset(split="test")
                seen = {(await env.reset(seed=i)).observation.task_id for i in range(12)}
                assert seen <= {
                    "toy.transfer.train.001",
                    "toy.freeze.train.001",
                    "toy.freeze.secret.001",
                }
                a = (await env.reset(seed=7)).observation.task_id
                assert (await env.reset(seed=7)).observation.task_id == a
            r = await s.http.get("/openenv/ready")
            assert r.json() == {"ready": True, "tasks": 3}
        async with serving(openenv=True, allow_test_split=True) as s:
            async with StateboxEnvClient(base_url=s.url + "/openenv") as env:
                r = await env.reset(task_id="toy.transfer.ask.001")
                assert r.observation.task_id == "toy.transfer.ask.001"
            assert (await s.http.get("/openenv/ready")).json()["tasks"] == 4

    asyncio.run(go())


def test_http_reset_and_step_with_the_episode_id() -> None:
    async def go() -> None:
        async with serving(openenv=True) as s:
            r = await s.http.post("/openenv/reset", json={"task_id": "toy.freeze.train.001"})
            assert r.status_code == 200
            eid = r.json()["observation"]["episode_id"]
            step = {
                "kind": "call_tool",
                "tool": "set_status",
                "args": {"account_id": "A2", "status": "frozen"},
            }
            r = await s.http.post("/openenv/step", json={"action": step, "episode_id": eid})
            assert r.json()["observation"]["tool_result"]["ok"] is True
            end = {"kind": "end", "text": "Frozen."}
            r = await s.http.post("/openenv/step", json={"action": end, "episode_id": eid})
            assert r.json()["done"] is True and r.json()["reward"] == 1.0
            r = await s.http.post("/openenv/step", json={"action": end, "episode_id": eid})
            assert r.status_code == 400 and "no live episode" in r.json()["error"]
            r = await s.http.post("/openenv/step", json={"action": end})
            assert r.status_code == 400
            r = await s.http.post("/openenv/reset", json={"task_id": "toy.transfer.ask.001"})
            assert r.status_code == 400
            assert (await s.http.get("/openenv/health")).status_code == 200

    asyncio.run(go())


def test_http_reset_and_step_refuse_bad_requests_as_openenv_routes_do() -> None:
    # statebox answers /reset and /step itself (not through openenv's FastAPI route):
    # the same request models validate them, with FastAPI's 422 shapes.
    async def go() -> None:
        async with serving(openenv=True) as s:
            post = s.http.post
            r = await post("/openenv/reset", json={"task_id": "toy.freeze.train.001", "seed": -1})
            assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "seed"]
            r = await post("/openenv/reset", content=b"{not json", headers=_JSON)
            assert r.status_code == 422
            r = await post("/openenv/step", json={"episode_id": "x"})
            assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "action"]
            r = await post("/openenv/step", json={"action": {"kind": "fly"}})
            assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["kind"]
            r = await post("/openenv/reset", json={"task_id": "no.such.task"})
            assert r.status_code == 400 and "unknown task" in r.json()["error"]
            r = await post("/openenv/reset", content=b"", headers=_JSON)  # no body: sampled
            assert r.status_code == 200 and r.json()["observation"]["kind"] == "start"
            assert r.headers["content-type"] == "application/json"
            r = await s.http.get("/openenv/step")
            assert r.status_code == 405  # only POST, as openenv's route

    asyncio.run(go())


_JSON = {"content-type": "application/json"}


def test_openenv_routes_answer_503_until_tasks_load() -> None:
    gate = threading.Event()

    def slow() -> TaskCatalog:
        gate.wait(10)
        return catalog()

    async def go() -> None:
        async with serving(slow, wait=False, openenv=True) as s:
            assert (await s.http.get("/openenv/health")).status_code == 200
            assert (await s.http.get("/openenv/ready")).status_code == 503
            assert (await s.http.post("/openenv/reset", json={})).status_code == 503
            with pytest.raises(ConnectionError):
                async with StateboxEnvClient(base_url=s.url + "/openenv") as env:
                    await env.reset()
            gate.set()
            for _ in range(500):
                if (await s.http.get("/openenv/ready")).status_code == 200:
                    break
                await asyncio.sleep(0.01)
            async with StateboxEnvClient(base_url=s.url + "/openenv") as env:
                assert (await env.reset(seed=0)).observation.kind == "start"

    asyncio.run(go())


def test_a_tool_argument_sqlite_cannot_bind_is_a_refusal_in_the_transcript_not_a_500() -> None:
    from fixtures.hostile import store_blob
    from fixtures.toy import SCHEMA, SEED, TOOLS
    from statebox.domains import Domain
    from statebox.serve import TaskCatalog

    domain = Domain(name="toy", schema_sql=SCHEMA, seed=SEED, tools=[*TOOLS, store_blob], policy="")

    async def go() -> None:
        async with serving(lambda: TaskCatalog(serve_tasks(), {"toy": domain}), openenv=True) as s:
            r = await s.http.post("/openenv/reset", json={"task_id": "toy.freeze.train.001"})
            eid = r.json()["observation"]["episode_id"]
            step = {
                "kind": "call_tool",
                "tool": "store_blob",
                "args": {"account_id": "A1", "payload": 2**63},
            }
            r = await s.http.post("/openenv/step", json={"action": step, "episode_id": eid})
            assert r.status_code == 200  # was 500 (OverflowError inside SQLite)
            result = r.json()["observation"]["tool_result"]
            assert result["ok"] is False and result["error"]["kind"] == "invalid_arguments"
            session = s.app._openenv.live[eid]
            (event,) = [e for e in session.episode.transcript if e.kind == "tool_call"]
            assert event.result is not None and event.result.error is not None

    asyncio.run(go())


def test_a_clients_least_recently_used_episode_is_the_one_dropped_beyond_its_limit() -> None:
    from statebox.serve._openenv import _CLIENT, OpenEnvServer

    cat = catalog()
    task = cat.task("toy.freeze.train.001")
    server = OpenEnvServer(lambda: cat, max_per_client=2)
    token = _CLIENT.set("10.0.0.1")
    try:
        a, b = server.open(task), server.open(task)
        assert set(server.live) == {a.id, b.id}
        _CLIENT.set("10.0.0.2")
        other = server.open(task)
        _CLIENT.set("10.0.0.1")
        server.used(a.id)  # a stepped after b was opened: b is now this client's oldest
        c = server.open(task)
        assert set(server.live) == {a.id, c.id, other.id}
        server.drop(a.id)
        server.drop(c.id)
        d, e, f = server.open(task), server.open(task), server.open(task)
        assert set(server.live) == {e.id, f.id, other.id} and d.id not in server.owner
    finally:
        _CLIENT.reset(token)
        for eid in list(server.live):
            server.drop(eid)
