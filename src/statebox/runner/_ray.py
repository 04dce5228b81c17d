"""`RayExecutor`: a campaign's trials on a Ray cluster, its records in one results file.

The driver plans exactly as the local executor does (`run_campaign`: manifest, lock,
resume, ``--retry-errors``, plan order, golden preflight); this executor only runs the
pending trials. It starts a pool of `TrialWorker` Ray async actors (one CPU each, spread
over the cluster by Ray's scheduler) and one `EndpointLimits` actor, then keeps up to
``concurrency`` trial calls in flight, each on the least busy worker; each call returns
the trial's record and its error records, which the driver alone appends to
results.jsonl and errors.jsonl as calls finish. So:

- resume and retry-errors are the local executor's, since the plan is;
- a worker process that dies mid-trial is restarted by Ray (``max_restarts``) and its
  in-flight calls are re-run there (``max_task_retries``); nothing of the dead attempt
  was written, so nothing is duplicated; a trial whose retries run out is written as a
  ``system_error`` record with its trial id (and an errors.jsonl line), never lost;
- per-endpoint ``max_connections`` holds across the cluster (`EndpointLimits`).

Trial workers are actors rather than Ray tasks because a trial mostly waits on a model
endpoint: Ray forbids ``async def`` tasks and a blocking task holds a worker process
per trial, whereas one async actor per CPU interleaves hundreds of waiting trials on
its event loop, as the local executor does. ``ray`` is imported only in `run`.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import traceback
import uuid
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from statebox.episode import TerminationReason
from statebox.errors import ConfigError
from statebox.records import ErrorRecord, Timings, TrialRecord, TrialStatus, trial_id
from statebox.runner._environment import Portable
from statebox.runner._executor import PlannedTrial
from statebox.runner._ray_worker import (
    EndpointLimits,
    NodeService,
    RegistrySetup,
    TaskStore,
    TrialResult,
    TrialWorker,
    WorkerConfig,
    WorkerSetup,
)

if TYPE_CHECKING:
    from statebox.runner._campaign import _Runner

__all__ = ["RayExecutor"]


class RayExecutor:
    """Runs a campaign's pending trials on a Ray cluster (pass to `run_campaign`).

    Args:
        setup: Builds each worker's registry, user and judge (None: `RegistrySetup()`,
            the installed domains, rule-based users, no rubric judge).
        address: The cluster to join (``auto``, ``ray://host:10001``, ``host:6379``);
            None: the Ray session already started in this process, else a fresh local
            one (dashboard off).
        workers: Trial workers (None: the cluster's CPUs, at most ``concurrency``).
        max_task_retries: Times a trial is re-run after its worker died.
        max_restarts: Times each worker is restarted after dying.
        init_kwargs: Extra arguments for ``ray.init`` when this executor starts Ray.

    Example:
        ``await run_campaign(campaign, registry, executor=RayExecutor(address="auto"))``
    """

    def __init__(
        self,
        setup: WorkerSetup | None = None,
        *,
        address: str | None = None,
        workers: int | None = None,
        max_task_retries: int = 2,
        max_restarts: int = 4,
        init_kwargs: dict[str, Any] | None = None,
    ) -> None:
        if workers is not None and workers < 1:
            raise ConfigError("the Ray executor needs at least one worker")
        self.setup: WorkerSetup = setup if setup is not None else RegistrySetup()
        self.address = address
        self.workers = workers
        self.max_task_retries = max_task_retries
        self.max_restarts = max_restarts
        self.init_kwargs = dict(init_kwargs or {})
        self.worker_pids: list[int] = []
        """Process ids of the trial workers once they are up (diagnostics, tests)."""
        self.endpoint_stats: dict[str, dict[str, int]] = {}
        """Per endpoint key after the run: ``limit``, ``in_use`` and ``peak`` in flight."""
        self._store: Any = None

    async def run(self, runner: _Runner, todo: list[PlannedTrial]) -> None:
        """Run the pending trials on the cluster; the driver writes every record.

        Args:
            runner: The driver's runner (campaign, manifest, results sink, progress).
            todo: Pending trials in plan order.

        Raises:
            ConfigError: Ray is not installed, the campaign has external environments
                without a recipe (`Portable`) or agents without spec strings, or a worker
                cannot build its kit.
        """
        c = runner.c
        if not todo:
            return
        builds = bool(getattr(self.setup, "builds_environments", False))
        unportable = sorted(n for n, e in c.environments.items() if not isinstance(e, Portable))
        if unportable and not builds:
            raise ConfigError(
                f"external environments {', '.join(unportable)} run with --executor local "
                "only, or on Ray with a worker setup that builds them in each worker "
                "(statebox run --thinkingbox ... --executor ray has one)"
            )
        # A setup that builds the environments itself needs no recipes.
        recipes = (
            {}
            if builds
            else {n: e.recipe() for n, e in c.environments.items() if isinstance(e, Portable)}
        )
        if len(c.agent_specs) != len(c.agents):
            raise ConfigError(
                "the Ray executor rebuilds agents on its workers from their specs: "
                "give Campaign.agent_specs, one per agent"
            )
        if c.mitigations.approval_gate not in (None, "simulated"):
            # The workers rebuild approvers from the manifest: only the simulated one
            # needs nothing from the driver (a model client, a terminal).
            raise ConfigError(
                f"--approval-gate {c.mitigations.approval_gate} does not run on Ray workers; "
                "use --approval-gate simulated or the local executor"
            )
        try:
            import ray
        except ImportError:
            raise ConfigError("--executor ray needs Ray: pip install 'statebox[ray]'") from None
        started = False
        if not ray.is_initialized():
            kwargs: dict[str, Any] = {"logging_level": "warning", **self.init_kwargs}
            if self.address is None:
                kwargs.setdefault("include_dashboard", False)
            # "local": a Ray of its own, never a cluster some earlier `ray start` left
            # registered on this machine (possibly dead).
            ray.init(address=self.address or "local", **kwargs)
            started = True
        limiter: Any = None
        workers: list[Any] = []
        services: list[Any] = []
        try:
            # Named per run, so workers find them by a plain string (see TrialWorker).
            prefix = f"statebox-{runner.manifest.campaign_id}-{uuid.uuid4().hex[:8]}"
            limits = ray.remote(EndpointLimits).options(
                name=f"{prefix}-limits", num_cpus=0, max_concurrency=100_000
            )
            limiter = limits.remote()
            store = ray.remote(TaskStore).options(name=f"{prefix}-tasks", num_cpus=0)
            self._store = store.remote({t.id: t for t in c.tasks})
            node_prefix = None
            factory = getattr(self.setup, "node_service", None)
            if factory is not None:
                node_prefix = f"{prefix}-node"
                services = self._start_node_services(ray, node_prefix, factory)
            workers = self._start_workers(ray, runner, prefix, len(todo), recipes, node_prefix)
            await self._drive(runner, todo, workers)
        finally:
            for w in workers:
                # A worker already gone has nothing left to close. Closing waits for its
                # slots' releases to reach the limiter, so the figures below are final
                # (read before, a release still in flight showed a slot in use).
                with contextlib.suppress(Exception):
                    ray.get(w.close.remote(), timeout=30)
            if limiter is not None:
                try:
                    self.endpoint_stats = ray.get(limiter.stats.remote(), timeout=30)
                except Exception:  # diagnostics only: a dead limiter leaves them empty
                    self.endpoint_stats = {}
            for w in workers:
                ray.kill(w, no_restart=True)
            for service in services:
                with contextlib.suppress(Exception):
                    ray.get(service.stop.remote(), timeout=30)
                ray.kill(service, no_restart=True)
            if limiter is not None:
                ray.kill(limiter, no_restart=True)
            if self._store is not None:
                ray.kill(self._store, no_restart=True)
                self._store = None
            if started:
                ray.shutdown()

    @staticmethod
    def _start_node_services(ray: Any, prefix: str, factory: Any) -> list[Any]:
        """One `NodeService` actor per alive node, pinned there, named ``PREFIX-<node id>``."""
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        services = []
        for node in ray.nodes():
            if not node.get("Alive"):
                continue
            node_id = node["NodeID"]
            actor = ray.remote(NodeService).options(
                name=f"{prefix}-{node_id}",
                num_cpus=0,
                scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False),
            )
            services.append(actor.remote(factory))
        return services

    def _start_workers(
        self,
        ray: Any,
        runner: _Runner,
        prefix: str,
        pending: int,
        recipes: dict[str, Any],
        node_prefix: str | None = None,
    ) -> list[Any]:
        c = runner.c
        cpus = int(ray.cluster_resources().get("CPU", 1))
        n = max(1, min(self.workers or cpus, c.concurrency, pending))
        # Async actor calls in flight per worker: its share of the campaign's concurrency
        # (plus room for ready/close).
        per_worker = math.ceil(c.concurrency / n) + 2
        actor = ray.remote(TrialWorker).options(
            num_cpus=1 if self.workers is None else min(1.0, cpus / n),
            max_concurrency=per_worker,
            max_restarts=self.max_restarts,
            max_task_retries=self.max_task_retries,
            scheduling_strategy="SPREAD",
        )
        specs = {a.agent_id: s for a, s in zip(c.agents, c.agent_specs, strict=True)}
        workers = [
            actor.remote(
                WorkerConfig(
                    name=f"worker-{i}",
                    setup=self.setup,
                    agent_specs=specs,
                    manifest=runner.manifest,
                    seed=c.seed,
                    limits=c.limits,
                    trial_timeout_s=c.trial_timeout_s,
                    policy_mode=c.policy_mode,
                    environments=recipes,
                    node_services=node_prefix,
                ),
                f"{prefix}-tasks",
                f"{prefix}-limits",
            )
            for i in range(n)
        ]
        try:
            self.worker_pids = ray.get([w.ready.remote() for w in workers])
        except ray.exceptions.RayError as exc:
            for w in workers:
                ray.kill(w, no_restart=True)
            raise ConfigError(f"a Ray trial worker could not start: {exc}") from exc
        return workers

    async def _drive(self, runner: _Runner, todo: list[PlannedTrial], workers: list[Any]) -> None:
        c = runner.c
        queue = iter(todo)
        load = [0] * len(workers)
        # Finished calls arrive here one by one (O(1) each; asyncio.wait over a thousand
        # futures would re-register every one of them per completion).
        finished: asyncio.Queue[tuple[asyncio.Future[Any], PlannedTrial, int]] = asyncio.Queue()
        inflight = 0

        def submit() -> bool:
            nonlocal inflight
            planned = next(queue, None)
            if planned is None:
                return False
            task, agent, i = planned
            w = min(range(len(workers)), key=load.__getitem__)
            fut = asyncio.wrap_future(workers[w].run.remote(task.id, agent.agent_id, i).future())
            fut.add_done_callback(lambda f: finished.put_nowait((f, planned, w)))
            load[w] += 1
            inflight += 1
            return True

        while inflight < c.concurrency and submit():
            pass
        while inflight:
            fut, planned, w = await finished.get()
            inflight -= 1
            load[w] -= 1
            try:
                result: TrialResult = fut.result()
            except Exception as exc:  # retries ran out: the trial is a system error
                record, errors = self._lost(runner, planned, exc)
            else:
                record = TrialRecord.model_validate_json(result.record)
                errors = [ErrorRecord.model_validate_json(e) for e in result.errors]
            self._write(runner, record, errors)
            submit()

    def _lost(
        self, runner: _Runner, planned: PlannedTrial, exc: BaseException
    ) -> tuple[TrialRecord, list[ErrorRecord]]:
        task, agent, i = planned
        key = trial_id(task.id, agent.agent_id, i)
        now = datetime.now(UTC)
        message = f"Ray worker failed (after {self.max_task_retries} retries): {exc}"
        error = ErrorRecord(
            trial_id=key,
            task_id=task.id,
            agent_id=agent.agent_id,
            trial=i,
            type=type(exc).__name__,
            message=message,
            traceback="".join(traceback.format_exception(exc)),
            at=now,
        )
        record = TrialRecord(
            trial_id=key,
            campaign_id=runner.manifest.campaign_id,
            task_id=task.id,
            domain=task.domain,
            family=task.family,
            split=task.split,
            agent_id=agent.agent_id,
            trial=i,
            status=TrialStatus.SYSTEM_ERROR,
            verdict=None,
            termination=TerminationReason.SYSTEM_ERROR,
            started_at=now,
            error=f"{type(exc).__name__}: worker lost",
            timings=Timings(episode_s=0.0, judge_s=0.0, total_s=0.0),
        )
        return record, [error]

    @staticmethod
    def _write(runner: _Runner, record: TrialRecord, errors: list[ErrorRecord]) -> None:
        for e in errors:
            runner.writer.write_error(e)
        record = runner.write_record(record)
        if record.status == TrialStatus.SYSTEM_ERROR:
            runner.system_errors += 1
        runner.progress.trial_done(record)
