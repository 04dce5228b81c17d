"""Full LLM path through the runner and the CLI: perfect model, usage, cost, system
errors, ``--resume --retry-errors``, and no key in the campaign directory."""

from __future__ import annotations

import asyncio
import json
from datetime import date
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fixtures.protocol_server import config_for, hub
from fixtures.support import TOY_REF, TOY_TASKS
from statebox.agents import LLMAgentFactory
from statebox.cli import app
from statebox.errors import ConfigError
from statebox.judge import ModelRubricJudge
from statebox.llm import ModelHub, Price, PriceTable, ProtocolServer, RetryPolicy
from statebox.llm._scripted_server import GoldenResponder
from statebox.records import (
    RESULTS_FILE,
    TrialStatus,
    read_errors,
    read_results,
    read_trial_rows,
)
from statebox.registry import Registry
from statebox.runner import Campaign, run_campaign
from statebox.tasks import Task
from statebox.users import LLMUserFactory

PRICE = Price(
    input_usd_per_mtok=2.5,
    cached_input_usd_per_mtok=1.25,
    output_usd_per_mtok=10.0,
    as_of=date(2026, 11, 30),
)


def _campaign(
    h: ModelHub, server: ProtocolServer, tasks: list[Task], out: Path, **kw: object
) -> Campaign:
    agent = LLMAgentFactory(h, config_for(server))
    return Campaign(
        tasks,
        [agent],
        2,
        out,
        concurrency=2,
        users=LLMUserFactory(h, config_for(server)),
        rubric=ModelRubricJudge(h, config_for(server)),
        **kw,  # type: ignore[arg-type]
    )


def test_perfect_model_passes_every_toy_task_with_metered_cost(
    registry: Registry, toy_tasks: list[Task], results_dir: Path
) -> None:
    async def go() -> None:
        h = hub(prices=PriceTable(models={"openai:scripted": PRICE}))
        try:
            await run_campaign(_campaign(h, server, toy_tasks, results_dir), registry)
        finally:
            await h.aclose()

    with ProtocolServer(GoldenResponder(toy_tasks)) as server:
        asyncio.run(go())
    records = read_results(results_dir)
    assert len(records) == 6
    assert all(r.status == TrialStatus.PASSED for r in records)
    transfer = next(r for r in records if r.task_id == "toy.transfer.basic.001")
    # The scripted agent asks for the facts, the LLM user answers them from its facts.
    texts = [e.text for e in transfer.transcript if e.kind == "user_message"]
    assert texts[1] == "My account id is A1. Bo's account is A2."
    assert set(transfer.usage) == {"agent", "user"}
    assert transfer.usage["user"].calls == 1
    assert transfer.usage["agent"].calls == 3  # ask, two golden calls in parallel, final
    for r in records:
        assert r.cost_usd == pytest.approx(sum(c.cost_usd for c in r.model_calls))
        expected = sum((c.input_tokens * 2.5 + c.output_tokens * 10.0) / 1e6 for c in r.model_calls)
        assert r.cost_usd == pytest.approx(expected) and r.cost_usd > 0


def test_unreachable_endpoint_then_resume_with_retry_errors(
    registry: Registry, toy_tasks: list[Task], results_dir: Path
) -> None:
    with ProtocolServer(GoldenResponder(toy_tasks)) as dead:
        pass  # its port is closed from here on

    async def go(server: ProtocolServer, **kw: object) -> None:
        h = hub(RetryPolicy(max_attempts=2, initial_wait_s=0, max_wait_s=0))
        try:
            await run_campaign(_campaign(h, server, toy_tasks, results_dir, **kw), registry)
        finally:
            await h.aclose()

    asyncio.run(go(dead))
    first = read_results(results_dir)
    assert [r.status for r in first] == [TrialStatus.SYSTEM_ERROR] * 6
    errors = read_errors(results_dir)
    assert len(errors) == 6 and {e.type for e in errors} == {"ModelEndpointError"}
    assert "failed after 2 attempts" in errors[0].message

    with pytest.raises(ConfigError, match="add --resume"):
        asyncio.run(go(dead, retry_errors=True))
    with ProtocolServer(GoldenResponder(toy_tasks)) as alive:
        asyncio.run(go(alive, resume=True))  # plain resume: every trial is recorded
        assert alive.requests == []
        asyncio.run(go(alive, resume=True, retry_errors=True))
    lines = (results_dir / RESULTS_FILE).read_text().splitlines()
    assert len(lines) == 12  # append-only: the system errors stay in the file
    latest = read_results(results_dir)  # the last line of each trial wins
    assert len(latest) == 6 and all(r.status == TrialStatus.PASSED for r in latest)
    assert [r.trial_id for r in latest] == [r.trial_id for r in first]
    rows = read_trial_rows(results_dir)  # what metrics and reports read
    assert len(rows) == 6 and {r.status for r in rows} == {TrialStatus.PASSED}


def test_cli_run_writes_no_api_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, toy_tasks: list[Task]
) -> None:
    secret = "sk-statebox-test-0123456789abcdef"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MY_GATEWAY_KEY", secret)
    with ProtocolServer(GoldenResponder(toy_tasks)) as server:
        models = tmp_path / "models.yaml"
        models.write_text(
            "schema_version: 1\n"
            f"agent: {{provider: openai, model: scripted, base_url: '{server.openai_url}',"
            " api_key_env: MY_GATEWAY_KEY}\n"
            f"user: {{provider: openai, model: scripted, base_url: '{server.openai_url}',"
            " api_key_env: MY_GATEWAY_KEY}\n"
        )
        pricing = tmp_path / "pricing.yaml"
        pricing.write_text(
            "models:\n  openai:scripted: {input_usd_per_mtok: 2.5, output_usd_per_mtok: 10,"
            " as_of: 2026-11-30}\n"
        )
        out = tmp_path / "run"
        result = CliRunner().invoke(
            app,
            [
                "run", "--tasks", str(TOY_TASKS), "--domain", TOY_REF, "--agent", "openai",
                "--models", str(models), "--pricing", str(pricing), "--trials", "1",
                "--out", str(out), "--json",
            ],
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        auth = {r.headers.get("authorization") for r in server.requests}
    assert auth == {f"Bearer {secret}"}  # the key is used ...
    for path in out.rglob("*"):  # ... and written nowhere
        if path.is_file():
            assert secret not in path.read_text(encoding="utf-8"), path
    assert secret not in result.output
    records = read_results(out)
    assert all(r.status == TrialStatus.PASSED for r in records)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["settings"]["models"] == {"user": "openai:scripted"}
    assert manifest["agents"][0]["config"]["model"] == "scripted"


def test_hosted_model_without_key_fails_at_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = CliRunner().invoke(
        app,
        ["run", "--tasks", str(TOY_TASKS), "--domain", TOY_REF, "--agent", "openai:gpt-x",
         "--out", str(tmp_path / "r")],
    )  # fmt: skip
    assert result.exit_code == 1
    assert "set the environment variable OPENAI_API_KEY" in " ".join(result.output.split())
    assert not (tmp_path / "r").exists()
