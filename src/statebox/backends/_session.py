"""One trial's database and server: the pooled `TrialSlot` and the agent's `DatabaseSession`.

The session shows and routes tools exactly as a ThinkingBox session does (the same
`statebox.thinkingbox.TbSession`: allowlist, hidden and reserved names refused as
unknown without reaching the server, results and errors mapped alike), and adds what a
database statebox owns gives: the mutating flag of each call, the trial's initial
state and the live database the judge reads. Closing it stops the server and drops
the database, both in the background.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection

from statebox.backends._database import Clone, Template
from statebox.episode import ToolInfo
from statebox.thinkingbox import McpProcess, TbSession
from statebox.tools import ToolCall, ToolResult
from statebox.world import State, WorldView

__all__ = ["DatabaseSession", "TrialSlot"]


class TrialSlot:
    """A fresh clone of a task's template with the server already started on it.

    Args:
        template: The template the clone came from.
        clone: The trial's database.
        process: The server, pointed at ``clone``.
    """

    def __init__(self, template: Template, clone: Clone, process: McpProcess) -> None:
        self.template = template
        self.clone = clone
        self.process = process

    @property
    def alive(self) -> bool:
        """Whether both the database and the server are still up."""
        return self.clone.alive and self.process.alive

    def close(self) -> None:
        """Stop the server and drop the database, in the background (idempotent)."""
        self.process.close()
        self.clone.close()

    async def aclose(self) -> None:
        """Stop the server, wait for it to exit, then drop the database."""
        await self.process.aclose()
        await self.clone.aclose()


class DatabaseSession:
    """A trial's tools on its own server, over its own database (a `StateSession`).

    Args:
        name: The backend's name (the server's name in messages).
        slot: The trial's database and server (the session owns them now).
        allowlist: Tool names the agent may call; None allows every tool listed.
        mutating: Tools that write.
    """

    def __init__(
        self,
        name: str,
        slot: TrialSlot,
        *,
        allowlist: Collection[str] | None,
        mutating: frozenset[str],
    ) -> None:
        self.slot = slot
        self._tools = TbSession({name: slot.process}, allowlist=allowlist, teardown=False)
        self._mutating = mutating
        self._world: WorldView | None = None
        self._closing: asyncio.Task[None] | None = None
        self._closed = False

    def tools(self) -> tuple[ToolInfo, ...]:
        """The allowlisted tools the server lists, sorted by name."""
        return self._tools.tools()

    async def call(self, call: ToolCall) -> ToolResult:
        """Run one agent call on the server (see `statebox.thinkingbox.TbSession.call`).

        Raises:
            BackendError: The server died, broke the protocol or timed out.
        """
        result = await self._tools.call(call)
        refused = result.error is not None and result.error.kind == "unknown_tool"
        if call.tool in self._mutating and not refused:  # as the dispatcher flags a write
            result = result.model_copy(update={"mutating": True})
        return result

    def initial_state(self) -> State:
        """The template's canonical state."""
        return self.slot.template.state

    def world(self) -> WorldView:
        """The trial's database as the judge reads it (closed with the session)."""
        if self._world is None:
            self._world = self.slot.clone.world()
        return self._world

    def close(self) -> None:
        """Close the judge's view, stop the server, drop the database (idempotent)."""
        if self._closed:
            return
        self._closed = True
        if self._world is not None:
            self._world.close()
        self._tools.close()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.slot.close()
            return
        self._closing = loop.create_task(self._finish(), name="db-session-close")

    async def _finish(self) -> None:
        await self._tools.aclose()  # the server has exited: nothing writes any more
        await self.slot.clone.aclose()

    async def aclose(self) -> None:
        """`close`, then wait until the server has exited and the database is gone."""
        self.close()
        if self._closing is not None:
            await asyncio.shield(self._closing)
