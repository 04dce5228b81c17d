"""Infrastructure failures of a served episode: a system error, never a reward of 0.

When the environment itself fails — a ThinkingBox server crashes or runs past its
time limit, the judge's endpoint is unreachable, a check function cannot be evaluated
— the episode ends as a *system error*, exactly as `statebox run` records such a trial:
no verdict, no reward. Each driver says so in its own terms: OpenEnv a terminal step
with ``reward`` None and ``metadata.status == "system_error"``; the MCP gateway an
``isError`` result of kind ``system_error``; the control API HTTP 502.

What the agent sends is never one: a refused call or bad arguments are tool results.
"""

from __future__ import annotations

from statebox.errors import BackendError, JudgeError, ModelEndpointError, StateboxError
from statebox.judge import Verdict

__all__ = ["INFRASTRUCTURE", "EpisodeEnded", "EpisodeSystemError", "check_errors"]

INFRASTRUCTURE: tuple[type[StateboxError], ...] = (BackendError, ModelEndpointError, JudgeError)
"""Errors that end an episode as a system error (a server, an endpoint, the judge)."""


class EpisodeSystemError(StateboxError):
    """The episode ended in a system error (its message says what failed)."""


class EpisodeEnded(RuntimeError):
    """A call reached an episode that had ended, e.g. one that lost a race with its verdict."""


def check_errors(verdict: Verdict) -> str | None:
    """Why ``verdict`` is no verdict: its checks that could not be evaluated (None: all ran).

    The wording is `statebox run`'s (its trial record's ``error``).
    """
    broken = [c for c in verdict.checks if c.error]
    if not broken:
        return None
    return "check error: " + "; ".join(f"{c.name}: {c.detail}" for c in broken)
