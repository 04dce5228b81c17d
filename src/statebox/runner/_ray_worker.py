"""The worker side of the Ray executor: trial workers and the cluster-wide endpoint limits.

Nothing here imports ``ray`` at module level: these are plain classes that `RayExecutor`
turns into Ray actors (``ray.remote(cls)``) when a campaign starts, so ``import
statebox.runner`` stays light.

- `TrialWorker` rebuilds what a trial needs from picklable specs (a `WorkerSetup`, the
  agent spec strings, the tasks from the campaign's `TaskStore` actor) and runs each
  trial with the local executor's own code (`_Runner.run_trial`), collecting its record
  instead of writing it: only the driver writes results.jsonl, so a trial retried after
  its worker died is never written twice. Many trials run at once on the actor's event
  loop (Ray async actor), as they do on the local executor's loop.
- `EndpointLimits` is one async actor per campaign holding a semaphore per endpoint key;
  `ActorLimiter` is the `statebox.llm.EndpointLimiter` a worker installs around each
  trial, so ``max_connections`` holds across the cluster (rate limits are per API key,
  not per worker). Slots are leases tagged with the worker's name: a restarted worker
  first drops the leases its dead incarnation held, so a killed worker leaks no slot.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from statebox.agents import AgentFactory
from statebox.episode import Limits
from statebox.errors import ConfigError
from statebox.judge import RubricJudge
from statebox.kit import PolicyMode
from statebox.llm import limiting
from statebox.records import ErrorRecord, Manifest, TrialRecord
from statebox.registry import Registry, default_registry, load_domain_ref
from statebox.runner._campaign import Campaign, UserFactory, _Runner
from statebox.runner._mitigations import trial_mitigations
from statebox.runner._progress import NullProgress
from statebox.tasks import Task

__all__ = [
    "ActorLimiter",
    "EndpointLimits",
    "NodeService",
    "RegistrySetup",
    "TaskStore",
    "TrialResult",
    "TrialWorker",
    "WorkerConfig",
    "WorkerKit",
    "WorkerSetup",
]


class WorkerKit(NamedTuple):
    """What a worker builds once: where domains and agents come from, the user, the judge."""

    registry: Registry
    """Domains and agent builders (agents are rebuilt from their spec strings)."""
    users: UserFactory | None = None
    """The simulated user's factory (None: the rule-based user)."""
    rubric: RubricJudge | None = None
    """The rubric judge (None: rubric checks skipped and reported)."""
    aclose: Callable[[], Awaitable[None]] | None = None
    """Closes what the kit opened (model clients, environments), when the worker stops."""
    environments: Mapping[str, Any] = {}
    """External environments by domain name, built in the worker (a ThinkingBox
    dataset's scenarios over this worker's own server processes)."""


class WorkerSetup(Protocol):
    """A picklable recipe for a `WorkerKit`, called once in each worker process."""

    def __call__(self) -> WorkerKit:
        """Build the kit."""
        ...


class RegistrySetup(NamedTuple):
    """The plain recipe: the installed domains plus extra domain references.

    Agents come from their spec strings (``oracle``, ``fault:...``, ``sleepy:...``);
    users are rule-based users and rubric checks are skipped. Model agents,
    users and judges need the CLI's recipe (``statebox run --executor ray``).
    """

    domain_refs: tuple[str, ...] = ()
    """Extra domains as ``module:ATTR`` or ``/abs/path/file.py:ATTR``."""

    def __call__(self) -> WorkerKit:
        """A kit over `default_registry` with the extra domains."""
        registry = default_registry()
        for ref in self.domain_refs:
            registry.register_domain(load_domain_ref(ref))
        return WorkerKit(registry)


