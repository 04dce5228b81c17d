"""The acceptance run as a user makes it: the scripted model as a separate process,
``statebox run`` against it, the server killed mid-run, ``--resume --retry-errors``."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from statebox.records import RESULTS_FILE, TrialStatus, read_errors, read_results

RETAIL = Path(__file__).resolve().parents[2] / "src" / "statebox" / "domains" / "retail" / "tasks"
STATEBOX = [sys.executable, "-c", "from statebox.cli import main; main()"]


def _start_server(tmp: Path, *extra: str) -> tuple[subprocess.Popen[bytes], str]:
    port_file = tmp / f"port-{time.monotonic_ns()}"
    proc = subprocess.Popen(
        [sys.executable, "-m", "statebox.llm._scripted_server", "--suite", "retail@1.0",
         "--port-file", str(port_file), *extra],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while not port_file.exists():
        assert proc.poll() is None, "scripted server exited"
        assert time.monotonic() < deadline, "scripted server did not start"
        time.sleep(0.05)
    return proc, f"http://127.0.0.1:{port_file.read_text()}/v1"


def _run(url: str, out: Path, *extra: str) -> subprocess.Popen[str]:
    env = {
        **os.environ,
        "STATEBOX_MODEL_MAX_ATTEMPTS": "2",
        "STATEBOX_MODEL_RETRY_WAIT_S": "0",
        "STATEBOX_MODEL_RETRY_MAX_WAIT_S": "0",
    }
    return subprocess.Popen(
        [*STATEBOX, "run", "--tasks", str(RETAIL / "returns.yaml"), "--agent", "openai:scripted",
         "--user", "openai:scripted", "--agent-base-url", url,
         "--trials", "3", "--concurrency", "2", "--out", str(out), "--json", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip


@pytest.mark.slow
def test_kill_the_model_server_mid_run_then_retry_errors(tmp_path: Path) -> None:
    out = tmp_path / "campaign"
    server, url = _start_server(tmp_path, "--delay-s", "0.05")
    try:
        run = _run(url, out)
        results = out / RESULTS_FILE
        deadline = time.monotonic() + 120
        while not (results.exists() and len(results.read_text().splitlines()) >= 6):
            assert run.poll() is None, run.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=10)
    _, err = run.communicate(timeout=300)
    assert run.returncode == 0, err
    first = read_results(out)
    errors = read_errors(out)
    n_errors = sum(r.status == TrialStatus.SYSTEM_ERROR for r in first)
    assert n_errors > 0 and len(errors) == n_errors
    assert {e.type for e in errors} == {"ModelEndpointError"}
    assert f"{n_errors} system errors" in " ".join(err.split())

    # The same endpoint again: a base URL decides which model answers, so a resume that
    # changed it would be refused (issue 17, item 4).
    server, again = _start_server(tmp_path, "--port", url.rsplit(":", 1)[1].split("/")[0])
    assert again == url
    try:
        rerun = _run(url, out, "--resume", "--retry-errors")
        stdout, err = rerun.communicate(timeout=300)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=10)
    assert rerun.returncode == 0, err
    assert f" resumed, {n_errors} run now, 0 of them system errors)" in " ".join(err.split())
    final = read_results(out)
    assert len(final) == len(first)
    assert all(r.status == TrialStatus.PASSED for r in final)
    assert all(r.cost_usd == 0 and r.usage["agent"].calls >= 2 for r in final)
    assert '"pass_at_1"' in stdout
