"""ThinkingBox at full fidelity on the Tiny Shop fixture: the built-in search service with
no flag, an agent that searches the policy, --preset thinkingbox, and the fault agent's
write faults found by golden replay."""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from fixtures.tb_support import DATASET, SERVERS, TEST_LIST
from statebox.agents import FaultInjectionFactory
from statebox.agents._oracle import FaultRates
from statebox.cli import app
from statebox.cli._thinkingbox import TbOptions, open_dataset
from statebox.episode import Action, CallTool, End, Observation
from statebox.judge import FailureSignature
from statebox.records import TrialStatus, read_manifest, read_results
from statebox.registry import Registry
from statebox.runner import Campaign, run_campaign
from statebox.tools import ToolCall

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

CANCEL = "tiny_shop.tiny_shop_group1_rubrics_yesno.test_cancel_order"
CLEAR = "tiny_shop.tiny_shop_group1.test_clear_note"
LOOKUP = "tiny_shop.tiny_shop_group1.test_lookup_only"


class _Searcher:
    """Searches the policy first (as the v1.0 policies require), then does nothing."""

    name = "searcher"
    agent_id = "searcher"
    config: dict[str, Any] = {}

    def __init__(self) -> None:
        self.results: list[Any] = []
        self.offered: set[str] = set()

    def __call__(self, ctx: Any) -> _Searcher:
        return self

    async def act(self, obs: Observation) -> Action:
        if obs.kind == "start":
            self.offered = {t.name for t in obs.tools}
            return CallTool(
                call=ToolCall(tool="search_policy", args={"query": "how long do refunds take"})
            )
        if obs.tool_result is not None:
            self.results.append(obs.tool_result)
        return End(text="Refunds take 5 days.")


def _options(**kw: Any) -> TbOptions:
    return TbOptions.build(
        DATASET, test_list=TEST_LIST, names=None, servers=SERVERS, server_python=sys.executable,
        drop_sources=False, hidden_tools=None, warm=0, check_timeout_s=30, **kw,
    )  # fmt: skip


def _campaign(options: TbOptions, agents: list[Any], out: Path, names: tuple[str, ...]) -> None:
    async def go() -> None:
        tb = open_dataset(options._replace(test_list=None, names=names), log_dir=out / "logs")
        try:
            await run_campaign(
                Campaign(tb.tasks, agents, 1, out, environments=tb.environments), Registry()
            )
        finally:
            await tb.aclose()
        assert tb.search is not None and tb.search.port is None  # stopped with the run

    asyncio.run(go())


def test_an_agent_searches_the_policy_through_the_built_in_service(tmp_path: Path) -> None:
    agent = _Searcher()
    _campaign(_options(), [agent], tmp_path / "s", ("tiny_shop_group1.py:test_lookup_only",))
    assert "search_policy" in agent.offered
    [result] = agent.results
    assert result.ok, result
    snippets = result.output["snippets"]
    assert snippets[0] == {
        "source": "faq.md",
        "score": snippets[0]["score"],
        "vector_distance": snippets[0]["vector_distance"],
        "text": "Refunds take 5 days.",
    }
    assert snippets[0]["score"] > 0 and snippets[0]["vector_distance"] < 1.0
    [record] = read_results(tmp_path / "s")
    assert record.status != TrialStatus.SYSTEM_ERROR, record.error