class WorkerConfig(NamedTuple):
    """What the driver sends each worker when it starts (picklable)."""

    name: str
    """Worker name, stable across restarts (tags its endpoint leases)."""
    setup: WorkerSetup
    """Builds the registry, user and judge in the worker."""
    agent_specs: Mapping[str, str]
    """Agent id → spec string, as `Campaign.agent_specs` gives them."""
    manifest: Manifest
    """The campaign's manifest (campaign id on every record)."""
    seed: int
    """Campaign seed."""
    limits: Limits
    """Per-episode limits."""
    trial_timeout_s: float
    """Wall-clock limit of one trial in seconds."""
    policy_mode: PolicyMode | None = None
    """The campaign's policy mode (None: each task's own)."""
    environments: Mapping[str, Callable[[], Any]] = {}
    """Domain name → picklable recipe of an external environment (`Portable.recipe`),
    built once in each worker."""
    node_services: str | None = None
    """Name prefix of the per-node service actors (``PREFIX-<node id>``), when the setup
    has a `NodeService`: the worker hands its node's `NodeService.info` to the setup's
    ``on_node`` before building its kit."""


class NodeService:
    """One service per cluster node (a Ray actor pinned to the node).

    For example the search service of a ThinkingBox dataset that every worker on the
    node shares.

    Args:
        factory: Picklable; ``factory.start()`` starts the service and returns its
            (picklable) info, ``factory.stop()`` stops it.
    """

    def __init__(self, factory: Any) -> None:
        self._factory = factory
        self._info: Any = None
        self._started = False

    async def info(self) -> Any:
        """The service's info (it starts on the first call)."""
        if not self._started:
            self._info = self._factory.start()
            self._started = True
        return self._info

    async def stop(self) -> None:
        """Stop the service (idempotent)."""
        if self._started:
            self._factory.stop()
            self._started = False


class _Collector:
    """A `RecordSink` keeping each trial's records, as JSON, until the worker returns them.

    JSON, not the models: a record crosses to the driver about four times faster as a
    string pydantic re-validates than pickled field by field.
    """

    def __init__(self) -> None:
        self.records: dict[str, str] = {}
        self.errors: dict[str, list[str]] = {}

    def write(self, record: TrialRecord) -> None:
        # Serialised now, as the file writer would: an unwritable record takes the local
        # executor's fallback path inside `_Runner` (a stripped system-error record).
        self.records[record.trial_id] = record.model_dump_json()

    def write_error(self, record: ErrorRecord) -> None:
        self.errors.setdefault(record.trial_id, []).append(record.model_dump_json())

    def take(self, key: str) -> TrialResult:
        return TrialResult(self.records.pop(key), tuple(self.errors.pop(key, [])))


class TrialResult(NamedTuple):
    """What a worker returns for one trial (JSON of the records, for the driver to write)."""

    record: str
    """The `TrialRecord`, as JSON."""
    errors: tuple[str, ...]
    """Its `ErrorRecord` lines, as JSON."""


class _Built(NamedTuple):
    kit: WorkerKit
    tasks: Mapping[str, Task]
    agents: dict[str, AgentFactory]
    runner: _Runner
    environments: dict[str, Any]


