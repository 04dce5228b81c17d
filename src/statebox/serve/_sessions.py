"""Live episodes served to outside programs: the session store shared by every route.

A `Session` wraps one `Episode` with an unguessable id and a bearer token; the MCP
gateway, the control API and the bring-your-own agent all step that same Episode,
one action at a time (a per-session lock). Lifecycle operations — reset, end,
verdict, effects, teardown — are methods here that only the control API and the
drivers call; the MCP gateway exposes the allowlisted tools and nothing else.
"""

from __future__ import annotations

import asyncio
import hmac
import secrets
from collections.abc import Iterable, Mapping
from typing import Any

from statebox.domains import Domain
from statebox.episode import (
    Action,
    CallTool,
    End,
    Episode,
    Limits,
    Observation,
    TerminationReason,
    ToolInfo,
)
from statebox.errors import ConfigError
from statebox.judge import Judge, Verdict
from statebox.tasks import Task, WorldCache
from statebox.tools import ToolCall, ToolResult
from statebox.users import RuleUser

__all__ = ["Session", "SessionStore", "TaskCatalog", "new_secret", "same_secret"]

RESERVED_WORDS = frozenset(
    {
        "reset",
        "step",
        "state",
        "snapshot",
        "restore",
        "effects",
        "verdict",
        "judge",
        "close",
        "init",
        "end",
        "teardown",
        "golden",
    }
)
"""Lifecycle words that are never tool names on an agent-facing surface."""


def is_reserved_name(name: str) -> bool:
    """Whether ``name`` is a lifecycle or reserved-looking name (never a tool).

    Reserved: the lifecycle words (`RESERVED_WORDS`), any name starting with ``_``,
    and any name containing ``reserved``, ``/`` or ``.`` (ThinkingBox's
    ``__reserved__init``, OpenEnv's ``openenv/session/create``), case-insensitive.
    """
    low = name.strip().lower()
    return (
        low in RESERVED_WORDS
        or low.startswith("_")
        or "reserved" in low
        or "/" in low
        or "." in low
    )


def new_secret() -> str:
    """A fresh 256-bit URL-safe secret (session ids and tokens)."""
    return secrets.token_urlsafe(32)


def same_secret(given: str | None, expected: str) -> bool:
    """Constant-time comparison of a presented secret with the expected one."""
    if not given:
        return False
    return hmac.compare_digest(given.encode(), expected.encode())


class TaskCatalog:
    """The tasks a server may serve, with their domains, judges and one world cache.

    Args:
        tasks: Tasks to serve.
        domains: Domains by name (every task's domain must be there).
        limits: Per-episode limits.

    Raises:
        ConfigError: Two tasks share an id, or a task's domain is missing.
    """

    def __init__(
        self, tasks: Iterable[Task], domains: Mapping[str, Domain], limits: Limits | None = None
    ) -> None:
        self.worlds = WorldCache()
        self.limits = limits or Limits()
        self.domains = dict(domains)
        self.tasks: dict[str, Task] = {}
        for t in tasks:
            if t.id in self.tasks:
                raise ConfigError(f"two tasks have the id {t.id!r}")
            if t.domain not in self.domains:
                raise ConfigError(f"task {t.id}: domain {t.domain!r} is not loaded")
            self.tasks[t.id] = t
        self.judges = {n: Judge(d, self.worlds, skip_rubric=True) for n, d in self.domains.items()}

    def preload(self) -> None:
        """Build every task's world template and golden state now (slow; off the loop).

        Raises:
            GoldenReplayError: A task's golden trajectory fails.
        """
        for t in self.tasks.values():
            self.judges[t.domain].golden_states(t)

    def task(self, task_id: str) -> Task:
        """The task with that id.

        Raises:
            ConfigError: Unknown id.
        """
        try:
            return self.tasks[task_id]
        except KeyError:
            raise ConfigError(f"unknown task {task_id!r}") from None

    def episode(self, task: Task) -> Episode:
        """A new (not yet reset) episode of ``task`` with a rule-based user."""
        return Episode(
            self.domains[task.domain],
            task,
            RuleUser(task),
            worlds=self.worlds,
            limits=self.limits,
        )

    async def judge(self, task: Task, episode: Episode) -> Verdict:
        """Judge an ended episode with the task domain's judge."""
        return await self.judges[task.domain].judge(task, episode.outcome())


