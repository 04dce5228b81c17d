"""An Episode on an external `Backend`: tools and policy from the session, and a call
that breaks the backend stays in the transcript."""

from __future__ import annotations

import asyncio

import pytest

from fixtures.support import call
from statebox.episode import (
    Backend,
    End,
    Episode,
    MessageUser,
    ToolInfo,
    ToolSession,
)
from statebox.errors import BackendError
from statebox.tasks import Task
from statebox.tools import ToolCall, ToolResult
from statebox.users import RuleUser


class _Session:
    """A tiny in-process backend: a counter, and a tool that kills it."""

    def __init__(self) -> None:
        self.count = 0
        self.closed = False

    def tools(self) -> tuple[ToolInfo, ...]:
        schema = {"type": "object", "properties": {}}
        return (
            ToolInfo(name="bump", description="Add one.", input_schema=schema),
            ToolInfo(name="crash", description="Kill the server.", input_schema=schema),
        )

    async def call(self, c: ToolCall) -> ToolResult:
        if c.tool == "crash":
            raise BackendError("server exited")
        self.count += 1
        return ToolResult(tool=c.tool, call_id=c.id, ok=True, output={"count": self.count})

    def close(self) -> None:
        self.closed = True


class _Backend:
    name = "toy"

    def __init__(self) -> None:
        self.sessions: list[_Session] = []

    def task_policy(self, task: Task) -> str:
        return f"policy for {task.id}"

    async def open(self, task: Task) -> ToolSession:
        session = _Session()
        self.sessions.append(session)
        return session


def test_an_episode_runs_on_a_backend_session(toy_tasks: list[Task]) -> None:
    task, backend = toy_tasks[0], _Backend()
    assert isinstance(backend, Backend)
    episode = Episode(backend, task, RuleUser(task))

    async def go() -> None:
        obs = await episode.reset()
        assert [t.name for t in obs.tools] == ["bump", "crash"]
        assert obs.policy == f"policy for {task.id}"
        obs = await episode.step(call("bump"))
        assert obs.tool_result is not None and obs.tool_result.output == {"count": 1}
        await episode.step(End(text="done"))

    asyncio.run(go())
    outcome = episode.outcome()
    assert outcome.session is backend.sessions[0] and outcome.world is None
    assert outcome.initial is None and outcome.final_response == "done"
    episode.close()
    assert backend.sessions[0].closed


def test_the_call_that_breaks_the_backend_stays_in_the_transcript(
    toy_tasks: list[Task],
) -> None:
    task = toy_tasks[0]
    episode = Episode(_Backend(), task, RuleUser(task))

    async def go() -> None:
        await episode.reset()
        await episode.step(MessageUser(text="one moment"))
        await episode.step(call("crash"))

    with pytest.raises(BackendError):
        asyncio.run(go())
    last = episode.transcript[-1]
    assert last.kind == "tool_call" and last.call is not None and last.call.tool == "crash"
    # Every call stays in the transcript with what became of it (issue 17, item 2).
    assert last.result is not None and last.result.error is not None
    assert last.result.error.kind == "internal_error"
    assert "server exited" in last.result.error.message
    assert episode.fault is not None and episode.done
