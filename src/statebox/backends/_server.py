"""A throwaway PostgreSQL server for one campaign (or one test session).

``initdb`` into a new temporary folder, then ``postgres`` on a free port of 127.0.0.1
only, its unix socket in that folder too; stopped (fast shutdown) and the folder
removed by `PostgresServer.stop`, or by its watchdog (`_watchdog`) if the process that
started it dies without stopping it. Durability is switched off (``fsync``,
``synchronous_commit``, ``full_page_writes``): nothing in it outlives the campaign.

PostgreSQL refuses to run as root, so as root the server runs as the ``postgres`` user
Debian's package creates (else ``nobody``), owning the folder. TCP connections need a
random password (scram-sha-256) that lives only in this object's URL; it never reaches
a log or a record (`redact_url`).
"""

from __future__ import annotations

import glob
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

from statebox.errors import ConfigError

__all__ = ["PostgresServer", "find_postgres_bin"]

_USER = "statebox"


def find_postgres_bin() -> Path:
    """The folder holding ``initdb`` and ``postgres`` (PATH first, then Debian's layout).

    Raises:
        ConfigError: PostgreSQL's server programs are not installed.
    """
    found = shutil.which("initdb")
    if found and Path(found).resolve().with_name("postgres").exists():
        return Path(found).resolve().parent
    versions = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: (
            int(Path(p).parent.parent.name) if Path(p).parent.parent.name.isdigit() else 0
        ),
    )
    if versions:
        return Path(versions[-1]).parent
    raise ConfigError(
        "PostgreSQL's server programs (initdb, postgres) are not installed: "
        "apt-get install postgresql, or give --postgres-url"
    )


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _run_as() -> tuple[int, int] | None:
    """The (uid, gid) to run the server as when we are root; None otherwise."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            continue
        return entry.pw_uid, entry.pw_gid
    raise ConfigError("running as root, and there is no postgres or nobody user to run PostgreSQL")


def _watch(pid: int, folder: Path) -> int | None:
    """Start the watchdog of server ``pid`` (`_watchdog`); returns its pipe's write end.

    None where there is no ``/proc``: then only `stop` stops the server. Only this
    process holds the write end (the descriptor is not inherited by children), so the
    watchdog stops the server when this process dies, however it dies. (A child made by
    a bare ``os.fork`` shares the descriptor: the watchdog then waits for it too.)
    """
    try:
        start = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except OSError:  # no /proc (not Linux): no watchdog; `stop` still stops the server
        return None
    read, write = os.pipe()
    try:
        subprocess.Popen(
            [sys.executable, "-I", str(Path(__file__).with_name("_watchdog.py")), str(pid),
             start, str(folder)],
            stdin=read,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip
    except BaseException:
        os.close(write)
        raise
    finally:
        os.close(read)
    return write


class PostgresServer:
    """A running throwaway server (create with `PostgresServer.start`).

    Attributes:
        url: ``postgresql://statebox:PASSWORD@127.0.0.1:PORT/postgres`` (a superuser).
        port: The loopback port.
        folder: The temporary folder (data, socket, log).
    """

    def __init__(self, folder: Path, port: int, password: str, process: subprocess.Popen[bytes]):
        self.folder = folder
        self.port = port
        self.url = f"postgresql://{_USER}:{password}@127.0.0.1:{port}/postgres"
        self._process = process
        self._lifeline: int | None = None  # the watchdog's pipe (`_watch`)

    @classmethod
    def start(cls, *, bin_dir: Path | None = None, timeout_s: float = 60.0) -> PostgresServer:
        """Create a cluster in a new temporary folder and start it on a free loopback port.

        Raises:
            ConfigError: PostgreSQL is not installed, or it did not start within
                ``timeout_s`` (the message quotes the end of its log).
        """
        bin_dir = bin_dir or find_postgres_bin()
        owner = _run_as()
        folder = Path(tempfile.mkdtemp(prefix="statebox-pg-"))
        kwargs: dict[str, Any] = {"cwd": folder}
        if owner is not None:
            os.chown(folder, *owner)
            kwargs.update(user=owner[0], group=owner[1], extra_groups=[])
        password = secrets.token_hex(16)
        pwfile = folder / "pw"
        pwfile.write_text(password)
        pwfile.chmod(0o600)
        if owner is not None:
            os.chown(pwfile, *owner)
        log_path = folder / "server.log"
        try:
            done = subprocess.run(
                [
                    str(bin_dir / "initdb"),
                    "-D",
                    str(folder / "data"),
                    "-U",
                    _USER,
                    f"--pwfile={pwfile}",
                    "--auth-host=scram-sha-256",
                    "--auth-local=scram-sha-256",
                    "-E",
                    "UTF8",
                    "--locale=C",
                    "--no-sync",
                ],
                capture_output=True,
                text=True,
                timeout=timeout_s,
                check=False,
                **kwargs,
            )
            pwfile.unlink()
            if done.returncode != 0:
                raise ConfigError(f"initdb failed: {(done.stderr or done.stdout).strip()[-1500:]}")
            (folder / "sock").mkdir()
            if owner is not None:
                os.chown(folder / "sock", *owner)
            port = _free_port()
            log: IO[bytes] = log_path.open("ab")
            try:
                process = subprocess.Popen(
                    [
                        str(bin_dir / "postgres"),
                        "-D",
                        str(folder / "data"),
                        "-k",
                        str(folder / "sock"),
                        "-p",
                        str(port),
                        "-c",
                        "listen_addresses=127.0.0.1",
                        "-c",
                        "fsync=off",
                        "-c",
                        "synchronous_commit=off",
                        "-c",
                        "full_page_writes=off",
                        "-c",
                        "shared_buffers=32MB",
                        "-c",
                        "max_connections=200",
                    ],
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=log,
                    start_new_session=True,  # a Ctrl-C reaches us, and we stop it cleanly
                    **kwargs,
                )
            finally:
                log.close()
            server = cls(folder, port, password, process)
            try:
                server._lifeline = _watch(process.pid, folder)
                server._wait(timeout_s)
            except BaseException:
                server.stop()
                raise
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        return server

    def _wait(self, timeout_s: float) -> None:
        import psycopg

        deadline = time.monotonic() + timeout_s
        while True:
            if self._process.poll() is not None:
                self._fail(f"PostgreSQL exited with code {self._process.returncode}")
            try:
                psycopg.connect(self.url, connect_timeout=2).close()
                return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    self.stop()
                    self._fail(f"PostgreSQL did not accept connections within {timeout_s} s")
                time.sleep(0.05)

    def _fail(self, message: str) -> None:
        try:
            tail = (self.folder / "server.log").read_text(errors="replace").strip()[-1500:]
        except OSError:
            tail = ""
        raise ConfigError(message + (f"\n--- server log ---\n{tail}" if tail else ""))

    @property
    def alive(self) -> bool:
        """Whether the server process is running."""
        return self._process.poll() is None

    def stop(self, timeout_s: float = 30.0) -> None:
        """Stop the server (fast shutdown, then kill) and remove its folder; idempotent."""
        if self._process.poll() is None:
            try:
                self._process.send_signal(signal.SIGINT)  # fast shutdown
                self._process.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)
        if self._lifeline is not None:
            os.close(self._lifeline)  # the watchdog finds the server gone and exits
            self._lifeline = None

    def __enter__(self) -> PostgresServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
