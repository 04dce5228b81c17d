"""`statebox serve` as a process: binds loopback, writes the token, serves the control API."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from serving import SERVE_TASKS

from fixtures.support import TOY_REF

STATEBOX = Path(sys.executable).with_name("statebox")


def test_statebox_serve_answers_on_loopback_with_its_token(tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    cmd = [str(STATEBOX), "serve", "--tasks", str(SERVE_TASKS), "--domain", TOY_REF]
    proc = subprocess.Popen(
        [*cmd, "--port", "0", "--no-openenv", "--token-file", str(token_file)],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        first = proc.stderr.readline()
        assert first.startswith("statebox serve on http://127.0.0.1:"), first
        url = first.split()[-1]
        token = token_file.read_text().strip()
        assert len(token) >= 40 and token_file.stat().st_mode & 0o077 == 0
        with httpx.Client(base_url=url) as c:
            for _ in range(500):
                if c.get("/ready").status_code == 200:
                    break
                time.sleep(0.02)
            assert c.get("/ready").json() == {"ready": True, "tasks": 4}
            body = {"task_id": "toy.freeze.train.001"}
            assert c.post("/control/sessions", json=body).status_code == 401
            r = c.post("/control/sessions", json=body, headers={"Authorization": f"Bearer {token}"})
            assert r.status_code == 201
            assert r.json()["mcp_url"].startswith(url + "/mcp/")
            assert c.get("/openenv/health").status_code == 404  # --no-openenv
    finally:
        proc.terminate()
        proc.wait(10)


def test_a_task_file_that_does_not_load_is_named_on_stderr(tmp_path: Path) -> None:
    # Before, the server printed its banner and nothing else: the error was /ready's only.
    (tmp_path / "bad.yaml").write_text("- id: toy.bad.001\n  domain: toy\n  split: train\n")
    cmd = [str(STATEBOX), "serve", "--tasks", str(tmp_path), "--domain", TOY_REF]
    proc = subprocess.Popen(
        [*cmd, "--port", "0", "--no-openenv"], stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stderr is not None
        lines: list[str] = []
        while len(lines) < 50 and not (lines and lines[-1].startswith("statebox serve: ")):
            line = proc.stderr.readline()
            assert line, f"stderr ended without the load error: {lines}"
            lines.append(line)
        error = lines[-1]
        assert error.startswith("statebox serve: the tasks did not load, /ready answers not ready:")
        assert "bad.yaml" in error and "toy.bad.001" in error and "Traceback" not in error
        # The load runs beside start-up, so the error may come before the banner or after.
        while not any(line.startswith("statebox serve on ") for line in lines):
            line = proc.stderr.readline()
            assert line and len(lines) < 50, f"stderr ended without the banner: {lines}"
            lines.append(line)
        banner = next(line for line in lines if line.startswith("statebox serve on "))
        url = banner.split()[-1]
        ready = httpx.get(url + "/ready").json()
        assert ready["ready"] is False and ready["error"] in error
    finally:
        proc.terminate()
        proc.wait(10)


def test_max_per_client_reaches_the_app(monkeypatch: pytest.MonkeyPatch) -> None:
    # A trainer on one host opens num_generations x batch sessions from one address.
    import statebox.serve
    from statebox.cli import app

    seen: dict[str, object] = {}

    class Stop(Exception):
        pass

    def fake(load: object, **kwargs: object) -> None:
        seen.update(kwargs)
        raise Stop

    monkeypatch.setattr(statebox.serve, "ServeApp", fake, raising=False)
    cmd = ["serve", "--tasks", str(SERVE_TASKS), "--domain", TOY_REF, "--max-per-client", "512"]
    with pytest.raises(Stop):
        app(cmd, standalone_mode=False)
    assert seen["max_per_client"] == 512


def _served(monkeypatch: pytest.MonkeyPatch, *args: str) -> dict[str, str]:
    """The task ids → splits `statebox serve ARGS` would serve (the app is not started)."""
    import statebox.serve
    from statebox.cli import app

    loads: list[object] = []

    class Stop(Exception):
        pass

    def fake(load: object, **kwargs: object) -> None:
        loads.append(load)
        raise Stop

    monkeypatch.setattr(statebox.serve, "ServeApp", fake, raising=False)
    with pytest.raises(Stop):
        app(["serve", "--no-openenv", *args], standalone_mode=False)
    (load,) = loads
    catalog = load()  # type: ignore[operator]
    return {i: t.split for i, t in catalog.tasks.items()}


def test_serve_takes_suite_names_and_serves_both_splits_by_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from fixtures.support import TOY_V2_REF

    named = _served(monkeypatch, "--domain", TOY_V2_REF, "--suite", "toy@2.0")
    assert sorted(named.values()) == ["test", "test", "test"]
    train = _served(monkeypatch, "--domain", TOY_V2_REF, "--suite", "toy:train@2.0")
    assert list(train.values()) == ["train"]
    # No --suite: both splits, so the OpenEnv server (train only by default) has tasks
    # whatever the default version's `all` (its test tasks) holds.
    default = _served(monkeypatch)
    assert {"test", "train"} == set(default.values())


@pytest.mark.parametrize("name", ["bogus", "retail@0.5", "retail:nope"])
def test_serve_refuses_a_bad_suite_before_starting(
    monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """A bad --suite is a one-line error and a non-zero exit, not a server never ready."""
    from typer.testing import CliRunner

    import statebox.serve
    from statebox.cli import app

    started: list[object] = []

    def fake(load: object, **kwargs: object) -> None:
        started.append(load)
        raise RuntimeError("the server would start")  # the bug: never ready, never exits

    monkeypatch.setattr(statebox.serve, "ServeApp", fake, raising=False)
    result = CliRunner().invoke(app, ["serve", "--no-openenv", "--suite", name])
    assert result.exit_code != 0 and not started
    assert "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "suite" in lines[0], result.output


def test_a_port_in_use_or_out_of_range_is_one_line_not_a_traceback() -> None:
    # Found by a new user: a port in use ended in two tracebacks and "SystemExit: 3",
    # a port over 65535 in an OverflowError traceback.
    import socket

    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    cmd = [str(STATEBOX), "serve", "--tasks", str(SERVE_TASKS), "--domain", TOY_REF]
    try:
        port = str(taken.getsockname()[1])
        busy = subprocess.run([*cmd, "--port", port], capture_output=True, text=True, timeout=120)
    finally:
        taken.close()
    assert busy.returncode == 1
    assert "Traceback" not in busy.stderr and "SystemExit" not in busy.stderr
    assert f"error: cannot serve on 127.0.0.1:{port}" in busy.stderr
    wrong = subprocess.run([*cmd, "--port", "99999"], capture_output=True, text=True, timeout=60)
    assert wrong.returncode == 2 and "Traceback" not in wrong.stderr
    assert "--port" in wrong.stderr


def test_serve_raises_its_open_files_limit_to_the_hard_one() -> None:
    import resource

    from statebox.cli._serve import raise_open_files_limit

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard <= 64:
        pytest.skip("no finite hard limit above the soft one to raise to here")
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, hard))
    try:
        raise_open_files_limit()
        assert resource.getrlimit(resource.RLIMIT_NOFILE) == (hard, hard)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_accepts_failing_for_want_of_descriptors_are_one_line_per_period(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Found in review: each failed accept was logged whole, ~40,000 lines a second.
    import asyncio

    from statebox.cli._serve import ACCEPT_FAILURE, quiet_accept_failures

    others: list[str] = []

    async def go() -> None:
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(lambda _, context: others.append(context["message"]))
        quiet_accept_failures(loop, every_s=60)
        error = OSError(24, "Too many open files")
        for _ in range(1000):
            loop.call_exception_handler({"message": ACCEPT_FAILURE, "exception": error})
        loop.call_exception_handler({"message": "something else"})

    asyncio.run(go())
    said = capsys.readouterr().err.strip().splitlines()
    assert len(said) == 1 and "out of file descriptors" in said[0]
    assert others == ["something else"]  # every other error goes where it went before
