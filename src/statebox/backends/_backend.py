"""`DatabaseBackend`: a backend file's MCP server over a database statebox owns.

Per task it builds (once) the template database and replays the golden trajectory —
and each accepted alternative — through the real server on fresh clones, reading the
golden states straight from the database. Per trial it hands out a `TrialSlot` from
its warm pool (a fresh clone with the server already started on it) wrapped in a
`DatabaseSession`; the episode's outcome then carries the trial's initial state and
live database, and `DatabaseJudge` runs statebox's whole check pipeline on them.

It is a campaign `Environment` (`statebox.runner`): it judges its trials, declares
which tools write (the fault agent's write faults), checks its tasks before a campaign
starts, and gives Ray workers a picklable recipe to rebuild itself.

Replays: the first golden replay gives the golden states and is kept as a template
(its database, once the server has stopped); the next one (the validator's oracle
check) is a real replay again, compared with the first, which is what catches a
server that is not deterministic; after that a golden end state is a clone of the
kept one, so mutants cost a database clone, not a server start.
"""

from __future__ import annotations

import asyncio
import itertools
import socket
import sys
import weakref
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple
from urllib.parse import urlsplit

from mcp import types

from statebox.backends._config import BackendConfig
from statebox.backends._database import Clone, Databases, Template
from statebox.backends._http import HttpMcpProcess
from statebox.backends._session import DatabaseSession, TrialSlot
from statebox.errors import (
    BackendError,
    ConfigError,
    GoldenReplayError,
    JudgeError,
    TaskSpecError,
)
from statebox.judge import RubricJudge, StateJudge, judged_task_problems
from statebox.tasks import GoldenCall, Task
from statebox.thinkingbox import McpProcess, ReadyPool, ServerSpec, is_reserved
from statebox.world import FieldPolicy, Scalar, State, WorldView

__all__ = ["DatabaseBackend", "DatabaseJudge"]


class _Prepared(NamedTuple):
    template: Template
    """The task's initial database."""
    golden: tuple[State, ...]
    """The golden state, then one per accepted alternative."""
    golden_template: Template
    """The golden trajectory's end database, kept to clone."""


class _OwnedWorld:
    """A judge view that drops its database when closed (validation's worlds)."""

    def __init__(self, clone: Clone) -> None:
        self._clone = clone
        self._view = clone.world()

    def state(self, base: State | None = None) -> State:
        return self._view.state(base)

    def query(self, sql: str, params: Sequence[object] = ()) -> list[dict[str, Scalar]]:
        return self._view.query(sql, params)

    def column_values(self, table: str, column: str, limit: int) -> list[Scalar]:
        return self._view.column_values(table, column, limit)

    def set_value(self, table: str, key: Mapping[str, Scalar], column: str, value: Scalar) -> bool:
        return self._view.set_value(table, key, column, value)

    def close(self) -> None:
        self._view.close()
        self._clone.close()


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _fill(text: str, values: dict[str, str]) -> str:
    # Plain replacement, not str.format: a server's own braces stay as they are.
    for name, value in values.items():
        text = text.replace("{" + name + "}", value)
    return text


class _TrialPool(ReadyPool[TrialSlot]):
    """Trial slots kept ready per task id (a clone with its server started on it)."""

    def __init__(self, backend: DatabaseBackend, size: int) -> None:
        # Tasks run in plan order: two in flight at once keep their slots ready.
        super().__init__(size, max_names=2)
        self._backend = backend
        self.tasks: dict[str, Task] = {}

    async def _start(self, name: str) -> TrialSlot:
        task = self.tasks[name]
        prepared = await self._backend.prepare(task)
        clone, process = await self._backend.start_server(task, prepared.template)
        return TrialSlot(prepared.template, clone, process)


