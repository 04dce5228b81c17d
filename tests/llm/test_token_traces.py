"""Token-exact traces (#18): an agent model behind a vLLM-style endpoint, through `statebox run`.

The loopback server speaks vLLM's token extras (`ProtocolServer(vllm_tokens=True)`,
fields as vLLM 0.10.2's ``return_token_ids`` / OpenAI ``logprobs``) with a byte-level
tokenizer, so every id a record holds can be decoded and compared with the request the
server received and the reply it sent: the ids round-trip, nothing is invented.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fixtures.protocol_server import config_for, hub
from fixtures.support import TOY_REF, TOY_TASKS
from statebox.agents import LLMAgentFactory
from statebox.cli import app
from statebox.errors import ConfigError
from statebox.llm import (
    VLLM_VERSION,
    ByteTokenizer,
    ModelConfig,
    ProtocolServer,
    TokenTrace,
    load_models_file,
    token_turn,
)
from statebox.llm._scripted_server import GoldenResponder
from statebox.records import TrialRecord, TrialStatus, read_results, read_trial_rows, trial_row
from statebox.registry import Registry
from statebox.runner import Campaign, run_campaign
from statebox.tasks import Task, load_tasks


def _run(tmp_path: Path, server: ProtocolServer, name: str, trace: bool) -> list[TrialRecord]:
    models = tmp_path / f"{name}.yaml"
    flag = ", trace_tokens: true" if trace else ""
    models.write_text(
        "schema_version: 1\n"
        f"agent: {{provider: openai, model: scripted, base_url: '{server.openai_url}'{flag}}}\n"
    )
    out = tmp_path / name
    result = CliRunner().invoke(
        app,
        [
            "run", "--tasks", str(TOY_TASKS), "--domain", TOY_REF, "--agent", "openai",
            "--models", str(models), "--trials", "1", "--concurrency", "1",
            "--out", str(out), "--json",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return read_results(out)


@pytest.fixture(scope="module")
def traced(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One traced and one untraced `statebox run` against the vLLM-speaking server."""
    tmp = tmp_path_factory.mktemp("tokens")
    tasks = load_tasks(TOY_TASKS)
    with ProtocolServer(GoldenResponder(tasks), vllm_tokens=True) as server:
        plain = _run(tmp, server, "plain", trace=False)
        start = len(server.requests)
        records = _run(tmp, server, "traced", trace=True)
        requests = server.requests[start:]
    return {"records": records, "plain": plain, "requests": requests, "dir": tmp / "traced"}


def test_statebox_run_records_vllm_token_ids_that_round_trip(traced: dict[str, Any]) -> None:
    records: list[TrialRecord] = traced["records"]
    assert records and all(r.status == TrialStatus.PASSED for r in records)
    for r in records:
        trace = r.token_trace
        assert trace is not None and trace.model == "openai:scripted"
        assert trace.absent_turns == 0
        asked = [
            q
            for q in traced["requests"]
            if q.tools and q.headers.get("x-statebox-task") == r.task_id
        ]
        # One turn per agent model call, in order, each asking for vLLM's fields.
        assert len(trace.turns) == len(asked) == r.usage["agent"].calls
        for q in asked:
            assert q.body["logprobs"] is True
            assert q.body["return_token_ids"] is True
            assert q.body["return_tokens_as_token_ids"] is True
        # Prompt ids decode to exactly the conversation the server was sent.
        prompts = trace.prompt_token_ids()
        assert [ByteTokenizer.decode(p or []) for p in prompts] == [
            ByteTokenizer.prompt(q.body) for q in asked
        ]
        # Completion ids decode to the reply the agent acted on; logprobs are the
        # server's own, aligned with the ids.
        calls = [e.call.tool for e in r.transcript if e.kind == "tool_call" and e.call]
        said: list[str] = []
        for turn in trace.turns:
            ids = turn.completion_token_ids
            assert ids is not None and turn.completion_logprobs is not None
            assert turn.completion_logprobs == tuple(
                ByteTokenizer.logprob(t, i) for i, t in enumerate(ids)
            )
            assert turn.logprobs_match_ids is True
            text = ByteTokenizer.decode(ids)
            said += [
                json.loads(c.split("</tool_call>")[0])["name"]
                for c in text.split("<tool_call>")[1:]
            ]
        assert said == calls and calls
        # Prompts are stored as tails after the shared prefix: linear, not quadratic.
        assert all(t.prompt_shared > 0 for t in trace.turns[1:])
        stored = sum(len(t.prompt_tail or ()) for t in trace.turns)
        assert stored == len(prompts[-1] or [])


def test_tracing_changes_no_verdict_and_no_agent_id(traced: dict[str, Any]) -> None:
    plain, records = traced["plain"], traced["records"]
    assert [r.token_trace for r in plain] == [None] * len(plain)
    assert [r.agent_id for r in plain] == [r.agent_id for r in records]
    assert [r.verdict for r in plain] == [r.verdict for r in records]


def test_the_lean_report_reader_skips_the_trace(traced: dict[str, Any]) -> None:
    rows = read_trial_rows(traced["dir"])
    assert rows == [trial_row(r) for r in traced["records"]]


