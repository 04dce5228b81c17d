"""Readiness probes of `statebox serve`: a judge endpoint that does not answer keeps every
readiness route at 503, naming it, until it answers; the probes are retried."""

from __future__ import annotations

import asyncio
import socket

import pytest
from serving import serve_tasks, serving

from fixtures.protocol_server import Script
from fixtures.toy import make_domain
from statebox.cli._serve_catalogs import serve_judge
from statebox.llm import ProtocolServer
from statebox.serve import TaskCatalog


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_judge_endpoint_that_does_not_answer_keeps_readiness_at_503_until_it_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "not-a-real-key")
    port = _free_port()
    judge = serve_judge("openai:judge-model", f"http://127.0.0.1:{port}/v1", None)
    assert judge is not None

    def load() -> TaskCatalog:
        return TaskCatalog(
            serve_tasks(),
            {"toy": make_domain()},
            rubric=judge.rubric,
            readiness=[judge.probe],
            aclose=judge.aclose,
        )

    async def go() -> None:
        async with serving(load, wait=False) as s:
            s.app.readiness.first_wait_s = 0.05  # retry quickly in a test
            for _ in range(400):
                r = await s.http.get("/ready")
                if "failed" in r.json():
                    break
                await asyncio.sleep(0.01)
            assert r.status_code == 503 and r.json()["failed"] == "judge"
            assert f"127.0.0.1:{port}/v1" in r.json()["error"]
            assert (await s.http.get("/control/health")).status_code == 503
            with ProtocolServer(Script([]), port=port):
                for _ in range(400):
                    r = await s.http.get("/ready")
                    if r.status_code == 200:
                        break
                    await asyncio.sleep(0.02)
                assert r.status_code == 200, r.text
                [check] = r.json()["checks"]
                assert check["name"] == "judge" and check["ok"] is True
                assert s.app.readiness.attempts >= 2
                assert (await s.http.get("/control/health")).json()["status"] == "healthy"

    asyncio.run(go())


def test_serve_judge_is_none_without_a_judge_and_refuses_a_lone_base_url() -> None:
    from statebox.errors import ConfigError

    assert serve_judge(None, None, None) is None
    with pytest.raises(ConfigError, match="--judge-base-url needs a judge"):
        serve_judge(None, "http://127.0.0.1:1/v1", None)