class TrialWorker:
    """Runs trials in one worker process (made a Ray async actor by `RayExecutor`).

    The worker builds itself on its first call (`ready`, or a retried `run` after a
    restart): it fetches the tasks from the task store, builds the kit and frees the
    endpoint leases a dead earlier incarnation held, before any trial takes a slot.

    Args:
        config: The campaign's worker config.
        tasks: Name of the campaign's `TaskStore` actor.
        limiter: Name of the campaign's `EndpointLimits` actor.

    Actors are passed by name, not handle or value, so a worker's creation arguments
    are plain strings that Ray can always replay when it restarts the worker.
    """

    def __init__(self, config: WorkerConfig, tasks: str, limiter: str) -> None:
        self._config = config
        self._names = (tasks, limiter)
        self._limiter: ActorLimiter | None = None
        self._sink = _Collector()
        self._built: asyncio.Future[_Built] | None = None

    async def _build(self) -> _Built:
        config = self._config
        import ray

        store, limiter = (ray.get_actor(n) for n in self._names)
        tasks: Mapping[str, Task] = await store.tasks.remote()
        setup = config.setup
        if config.node_services is not None:
            node = ray.get_runtime_context().get_node_id()
            info = await ray.get_actor(f"{config.node_services}-{node}").info.remote()
            setup = setup.on_node(info)
        kit = setup()
        agents: dict[str, AgentFactory] = {}
        for agent_id, spec in config.agent_specs.items():
            agent = kit.registry.agent(spec)
            if agent.agent_id != agent_id:
                raise ConfigError(
                    f"agent spec {spec!r} gives {agent.agent_id} on a worker, not {agent_id}"
                )
            agents[agent_id] = agent
        names = sorted({t.domain for t in tasks.values()})
        # Each worker builds its own environments (its own servers and databases): the
        # setup's (ThinkingBox), or from the driver's recipes (--backend files).
        environments = {n: config.environments[n]() for n in names if n in config.environments}
        domains = {
            name: kit.environments.get(name) or environments.get(name) or kit.registry.domain(name)
            for name in names
        }
        campaign = Campaign(
            tasks=list(tasks.values()),
            agents=list(agents.values()),
            trials=1,
            out=Path(),
            seed=config.seed,
            limits=config.limits,
            trial_timeout_s=config.trial_timeout_s,
            policy_mode=config.policy_mode,
            mitigations=trial_mitigations(config.manifest, ""),
            users=kit.users,
            user_behaviour=str(config.manifest.settings.get("user_behaviour", "cooperative")),
            models={str(k): str(v) for k, v in config.manifest.settings.get("models", {}).items()},
            rubric=kit.rubric,
        )
        runner = _Runner(campaign, domains, config.manifest, NullProgress())
        runner.writer = self._sink
        # This may be a restart: the leases the dead incarnation held are free again,
        # and its acquires still queued on the actor are void (one holder id per
        # incarnation tells them apart).
        holder = f"{config.name}#{uuid.uuid4().hex[:8]}"
        await limiter.drop_holder.remote(config.name, keep=holder)
        self._limiter = ActorLimiter(limiter, holder)
        return _Built(kit, tasks, agents, runner, environments)

    async def _ready(self) -> _Built:
        if self._built is None:  # the first call builds; concurrent ones wait for it
            self._built = asyncio.ensure_future(self._build())
        return await self._built

    async def ready(self) -> int:
        """Build the worker; return its process id.

        Raises:
            ConfigError: An agent spec rebuilds to another agent id than the driver's.
        """
        await self._ready()
        return os.getpid()

    async def run(self, task_id: str, agent_id: str, trial: int) -> TrialResult:
        """Run one trial; return its record and error records (nothing is written here)."""
        from statebox.records import trial_id as make_id

        b = await self._ready()
        assert self._limiter is not None  # set by _build
        with limiting(self._limiter):
            await b.runner.run_trial(b.tasks[task_id], b.agents[agent_id], trial)
        return self._sink.take(make_id(task_id, agent_id, trial))

    async def close(self) -> None:
        """Close the kit's clients and the agents' servers, its slots given back first."""
        if self._limiter is not None:
            await self._limiter.settled()
        if self._built is None or not self._built.done() or self._built.exception():
            return
        b = self._built.result()
        for a in b.agents.values():
            aclose = getattr(a, "aclose", None)
            if aclose is not None:
                await aclose()
        for env in b.environments.values():
            aclose = getattr(env, "aclose", None)
            if aclose is not None:
                await aclose()
        if b.kit.aclose is not None:
            await b.kit.aclose()


class TaskStore:
    """Every task of a campaign by id, for its workers to fetch (a Ray actor)."""

    def __init__(self, tasks: Mapping[str, Task]) -> None:
        self._tasks = tasks

    async def tasks(self) -> Mapping[str, Task]:
        """The tasks by id."""
        return self._tasks


