"""ThinkingBox datasets through the whole of statebox: runner, oracle, LLM agent over a
real loopback model server, rubric judge, CLI resume, report and compare.

Everything runs on the Tiny Shop fixture (tests/fixtures/thinkingbox): its stdio MCP
server is started as real processes, one fresh process per trial.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fixtures.protocol_server import config_for, hub
from fixtures.tb_support import DATASET, SERVERS, TEST_LIST
from statebox.agents import LLMAgentFactory, OracleFactory
from statebox.cli import app
from statebox.episode import Action, CallTool, End, Observation
from statebox.judge import ModelRubricJudge
from statebox.llm import ProtocolServer
from statebox.llm._scripted_server import GoldenResponder
from statebox.records import TrialRecord, TrialStatus, read_errors, read_manifest, read_results
from statebox.registry import Registry
from statebox.runner import Campaign, run_campaign
from statebox.thinkingbox import ThinkingBoxRun, load_dataset, load_servers, open_thinkingbox
from statebox.tools import ToolCall

CANCEL = "tiny_shop.tiny_shop_group1_rubrics_yesno.test_cancel_order"
CLEAR = "tiny_shop.tiny_shop_group1.test_clear_note"
LOOKUP = "tiny_shop.tiny_shop_group1.test_lookup_only"
TOOL_CALLS = "tiny_shop.tiny_shop_group1.test_tool_calls_used"
BROKEN = "tiny_shop.tiny_shop_group1.test_broken_check"
EXTRA = "tiny_shop.tiny_shop_extra.test_list_orders"


def _open(*names: str, warm: int = 1) -> ThinkingBoxRun:
    suite = load_dataset(DATASET, None if names else TEST_LIST, names, drop_sources=True)
    return open_thinkingbox(suite, load_servers(SERVERS, python=sys.executable), warm=warm)


def _run(tb: ThinkingBoxRun, out: Path, agents: list[Any], trials: int = 1, **kw: Any) -> None:
    async def go() -> None:
        try:
            await run_campaign(
                Campaign(tb.tasks, agents, trials, out, environments=tb.environments, **kw),
                Registry(),
            )
        finally:
            await tb.aclose()

    asyncio.run(go())


def _by_task(records: list[TrialRecord]) -> dict[str, list[TrialRecord]]:
    out: dict[str, list[TrialRecord]] = {}
    for r in records:
        out.setdefault(r.task_id, []).append(r)
    return out


def test_oracle_campaign_over_the_fixture_dataset(tmp_path: Path) -> None:
    out = tmp_path / "oracle"
    _run(_open(), out, [OracleFactory()], trials=2, concurrency=3)
    by_task = _by_task(read_results(out))
    assert sorted(by_task) == sorted([CANCEL, CLEAR, LOOKUP, TOOL_CALLS, BROKEN, EXTRA])
    status = {t: {r.status for r in rs} for t, rs in by_task.items()}
    # Replaying tool_interactions verbatim (the explicit null of test_clear_note included)
    # leaves the golden state in every fresh process.
    for t in (CLEAR, TOOL_CALLS, EXTRA):
        assert status[t] == {TrialStatus.PASSED}, (t, by_task[t][0].error)
    # No judge model: the rubric question is unjudged, so the trial is not a pass
    # (fail-closed), though every judged check passed.
    assert status[CANCEL] == {TrialStatus.FAILED}
    assert {r.verdict.signature for r in by_task[CANCEL] if r.verdict} == {"unjudged"}
    # The oracle's generic final words lack the "40" this check asks of the response.
    assert status[LOOKUP] == {TrialStatus.FAILED}
    lookup = by_task[LOOKUP][0].verdict
    assert lookup is not None and lookup.signature == "incomplete_resolution"
    assert lookup.comparison.matches  # the state is right; only the response check failed
    # A check that raises something other than AssertionError is a system error.
    assert status[BROKEN] == {TrialStatus.SYSTEM_ERROR}
    errors = read_errors(out)
    assert {e.task_id for e in errors} == {BROKEN} and len(errors) == 2
    assert "KeyError" in errors[0].message
    # No judge model: the rubric question is recorded unjudged (skipped), not asked.
    cancel = by_task[CANCEL][0].verdict
    assert cancel is not None
    rubric = [c for c in cancel.checks if c.kind == "rubric"]
    assert len(rubric) == 1 and rubric[0].skipped
    names = {c.name for c in cancel.checks}
    assert {"thinkingbox:test_cancel_order", "termination"} <= names
    # The judge's effects come from the server's states, in statebox's own terms.
    assert [(e.table, e.kind) for e in cancel.expected_effects] == [("orders", "update")]
    assert cancel.actual_effects == cancel.expected_effects
    manifest = read_manifest(out)
    assert manifest.settings["domains"] == ["tiny_shop"]


class _ProbeReserved:
    """An agent that tries the lifecycle operations, then does the golden work."""

    name = "probe"
    config: dict[str, Any] = {}

    def __init__(self) -> None:
        self.results: list[Any] = []
        self._plan = [
            ToolCall(tool="__reserved__init", args={"config": {"data_patch": {"orders": []}}}),
            ToolCall(tool="__reserved__geteffects", args={}),
            ToolCall(tool="delete_customer", args={"customer_id": "C1"}),
            ToolCall(tool="update_order", args={"order_id": "O1", "note": None}),
        ]

    async def act(self, obs: Observation) -> Action:
        if obs.tool_result is not None:
            self.results.append(obs.tool_result)
        if obs.kind == "start":
            assert not any(t.name.startswith("__reserved__") for t in obs.tools)
            assert "delete_customer" not in {t.name for t in obs.tools}
            assert "Tiny Shop" in obs.policy
        if self._plan:
            return CallTool(call=self._plan.pop(0))
        return End(text="Done.")


class _ProbeFactory:
    name = "probe"
    agent_id = "probe"
    config: dict[str, Any] = {}

    def __init__(self) -> None:
        self.made: list[_ProbeReserved] = []

    def __call__(self, ctx: Any) -> _ProbeReserved:
        agent = _ProbeReserved()
        self.made.append(agent)
        return agent


def test_reserved_and_unlisted_tools_are_unreachable_and_the_state_shows_it(
    tmp_path: Path,
) -> None:
    factory = _ProbeFactory()
    _run(_open("tiny_shop_group1.py:test_clear_note"), tmp_path / "probe", [factory])
    [agent] = factory.made
    kinds = [r.error.kind if r.error else "ok" for r in agent.results]
    assert kinds == ["unknown_tool", "unknown_tool", "unknown_tool", "ok"]
    # The agent's init with an empty orders table never reached the server: the
    # trial passes on the one golden write it made.
    [record] = read_results(tmp_path / "probe")
    assert record.status == TrialStatus.PASSED, record.verdict


def test_llm_agent_with_a_rubric_judge_over_a_real_model_server(tmp_path: Path) -> None:
    tb = _open("tiny_shop_group1_rubrics_yesno.py:test_cancel_order", warm=0)
    out = tmp_path / "llm"

    async def go(server: ProtocolServer) -> None:
        h = hub()
        try:
            campaign = Campaign(
                tb.tasks,
                [LLMAgentFactory(h, config_for(server))],
                2,
                out,
                rubric=ModelRubricJudge(h, config_for(server)),
                environments=tb.environments,
            )
            await run_campaign(campaign, Registry())
        finally:
            await h.aclose()
            await tb.aclose()

    with ProtocolServer(GoldenResponder(tb.tasks)) as server:
        asyncio.run(go(server))
        agent_requests = [r for r in server.requests if r.tools]
    records = read_results(out)
    assert [r.status for r in records] == [TrialStatus.PASSED] * 2
    verdict = records[0].verdict
    assert verdict is not None
    rubric = [c for c in verdict.checks if c.kind == "rubric"]
    assert len(rubric) == 1 and rubric[0].passed and not rubric[0].skipped
    # The model saw the allowlisted MCP tools and nothing else.
    offered = set(agent_requests[0].tools)
    assert offered == {
        "get_order",
        "cancel_order",
        "update_order",
        "list_orders",
        "fail_hard",
        "search_policy",
    }
    assert records[0].cost_usd >= 0 and records[0].model_calls


def _cli(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


@pytest.mark.slow
def test_cli_run_resume_report_and_compare(tmp_path: Path) -> None:
    out = tmp_path / "cli"
    common = ["--agent", "oracle", "--out", str(out)]
    first = _cli(
        "run", "--thinkingbox", str(DATASET), "--tb-servers", str(SERVERS),
        "--test", "tiny_shop_group1.py:test_clear_note",
        "--test", "tiny_shop_extra.py:test_list_orders",
        "--drop-sources", "--trials", "1", "--warm-pool", "1", *common,
    )  # fmt: skip
    assert first.exit_code == 0, first.output
    # A resume needs none of the dataset options: they come from the manifest.
    again = _cli("run", "--resume", "--trials", "2", *common)
    assert again.exit_code == 0, again.output
    records = read_results(out)
    assert len(records) == 4 and all(r.status == TrialStatus.PASSED for r in records)
    assert sorted((r.task_id, r.trial) for r in records) == sorted(
        (t, i) for t in (CLEAR, EXTRA) for i in (0, 1)
    )
    report = _cli("report", str(out), "--format", "json")
    assert report.exit_code == 0, report.output
    summary = json.loads(report.stdout)
    assert "not installed" not in report.output
    assert json.dumps(summary).count("tiny_shop") >= 1
    compare = _cli("compare", str(out), str(out))
    assert compare.exit_code == 0, compare.output


def test_cli_refuses_thinkingbox_options_without_a_dataset(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["run", "--test", "a.py:test_x", "--out", str(tmp_path)])
    assert result.exit_code != 0
    assert "--thinkingbox" in result.output
    result = CliRunner().invoke(
        app, ["run", "--thinkingbox", str(tmp_path), "--out", str(tmp_path / "o")]
    )
    assert result.exit_code != 0
    assert "not a ThinkingBox dataset" in result.output


def test_sources_without_a_search_service_are_system_errors_that_say_what_to_do(
    tmp_path: Path,
) -> None:
    suite = load_dataset(DATASET, None, ["tiny_shop_group1.py:test_clear_note"])
    assert not suite.warnings  # nothing dropped
    tb = open_thinkingbox(suite, load_servers(SERVERS, python=sys.executable), warm=0)
    _run(tb, tmp_path / "sources", [OracleFactory()])
    [record] = read_results(tmp_path / "sources")
    assert record.status == TrialStatus.SYSTEM_ERROR
    assert record.error is not None
    assert "search service unavailable" in record.error and "--drop-sources" in record.error


def test_cli_all_system_errors_exit_1_and_quote_the_servers_stderr(tmp_path: Path) -> None:
    servers = tmp_path / "servers.yaml"
    servers.write_text(
        "servers:\n  tiny_shop:\n    type: mcp-process\n    command: ['{python}', '-c',"
        " 'import sys; sys.stderr.write(\"boom: no module named tiny_shop\"); sys.exit(3)']\n"
    )
    out = tmp_path / "run"
    relative_python = os.path.relpath(sys.executable)
    result = _cli(
        "run", "--thinkingbox", str(DATASET), "--tb-servers", str(servers),
        "--test", "tiny_shop_group1.py:test_clear_note", "--drop-sources",
        "--server-python", relative_python, "--agent", "oracle", "--trials", "1",
        "--out", str(out),
    )  # fmt: skip
    assert result.exit_code == 1
    text = " ".join(result.output.split())
    assert "every trial run ended in a system error" in text
    assert "boom: no module named tiny_shop" in text  # the server's own words
    [record] = read_results(out)
    assert record.error is not None and "boom" in record.error
    # The server python is stored absolute: a resume from another folder finds it.
    python = read_manifest(out).settings["thinkingbox"]["server_python"]
    assert os.path.isabs(python) and os.path.samefile(python, sys.executable)


def test_cli_refuses_a_server_python_that_does_not_exist(tmp_path: Path) -> None:
    result = _cli(
        "run", "--thinkingbox", str(DATASET), "--tb-servers", str(SERVERS),
        "--server-python", str(tmp_path / "no-python"), "--out", str(tmp_path / "o"),
    )  # fmt: skip
    assert result.exit_code == 1
    assert "no such executable" in result.output
    assert not (tmp_path / "o").exists()
