"""Tool backends other than statebox's own SQLite worlds (an external MCP server, say).

A `Backend` stands in for a `Domain` in an `Episode`: it opens one `ToolSession` per
trial, from a clean state, and the episode routes the agent's calls to it. What the
judge needs from the session at the end (a server's reported effects, for example) is
the backend's own business: the session stays open, on `EpisodeOutcome.session`, until
the episode is closed.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from statebox.episode._types import ToolInfo
from statebox.tasks import Task
from statebox.tools import ToolCall, ToolResult

__all__ = ["Backend", "ToolSession"]


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
