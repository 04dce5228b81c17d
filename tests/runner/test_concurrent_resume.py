"""Concurrent and resumed campaigns (issue 17, items 3 and 4).

Two runs on one directory take its lock before they read the manifest, so neither can
merge a second campaign into the results nor repeat trials; a resume that would change
a setting deciding verdicts is refused, naming it.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from statebox.agents import OracleFactory
from statebox.episode import Limits
from statebox.errors import ConfigError
from statebox.records import MANIFEST_FILE, RESULTS_FILE, read_manifest, read_results
from statebox.registry import Registry
from statebox.runner import Campaign, run_campaign, verdict_changes
from statebox.runner._campaign import _Runner
from statebox.tasks import Task


def _campaign(tasks: list[Task], out: Path, **kw: Any) -> Campaign:
    fields: dict[str, Any] = {
        "tasks": tasks,
        "agents": [OracleFactory()],
        "trials": 2,
        "out": out,
        "concurrency": 1,
    }
    return Campaign(**{**fields, **kw})


@pytest.fixture
def gated(monkeypatch: pytest.MonkeyPatch) -> asyncio.Event:
    """Campaigns run with concurrency 2 wait after their preflight until the gate opens."""
    gate = asyncio.Event()
    original = _Runner.preflight

    async def preflight(self: _Runner) -> None:
        await original(self)
        if self.c.concurrency == 2:
            await gate.wait()

    monkeypatch.setattr(_Runner, "preflight", preflight)
    return gate


def _lines(out: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (out / RESULTS_FILE).read_text().splitlines()]


def test_two_new_campaigns_on_one_directory_never_merge(
    toy_tasks: list[Task], registry: Registry, results_dir: Path, gated: asyncio.Event
) -> None:
    async def first() -> Any:
        try:
            return await run_campaign(_campaign(toy_tasks, results_dir), registry)
        finally:
            gated.set()

    async def go() -> list[Any]:
        # The second run starts first and stops after its preflight; the first runs whole.
        second = run_campaign(_campaign(toy_tasks, results_dir, concurrency=2), registry)
        return await asyncio.gather(second, first(), return_exceptions=True)

    b, a = asyncio.run(go())
    assert not isinstance(a, BaseException) and a.ran == 6
    assert isinstance(b, ConfigError) and "already holds a campaign" in str(b)
    lines = _lines(results_dir)
    assert len(lines) == 6
    assert {x["campaign_id"] for x in lines} == {read_manifest(results_dir).campaign_id}


def test_two_resumes_at_once_run_each_missing_trial_once(
    toy_tasks: list[Task], registry: Registry, results_dir: Path, gated: asyncio.Event
) -> None:
    asyncio.run(run_campaign(_campaign(toy_tasks, results_dir, trials=1), registry))

    async def first() -> Any:
        try:
            return await run_campaign(
                _campaign(toy_tasks, results_dir, trials=3, resume=True), registry
            )
        finally:
            gated.set()

    async def go() -> list[Any]:
        c = _campaign(toy_tasks, results_dir, trials=3, resume=True, concurrency=2)
        return await asyncio.gather(run_campaign(c, registry), first())

    b, a = asyncio.run(go())
    assert (a.ran, b.ran) == (6, 0)
    counts = Counter(x["trial_id"] for x in _lines(results_dir))
    assert len(counts) == 9 and set(counts.values()) == {1}


def test_a_resume_changing_a_verdict_setting_is_refused_naming_it(
    toy_tasks: list[Task], registry: Registry, results_dir: Path
) -> None:
    c = _campaign(toy_tasks, results_dir, trials=1, verdict_settings={"user_base_url": None})
    asyncio.run(run_campaign(c, registry))
    before = (results_dir / MANIFEST_FILE).read_text()
    changed = c._replace(
        resume=True,
        limits=Limits(max_steps=7),
        models={"user": "openai:gpt-4o-mini"},
        verdict_settings={"user_base_url": "http://127.0.0.1:9/v1"},
    )
    with pytest.raises(ConfigError) as info:
        asyncio.run(run_campaign(changed, registry))
    message = str(info.value)
    assert "\n" not in message
    for key in ("max_steps (campaign: 200, now: 7)", "user_model", "user_base_url"):
        assert key in message
    assert (results_dir / MANIFEST_FILE).read_text() == before  # not rewritten
    # The same settings resume fine.
    same = asyncio.run(run_campaign(c._replace(resume=True, trials=2), registry))
    assert same.ran == 3 and len(read_results(results_dir)) == 6


def test_keys_an_older_manifest_lacks_are_not_compared() -> None:
    assert verdict_changes({}, {"user_behaviour": "strict"}) == []
    assert verdict_changes({"judge_model": None}, {}) == [
        "judge_model (campaign: null, now: (not set))"
    ]


@pytest.mark.parametrize("below", ["", "c"])
def test_a_bad_out_path_is_a_one_line_error_naming_it(
    toy_tasks: list[Task], registry: Registry, tmp_path: Path, below: str
) -> None:
    blocker = tmp_path / "results.txt"
    blocker.write_text("not a campaign")
    out = blocker / below if below else blocker  # a file, or a path no one can create
    with pytest.raises(ConfigError) as info:
        asyncio.run(run_campaign(_campaign(toy_tasks, out), registry))
    assert str(out) in str(info.value) and "\n" not in str(info.value)
    assert blocker.read_text() == "not a campaign"
