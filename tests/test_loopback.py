"""Tests talk to loopback only: the README's test command runs them in a network namespace
whose only interface is ``lo`` (scripts/loopback.py), and these tests keep it so.
"""

from __future__ import annotations

import errno
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from statebox.cli._scale import local_ray_notice

ROOT = Path(__file__).resolve().parents[1]
WRAPPER = ROOT / "scripts" / "loopback.py"
STATE = os.environ.get("STATEBOX_NETNS")

_PRINT_NETNS = (
    "import os, socket; print(sorted(n for _, n in socket.if_nameindex()), "
    "os.environ['STATEBOX_NETNS'], os.getuid())"
)


def _outside_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("STATEBOX_NETNS", None)
    return env


def test_this_suite_runs_where_only_loopback_exists() -> None:
    if STATE is None:
        pytest.skip("not run through scripts/loopback.py (the README's test command does)")
    if STATE != "loopback":
        pytest.skip(f"the wrapper could make no namespace here ({STATE})")
    assert sorted(name for _, name in socket.if_nameindex()) == ["lo"]
    with socket.socket() as s, pytest.raises(OSError) as err:
        s.settimeout(2)
        s.connect(("192.0.2.1", 9))  # TEST-NET-1: routable nowhere, so never a real peer
    assert err.value.errno == errno.ENETUNREACH
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        socket.create_connection(server.getsockname(), timeout=2).close()


def test_the_readme_test_command_runs_pytest_through_the_wrapper() -> None:
    lines = [ln for ln in (ROOT / "scripts" / "test").read_text().splitlines() if "pytest" in ln]
    runs = [ln for ln in lines if not ln.lstrip().startswith("#") and "-m pytest" in ln]
    assert len(runs) == 1
    assert re.search(r"scripts/loopback\.py \S*python -m pytest", runs[0]), runs[0]
    readme = (ROOT / "README.md").read_text()
    assert "bash scripts/test" in readme
    assert (ROOT / ".ci" / "run").read_text().rstrip().endswith("bash scripts/test")


def test_the_wrapper_gives_its_command_only_loopback() -> None:
    run = subprocess.run(
        [sys.executable, str(WRAPPER), sys.executable, "-c", _PRINT_NETNS],
        capture_output=True,
        text=True,
        env=_outside_env(),
        timeout=60,
        check=True,
    )
    if "no network namespace could be made" in run.stderr:
        pytest.skip(run.stderr.strip())
    names, state, uid = run.stdout.rsplit(" ", 2)
    assert (names, state, int(uid)) == ("['lo']", "loopback", os.getuid())


def test_the_wrapper_passes_the_exit_status_and_arguments_through() -> None:
    code = "import sys; print(sys.argv[1:]); sys.exit(7)"
    run = subprocess.run(
        [sys.executable, str(WRAPPER), sys.executable, "-c", code, "a b", "-m", "x"],
        capture_output=True,
        text=True,
        env=_outside_env(),
        timeout=60,
    )
    assert run.returncode == 7
    assert run.stdout.strip() == "['a b', '-m', 'x']"


def test_bench_scripts_with_servers_clients_or_ray_re_run_inside(tmp_path: Path) -> None:
    for name in (
        "suite.py",
        "gateway.py",
        "run.py",
        "transport.py",
        "thinkingbox_pool.py",
        "thinkingbox_start.py",
    ):
        text = (ROOT / "bench" / name).read_text()
        assert "from scripts.loopback import ensure" in text and "ensure(__file__)" in text, name
    script = tmp_path / "bench_like.py"
    script.write_text(
        f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n"
        "from scripts.loopback import ensure\nensure(__file__)\n" + _PRINT_NETNS + "\n"
    )
    run = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        env=_outside_env(),
        timeout=60,
        check=True,
    )
    if "no network namespace could be made" in run.stderr:
        pytest.skip(run.stderr.strip())
    assert run.stdout.startswith("['lo'] loopback ")


def test_a_local_ray_beyond_loopback_is_announced_in_one_line() -> None:
    assert local_ray_notice("127.0.0.1") is None
    assert local_ray_notice("::1") is None
    line = local_ray_notice("192.0.2.2")
    assert line is not None and "\n" not in line
    assert "192.0.2.2" in line and "--ray-address" in line and "--node-ip-address" in line
