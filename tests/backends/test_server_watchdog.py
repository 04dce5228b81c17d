"""A throwaway PostgreSQL never outlives the process that started it (`_watchdog`).

The owner here is a child Python that starts a `PostgresServer` and is then killed
with SIGKILL, so no ``finally`` or ``atexit`` of its runs: only the watchdog can stop
the server and remove its folder.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from statebox.backends import find_postgres_bin
from statebox.errors import ConfigError

OWNER = """
import json, os, sys
from statebox.backends import PostgresServer
server = PostgresServer.start()
print(json.dumps({"pid": server._process.pid, "folder": str(server.folder)}), flush=True)
sys.stdin.read()  # held until the test kills this process
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _postgres_installed() -> bool:
    try:
        find_postgres_bin()
    except ConfigError:
        return False
    return True


@pytest.mark.skipif(not _postgres_installed(), reason="PostgreSQL is not installed")
def test_a_killed_owner_leaves_no_server_and_no_folder_behind() -> None:
    import json

    owner = subprocess.Popen(
        [sys.executable, "-c", OWNER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert owner.stdout is not None
        started = json.loads(owner.stdout.readline())
        pid, folder = started["pid"], Path(started["folder"])
        assert _alive(pid) and folder.is_dir()
        os.kill(owner.pid, signal.SIGKILL)
        owner.wait(10)
        deadline = time.monotonic() + 40
        while (_alive(pid) or folder.exists()) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(pid), "the server outlived its owner"
        assert not folder.exists(), "the server's folder outlived its owner"
    finally:
        if owner.poll() is None:
            owner.kill()


@pytest.mark.skipif(not _postgres_installed(), reason="PostgreSQL is not installed")
def test_a_stopped_server_lets_its_watchdog_exit() -> None:
    from statebox.backends import PostgresServer

    server = PostgresServer.start()
    # Only this server's watchdog: other tests (or other runs) may start servers too.
    started = _watchdogs(server._process.pid)
    assert len(started) == 1
    server.stop()
    deadline = time.monotonic() + 10
    while any(_alive(p) for p in started) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(p) for p in started)


def _watchdogs(server_pid: int) -> set[int]:
    """The live watchdog processes of the server ``server_pid``."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmd = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            args = cmd.split(b"\0")
            watches = len(args) > 3 and args[2].endswith(b"_watchdog.py")
            if watches and args[3] == str(server_pid).encode() and _alive(int(entry.name)):
                found.add(int(entry.name))
    return found
