"""Tool backends other than statebox's own SQLite worlds (an external MCP server, say).

A `Backend` stands in for a `Domain` in an `Episode`: it opens one `ToolSession` per
trial, from a clean state, and the episode routes the agent's calls to it. What the
judge needs from the session at the end (a server's reported effects, for example) is
the backend's own business: the session stays open, on `EpisodeOutcome.session`, until
the episode is closed. A `StateSession` runs on a database statebox owns and reads
itself: the episode's outcome then carries its initial state and live terminal world,
as a domain's does, and the judge's whole check pipeline applies unchanged.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from statebox.episode._types import ToolInfo
from statebox.tasks import Task
from statebox.tools import ToolCall, ToolResult
from statebox.world import State, WorldView

__all__ = ["Backend", "StateSession", "ToolSession"]


@runtime_checkable
class ToolSession(Protocol):
    """One trial's live tool backend, opened from a clean state."""

    def tools(self) -> tuple[ToolInfo, ...]:
        """The tools the agent may call (the task's allowlist; never lifecycle operations)."""
        ...

    async def call(self, call: ToolCall) -> ToolResult:
        """Run one agent call; a failure the agent caused is a result, never an exception.

        Raises:
            BackendError: The backend itself failed (a server died): a system error.
        """
        ...

    def close(self) -> None:
        """Release the session: idempotent and non-blocking (its owner finishes it)."""
        ...


@runtime_checkable
class StateSession(ToolSession, Protocol):
    """A tool session over a database statebox owns, whose state statebox reads directly."""

    def initial_state(self) -> State:
        """The canonical state the trial started from (the task's template)."""
        ...

    def world(self) -> WorldView:
        """The trial's live database as the judge reads it (closed with the session)."""
        ...


@runtime_checkable
class Backend(Protocol):
    """Opens a fresh `ToolSession` per trial; an `Episode` takes one in place of a `Domain`."""

    name: str
    """Domain name the backend's tasks carry (``Task.domain``)."""

    def task_policy(self, task: Task) -> str:
        """The policy text the agent follows in ``task``."""
        ...

    async def open(self, task: Task) -> ToolSession:
        """A session on a clean state for one trial of ``task``.

        Raises:
            BackendError: The backend could not be started or initialised.
        """
        ...