class DatabaseBackend:
    """The tasks of one backend file, on its server over databases statebox owns.

    Args:
        config: The backend file.
        databases: Where templates and clones live (`SqliteFiles`, `PostgresDatabases`).
        warm: Trial slots kept ready per task (0: start each on demand).
        server_python: Interpreter for ``{python}`` (default: this one).
        log_dir: Folder for each server's stderr (quoted when one fails to start).
        owned: Something to stop in `aclose` (a throwaway PostgreSQL server).

    Raises:
        ConfigError: The policy file cannot be read.
    """

    def __init__(
        self,
        config: BackendConfig,
        databases: Databases,
        *,
        warm: int = 2,
        server_python: str | None = None,
        log_dir: Path | None = None,
        owned: object = None,
    ) -> None:
        self.config = config
        self.name = config.name
        self.databases = databases
        self.field_policy: FieldPolicy = config.policy_fields
        self.warm = warm
        self._policy = config.policy_text()
        self._python = server_python or sys.executable
        self._log_dir = log_dir
        self._owned = owned
        self._pool = _TrialPool(self, warm)
        self._prepared: dict[str, tuple[Task, asyncio.Future[_Prepared]]] = {}
        self._replayed: set[str] = set()
        self._tools: list[types.Tool] | None = None
        self._sessions: weakref.WeakSet[DatabaseSession] = weakref.WeakSet()
        self._stopping: weakref.WeakSet[McpProcess] = weakref.WeakSet()
        self._seq = itertools.count(1)
        self.server_starts = 0
        """Servers started so far (golden replays, mutants, trials)."""
        self.recipe_args: Callable[[], object] | None = None
        """A picklable callable that rebuilds this backend elsewhere (set by `open_backend`)."""

    def recipe(self) -> Callable[[], object]:
        """How a Ray worker rebuilds this backend (its own servers and databases).

        Raises:
            ConfigError: The backend was not made by `open_backend`.
        """
        if self.recipe_args is None:
            raise ConfigError(f"backend {self.name} has no recipe (open it with open_backend)")
        return self.recipe_args

    # -- what the server offers -------------------------------------------------------

    def tool_names(self) -> frozenset[str]:
        """The tools the server lists (empty before its first start), reserved names left out."""
        return frozenset(t.name for t in self._tools or () if not is_reserved(t.name))

    def mutating(self) -> frozenset[str]:
        """The tools that write.

        The backend file's ``mutating_tools``, else every tool the server does not
        annotate ``readOnlyHint: true``.
        """
        if self.config.mutating_tools is not None:
            return frozenset(self.config.mutating_tools)
        return frozenset(
            t.name
            for t in self._tools or ()
            if not is_reserved(t.name) and not (t.annotations and t.annotations.readOnlyHint)
        )

    async def mutating_tools(self, task: Task) -> frozenset[str]:
        """`mutating`, once the server has been started for ``task``."""
        await self.prepare(task)
        return self.mutating()

    def task_policy(self, task: Task) -> str:
        """The backend's policy text (the same for every task)."""
        return self._policy

    # -- servers and replays ----------------------------------------------------------

    def _spec(self, task: Task, url: str, port: int | None) -> ServerSpec:
        server = self.config.server
        values = {"database_url": url, "now": task.now.isoformat(), "python": self._python}
        if port is not None:
            values["port"] = str(port)
        return ServerSpec(
            name=self.name,
            command=tuple(_fill(c, values) for c in server.command),
            env={k: _fill(v, values) for k, v in server.env.items()},
            cwd=self.config.path(server.cwd) if server.cwd else self.config.root,
        )

    async def start_server(self, task: Task, template: Template) -> tuple[Clone, McpProcess]:
        """A fresh clone of ``template`` and the server started on it.

        Raises:
            BackendError: The server could not start.
        """
        clone = await self.databases.clone(template)
        try:
            stderr = None
            if self._log_dir is not None:
                self._log_dir.mkdir(parents=True, exist_ok=True)
                stderr = self._log_dir / f"{self.name}-{next(self._seq)}.log"
            self.server_starts += 1
            server = self.config.server
            process: McpProcess
            if server.transport == "http":
                port = _free_port()
                process = await HttpMcpProcess.start_http(
                    self._spec(task, clone.url, port),
                    _fill(server.url, {"port": str(port)}),
                    stderr_path=stderr,
                    start_timeout_s=server.start_timeout_s,
                    call_timeout_s=server.call_timeout_s,
                )
            else:
                process = await McpProcess.start(
                    self._spec(task, clone.url, None),
                    stderr_path=stderr,
                    start_timeout_s=server.start_timeout_s,
                    call_timeout_s=server.call_timeout_s,
                )
        except BackendError as exc:
            await clone.aclose()
            # The message quotes the command (and the server's stderr): the database URL's
            # password must not reach an error record.
            secret = urlsplit(clone.url).password
            if secret and secret in str(exc):
                raise BackendError(str(exc).replace(secret, "***")) from None
            raise
        except BaseException:
            await clone.aclose()
            raise
        if self._tools is None:
            self._tools = list(process.tools)
        return clone, process

    async def _play(
        self, task: Task, process: McpProcess, calls: Sequence[GoldenCall], strict: bool
    ) -> None:
        listed = self.tool_names()
        for step, call in enumerate(calls):
            if call.tool not in listed:
                if strict:
                    raise GoldenReplayError(task.id, step, call.tool, "no such tool on the server")
                continue
            out = await process.call_tool(call.tool, dict(call.args))
            # A server's error text carries no kind to compare: an expected refusal
            # (`GoldenCall.fails`) must only be an error.
            if strict and out.is_error != (call.fails is not None):
                detail = out.text[:500] if out.is_error else f"expected a {call.fails} refusal"
                raise GoldenReplayError(task.id, step, call.tool, detail)

    async def _replay(
        self,
        task: Task,
        template: Template,
        calls: Sequence[GoldenCall],
        strict: bool,
        *,
        wait_exit: bool = False,
    ) -> Clone:
        clone, process = await self.start_server(task, template)
        try:
            await self._play(task, process, calls, strict)
        except BaseException:
            await process.aclose()
            await clone.aclose()
            raise
        if wait_exit:  # a database cloned from must have no connections left
            await process.aclose()
        else:  # every call has returned: what it wrote is committed; stop in the background
            process.close()
            self._stopping.add(process)
        return clone

    async def prepare(self, task: Task) -> _Prepared:
        """Build the task's template and replay its golden trajectories (once per task).

        Raises:
            TaskSpecError: The task's initial state cannot be built.
            GoldenReplayError: A golden or alternative call failed.
            BackendError: The server could not start or failed.
        """
        cached = self._prepared.get(task.id)
        if cached is None or not (cached[0] is task or cached[0] == task):
            future = asyncio.ensure_future(self._prepare(task))
            cached = self._prepared[task.id] = (task, future)

            def forget(f: asyncio.Future[_Prepared], key: str = task.id) -> None:
                # A server that failed may work next time; a task that is wrong will not.
                if self._prepared.get(key, (None, None))[1] is not f:
                    return
                failed = f.cancelled() or f.exception() is not None
                if failed and (
                    f.cancelled()
                    or not isinstance(f.exception(), GoldenReplayError | TaskSpecError)
                ):
                    del self._prepared[key]

            future.add_done_callback(forget)
        return await asyncio.shield(cached[1])

    async def _prepare(self, task: Task) -> _Prepared:
        try:
            template = await self.databases.template(task.initial_state)
        except ValueError as exc:
            raise TaskSpecError(str(exc), task_id=task.id, field="initial_state") from exc
        states: list[State] = []
        kept: Template | None = None
        for i, trajectory in enumerate((task.golden, *task.checks.alternatives)):
            clone = await self._replay(task, template, trajectory, strict=True, wait_exit=i == 0)
            world = clone.world()
            try:
                states.append(world.state(template.state))
            finally:
                world.close()
            if i == 0:
                kept = clone.as_template(f"golden-{template.key}", states[0])
            else:
                await clone.aclose()
        assert kept is not None  # the golden trajectory always runs first
        return _Prepared(template, tuple(states), kept)

    def prepared(self, task: Task) -> _Prepared:
        """The prepared task (after `prepare`).

        Raises:
            JudgeError: `prepare` has not finished for ``task``.
            GoldenReplayError: Its golden replay failed.
        """
        cached = self._prepared.get(task.id)
        if cached is None or not cached[1].done() or not (cached[0] is task or cached[0] == task):
            raise JudgeError(f"task {task.id}: golden states not ready (prepare the task first)")
        return cached[1].result()

    async def fresh_world(self, task: Task) -> WorldView:
        """A fresh clone of the task's initial database (no server), dropped when closed."""
        prepared = await self.prepare(task)
        return _OwnedWorld(await self.databases.clone(prepared.template))

    async def replay_world(
        self, task: Task, calls: Sequence[GoldenCall], *, strict: bool = True
    ) -> WorldView:
        """The task's database after ``calls`` on the real server, dropped when closed.

        The golden trajectory is replayed for real twice (see the module docstring),
        then served as a clone of its kept end state.
        """
        prepared = await self.prepare(task)
        golden = list(calls) == list(task.golden)
        if golden and task.id in self._replayed:
            return _OwnedWorld(await self.databases.clone(prepared.golden_template))
        clone = await self._replay(task, prepared.template, calls, strict)
        if golden:
            self._replayed.add(task.id)
        return _OwnedWorld(clone)

    # -- trials -----------------------------------------------------------------------

    async def open(self, task: Task) -> DatabaseSession:
        """A fresh database with its server, for one trial of ``task``.

        Raises:
            BackendError: The server could not start.
            GoldenReplayError: The task's golden trajectory fails (it is invalid).
        """
        await self.prepare(task)
        self._pool.tasks[task.id] = task
        slot = await self._pool.acquire(task.id)
        session = DatabaseSession(self.name, slot, allowlist=task.tools, mutating=self.mutating())
        self._sessions.add(session)
        return session

    def trial_judge(self, rubric: RubricJudge | None) -> DatabaseJudge:
        """The judge of this backend's trials (``rubric`` answers yes/no questions)."""
        return DatabaseJudge(self, rubric, skip_rubric=rubric is None)

    async def task_problems(self, task: Task) -> list[str]:
        """Every reason ``task`` is invalid, short of mutants (the campaign's preflight).

        No episode is played (the oracle's, the baselines'): each costs a server start,
        and the campaign's own trials show an oracle that fails; `statebox tasks
        validate --backend` plays them all.
        """
        judge = DatabaseJudge(self, skip_rubric=True)
        return await judged_task_problems(judge, task, oracle=False, baselines=False)

    async def aclose(self) -> None:
        """Stop every server and drop every database (a throwaway server is stopped too)."""
        await self._pool.aclose()
        await asyncio.gather(*(s.aclose() for s in list(self._sessions)), return_exceptions=True)
        await asyncio.gather(*(p.aclose() for p in list(self._stopping)), return_exceptions=True)
        for _, future in self._prepared.values():
            future.cancel()
        await self.databases.aclose()
        stop = getattr(self._owned, "stop", None)
        if stop is not None:
            stop()


