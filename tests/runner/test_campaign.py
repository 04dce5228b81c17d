"""Campaigns: the plan, the manifest, resume, error capture (invariant 9)."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from fixtures.support import INVALID_TASKS
from statebox.agents import Agent, FaultInjectionFactory, FaultRates, OracleFactory, TrialContext
from statebox.episode import Action, Observation, TerminationReason
from statebox.errors import ConfigError, DomainError
from statebox.records import (
    ERRORS_FILE,
    MANIFEST_FILE,
    RESULTS_FILE,
    TrialRecord,
    TrialStatus,
    read_errors,
    read_manifest,
    read_results,
    trial_id,
)
from statebox.registry import Registry
from statebox.runner import Campaign, CampaignResult, run_campaign
from statebox.tasks import Task, bundle_hash, load_tasks

AGENTS = [OracleFactory(), FaultInjectionFactory()]


def campaign(tasks: list[Task], out: Path, **kw: Any) -> Campaign:
    fields = {"tasks": tasks, "agents": AGENTS, "trials": 3, "out": out, "concurrency": 4}
    return Campaign(**{**fields, **kw})


def go(c: Campaign, registry: Registry, progress: Any = None) -> CampaignResult:
    return asyncio.run(run_campaign(c, registry, progress))


def keys(records: list[TrialRecord]) -> list[tuple[str, str, int]]:
    return [(r.task_id, r.agent_id, r.trial) for r in records]


def full_plan(tasks: list[Task], trials: int = 3) -> set[tuple[str, str, int]]:
    return {(t.id, a.agent_id, i) for t in tasks for a in AGENTS for i in range(trials)}


def test_campaign_writes_one_record_per_planned_trial(
    toy_tasks: list[Task], registry: Registry, results_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-do-not-write-me")
    monkeypatch.setenv("STATEBOX_API_TOKEN", "tok-do-not-write-me")
    result = go(campaign(toy_tasks, results_dir), registry)
    assert result == CampaignResult(results_dir, 18, 0, 18, 0)
    records = read_results(results_dir)
    assert len(records) == 18
    assert len({r.trial_id for r in records}) == 18
    assert set(keys(records)) == full_plan(toy_tasks)
    for r in records:
        assert r.trial_id == trial_id(r.task_id, r.agent_id, r.trial)
        assert r.domain == "toy" and r.split == "test"
        assert r.verdict is not None and r.status != TrialStatus.SYSTEM_ERROR
        assert (r.status == TrialStatus.PASSED) is r.verdict.passed
        assert r.timings.total_s >= r.timings.episode_s >= 0
        assert r.transcript[0].kind == "user_message"
    oracle = [r for r in records if r.agent_id == "oracle"]
    assert all(r.status == TrialStatus.PASSED for r in oracle)
    assert {r.campaign_id for r in records} == {read_manifest(results_dir).campaign_id}
    assert read_errors(results_dir) == []

    m = read_manifest(results_dir)
    assert m.task_bundle_hash == bundle_hash(toy_tasks)
    assert m.task_ids == tuple(t.id for t in toy_tasks)
    assert [a.agent_id for a in m.agents] == ["oracle", AGENTS[1].agent_id]
    assert m.agents[1].config == FaultRates().model_dump()
    assert m.trials == 3 and m.seed == 0
    assert m.settings["concurrency"] == 4 and m.settings["domains"] == ["toy"]
    text = (results_dir / MANIFEST_FILE).read_text()
    assert "sk-test-do-not-write-me" not in text and "tok-do-not-write-me" not in text
    lowered = json.dumps(json.loads(text)).lower()
    for word in ("api_key", "apikey", "password", "secret", "authorization"):
        assert word not in lowered


def test_campaign_is_reproducible(
    toy_tasks: list[Task], registry: Registry, tmp_path: Path
) -> None:
    fault = [FaultInjectionFactory(FaultRates(skip_write=0.3, wrong_value=0.3))]

    def statuses(out: Path) -> dict[str, str]:
        go(campaign(toy_tasks, out, agents=fault, trials=6, seed=11), registry)
        return {r.trial_id: r.status.value for r in read_results(out)}

    a, b = statuses(tmp_path / "a"), statuses(tmp_path / "b")
    assert a == b
    assert set(a.values()) == {"passed", "failed"}


def test_resume_of_a_finished_campaign_runs_nothing(
    toy_tasks: list[Task], registry: Registry, results_dir: Path
) -> None:
    go(campaign(toy_tasks, results_dir), registry)
    before = (results_dir / RESULTS_FILE).read_bytes()
    first = read_manifest(results_dir)
    result = go(campaign(toy_tasks, results_dir, resume=True), registry)
    assert (result.planned, result.skipped, result.ran) == (18, 18, 0)
    assert (results_dir / RESULTS_FILE).read_bytes() == before
    again = read_manifest(results_dir)
    assert again.campaign_id == first.campaign_id
    assert again.created_at == first.created_at


def test_resume_runs_exactly_the_missing_trials(
    toy_tasks: list[Task], registry: Registry, results_dir: Path
) -> None:
    go(campaign(toy_tasks, results_dir), registry)
    path = results_dir / RESULTS_FILE
    lines = path.read_text().splitlines(keepends=True)
    dropped = {json.loads(lines[i])["trial_id"] for i in (0, 4, 9, 17)}
    path.write_text("".join(line for i, line in enumerate(lines) if i not in (0, 4, 9, 17)))
    result = go(campaign(toy_tasks, results_dir, resume=True), registry)
    assert (result.skipped, result.ran) == (14, 4)
    records = read_results(results_dir)
    assert len(records) == 18
    assert Counter(keys(records)) == Counter(full_plan(toy_tasks))
    assert {r.trial_id for r in records[-4:]} == dropped


def test_resume_with_more_trials_extends_the_plan(
    toy_tasks: list[Task], registry: Registry, results_dir: Path
) -> None:
    go(campaign(toy_tasks, results_dir), registry)
    result = go(campaign(toy_tasks, results_dir, trials=5, resume=True), registry)
    assert (result.planned, result.skipped, result.ran) == (30, 18, 12)
    assert set(keys(read_results(results_dir))) == full_plan(toy_tasks, 5)
    assert read_manifest(results_dir).trials == 5


def test_existing_campaign_without_resume_is_refused(
    toy_tasks: list[Task], registry: Registry, results_dir: Path
) -> None:
    go(campaign(toy_tasks, results_dir, trials=1), registry)
    before = (results_dir / RESULTS_FILE).read_bytes()
    with pytest.raises(ConfigError, match="already holds a campaign; pass --resume"):
        go(campaign(toy_tasks, results_dir, trials=1), registry)
    assert (results_dir / RESULTS_FILE).read_bytes() == before


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"seed": 5}, "seed 5 differs"),
        ({"policy_mode": "search"}, "policy mode search differs from the campaign's task"),
        ({"agents": [OracleFactory()]}, "the agents differ"),
        ({"tasks": "first-two"}, "the tasks differ"),
    ],
)
def test_resume_refuses_a_different_campaign(
    toy_tasks: list[Task], registry: Registry, results_dir: Path, change: dict, message: str
) -> None:
    go(campaign(toy_tasks, results_dir, trials=1), registry)
    change = {"tasks": toy_tasks[:2]} if change.get("tasks") == "first-two" else dict(change)
    with pytest.raises(ConfigError, match=message):
        tasks = change.pop("tasks", toy_tasks)
        go(campaign(tasks, results_dir, trials=1, resume=True, **change), registry)
    assert len(read_results(results_dir)) == 6


def test_the_policy_mode_is_in_the_manifest_and_every_trial_serves_it(
    toy_tasks: list[Task], registry: Registry, results_dir: Path
) -> None:
    go(campaign(toy_tasks, results_dir, trials=1, policy_mode="search"), registry)
    assert read_manifest(results_dir).settings["policy_mode"] == "search"
    records = read_results(results_dir)
    assert records and all(
        r.status == TrialStatus.PASSED for r in records if r.agent_id == "oracle"
    )
    with pytest.raises(ConfigError, match="policy mode task differs from the campaign's search"):
        go(campaign(toy_tasks, results_dir, trials=1, resume=True), registry)
    go(campaign(toy_tasks, results_dir, trials=1, resume=True, policy_mode="search"), registry)
    other = results_dir.parent / "default"
    go(campaign(toy_tasks[:1], other, trials=1, agents=[OracleFactory()]), registry)
    assert read_manifest(other).settings["policy_mode"] == "task"


def test_invalid_task_stops_the_campaign_before_writing(
    toy_tasks: list[Task], registry: Registry, results_dir: Path
) -> None:
    bad = load_tasks(INVALID_TASKS)
    with pytest.raises(ConfigError) as info:
        go(campaign([*toy_tasks, *bad], results_dir), registry)
    text = str(info.value)
    assert "1 invalid task(s)" in text
    assert "toy.transfer.overdraw.001: golden call 1 (transfer) failed" in text
    assert not results_dir.exists()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"tasks": []}, "no tasks"),
        ({"trials": 0}, "at least 1"),
        ({"concurrency": 0}, "at least 1"),
        ({"agents": []}, "no agent"),
    ],
)
def test_bad_campaign_settings(
    toy_tasks: list[Task], registry: Registry, results_dir: Path, change: dict, message: str
) -> None:
    change = dict(change)
    with pytest.raises(ConfigError, match=message):
        go(campaign(change.pop("tasks", toy_tasks), results_dir, **change), registry)
    assert not results_dir.exists()


def test_unknown_domain(toy_tasks: list[Task], results_dir: Path) -> None:
    with pytest.raises(DomainError, match="unknown domain 'toy'"):
        go(campaign(toy_tasks, results_dir), Registry())


class _Broken:
    name = "broken"
    agent_id = "broken"
    config: dict[str, Any] = {}

    def __call__(self, ctx: TrialContext) -> Agent:
        return _BrokenAgent(ctx)


class _BrokenAgent:
    name = "broken"
    config: dict[str, Any] = {}

    def __init__(self, ctx: TrialContext) -> None:
        self.ctx = ctx

    async def act(self, obs: Observation) -> Action:
        if self.ctx.trial % 2 == 0:
            raise RuntimeError(f"agent crashed on trial {self.ctx.trial}")
        from statebox.episode import End

        return End(text="nothing to do: that account is frozen")


def test_agent_exceptions_become_system_errors_and_the_campaign_completes(
    toy_tasks: list[Task], registry: Registry, results_dir: Path
) -> None:
    result = go(campaign(toy_tasks, results_dir, agents=[_Broken()], trials=4), registry)
    assert (result.planned, result.ran, result.system_errors) == (12, 12, 6)
    records = read_results(results_dir)
    assert len(records) == 12
    crashed = [r for r in records if r.status == TrialStatus.SYSTEM_ERROR]
    assert sorted((r.task_id, r.trial) for r in crashed) == sorted(
        (t.id, i) for t in toy_tasks for i in (0, 2)
    )
    for r in crashed:
        assert r.verdict is None
        assert r.termination == TerminationReason.SYSTEM_ERROR
        assert r.error == f"RuntimeError: agent crashed on trial {r.trial}"
        assert r.transcript[0].kind == "user_message"  # what happened before the crash is kept
    errors = read_errors(results_dir)
    assert sorted(e.trial_id for e in errors) == sorted(r.trial_id for r in crashed)
    for e in errors:
        assert e.type == "RuntimeError"
        assert e.traceback.startswith("Traceback (most recent call last):")
        assert "in act" in e.traceback and f"agent crashed on trial {e.trial}" in e.traceback
    lines = (results_dir / ERRORS_FILE).read_text().splitlines()
    assert len(lines) == 6
    # The trials that did not crash were judged normally.
    rest = [r for r in records if r.status != TrialStatus.SYSTEM_ERROR]
    assert {r.trial for r in rest} == {1, 3}
    assert all(r.verdict is not None for r in rest)


class _Sleeper:
    name = "sleeper"
    agent_id = "sleeper"
    config: dict[str, Any] = {}

    def __call__(self, ctx: TrialContext) -> Agent:
        return self  # type: ignore[return-value]

    async def act(self, obs: Observation) -> Action:
        await asyncio.sleep(30)
        raise AssertionError("unreachable")


def test_trial_timeout_ends_the_episode_and_judges_it(
    toy_tasks: list[Task], registry: Registry, results_dir: Path
) -> None:
    c = campaign(toy_tasks[:1], results_dir, agents=[_Sleeper()], trials=2, trial_timeout_s=0.05)
    result = go(c, registry)
    assert result.system_errors == 0
    for r in read_results(results_dir):
        assert r.termination == TerminationReason.TIMEOUT
        assert r.status == TrialStatus.FAILED
        assert r.verdict is not None and r.verdict.signature == "no_state_change"


class _Progress:
    def __init__(self) -> None:
        self.events: list[Any] = []

    def start(self, total: int, already_done: int) -> None:
        self.events.append(("start", total, already_done))

    def trial_done(self, record: TrialRecord) -> None:
        self.events.append(("done", record.trial_id))

    def finish(self) -> None:
        self.events.append(("finish",))


def test_progress_is_reported(toy_tasks: list[Task], registry: Registry, results_dir: Path) -> None:
    p = _Progress()
    go(campaign(toy_tasks, results_dir, trials=2), registry, p)
    assert p.events[0] == ("start", 12, 0)
    assert p.events[-1] == ("finish",)
    assert len([e for e in p.events if e[0] == "done"]) == 12
    p2 = _Progress()
    go(campaign(toy_tasks, results_dir, trials=2, resume=True), registry, p2)
    assert p2.events == [("start", 12, 12), ("finish",)]


def test_resume_never_drops_an_unterminated_last_record(
    toy_tasks: list[Task], registry: Registry, results_dir: Path
) -> None:
    go(campaign(toy_tasks, results_dir), registry)
    path = results_dir / RESULTS_FILE
    path.write_bytes(path.read_bytes().rstrip(b"\n"))  # killed just before the newline
    go(campaign(toy_tasks, results_dir, resume=True), registry)
    assert set(keys(read_results(results_dir))) == full_plan(toy_tasks)


def test_system_errors_count_as_failures_in_the_canonical_figures(
    toy_tasks: list[Task], registry: Registry, results_dir: Path
) -> None:
    from statebox.report import summarize

    go(campaign(toy_tasks, results_dir, agents=[_Broken()], trials=4), registry)
    s = summarize(read_results(results_dir))
    # Odd trials end at once: only the read-only task passes them; even trials crash.
    assert s["system_errors"] == 6
    assert s["overall"]["pass_at_1"] == pytest.approx((0 + 0 + 2 / 4) / 3)
    assert s["excluding_system_errors"]["overall"]["pass_at_1"] == pytest.approx((0 + 0 + 1) / 3)
    assert s["failures"]["signatures"]["system_error"] == 6


def test_allowlist_naming_a_missing_tool_stops_the_campaign(
    toy_tasks: list[Task], registry: Registry, results_dir: Path
) -> None:
    from fixtures.support import task_from

    bad = task_from(toy_tasks[0], tools=["get_account", "transfer", "wire_abroad"])
    with pytest.raises(ConfigError, match="wire_abroad"):
        go(campaign([bad], results_dir, trials=2), registry)
    assert not results_dir.exists()


def test_results_without_a_manifest_are_not_appended_to(
    toy_tasks: list[Task], registry: Registry, results_dir: Path
) -> None:
    go(campaign(toy_tasks, results_dir, trials=1), registry)
    (results_dir / MANIFEST_FILE).unlink()
    with pytest.raises(ConfigError):
        go(campaign(toy_tasks, results_dir, trials=1), registry)
    ids = [r.trial_id for r in read_results(results_dir)]
    assert len(ids) == len(set(ids)) == 6
