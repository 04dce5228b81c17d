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
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

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
from statebox.judge import Judge, RubricJudge, Verdict
from statebox.kit import PolicyMode
from statebox.serve._environments import EpisodeJudge, JudgedBackend, TrackedBackend
from statebox.serve._failures import (
    INFRASTRUCTURE,
    EpisodeEnded,
    EpisodeSystemError,
    check_errors,
)
from statebox.serve._readiness import Probe
from statebox.tasks import Task, WorldCache
from statebox.tools import DispatchErrorKind, ToolCall, ToolResult
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


Mode = Literal["training", "evaluation"]
"""What an episode is for: ``training`` (a train task) or ``evaluation``."""


SERVE_WORLD_POOL = 256
"""Idle world connections a server keeps: a GRPO batch of 256 episodes reuses every one."""


class TaskCatalog:
    """The tasks a server may serve, with their domains, judges and one world cache.

    Args:
        tasks: Tasks to serve.
        domains: Domains — statebox's own, or external environments that judge their
            own episodes (a ThinkingBox dataset's scenarios) — by name (every task's
            domain must be there).
        limits: Per-episode limits.
        policy_mode: How every episode serves the policy; None: each task's own
            ``policy_mode`` (``prompt`` when unset).
        rubric: The judge model for rubric questions; None: they are skipped and
            reported.
        evaluation_only: Why these tasks may serve evaluation only (a dataset card's
            terms): every episode is an evaluation and training requests are refused
            with this reason; None: train tasks may be trained on.
        readiness: Probes that must pass before the catalog serves (`Readiness`).
        aclose: Stops the external environments (after their live sessions).
        world_pool: Idle world connections kept for reuse (`WorldCache`). A trainer's
            batch opens and closes hundreds of episodes at once; with fewer kept, each
            batch after the first clones most of its worlds afresh and pays the schema
            parse again in its first step. Each idle one holds its task's database
            (retail's is 404 KiB): at most about 0.2 GB at 256.

    Raises:
        ConfigError: Two tasks share an id, or a task's domain is missing.
    """

    def __init__(
        self,
        tasks: Iterable[Task],
        domains: Mapping[str, Domain | JudgedBackend],
        limits: Limits | None = None,
        policy_mode: PolicyMode | None = None,
        *,
        rubric: RubricJudge | None = None,
        evaluation_only: str | None = None,
        readiness: Sequence[Probe] = (),
        aclose: Callable[[], Awaitable[None]] | None = None,
        world_pool: int = SERVE_WORLD_POOL,
    ) -> None:
        self.worlds = WorldCache(pool_limit=world_pool)
        self.limits = limits or Limits()
        self.policy_mode = policy_mode
        self.evaluation_only = evaluation_only
        self.readiness = tuple(readiness)
        self._aclose = aclose
        self.domains: dict[str, Domain | TrackedBackend] = {
            n: d if isinstance(d, Domain) else TrackedBackend(d) for n, d in domains.items()
        }
        self.tasks: dict[str, Task] = {}
        for t in tasks:
            if t.id in self.tasks:
                raise ConfigError(f"two tasks have the id {t.id!r}")
            if t.domain not in self.domains:
                raise ConfigError(f"task {t.id}: domain {t.domain!r} is not loaded")
            self.tasks[t.id] = t
        self.judges: dict[str, EpisodeJudge] = {
            n: Judge(d, self.worlds, rubric, skip_rubric=rubric is None)
            if isinstance(d, Domain)
            else d.trial_judge(rubric)
            for n, d in domains.items()
        }

    def mode(self, task: Task) -> Mode:
        """What an episode of ``task`` is for.

        A test task, or any task of an evaluation-only catalog, is an evaluation.
        """
        evaluation = self.evaluation_only is not None or task.split != "train"
        return "evaluation" if evaluation else "training"

    def preload(self) -> None:
        """Build every task's world template and golden state now (slow; off the loop).

        External environments build theirs per episode (their readiness probes say
        whether they can).

        Raises:
            GoldenReplayError: A task's golden trajectory fails.
        """
        for t in self.tasks.values():
            judge = self.judges[t.domain]
            if isinstance(judge, Judge):
                judge.golden_states(t)

    async def aclose(self) -> None:
        """Stop every live session's servers, then the external environments."""
        for d in self.domains.values():
            if isinstance(d, TrackedBackend):
                await d.close_sessions()
        if self._aclose is not None:
            await self._aclose()

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
            policy_mode=self.policy_mode,
            served=True,  # the task's allowlist is the boundary of a served surface
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
        self.system_error: str | None = None
        """Why the episode ended in a system error (its environment failed), if it did."""
        self.last_active = time.monotonic()
        """When a driver last used it (monotonic seconds): idle sessions are reaped."""

    def touch(self) -> None:
        """Mark the session as used now."""
        self.last_active = time.monotonic()

    @property
    def task(self) -> Task:
        """The episode's task."""
        return self.episode.task

    def _failed(self, reason: str) -> EpisodeSystemError:
        self.system_error = reason
        self.episode.stop(TerminationReason.SYSTEM_ERROR)
        return EpisodeSystemError(reason)

    async def reset(self) -> Observation:
        """Reset the episode on a fresh world (lifecycle: control API and drivers only).

        Raises:
            EpisodeSystemError: The environment failed to start the episode.
        """
        self.touch()
        async with self.lock:
            self.verdict, self.system_error = None, None
            try:
                obs = await self.episode.reset()
            except INFRASTRUCTURE as exc:
                raise self._failed(f"{type(exc).__name__}: {exc}") from exc
            self.tools = obs.tools
            return obs

    def adopt(self, obs: Observation) -> None:
        """Take the tool list from a start observation made by another driver."""
        self.tools = obs.tools

    async def call_tool(self, name: str, args: dict[str, Any], call_id: str = "") -> ToolResult:
        """Run one tool call as an episode step (the only thing MCP can do).

        Raises:
            EpisodeEnded: The episode has ended (a `RuntimeError`).
            EpisodeSystemError: The environment failed (the episode is over).
        """
        self.touch()
        async with self.lock:
            if self.episode.done:
                raise EpisodeEnded("the episode has ended")
            try:
                await self.episode.step(CallTool(call=ToolCall(tool=name, args=args, id=call_id)))
            except INFRASTRUCTURE as exc:
                raise self._failed(f"{type(exc).__name__}: {exc}") from exc
            except Exception as exc:
                # A tool that crashed is statebox's (or the domain's) failure, not the
                # agent's: a system error, with no details to the agent, never judged.
                if self.episode.fault is None:
                    raise
                raise self._failed(f"{type(exc).__name__}: {exc}") from exc
            return self.episode.last_tool_result

    async def refuse_tool(
        self,
        name: str,
        args: dict[str, Any],
        message: str,
        kind: DispatchErrorKind = "not_allowed",
    ) -> ToolResult:
        """Refuse a call (a lifecycle name, unusable arguments) as a recorded step of the episode.

        Raises:
            EpisodeEnded: The episode has ended (a `RuntimeError`).
        """
        self.touch()
        async with self.lock:
            if self.episode.done:
                raise EpisodeEnded("the episode has ended")
            self.episode.refuse(ToolCall(tool=name, args=args), kind, message)
            return self.episode.last_tool_result

    async def step(self, action: Action) -> Observation:
        """Take any action (drivers and the control API).

        Raises:
            EpisodeSystemError: The environment failed (the episode is over).
        """
        self.touch()
        async with self.lock:
            try:
                return await self.episode.step(action)
            except INFRASTRUCTURE as exc:
                raise self._failed(f"{type(exc).__name__}: {exc}") from exc

    async def finish(self, final: str = "") -> Verdict:
        """End the episode if it is live, then judge it (once).

        Raises:
            ConfigError: The session has no catalog to judge with.
            EpisodeSystemError: The environment or the judge failed, or a check could
                not be evaluated: no verdict (as `statebox run` records a system error).
        """
        async with self.lock:
            if self.verdict is not None:
                return self.verdict
            fault = self.episode.fault
            if self.system_error is None and fault is not None:
                self._failed(f"{type(fault).__name__}: {fault}")
            if self.system_error is not None:
                raise EpisodeSystemError(self.system_error)
            if self.catalog is None:
                raise ConfigError("this session is judged by its campaign, not here")
            try:
                if not self.episode.done:
                    await self.episode.step(End(text=final))
                verdict = await self.catalog.judge(self.task, self.episode)
            except INFRASTRUCTURE as exc:
                raise self._failed(f"{type(exc).__name__}: {exc}") from exc
            broken = check_errors(verdict)
            if broken is not None:
                raise self._failed(broken)
            self.verdict = verdict
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
            "system_error": self.system_error,
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

    def reap(self, idle_s: float) -> list[str]:
        """Remove (and close) the sessions unused for more than ``idle_s`` seconds.

        Returns:
            The ids removed.
        """
        cutoff = time.monotonic() - idle_s
        idle = [sid for sid, s in self._sessions.items() if s.last_active < cutoff]
        for sid in idle:
            self.remove(sid)
        return idle

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
