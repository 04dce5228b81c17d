"""`ThinkingBoxEnvironment`: a ThinkingBox scenario as a statebox environment.

One environment per scenario (the domain name its tasks carry). Each trial takes
fresh server processes from the shared `WarmPool` — ``__reserved__init`` does not
reset a process, so one is never reused — initialises them with the case's merged
config, and hands the agent a `TbSession` that shows only the allowlisted tools. The
trial's judge reads ``__reserved__geteffects`` from that session and runs the case's
check function in a subprocess (`TbJudge`).

`open_thinkingbox` builds the environments of a loaded dataset over one pool; close it
with `ThinkingBoxRun.aclose` (it stops every server process).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from statebox.episode import EpisodeOutcome
from statebox.errors import BackendError, ConfigError
from statebox.judge import RubricJudge, Verdict
from statebox.tasks import Task
from statebox.thinkingbox._format import TbCase, TbSuite
from statebox.thinkingbox._judge import TbJudge
from statebox.thinkingbox._pool import WarmPool
from statebox.thinkingbox._process import McpProcess
from statebox.thinkingbox._search import SearchService, SearchTarget
from statebox.thinkingbox._servers import ServerSpec
from statebox.thinkingbox._session import TbSession

__all__ = ["ThinkingBoxEnvironment", "ThinkingBoxRun", "open_thinkingbox"]


class ThinkingBoxEnvironment:
    """One scenario's tasks over fresh MCP server processes.

    Args:
        name: The scenario name (``Task.domain`` of its tasks).
        cases: Task id → case, for this scenario's tasks.
        pool: Where server processes come from.
        hidden_tools: Tool names never shown to or callable by agents (beyond the
            reserved lifecycle names, always hidden), e.g. a search tool whose
            service is absent.
        check_timeout_s: Wall-clock limit of one check function, in seconds.
        check_python: Python executable that runs the check functions.
    """

    def __init__(
        self,
        name: str,
        cases: Mapping[str, TbCase],
        pool: WarmPool,
        *,
        hidden_tools: frozenset[str] = frozenset(),
        check_timeout_s: float = 60.0,
        check_python: str | None = None,
        search: SearchTarget | None = None,
    ) -> None:
        self.name = name
        self._search = search
        self._writes: dict[str, asyncio.Task[tuple[bool, ...]]] = {}
        self._cases = dict(cases)
        self._pool = pool
        self._hidden = hidden_tools
        self._check_timeout_s = check_timeout_s
        self._check_python = check_python

    def case(self, task: Task) -> TbCase:
        """The case behind ``task``.

        Raises:
            ConfigError: The task is not one of this environment's.
        """
        try:
            return self._cases[task.id]
        except KeyError:
            raise ConfigError(
                f"task {task.id} is not in ThinkingBox scenario {self.name}"
            ) from None

    def task_policy(self, task: Task) -> str:
        """The case's policy (``bot_instructions``)."""
        return self.case(task).policy

    async def open(self, task: Task) -> TbSession:
        """Fresh, initialised server processes for one trial of ``task``.

        Raises:
            BackendError: A server failed to start or rejected its init config.
        """
        case = self.case(task)
        processes: dict[str, McpProcess] = {}
        try:
            for server in case.servers:
                process = await self._pool.acquire(server)
                processes[server] = process
                config = case.init[server]
                try:
                    await process.reserved_init(config)
                except BackendError as exc:
                    if isinstance(config, dict) and config.get("sources"):
                        where = (
                            f"the search service at {self._search.url}"
                            if self._search is not None
                            else "no search service"
                        )
                        raise BackendError(
                            f"{exc} (its config carries knowledge-base sources, indexed in "
                            f"{where}; --typesense-url URL uses another, --drop-sources "
                            "drops them)"
                        ) from exc
                    raise
        except BaseException:
            for process in processes.values():
                process.close()
            raise
        return TbSession(processes, allowlist=case.tools, hidden=self._hidden)

    async def golden_writes(self, task: Task) -> tuple[bool, ...]:
        """Per golden call of ``task``: whether it changes a server's state.

        Found once per task by a golden replay on fresh processes with a state read
        after each call (`probe_golden`), then remembered.

        Raises:
            BackendError: The replay's servers failed.
        """
        from statebox.thinkingbox._probe import probe_golden

        job = self._writes.get(task.id)
        if job is None or (job.done() and job.exception() is not None):
            job = self._writes[task.id] = asyncio.get_running_loop().create_task(
                self._probe_writes(task, probe_golden)
            )
        return await asyncio.shield(job)

    async def _probe_writes(self, task: Task, probe: Any) -> tuple[bool, ...]:
        result = await probe(self, task)
        writes: tuple[bool, ...] = result.writes
        return writes

    def trial_judge(self, rubric: RubricJudge | None) -> _TrialJudge:
        """The judge of this scenario's trials (``rubric`` answers yes/no questions)."""
        return _TrialJudge(self, rubric)