class EndpointLimits:
    """Semaphores per endpoint key, shared by a campaign's workers (a Ray async actor)."""

    def __init__(self) -> None:
        self._sems: dict[str, asyncio.Semaphore] = {}
        self._limit: dict[str, int] = {}
        self._leases: dict[int, tuple[str, str]] = {}  # lease → (key, holder)
        self._in_use: dict[str, int] = {}
        self._peak: dict[str, int] = {}
        self._ids = itertools.count(1)
        self._holders: set[str] = set()
        self._dead: set[str] = set()

    async def acquire(self, key: str, max_connections: int, holder: str) -> int:
        """Wait for a slot of ``key``; return its lease id.

        Raises:
            RuntimeError: ``holder`` was dropped (its worker died) while it waited; the
                slot goes straight back, or no live worker could ever release it.
        """
        self._holders.add(holder)
        sem = self._sems.get(key)
        if sem is None:
            sem = self._sems[key] = asyncio.Semaphore(max_connections)
            self._limit[key] = max_connections
        await sem.acquire()
        if holder in self._dead:
            sem.release()
            raise RuntimeError(f"{holder} is gone (its worker died)")
        lease = next(self._ids)
        self._leases[lease] = (key, holder)
        self._in_use[key] = n = self._in_use.get(key, 0) + 1
        self._peak[key] = max(self._peak.get(key, 0), n)
        return lease

    async def release(self, lease: int) -> None:
        """Give a lease back (a lease already dropped is ignored)."""
        held = self._leases.pop(lease, None)
        if held is not None:
            self._in_use[held[0]] -= 1
            self._sems[held[0]].release()

    async def drop_holder(self, holder: str, *, keep: str | None = None) -> int:
        """Release every lease of ``holder`` (a worker that died); return how many.

        Holders named ``holder#<incarnation>`` count as ``holder`` too, except ``keep``
        (the restarted worker itself). Their acquires still waiting (queued on this
        actor when the worker died) give their slot straight back once granted.
        """
        gone = {h for h in self._holders if h.split("#")[0] == holder and h != keep}
        self._dead |= gone
        mine = [lease for lease, (_, h) in self._leases.items() if h in gone]
        for lease in mine:
            await self.release(lease)
        return len(mine)

    async def stats(self) -> dict[str, dict[str, int]]:
        """Per key: ``limit``, ``in_use`` now and the ``peak`` seen."""
        return {
            k: {"limit": self._limit[k], "in_use": self._in_use.get(k, 0), "peak": p}
            for k, p in self._peak.items()
        }


class ActorLimiter:
    """An `statebox.llm.EndpointLimiter` backed by an `EndpointLimits` actor.

    Args:
        actor: The `EndpointLimits` actor handle.
        holder: Whose leases these are (the worker's name).
    """

    def __init__(self, actor: Any, holder: str) -> None:
        self._actor = actor
        self._holder = holder

    def slot(self, key: str, max_connections: int) -> AbstractAsyncContextManager[None]:
        """Hold one cluster-wide slot of ``key`` for the block."""
        return self._slot(key, max_connections)

    async def settled(self) -> None:
        """Return once the actor has taken every release this worker sent.

        A release is sent without waiting for it; Ray starts one caller's calls to an
        actor in the order they were sent, and a release runs whole once started, so
        any later call's answer means every earlier release is done.
        """
        await self._actor.stats.remote()

    @asynccontextmanager
    async def _slot(self, key: str, max_connections: int) -> AsyncIterator[None]:
        ref = self._actor.acquire.remote(key, max_connections, self._holder)
        try:
            lease = await ref
        except asyncio.CancelledError:
            # Granted after we stopped waiting (a trial timeout): Ray passes the lease to
            # release once acquire returns, so the slot comes straight back.
            self._actor.release.remote(ref)
            raise
        try:
            yield
        finally:
            self._actor.release.remote(lease)