def test_typesense_url_points_the_servers_at_another_service(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--typesense-url: a Typesense-speaking server the user runs (here: a second
    instance of statebox's, standing in for a real Typesense), with the user's key."""
    from statebox.thinkingbox import SearchService

    with SearchService() as theirs:
        monkeypatch.setenv("STATEBOX_TYPESENSE_API_KEY", theirs.api_key)
        options = _options(typesense_url=theirs.target.url + "/")
        assert options.search == theirs.target.url  # normalised, stored in the manifest
        agent = _Searcher()
        _campaign_no_builtin(options, agent, tmp_path / "t")
        [result] = agent.results
        assert result.ok and result.output["snippets"][0]["text"] == "Refunds take 5 days."


def _campaign_no_builtin(options: TbOptions, agent: Any, out: Path) -> None:
    async def go() -> None:
        tb = open_dataset(
            options._replace(test_list=None, names=("tiny_shop_group1.py:test_lookup_only",)),
            log_dir=out / "logs",
        )
        assert tb.search is None  # nothing of statebox's own was started
        try:
            await run_campaign(
                Campaign(tb.tasks, [agent], 1, out, environments=tb.environments), Registry()
            )
        finally:
            await tb.aclose()

    asyncio.run(go())


def test_fault_agent_perturbs_the_writes_found_by_golden_replay(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    skip_all = FaultInjectionFactory(
        FaultRates(skip_write=1.0, wrong_value=0.0, extra_write=0.0, stop_early=0.0)
    )
    with caplog.at_level(logging.WARNING, logger="statebox.runner"):
        _campaign(
            _options(fork_server=True),
            [skip_all],
            tmp_path / "f",
            (
                "tiny_shop_group1_rubrics_yesno.py:test_cancel_order",
                "tiny_shop_group1.py:test_clear_note",
                "tiny_shop_group1.py:test_lookup_only",
            ),
        )
    status = {r.task_id: r.status for r in read_results(tmp_path / "f")}
    # Both writes skipped: the state stays initial and the checks fail (the oracle
    # passes them: test_cli_preset_...). The lookup has no write: a warning says the
    # write faults could not apply to it.
    assert (status[CANCEL], status[CLEAR]) == (TrialStatus.FAILED, TrialStatus.FAILED)
    warned = [r.getMessage() for r in caplog.records]
    assert any(LOOKUP in m and "cannot apply" in m for m in warned), warned
    assert not any(CANCEL in m for m in warned)


def test_golden_writes_are_the_calls_that_change_state() -> None:
    async def go() -> tuple[bool, ...]:
        tb = open_dataset(_options(), log_dir=None)
        try:
            env = tb.environments["tiny_shop"]
            task = next(t for t in tb.tasks if t.id == CANCEL)
            return await env.golden_writes(task)
        finally:
            await tb.aclose()

    assert asyncio.run(go()) == (False, True)  # get_order reads, cancel_order writes


def test_cli_preset_thinkingbox_builtin_search_and_no_flag_needed(tmp_path: Path) -> None:
    out = tmp_path / "p"
    result = CliRunner().invoke(
        app,
        [
            "run", "--thinkingbox", str(DATASET), "--tb-servers", str(SERVERS),
            "--test", "tiny_shop_group1_rubrics_yesno.py:test_cancel_order",
            "--test", "tiny_shop_group1.py:test_clear_note",
            "--agent", "oracle", "--preset", "thinkingbox", "--trials", "1",
            "--warm-pool", "0", "--out", str(out),
        ],
        catch_exceptions=False,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    by_test = {r.task_id.rsplit(".", 2)[1]: r for r in read_results(out)}
    assert by_test["tiny_shop_group1"].status == TrialStatus.PASSED
    # The rubric task's state check passes; its yes/no question has no judge model, so the
    # trial is unjudged, not passed (fail-closed).
    rubric = by_test["tiny_shop_group1_rubrics_yesno"].verdict
    assert rubric is not None and not rubric.passed
    assert rubric.signature == FailureSignature.UNJUDGED
    assert all(c.passed for c in rubric.checks if not c.name.startswith("rubric"))
    settings = read_manifest(out).settings
    tb = settings["thinkingbox"]
    assert (tb["search"], tb["fork_server"], tb["drop_sources"]) == ("builtin", True, False)
    assert tb["tool_timeout_s"] == 300.0
    preset = settings["preset"]
    assert preset["name"] == "thinkingbox"
    assert preset["overridden"] == {"trials": 1}  # a flag wins over the preset
    assert preset["applied"]["agent_temperature"] == 1.0
    assert preset["applied"]["user_temperature"] == 0.3
    assert preset["applied"]["max_output_tokens"] == 4096
    assert preset["applied"]["user_max_follow_ups"] == 10
    assert preset["applied"]["model_max_attempts"] == 6
    assert settings["trial_timeout_s"] == 600.0
    assert (out / "logs").exists() is False and (
        out / "server-logs" / "search-service.log"
    ).exists()
    bad = CliRunner().invoke(app, ["run", "--preset", "nope", "--out", str(tmp_path / "n")])
    assert bad.exit_code != 0 and "unknown preset" in bad.output


def test_cli_tasks_validate_thinkingbox_prints_strength_and_survivors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    args = [
        "tasks", "validate", "--thinkingbox", str(DATASET), "--tb-servers", str(SERVERS),
        "--test", "tiny_shop_weak.py:test_cancel_status_only",
        "--test", "tiny_shop_group1.py:test_clear_note", "--concurrency", "2",
    ]  # fmt: skip
    result = CliRunner().invoke(app, [*args, "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    outcomes = {
        (c["task_id"].rsplit(".", 1)[1], m["description"].split(":")[0]): m["outcome"]
        for c in data["cases"]
        for m in c["mutants"]
    }
    assert outcomes == {
        # weak check: status only. Dropping the cancel or cancelling O2 (shipped: refused,
        # so O1 stays open) is caught; a wrong reason is not; a repeat changes nothing.
        ("test_cancel_status_only", "drop call 0 (cancel_order)"): "killed",
        ("test_cancel_status_only", "alter call 0 (cancel_order) order_id"): "killed",
        ("test_cancel_status_only", "alter call 0 (cancel_order) reason"): "survived",
        ("test_cancel_status_only", "repeat call 0 (cancel_order)"): "equivalent",
        # the whole-state hash check catches every real mutant.
        ("test_clear_note", "drop call 0 (update_order)"): "killed",
        ("test_clear_note", "alter call 0 (update_order) order_id"): "killed",
        ("test_clear_note", "repeat call 0 (update_order)"): "equivalent",
    }
    assert (data["killed"], data["survived"], data["equivalent"]) == (4, 1, 2)
    assert data["check_strength"] == 0.8
    weak = next(c for c in data["cases"] if "weak" in c["task_id"])
    [survivor] = [m for m in weak["mutants"] if m["outcome"] == "survived"]
    assert survivor["fields"] == ["tiny_shop:orders[*].cancel_reason"]
    # The tables the command prints without --json, from these very results.
    from statebox.cli._tb_validate import print_call_level
    from statebox.judge._call_mutants import CallMutantResult

    console = Console(record=True, width=200)
    monkeypatch.setattr("statebox.cli._tb_validate.out_console", console)
    print_call_level(
        [CallMutantResult(**m) for c in data["cases"] for m in c["mutants"]], "fixture"
    )
    text = console.export_text()
    assert "call-level check strength: fixture" in text and "80.0%" in text
    assert "survivors by field" in text and "tiny_shop:orders[*].cancel_reason" in text
