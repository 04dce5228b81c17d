"""A campaign killed with SIGKILL resumes without repeating or dropping trials (invariant 9)."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from fixtures.support import TOY_REF, TOY_TASKS
from statebox.records import RESULTS_FILE, read_results

STATEBOX = Path(sys.executable).parent / "statebox"
TASKS = 3  # tasks in tests/fixtures/toy/tasks


def _lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def _command(out: Path, trials: int) -> list[str]:
    return [
        str(STATEBOX),
        "run",
        "--tasks",
        str(TOY_TASKS),
        "--domain",
        TOY_REF,
        "--agent",
        "fault",
        "--trials",
        str(trials),
        "--concurrency",
        "4",
        "--out",
        str(out),
    ]


@pytest.mark.slow
def test_sigkill_then_resume_gives_every_trial_exactly_once(tmp_path: Path) -> None:
    out = tmp_path / "campaign"
    results = out / RESULTS_FILE
    trials = 400
    at_kill = 0
    for _ in range(4):  # raise the trial count until the run is slow enough to kill
        proc = subprocess.Popen(
            _command(out, trials), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline:
            if _lines(results) >= 200:
                proc.send_signal(signal.SIGKILL)
                break
            time.sleep(0.005)
        proc.wait(timeout=30)
        at_kill = _lines(results)
        if proc.returncode == -signal.SIGKILL and at_kill < TASKS * trials:
            break
        shutil.rmtree(out)
        trials *= 4
    else:
        pytest.fail("the campaign always finished before it could be killed")
    assert 200 <= at_kill < TASKS * trials

    done = subprocess.run(
        [*_command(out, trials), "--resume", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "resumed" in done.stderr

    records = read_results(out)
    assert len(records) == TASKS * trials
    assert len({r.trial_id for r in records}) == TASKS * trials
    per_task_trial = Counter((r.task_id, r.trial) for r in records)
    assert len(per_task_trial) == TASKS * trials
    assert set(per_task_trial.values()) == {1}
    assert {i for _, i in per_task_trial} == set(range(trials))
    assert {r.campaign_id for r in records} == {records[0].campaign_id}
    # Every line is whole: the torn tail of the kill (if any) was cut, not kept.
    assert results.read_bytes().endswith(b"\n")
    assert _lines(results) == TASKS * trials