class _TrialJudge:
    def __init__(self, env: ThinkingBoxEnvironment, rubric: RubricJudge | None) -> None:
        self._env = env
        self._judge = TbJudge(rubric, timeout_s=env._check_timeout_s, python=env._check_python)

    async def judge(self, task: Task, outcome: EpisodeOutcome) -> Verdict:
        session = outcome.session
        if not isinstance(session, TbSession):
            raise BackendError(f"task {task.id}: the episode has no ThinkingBox session")
        effects = await session.effects()
        return await self._judge.judge(
            task,
            self._env.case(task),
            effects,
            outcome.transcript,
            outcome.final_response,
            outcome.termination,
        )


class ThinkingBoxRun(NamedTuple):
    """A loaded dataset's environments over one pool of server processes."""

    suite: TbSuite
    """The loaded dataset."""
    environments: dict[str, ThinkingBoxEnvironment]
    """Scenario name → environment (pass as `Campaign.environments`)."""
    pool: WarmPool
    """The server processes."""
    search: SearchService | None = None
    """The built-in search service this run started (stopped by `aclose`)."""
    target: SearchTarget | None = None
    """The search service the servers index in (this run's own or another), if any."""

    @property
    def tasks(self) -> list[Task]:
        """The statebox tasks, in test-list order."""
        return [c.task for c in self.suite.cases]

    async def aclose(self) -> None:
        """Stop every server process (ready, in use or starting) and the search service."""
        try:
            await self.pool.aclose()
        finally:
            if self.search is not None:
                self.search.stop()


def open_thinkingbox(
    suite: TbSuite,
    servers: Mapping[str, ServerSpec],
    *,
    warm: int = 2,
    hidden_tools: frozenset[str] = frozenset(),
    check_timeout_s: float = 60.0,
    check_python: str | None = None,
    log_dir: Path | None = None,
    fork_server: bool = False,
    call_timeout_s: float = 300.0,
    search: SearchTarget | None = None,
    search_service: SearchService | None = None,
    on_notice: Callable[[str], None] | None = None,
) -> ThinkingBoxRun:
    """Environments for every scenario of ``suite`` over one warm pool.

    Args:
        suite: The loaded dataset.
        servers: Server name → how to start it (`load_servers`).
        warm: Started-but-unused processes kept ready per server (0: start on demand).
        hidden_tools: Tool names hidden from agents in every scenario.
        check_timeout_s: Wall-clock limit of one check function, in seconds.
        check_python: Python executable that runs the check functions.
        log_dir: Folder for each server process's stderr (quoted when a server fails
            to start); None discards it.
        fork_server: Fork each trial's processes from a pre-imported parent per server
            (`ForkServer`); servers that cannot be forked run as plain processes.
        call_timeout_s: Limit on each request to a server process, in seconds.
        search: The search service the servers' ``typesense`` client is pointed at
            (None: their hard-coded default, 127.0.0.1:8108).
        search_service: A started built-in service to use as ``search`` and to stop
            with the run.
        on_notice: Receives messages for the user (a fork-server fallback).

    Returns:
        The environments and their pool.

    Raises:
        ConfigError: A case needs a server the servers file does not declare.
    """
    needed = sorted({s for c in suite.cases for s in c.servers})
    missing = [s for s in needed if s not in servers]
    if missing:
        raise ConfigError(
            f"the servers file declares no mcp-process server {', '.join(missing)}; "
            f"the dataset's cases need: {', '.join(needed)}"
        )
    if search_service is not None:
        search = search_service.target
    pool = WarmPool(
        {s: servers[s] for s in needed},
        size=warm,
        log_dir=log_dir,
        fork_server=fork_server,
        call_timeout_s=call_timeout_s,
        extra_env=search.env() if search is not None else None,
        on_notice=on_notice,
    )
    environments = {
        name: ThinkingBoxEnvironment(
            name,
            {c.task.id: c for c in suite.cases if c.scenario == name},
            pool,
            hidden_tools=hidden_tools,
            check_timeout_s=check_timeout_s,
            check_python=check_python,
            search=search,
        )
        for name in sorted({c.scenario for c in suite.cases})
    }
    return ThinkingBoxRun(suite, environments, pool, search_service, search)