def test_endpoint_without_token_ids_is_recorded_absent_with_one_warning(
    registry: Registry, toy_tasks: list[Task], results_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async def go(server: ProtocolServer) -> None:
        h = hub()
        try:
            agent = LLMAgentFactory(h, config_for(server, trace_tokens=True))
            await run_campaign(Campaign(toy_tasks, [agent], 1, results_dir), registry)
        finally:
            await h.aclose()

    with (
        caplog.at_level(logging.WARNING, logger="statebox.llm"),
        ProtocolServer(GoldenResponder(toy_tasks)) as server,  # no vLLM fields
    ):
        asyncio.run(go(server))
    records = read_results(results_dir)
    assert len(records) == 3 and all(r.status == TrialStatus.PASSED for r in records)
    for r in records:
        trace = r.token_trace
        assert trace is not None and len(trace.turns) == r.usage["agent"].calls
        assert trace.absent_turns == len(trace.turns)
        assert all(
            t.prompt_tail is None
            and t.completion_token_ids is None
            and t.completion_logprobs is None
            for t in trace.turns
        )
        assert trace.prompt_token_ids() == [None] * len(trace.turns)
    warned = [m for m in caplog.messages if "trace_tokens" in m]
    assert len(warned) == 1
    assert "no prompt token ids, completion token ids, logprobs" in warned[0]
    assert f"vLLM >= {VLLM_VERSION}" in warned[0]


def test_partial_fields_are_kept_as_returned_never_filled_in() -> None:
    # vLLM issue #28246: a reasoning-parser model returned prompt ids but token_ids null.
    resp = {
        "prompt_token_ids": [5, 6, 7],
        "choices": [
            {
                "token_ids": None,
                "finish_reason": "stop",
                "logprobs": {"content": [{"token": "token_id:9", "logprob": -0.5}]},
            }
        ],
    }
    turn = token_turn(resp)
    assert turn.prompt_tail == (5, 6, 7) and turn.completion_token_ids is None
    assert turn.completion_logprobs == (-0.5,) and turn.logprobs_match_ids is None
    assert not turn.complete
    resp["choices"][0]["token_ids"] = [8]  # ids that disagree with the logprobs' ids
    assert token_turn(resp).logprobs_match_ids is False
    trace = TokenTrace.of("openai:m", [token_turn(resp), token_turn(resp)])
    assert trace.turns[1].prompt_shared == 3 and trace.turns[1].prompt_tail == ()
    assert trace.prompt_token_ids() == [[5, 6, 7], [5, 6, 7]]


def test_trace_tokens_on_anthropic_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "models.yaml"
    path.write_text("agent: {provider: anthropic, model: claude-x, trace_tokens: true}\n")
    with pytest.raises(ConfigError, match="trace_tokens"):
        load_models_file(path)
    assert ModelConfig(provider="openai", model="m", trace_tokens=True).trace_tokens


def test_the_trace_tokens_flag_traces_a_models_file_agent_and_a_resume_keeps_it(
    tmp_path: Path,
) -> None:
    tasks = load_tasks(TOY_TASKS)
    models = tmp_path / "models.yaml"
    out = tmp_path / "flagged"
    with ProtocolServer(GoldenResponder(tasks), vllm_tokens=True) as server:
        models.write_text(
            "schema_version: 1\n"
            f"agent: {{provider: openai, model: scripted, base_url: '{server.openai_url}'}}\n"
        )
        base = [
            "run", "--tasks", str(TOY_TASKS), "--domain", TOY_REF, "--agent", "openai",
            "--models", str(models), "--concurrency", "1", "--out", str(out), "--json",
        ]  # fmt: skip
        first = CliRunner().invoke(app, [*base, "--trials", "1", "--trace-tokens"])
        assert first.exit_code == 0, first.output
        # The resume names no flag: the campaign's tracing comes from its manifest.
        again = CliRunner().invoke(app, [*base, "--trials", "2", "--resume"])
        assert again.exit_code == 0, again.output
        off = CliRunner().invoke(app, [*base, "--trials", "3", "--resume", "--no-trace-tokens"])
    records = read_results(out)
    assert len(records) == 2 * len(tasks)
    assert all(r.token_trace is not None and r.token_trace.turns for r in records)
    assert all(r.token_trace.absent_turns == 0 for r in records if r.token_trace)
    # Turning tracing off mid-campaign is a change the resume refuses, by name.
    assert off.exit_code != 0 and "trace_tokens" in off.output


def test_the_trace_tokens_flag_on_an_anthropic_agent_is_a_one_line_error(
    tmp_path: Path,
) -> None:
    result = CliRunner().invoke(
        app,
        [
            "run", "--tasks", str(TOY_TASKS), "--domain", TOY_REF,
            "--agent", "anthropic:claude-x", "--trace-tokens", "--trials", "1",
            "--out", str(tmp_path / "out"),
        ],
    )  # fmt: skip
    assert result.exit_code != 0
    assert "--trace-tokens" in result.output and "anthropic:claude-x" in result.output
    assert "Traceback" not in result.output


def test_the_trace_tokens_flag_without_a_model_agent_is_a_one_line_error(
    tmp_path: Path,
) -> None:
    result = CliRunner().invoke(
        app,
        [
            "run", "--tasks", str(TOY_TASKS), "--domain", TOY_REF, "--agent", "oracle",
            "--trace-tokens", "--trials", "1", "--out", str(tmp_path / "out"),
        ],
    )  # fmt: skip
    assert result.exit_code != 0
    assert "--trace-tokens" in result.output and "oracle" in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "out").exists()  # refused before anything ran
