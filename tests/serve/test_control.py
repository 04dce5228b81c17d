"""The control API: token-protected lifecycle operations, on their own prefix."""

from __future__ import annotations

import asyncio
import threading

from serving import TOKEN, auth, catalog, create, serving

from statebox.serve import TaskCatalog


def test_every_route_refuses_a_missing_or_wrong_token_and_changes_nothing() -> None:
    async def go() -> None:
        async with serving() as s:
            info = await create(s, "toy.transfer.train.001")
            sid = info["session_id"]
            routes = [
                ("POST", "/control/sessions", {"task_id": "toy.freeze.train.001"}),
                ("GET", "/control/sessions", None),
                ("GET", f"/control/sessions/{sid}", None),
                ("POST", f"/control/sessions/{sid}/message", {"text": "hi"}),
                ("POST", f"/control/sessions/{sid}/reset", None),
                ("POST", f"/control/sessions/{sid}/verdict", {"text": "done"}),
                ("GET", f"/control/sessions/{sid}/effects", None),
                ("DELETE", f"/control/sessions/{sid}", None),
            ]
            for headers in ({}, auth("wrong"), auth(info["mcp_token"]), {"Authorization": TOKEN}):
                for method, path, body in routes:
                    r = await s.http.request(method, path, json=body, headers=headers)
                    assert r.status_code == 401, (method, path, headers)
                    assert r.headers["www-authenticate"] == "Bearer"
            assert len(s.app.store) == 1
            r = await s.http.get(f"/control/sessions/{sid}", headers=auth())
            assert r.json()["events"] == 1 and r.json()["done"] is False
            # The session token opens MCP, never the control API; the MCP prefix has no
            # lifecycle route either.
            r = await s.http.post(info["mcp_url"] + "reset", headers=auth(info["mcp_token"]))
            assert r.status_code == 404

    asyncio.run(go())


def test_operator_creates_talks_judges_reads_effects_and_tears_down() -> None:
    async def go() -> None:
        async with serving() as s:
            info = await create(s, "toy.transfer.ask.001")
            sid = info["session_id"]
            obs = info["observation"]
            assert obs["kind"] == "start"
            assert obs["user_message"] == "Please move 30 dollars to account A2."
            assert info["mcp_url"] == f"{s.url}/mcp/{sid}/"
            r = await s.http.post(
                f"/control/sessions/{sid}/message",
                json={"text": "From which account?"},
                headers=auth(),
            )
            assert r.json()["observation"]["user_message"] == "My account is A1."
            r = await s.http.get(f"/control/sessions/{sid}/effects", headers=auth())
            assert r.status_code == 409
            r = await s.http.post(f"/control/sessions/{sid}/verdict", json={}, headers=auth())
            body = r.json()
            assert body["passed"] is False
            assert body["verdict"]["signature"] == "no_state_change"
            r = await s.http.get(f"/control/sessions/{sid}/effects", headers=auth())
            assert r.json() == {"effects": []}
            r = await s.http.post(
                f"/control/sessions/{sid}/message", json={"text": "x"}, headers=auth()
            )
            assert r.status_code == 409
            listed = (await s.http.get("/control/sessions", headers=auth())).json()["sessions"]
            assert [(x["task_id"], x["done"], x["passed"]) for x in listed] == [
                ("toy.transfer.ask.001", True, False)
            ]
            # reset: a fresh world under the same id
            r = await s.http.post(f"/control/sessions/{sid}/reset", headers=auth())
            assert r.json()["observation"]["kind"] == "start"
            assert (await s.http.get(f"/control/sessions/{sid}", headers=auth())).json()[
                "done"
            ] is False
            r = await s.http.delete(f"/control/sessions/{sid}", headers=auth())
            assert r.status_code == 204
            assert len(s.app.store) == 0
            r = await s.http.get(f"/control/sessions/{sid}", headers=auth())
            assert r.status_code == 404
            r = await s.http.post("/control/sessions", json={"task_id": "nope.x"}, headers=auth())
            assert r.status_code == 400 and "unknown task" in r.json()["error"]
            json_type = {**auth(), "Content-Type": "application/json"}
            r = await s.http.post("/control/sessions", content=b"{oops", headers=json_type)
            assert r.status_code == 400
            # Found by a new user: pydantic's own text, lines of it and a link to its docs.
            r = await s.http.post("/control/sessions", json={}, headers=auth())
            assert r.status_code == 400
            assert r.json()["error"] == "bad request: task_id: Field required"

    asyncio.run(go())


def test_ready_answers_503_until_the_tasks_are_loaded() -> None:
    gate = threading.Event()

    def slow() -> TaskCatalog:
        gate.wait(10)
        return catalog()

    async def go() -> None:
        async with serving(slow, wait=False) as s:
            assert (await s.http.get("/health")).status_code == 200
            r = await s.http.get("/ready")
            assert r.status_code == 503 and r.json()["loading"] is True
            r = await s.http.post(
                "/control/sessions", json={"task_id": "toy.freeze.train.001"}, headers=auth()
            )
            assert r.status_code == 503
            gate.set()
            for _ in range(500):
                if (r := await s.http.get("/ready")).status_code == 200:
                    break
                await asyncio.sleep(0.01)
            assert r.json() == {"ready": True, "tasks": 4}

    asyncio.run(go())
