"""Readiness that means it: the catalog's checks, retried until every one passes.

A catalog over external backends brings readiness probes (a ThinkingBox dataset's:
its server package imports, one server of each kind completes ``__reserved__init``,
its search service answers; a judge model's endpoint answers). `Readiness.settle`
runs them after the tasks load and again, with a growing pause, until all pass; until
then ``/ready``, ``/openenv/ready`` and ``/control/health`` answer 503 with the first
failed check's name and detail and every check's outcome (`Readiness.body`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any
from urllib.parse import urlsplit

import httpx

from statebox.episode import ReadinessCheck

__all__ = ["Probe", "Readiness", "endpoint_check"]

_log = logging.getLogger(__name__)

Probe = Callable[[], Awaitable[Sequence[ReadinessCheck]]]
"""Runs some readiness checks now and reports each one."""


class Readiness:
    """The outcome of a catalog's readiness probes so far.

    Args:
        first_wait_s: Pause before the first retry, in seconds (doubling each time).
        max_wait_s: Longest pause between two attempts, in seconds.
    """

    def __init__(self, first_wait_s: float = 1.0, max_wait_s: float = 30.0) -> None:
        self.first_wait_s = first_wait_s
        self.max_wait_s = max_wait_s
        self.checks: tuple[ReadinessCheck, ...] = ()
        """The checks of the latest attempt."""
        self.attempts = 0
        """Attempts made so far."""

    @property
    def failed(self) -> ReadinessCheck | None:
        """The first check of the latest attempt that failed (a skipped one only if none ran)."""
        bad = [c for c in self.checks if not c.ok]
        return next((c for c in bad if not c.skipped), bad[0] if bad else None)

    async def settle(self, probes: Sequence[Probe]) -> None:
        """Run every probe until all their checks pass (a probe that raises fails)."""
        wait = self.first_wait_s
        while True:
            checks: list[ReadinessCheck] = []
            for probe in probes:
                try:
                    checks += await probe()
                except Exception as exc:  # a probe's own bug is a failed check, not a crash
                    detail = f"{type(exc).__name__}: {exc}"
                    checks.append(ReadinessCheck(name="probe", ok=False, detail=detail))
            self.checks, self.attempts = tuple(checks), self.attempts + 1
            failed = self.failed
            if failed is None:
                return
            _log.warning("not ready: %s: %s (retrying in %.0f s)", failed.name, failed.detail, wait)
            await asyncio.sleep(wait)
            wait = min(wait * 2, self.max_wait_s)

    def body(self) -> dict[str, Any]:
        """What a readiness route says about the checks (empty before any ran)."""
        if not self.attempts:
            return {}
        out: dict[str, Any] = {}
        failed = self.failed
        if failed is not None:
            out |= {"failed": failed.name, "error": failed.detail, "attempts": self.attempts}
        out["checks"] = [c.model_dump(mode="json") for c in self.checks]
        return out


def _redact(url: str) -> str:
    # No user, password or query (a key may ride there): scheme, host, port and path only.
    p = urlsplit(url)
    host = p.hostname or ""
    port = f":{p.port}" if p.port else ""
    return f"{p.scheme}://{host}{port}{p.path}"


async def endpoint_check(name: str, url: str, timeout_s: float = 5.0) -> ReadinessCheck:
    """Whether an HTTP endpoint answers at all (any status: reachable; no answer: not).

    Args:
        name: The check's name (``judge``).
        url: The endpoint's base URL (reported without credentials).
        timeout_s: How long to wait for an answer.
    """
    shown = _redact(url)
    try:
        async with httpx.AsyncClient(timeout=timeout_s) as http:
            r = await http.get(url)
    except httpx.HTTPError as exc:
        return ReadinessCheck(name=name, ok=False, detail=f"{shown}: {type(exc).__name__}: {exc}")
    return ReadinessCheck(name=name, ok=True, detail=f"{shown} answers (HTTP {r.status_code})")
