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

from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from statebox.episode import EpisodeOutcome
from statebox.errors import BackendError, ConfigError
from statebox.judge import RubricJudge, Verdict
from statebox.tasks import Task
from statebox.thinkingbox._format import TbCase, TbSuite
from statebox.thinkingbox._judge import TbJudge
from statebox.thinkingbox._pool import WarmPool
from statebox.thinkingbox._process import McpProcess
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
    ) -> None:
        self.name = name
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
                        raise BackendError(
                            f"{exc} (its config carries knowledge-base sources, which need "
                            "a search service; without one, run with --drop-sources)"
                        ) from exc
                    raise
        except BaseException:
            for process in processes.values():
                process.close()
            raise
        return TbSession(processes, allowlist=case.tools, hidden=self._hidden)

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

    @property
    def tasks(self) -> list[Task]:
        """The statebox tasks, in test-list order."""
        return [c.task for c in self.suite.cases]

    async def aclose(self) -> None:
        """Stop every server process (ready, in use or starting)."""
        await self.pool.aclose()


def open_thinkingbox(
    suite: TbSuite,
    servers: Mapping[str, ServerSpec],
    *,
    warm: int = 2,
    hidden_tools: frozenset[str] = frozenset(),
    check_timeout_s: float = 60.0,
    check_python: str | None = None,
    log_dir: Path | None = None,
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
    pool = WarmPool({s: servers[s] for s in needed}, size=warm, log_dir=log_dir)
    environments = {
        name: ThinkingBoxEnvironment(
            name,
            {c.task.id: c for c in suite.cases if c.scenario == name},
            pool,
            hidden_tools=hidden_tools,
            check_timeout_s=check_timeout_s,
            check_python=check_python,
        )
        for name in sorted({c.scenario for c in suite.cases})
    }
    return ThinkingBoxRun(suite, environments, pool)