class Session:
    """One live episode behind an id and a bearer token.

    Args:
        episode: The episode (reset or not).
        catalog: Where its judge lives; None for sessions only stepped (BYO agent).
    """

    def __init__(self, episode: Episode, catalog: TaskCatalog | None = None) -> None:
        self.id = new_secret()
        self.token = new_secret()
        self.episode = episode
        self.catalog = catalog
        self.lock = asyncio.Lock()
        self.tools: tuple[ToolInfo, ...] = ()
        self.verdict: Verdict | None = None

    @property
    def task(self) -> Task:
        """The episode's task."""
        return self.episode.task

    async def reset(self) -> Observation:
        """Reset the episode on a fresh world (lifecycle: control API and drivers only)."""
        async with self.lock:
            obs = await self.episode.reset()
            self.tools = obs.tools
            self.verdict = None
            return obs

    def adopt(self, obs: Observation) -> None:
        """Take the tool list from a start observation made by another driver."""
        self.tools = obs.tools

    async def call_tool(self, name: str, args: dict[str, Any], call_id: str = "") -> ToolResult:
        """Run one tool call as an episode step (the only thing MCP can do).

        Raises:
            RuntimeError: The episode has not started or has ended.
        """
        async with self.lock:
            if self.episode.done:
                raise RuntimeError("the episode has ended")
            await self.episode.step(CallTool(call=ToolCall(tool=name, args=args, id=call_id)))
            return self.episode.tool_results[-1]

    async def step(self, action: Action) -> Observation:
        """Take any action (drivers and the control API)."""
        async with self.lock:
            return await self.episode.step(action)

    async def finish(self, final: str = "") -> Verdict:
        """End the episode if it is live, then judge it (once).

        Raises:
            ConfigError: The session has no catalog to judge with.
        """
        async with self.lock:
            if self.verdict is not None:
                return self.verdict
            if self.catalog is None:
                raise ConfigError("this session is judged by its campaign, not here")
            if not self.episode.done:
                await self.episode.step(End(text=final))
            self.verdict = await self.catalog.judge(self.task, self.episode)
            return self.verdict

    def info(self) -> dict[str, Any]:
        """Operator view: ids, transcript length, termination (no golden data)."""
        ended = self.episode.done
        termination: TerminationReason | None = None
        if ended:
            termination = self.episode.outcome().termination
        return {
            "session_id": self.id,
            "task_id": self.task.id,
            "events": len(self.episode.transcript),
            "done": ended,
            "termination": termination,
            "passed": None if self.verdict is None else self.verdict.passed,
        }

    def close(self) -> None:
        """Release the world."""
        self.episode.close()


class SessionStore:
    """Live sessions by id.

    Args:
        max_sessions: Most live sessions at once; creating one more is refused.
    """

    def __init__(self, max_sessions: int = 10_000) -> None:
        self.max_sessions = max_sessions
        self._sessions: dict[str, Session] = {}

    def __len__(self) -> int:
        return len(self._sessions)

    def add(self, session: Session) -> Session:
        """Register a session.

        Raises:
            ConfigError: The store is full.
        """
        if len(self._sessions) >= self.max_sessions:
            raise ConfigError(f"{self.max_sessions} live sessions already; end one first")
        self._sessions[session.id] = session
        return session

    def get(self, session_id: str) -> Session | None:
        """The session with that id, or None."""
        return self._sessions.get(session_id)

    def sessions(self) -> list[Session]:
        """Live sessions in creation order."""
        return list(self._sessions.values())

    def remove(self, session_id: str, *, close: bool = True) -> bool:
        """Forget a session (closing its world when ``close``); False when unknown."""
        s = self._sessions.pop(session_id, None)
        if s is None:
            return False
        if close:
            s.close()
        return True

    def close(self) -> None:
        """Forget every session, closing their worlds."""
        for sid in list(self._sessions):
            self.remove(sid)
