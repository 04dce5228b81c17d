"""The report's k is the campaign's planned trials, not its shortest task (issue 17, item 5)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from statebox.agents import FaultInjectionFactory, FaultRates
from statebox.cli import app
from statebox.records import RESULTS_FILE
from statebox.registry import Registry
from statebox.runner import Campaign, run_campaign
from statebox.tasks import Task


def test_one_short_task_does_not_turn_pass_hat_5_into_pass_hat_1(
    toy_tasks: list[Task], registry: Registry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "c"
    agent = FaultInjectionFactory(FaultRates(skip_write=0.3))
    asyncio.run(run_campaign(Campaign(toy_tasks, [agent], 5, out), registry))
    short = toy_tasks[0].id
    lines = (out / RESULTS_FILE).read_text().splitlines()
    kept = [x for x in lines if json.loads(x)["task_id"] != short or json.loads(x)["trial"] < 2]
    (out / RESULTS_FILE).write_text("\n".join(kept) + "\n")  # as if killed: 2 of 5 for one task
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["report", str(out), "--format", "json", "--resamples", "50"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["k"] == 5 and data["planned_trials"] == 5
    assert data["overall"]["tasks_below_k"] == 1
    assert data["tasks_below_k_ids"] == [short]
    assert any(short in w and "fewer than 5 trials" in w for w in data["warnings"])
    table = CliRunner().invoke(app, ["report", str(out), "--resamples", "50"])
    assert "pass^5" in table.stdout and short in " ".join(table.output.split())