class DatabaseJudge(StateJudge):
    """statebox's check pipeline over a `DatabaseBackend`'s databases.

    Args:
        backend: The backend.
        rubric: Judge model for rubric questions.
        skip_rubric: With no ``rubric``, record rubric questions unjudged (fail-closed)
            instead of check errors.
    """

    def __init__(
        self,
        backend: DatabaseBackend,
        rubric: RubricJudge | None = None,
        *,
        skip_rubric: bool = False,
    ) -> None:
        super().__init__(rubric, skip_rubric=skip_rubric)
        self.backend = backend
        self.name = backend.name

    @property
    def field_policy(self) -> FieldPolicy:
        """The backend file's field policy."""
        return self.backend.field_policy

    def tool_names(self) -> frozenset[str]:
        """The tools the server lists."""
        return self.backend.tool_names()

    def mutates(self, tool: str) -> bool:
        """Whether ``tool`` writes."""
        return tool in self.backend.mutating()

    async def prepare(self, task: Task) -> None:
        """Build the task's template and golden states."""
        await self.backend.prepare(task)

    def initial_state(self, task: Task) -> State:
        """The task's template state."""
        return self.backend.prepared(task).template.state

    def replayed_states(self, task: Task) -> tuple[State, ...]:
        """The golden trajectory's end state, then each alternative trajectory's."""
        return self.backend.prepared(task).golden

    async def fresh_world(self, task: Task) -> WorldView:
        """A fresh clone of the task's initial database."""
        return await self.backend.fresh_world(task)

    async def replay_world(
        self, task: Task, calls: Sequence[GoldenCall], *, strict: bool = True
    ) -> WorldView:
        """The task's database after ``calls`` on the real server."""
        return await self.backend.replay_world(task, calls, strict=strict)

    def episode_backend(self) -> DatabaseBackend:
        """The backend: validation's episodes run on its server, as trials do."""
        return self.backend
