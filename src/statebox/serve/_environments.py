"""External environments in a served catalog: a ThinkingBox dataset, your own MCP server.

An environment is a `Backend` (a fresh tool session per episode) that judges its own
episodes (`JudgedBackend`: the shape of `statebox.runner.Environment`, which this
layer cannot import). A catalog keeps each behind a `TrackedBackend`, which remembers
the sessions it opened, so that a stopping server waits until every live episode's
server processes have exited before it stops the environments themselves.
"""

from __future__ import annotations

import inspect
import weakref
from typing import Protocol, runtime_checkable

from statebox.episode import Backend, EpisodeOutcome, ToolSession
from statebox.judge import RubricJudge, Verdict
from statebox.tasks import Task

__all__ = ["EpisodeJudge", "JudgedBackend", "TrackedBackend"]


class EpisodeJudge(Protocol):
    """Judges an ended episode of one task."""

    async def judge(self, task: Task, outcome: EpisodeOutcome) -> Verdict:
        """The verdict; a check that could not be evaluated carries ``error=True``."""
        ...


@runtime_checkable
class JudgedBackend(Backend, Protocol):
    """A backend that judges its own episodes."""

    def trial_judge(self, rubric: RubricJudge | None) -> EpisodeJudge:
        """Its judge (``rubric`` answers yes/no questions; None: they are skipped)."""
        ...


class TrackedBackend:
    """A backend whose open sessions can be awaited at shutdown.

    Args:
        backend: The environment.
    """

    def __init__(self, backend: JudgedBackend) -> None:
        self.backend = backend
        self.name = backend.name
        self._sessions: weakref.WeakSet[ToolSession] = weakref.WeakSet()

    def task_policy(self, task: Task) -> str:
        """The environment's policy text for ``task``."""
        return self.backend.task_policy(task)

    async def open(self, task: Task) -> ToolSession:
        """A fresh session of ``task``, remembered until it is gone."""
        session = await self.backend.open(task)
        self._sessions.add(session)
        return session

    async def close_sessions(self) -> None:
        """Close every session still alive and wait until each has stopped."""
        for session in list(self._sessions):
            session.close()
            aclose = getattr(session, "aclose", None)
            if aclose is not None and inspect.iscoroutinefunction(aclose):
                await aclose()
