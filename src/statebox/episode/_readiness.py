"""Readiness: whether a backend can run episodes yet, one named check at a time.

A server that serves episodes (`statebox.serve`) must not say it is ready before its
backends can actually run a trial: an external backend's readiness checks (its server
package imports, one server completes its init, its search service answers) each
report one `ReadinessCheck`, and the first that failed is what a readiness probe
answers with.
"""

from __future__ import annotations

from statebox._model import Model

__all__ = ["ReadinessCheck"]


class ReadinessCheck(Model):
    """The outcome of one readiness check."""

    name: str
    """What was checked, e.g. ``server_package:tiny_shop``, ``init:tiny_shop``, ``search``."""
    ok: bool
    """Whether it passed (a skipped check is not a pass)."""
    detail: str = ""
    """Why it failed or was skipped, or what it found; never a secret."""
    skipped: bool = False
    """Not run, because a check it depends on failed (then ``ok`` is False)."""
