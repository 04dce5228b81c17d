"""The knowledge-base search a campaign's ThinkingBox servers reach.

ThinkingBox servers index their init config's ``sources`` in Typesense: each
``__reserved__init`` creates a collection named by a fresh uuid, so one service serves
every concurrent trial, and the servers' client is hard-wired to ``127.0.0.1:8108``
with the key in ``TYPESENSE_API_KEY``. statebox either starts its own service
(`SearchService`, the Typesense REST subset of `_search_main`, one loopback process)
or uses a real Typesense (``--typesense-url``); either way `SearchTarget.env` gives the
server processes the variables that `_server_launch` reads to point the ``typesense``
client at it, so no server code changes and two campaigns never fight over port 8108.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import threading
from pathlib import Path
from types import TracebackType
from typing import NamedTuple
from urllib.parse import urlsplit

from statebox.errors import BackendError, ConfigError

__all__ = ["SearchService", "SearchTarget", "parse_typesense_url"]

_MAIN = Path(__file__).resolve().parent / "_search_main.py"

URL_ENV = "STATEBOX_TYPESENSE_URL"
"""Where the ``typesense`` client of a server process is pointed (read by `_server_launch`)."""
KEY_ENV = "STATEBOX_TYPESENSE_API_KEY"
"""The API key it then sends (replacing the servers file's ``TYPESENSE_API_KEY``)."""


class SearchTarget(NamedTuple):
    """A search service the server processes are pointed at."""

    url: str
    """``http://127.0.0.1:PORT`` (or a real Typesense's base URL)."""
    api_key: str | None
    """The key to send; None keeps the servers' own ``TYPESENSE_API_KEY``."""

    def env(self) -> dict[str, str]:
        """Variables for a server process (see `_server_launch`)."""
        out = {URL_ENV: self.url}
        if self.api_key is not None:
            out[KEY_ENV] = self.api_key
        return out


def parse_typesense_url(url: str) -> str:
    """``url`` checked: ``http(s)://HOST:PORT`` with no path.

    Raises:
        ConfigError: It is not such a URL.
    """
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/"):
        raise ConfigError(f"--typesense-url {url}: expected http://HOST:PORT")
    try:
        _ = parts.port
    except ValueError:
        raise ConfigError(f"--typesense-url {url}: bad port") from None
    return f"{parts.scheme}://{parts.netloc}"


class SearchService:
    """statebox's own Typesense-compatible search service, one loopback process.

    Start it with `start` (or ``with SearchService() as service:``), point servers at
    `target`, stop it with `stop`. It dies with this process too (it watches its stdin).

    Args:
        python: Interpreter that runs the service (default: this one; it needs only
            the standard library with SQLite FTS5).
        log_path: File for the service's stderr (None: discarded).
        start_timeout_s: Limit on the start, in seconds.
    """

    def __init__(
        self,
        *,
        python: str | None = None,
        log_path: Path | None = None,
        start_timeout_s: float = 30.0,
    ) -> None:
        self.python = python or sys.executable
        self.log_path = log_path
        self.start_timeout_s = start_timeout_s
        self.api_key = secrets.token_urlsafe(24)
        self.port: int | None = None
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def target(self) -> SearchTarget:
        """Where the service listens, with its key.

        Raises:
            BackendError: The service is not running.
        """
        if self.port is None or self._proc is None or self._proc.poll() is not None:
            raise BackendError("the search service is not running")
        return SearchTarget(f"http://127.0.0.1:{self.port}", self.api_key)

    def start(self) -> SearchService:
        """Start the service and wait until it listens.

        Raises:
            BackendError: It could not start (the message quotes its stderr).
        """
        if self._proc is not None:
            return self
        if self.log_path is not None:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
        err = (
            self.log_path.open("ab") if self.log_path is not None else open(os.devnull, "wb")  # noqa: SIM115 - handed to the child, closed below
        )
        try:
            self._proc = subprocess.Popen(
                [self.python, "-I", str(_MAIN), "--port", "0"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                env={**os.environ, "STATEBOX_SEARCH_API_KEY": self.api_key},
            )
        except OSError as exc:
            raise BackendError(f"the search service could not start: {exc}") from exc
        finally:
            err.close()
        line: list[bytes] = []
        stdout = self._proc.stdout
        assert stdout is not None  # stdout=PIPE
        reader = threading.Thread(target=lambda: line.append(stdout.readline()), daemon=True)
        reader.start()
        reader.join(self.start_timeout_s)
        try:
            self.port = int(json.loads(line[0])["port"]) if line and line[0] else None
        except (ValueError, KeyError, TypeError):
            self.port = None
        if self.port is None:
            self.stop()
            tail = ""
            if self.log_path is not None and self.log_path.exists():
                tail = self.log_path.read_text(encoding="utf-8", errors="replace")[-1500:]
            raise BackendError(f"the search service did not start{': ' + tail if tail else ''}")
        return self

    def stop(self) -> None:
        """Stop the service (idempotent)."""
        proc, self._proc = self._proc, None
        self.port = None
        if proc is None:
            return
        if proc.stdin is not None:
            proc.stdin.close()
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()

    def __enter__(self) -> SearchService:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
