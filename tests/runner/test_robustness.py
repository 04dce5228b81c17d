"""Campaign robustness: locking, check errors, unwritable text, stricter preflight, resume
trial counts, Ctrl-C."""

from __future__ import annotations

import asyncio
import fcntl
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from fixtures.support import TOY_REF, TOY_TASKS, ScriptAgent, call, task_from
from statebox.agents import Agent, OracleFactory, TrialContext
from statebox.errors import ConfigError, JudgeError
from statebox.judge import RubricAnswer
from statebox.records import RESULTS_FILE, TrialStatus, read_errors, read_results
from statebox.registry import Registry
from statebox.runner import Campaign, run_campaign
from statebox.tasks import Task

STATEBOX = Path(sys.executable).parent / "statebox"


def go(c: Campaign, registry: Registry) -> Any:
    return asyncio.run(run_campaign(c, registry))


class _Factory:
    """Agent factory around a function building an agent per trial."""

    name = "scripted"
    agent_id = "scripted"
    config: dict[str, Any] = {}

    def __init__(self, make: Any) -> None:
        self._make = make

    def __call__(self, ctx: TrialContext) -> Agent:
        agent: Agent = self._make(ctx)
        return agent


def test_a_locked_campaign_directory_is_refused(
    toy_tasks: list[Task], registry: Registry, results_dir: Path
) -> None:
    results_dir.mkdir()
    with (results_dir / ".lock").open("wb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        c = Campaign(tasks=toy_tasks, agents=[OracleFactory()], trials=1, out=results_dir)
        with pytest.raises(ConfigError, match="in use by another statebox run"):
            go(c, registry)
    # Released: the same campaign now runs.
    assert go(c, registry).ran == 3


class _BrokenJudge:
    async def ask(self, question: str, response: str, conversation: str) -> RubricAnswer:
        raise JudgeError("rubric answer is not exactly yes or no: 'No ... yes'")


def test_a_check_that_cannot_be_evaluated_is_a_system_error(
    toy_tasks: list[Task], registry: Registry, results_dir: Path
) -> None:
    task = task_from(toy_tasks[0], checks={"response": {"rubric": ["Polite? (yes/no)"]}})
    c = Campaign(
        tasks=[task], agents=[OracleFactory()], trials=2, out=results_dir, rubric=_BrokenJudge()
    )
    result = go(c, registry)
    assert result.system_errors == 2
    records = read_results(results_dir)
    assert {r.status for r in records} == {TrialStatus.SYSTEM_ERROR}
    errors = read_errors(results_dir)
    assert [e.type for e in errors] == ["CheckError", "CheckError"]
    assert {e.trial_id for e in errors} == {r.trial_id for r in records}
    assert "No ... yes" in errors[0].message


def test_lone_surrogates_from_an_agent_are_recorded_not_fatal(
    toy_tasks: list[Task], registry: Registry, results_dir: Path
) -> None:
    def make(ctx: TrialContext) -> Agent:
        return ScriptAgent(
            [call("add_note", account_id="A1", body="bad \ud800 text")], final="done \udfff"
        )

    c = Campaign(tasks=toy_tasks[:1], agents=[_Factory(make)], trials=2, out=results_dir)
    assert go(c, registry).ran == 2
    records = read_results(results_dir)
    assert len(records) == 2
    assert {r.status for r in records} == {TrialStatus.FAILED}
    note = next(e for e in records[0].transcript if e.call is not None)
    assert note.result is not None and note.result.ok
    assert note.call is not None and note.call.args["body"] == "bad ? text"


def test_preflight_refuses_a_task_whose_oracle_fails_its_own_checks(
    toy_tasks: list[Task], registry: Registry, results_dir: Path
) -> None:
    bad = task_from(
        toy_tasks[0],
        checks={
            "invariants": [{"sql": "select balance from accounts where id = 'A2'", "equals": 1}]
        },
    )
    c = Campaign(tasks=[bad], agents=[OracleFactory()], trials=1, out=results_dir)
    with pytest.raises(ConfigError, match="oracle fails its own checks"):
        go(c, registry)
    assert not results_dir.exists()


def test_resume_with_fewer_trials_than_planned_is_refused(
    toy_tasks: list[Task], registry: Registry, results_dir: Path
) -> None:
    go(Campaign(tasks=toy_tasks, agents=[OracleFactory()], trials=3, out=results_dir), registry)
    fewer = Campaign(
        tasks=toy_tasks, agents=[OracleFactory()], trials=2, out=results_dir, resume=True
    )
    with pytest.raises(ConfigError, match="plans 3 trials per task"):
        go(fewer, registry)
    more = fewer._replace(trials=4)
    assert go(more, registry).ran == 3
    assert len(read_results(results_dir)) == 12


@pytest.mark.slow
def test_ctrl_c_stops_a_campaign_promptly_and_it_resumes(tmp_path: Path) -> None:
    out = tmp_path / "run"
    cmd = [str(STATEBOX), "run", "--tasks", str(TOY_TASKS), "--domain", TOY_REF,
           "--agent", "fault", "--trials", "800", "--out", str(out)]  # fmt: skip
    # A terminal's Ctrl-C reaches a process whose SIGINT is the default; the suite may have
    # been started as a background job, which inherits SIGINT ignored (POSIX), so say so.
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if (out / RESULTS_FILE).exists() and (out / RESULTS_FILE).stat().st_size > 20_000:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    t0 = time.monotonic()
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err.decode()
    assert time.monotonic() - t0 < 10
    done = len(read_results(out))
    assert 0 < done < 2400
    subprocess.run([*cmd, "--resume"], check=True, capture_output=True, timeout=600)
    records = read_results(out)
    assert len(records) == 2400
    assert len({r.trial_id for r in records}) == 2400
