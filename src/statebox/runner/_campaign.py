"""Campaigns: tasks × trials × agent configurations, run concurrently, resumable.

The plan is a fixed, ordered list of trial keys. `run_campaign` skips keys already in
results.jsonl (resume), then runs the rest on one event loop with ``concurrency``
workers. Each trial gets a fresh world clone, a fresh agent and a fresh user; its
record is appended and flushed the moment it is judged. An exception inside a trial
becomes a ``system_error`` record plus an errors.jsonl line with the traceback — the
campaign goes on. Golden trajectories are replayed before the first trial: an invalid
task stops the campaign before it starts, loudly.

Model usage is metered per trial (`statebox.llm.metering`): every call the agent, the
user or the rubric judge makes inside the trial lands in its record (``usage`` per
role, ``model_calls``, ``cost_usd``). With ``retry_errors``, a resume also re-runs the
trials whose latest record is a ``system_error``; their new records are appended, and
readers keep the last record of each trial id (`statebox.records.latest_per_trial`).
Nothing is retried inside a trial but model calls (`statebox.llm`).
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import subprocess
import time
import traceback
import uuid
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, NamedTuple

import statebox
from statebox.agents import Agent, AgentError, AgentFactory, AgentLimitReached, TrialContext
from statebox.dialogue import UserBehaviour, audit_user_turns
from statebox.domains import Domain
from statebox.episode import (
    ApproverFactory,
    Episode,
    Event,
    Limits,
    TerminationReason,
    UserSimulator,
)
from statebox.errors import ConfigError, DomainError, StateboxError
from statebox.judge import (
    Judge,
    RubricJudge,
    TaskCheck,
    Verdict,
    check_task,
    environment_diff,
    environment_hash,
    environment_parts,
)
from statebox.kit import PolicyMode
from statebox.llm import TokenTrace, UsageMeter, metering
from statebox.records import (
    ERRORS_FILE,
    MANIFEST_FILE,
    RESULTS_FILE,
    AgentInfo,
    ApprovalCounts,
    ErrorRecord,
    Manifest,
    ResultsWriter,
    Timings,
    TrialRecord,
    TrialStatus,
    UserInfo,
    latest_per_trial,
    read_manifest,
    read_results,
    trial_id,
    write_manifest,
)
from statebox.registry import Registry
from statebox.runner._environment import ChecksTasks, DeclaresWrites, Environment, TrialJudge
from statebox.runner._executor import RecordSink, TrialExecutor
from statebox.runner._faults import golden_write_calls, warn_inapplicable_faults
from statebox.runner._mitigations import BUILTIN_APPROVERS, Mitigations, check_approval_gate
from statebox.runner._progress import NullProgress, ProgressSink
from statebox.tasks import Task, WorldCache, bundle_hash
from statebox.users import RuleUserFactory

__all__ = ["Campaign", "CampaignResult", "run_campaign"]


class Campaign(NamedTuple):
    """What to run."""

    tasks: Sequence[Task]
    """Tasks, in plan order."""
    agents: Sequence[AgentFactory]
    """Agent configurations."""
    trials: int
    """Trials per task and agent."""
    out: Path
    """Campaign directory."""
    task_source: str = "tasks"
    """Suite name or path, for the manifest."""
    concurrency: int = 8
    """Trials in flight at once."""
    seed: int = 0
    """Campaign seed (fault injection and any sampling)."""
    limits: Limits = Limits()
    """Per-episode limits."""
    trial_timeout_s: float = 600.0
    """Wall-clock limit of one trial in seconds."""
    resume: bool = False
    """Continue an existing campaign directory."""
    users: UserFactory | None = None
    """Makes each trial's simulated user; None: the rule-based user."""
    user_behaviour: str = UserBehaviour.COOPERATIVE.value
    """How the simulated user plays its spec (``cooperative``, ``misremembers``,
    ``changes-goal``, ``impatient``, ``uncooperative``); a ``users`` factory must be built
    with the same behaviour."""
    rubric: RubricJudge | None = None
    """Judge model for rubric checks; None: rubric checks are skipped and reported."""
    retry_errors: bool = False
    """On resume, also re-run trials whose latest record is a system error."""
    models: dict[str, str] = {}
    """Role → model label (``user``, ``judge``), for the manifest; never a key."""
    agent_specs: tuple[str, ...] = ()
    """The agent specs as given (``fault:skip_write=0.2``), so a resume can rebuild them."""
    environments: Mapping[str, Environment] = {}
    """External backends by the domain name their tasks carry (a ThinkingBox dataset);
    looked up before the registry's domains. The caller owns (and closes) them."""
    source_settings: Mapping[str, Any] = {}
    """More manifest settings describing the task source (how a resume rebuilds it)."""
    policy_mode: PolicyMode | None = None
    """How every trial serves the policy (prompt, search, both); None: each task's own
    ``policy_mode``, else ``prompt``. It changes what the agent sees, so a resume must
    keep it."""
    verdict_settings: Mapping[str, Any] = {}
    """Settings that can change a verdict, beyond those the campaign itself records
    (limits, the user and judge models): endpoints, the models file, agent options.
    JSON values, never a secret. A resume must match every one (`verdict_changes`)."""
    mitigations: Mitigations = Mitigations()
    """Tool surface and approval gate of every agent without its own (a
    `MitigatedFactory` carries its own); recorded in the manifest."""
    approvers: Mapping[str, ApproverFactory] = {}
    """Approver factories by gate name beyond the built-in ``simulated`` and ``human``
    (``llm``: built from the caller's models)."""


UserFactory = Callable[[Task, int], UserSimulator]
"""Makes a simulated user for (task, trial index)."""


class CampaignResult(NamedTuple):
    """What a run did."""

    directory: Path
    """Campaign directory."""
    planned: int
    """Trials in the plan."""
    skipped: int
    """Trials found done on resume."""
    ran: int
    """Trials run now."""
    system_errors: int
    """Trials run now that ended in a system error."""


def _git_revision() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            cwd=Path(statebox.__file__).parent,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None


def campaign_verdict_settings(c: Campaign) -> dict[str, Any]:
    """Every setting of ``c`` that can change a verdict, by name (the manifest's).

    The limits and the models that play the user and the judge, then whatever the
    caller adds in ``c.verdict_settings`` (one place: other settings join it there).
    """
    return {
        "max_steps": c.limits.max_steps,
        "max_turns": c.limits.max_turns,
        "trial_timeout_s": c.trial_timeout_s,
        "user_model": c.models.get("user", "rule" if c.users is None else None),
        "judge_model": c.models.get("judge"),
        # Defaults are left out: a manifest from before mitigations still resumes.
        **({"mitigations": c.mitigations.model_dump()} if c.mitigations != Mitigations() else {}),
        **dict(c.verdict_settings),
    }


def verdict_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """The verdict settings a resume would change, one ``key (campaign: X, now: Y)`` each.

    A key the campaign's manifest does not record (an older statebox wrote it) is not
    compared; a key the campaign records and the resume lacks is a change.
    """
    missing = object()
    out = []
    for key in sorted(old):
        was, now = old[key], new.get(key, missing)
        if was != now:
            shown = "(not set)" if now is missing else json.dumps(now)
            out.append(f"{key} (campaign: {json.dumps(was)}, now: {shown})")
    return out


def _manifest(c: Campaign, domains: Mapping[str, Domain | Environment]) -> Manifest:
    parts = environment_parts(c.tasks, domains)
    return Manifest(
        campaign_id=uuid.uuid4().hex[:12],
        statebox_version=statebox.__version__,
        git_revision=_git_revision(),
        created_at=datetime.now(UTC),
        task_source=c.task_source,
        task_bundle_hash=bundle_hash(c.tasks),
        environment_hash=environment_hash(parts),
        environment=parts,
        task_ids=tuple(t.id for t in c.tasks),
        agents=tuple(
            AgentInfo(agent_id=a.agent_id, name=a.name, config=a.config) for a in c.agents
        ),
        trials=c.trials,
        seed=c.seed,
        settings={
            "concurrency": c.concurrency,
            "max_steps": c.limits.max_steps,
            "max_turns": c.limits.max_turns,
            "trial_timeout_s": c.trial_timeout_s,
            "domains": sorted(domains),
            "policy_mode": c.policy_mode or _TASK_POLICY_MODE,
            "user_behaviour": c.user_behaviour,
            "tool_surface": c.mitigations.tool_surface,
            "approval_gate": c.mitigations.approval_gate,
            **({"models": dict(c.models)} if c.models else {}),
            **({"agent_specs": list(c.agent_specs)} if c.agent_specs else {}),
            **dict(c.source_settings),
        },
        verdict_settings=campaign_verdict_settings(c),
    )


_TASK_POLICY_MODE = "task"
"""The manifest's ``policy_mode`` when each task serves its own (older manifests lack it)."""


def _lock(directory: Path) -> IO[bytes]:
    """Hold an exclusive lock on the campaign directory for this process's lifetime.

    Raises:
        ConfigError: Another process holds it (two runs would interleave one file), or
            the directory cannot be written.
    """
    try:
        handle = (directory / ".lock").open("wb")
    except OSError as exc:
        raise ConfigError(f"{directory}: cannot write here: {exc.strerror}") from exc
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise ConfigError(f"{directory} is in use by another statebox run") from None
    return handle


def _check_resumable(old: Manifest, new: Manifest, out: Path) -> None:
    if old.task_bundle_hash != new.task_bundle_hash:
        raise ConfigError(f"{out}: the tasks differ from the campaign's; use a new --out")
    if {a.agent_id for a in old.agents} != {a.agent_id for a in new.agents}:
        raise ConfigError(f"{out}: the agents differ from the campaign's; use a new --out")
    if old.seed != new.seed:
        raise ConfigError(f"{out}: seed {new.seed} differs from the campaign's {old.seed}")
    was = old.settings.get("policy_mode", _TASK_POLICY_MODE)
    now = new.settings.get("policy_mode", _TASK_POLICY_MODE)
    if was != now:
        raise ConfigError(
            f"{out}: policy mode {now} differs from the campaign's {was}; use a new --out"
        )
    _check_environment(old, new, out)
    changes = verdict_changes(old.verdict_settings, new.verdict_settings)
    if changes:
        raise ConfigError(
            f"{out}: a resume would change settings that decide verdicts: {'; '.join(changes)}"
            "; resume without them (the campaign's own come back) or use a new --out"
        )


def _resume_state(c: Campaign, manifest: Manifest) -> tuple[Manifest, set[str]]:
    """The manifest to write and the trial ids already done; read under the lock.

    Raises:
        ConfigError: A campaign without ``resume``, a resume that differs from it, or
            results without a manifest.
    """
    if not (c.out / MANIFEST_FILE).exists():
        leftovers = [
            n
            for n in (RESULTS_FILE, ERRORS_FILE)
            if (c.out / n).exists() and (c.out / n).stat().st_size
        ]
        if leftovers:
            raise ConfigError(
                f"{c.out} holds {', '.join(leftovers)} but no manifest.json: not a campaign "
                "statebox can resume; use a new --out"
            )
        return manifest, set()
    if not c.resume:
        raise ConfigError(f"{c.out} already holds a campaign; pass --resume or a new --out")
    old = read_manifest(c.out)
    _check_resumable(old, manifest, c.out)
    if c.trials < old.trials:
        raise ConfigError(
            f"{c.out} plans {old.trials} trials per task; resume with --trials "
            f"{old.trials} (or more, to extend it)"
        )
    manifest = manifest.model_copy(
        update={"campaign_id": old.campaign_id, "created_at": old.created_at}
    )
    latest = latest_per_trial(read_results(c.out))
    done = {
        r.trial_id for r in latest if not (c.retry_errors and r.status == TrialStatus.SYSTEM_ERROR)
    }
    return manifest, done


def _check_environment(old: Manifest, new: Manifest, out: Path) -> None:
    """Refuse to resume in a changed environment (policy, schema, seed, tools, judge…)."""
    if old.environment_hash is None or old.environment_hash == new.environment_hash:
        return  # a manifest from before environment hashes: nothing to compare
    parts = environment_diff(old.environment, new.environment)
    raise ConfigError(
        f"{out}: the environment differs from the campaign's ({', '.join(parts)} changed); "
        "its trials would not be comparable — use a new --out"
    )


class _Runner:
    writer: RecordSink

    def __init__(
        self,
        c: Campaign,
        domains: Mapping[str, Domain | Environment],
        manifest: Manifest,
        progress: ProgressSink,
    ) -> None:
        self.c = c
        self.domains = domains
        self.manifest = manifest
        self.progress = progress
        self.worlds = WorldCache()
        self.judges: dict[str, TrialJudge] = {
            name: Judge(d, self.worlds, c.rubric, skip_rubric=c.rubric is None)
            if isinstance(d, Domain)
            else d.trial_judge(c.rubric)
            for name, d in domains.items()
        }
        self.system_errors = 0
        self.baselines: dict[str, dict[str, int]] = {}
        self.users: UserFactory = c.users or RuleUserFactory(c.user_behaviour, c.seed)
        self.player = c.models.get("user", "rule")

    def user_info(self, task: Task, user: UserSimulator, transcript: tuple[Event, ...]) -> UserInfo:
        """Who played the user, and the grounding audit of its turns."""
        plan = getattr(user, "plan", None)
        turns = [
            ("user" if e.kind == "user_message" else "agent", e.text or "")
            for e in transcript
            if e.kind in ("user_message", "agent_message", "end")
        ]
        declared = plan.declared_values() if plan is not None else ()
        return UserInfo(
            player=self.player,
            behaviour=self.c.user_behaviour,
            misremembered=getattr(plan, "misremembered", None),
            audit=audit_user_turns(task.user, turns, declared),
        )

    async def preflight(self) -> None:
        # The validator's checks short of mutants: a task whose oracle fails, whose noop
        # or refuse agent passes or whose golden call fails would only yield noise. The
        # baselines' results are the campaign's floors (kept in the manifest).
        bad: list[str] = []
        for t in self.c.tasks:
            domain, judge = self.domains[t.domain], self.judges[t.domain]
            try:
                if isinstance(domain, Domain) and isinstance(judge, Judge):
                    checked = await check_task(domain, t, judge, lint=False)
                elif isinstance(domain, ChecksTasks):
                    # An environment's own preflight (no baselines: each would cost a
                    # server start; `statebox tasks validate --backend` plays them).
                    checked = TaskCheck(problems=tuple(await domain.task_problems(t)))
                else:
                    continue  # an environment's loader checked its tasks; its oracle proves them
                problems = list(checked.problems)
            except StateboxError as exc:
                problems = [str(exc)]
            else:
                for name, passed in checked.baselines.items():
                    f = self.baselines.setdefault(
                        name, {"tasks": 0, "passed": 0, "test_tasks": 0, "passed_test": 0}
                    )
                    f["tasks"] += 1
                    f["passed"] += passed
                    f["test_tasks"] += t.split == "test"
                    f["passed_test"] += passed and t.split == "test"
            bad += [p if t.id in p else f"task {t.id}: {p}" for p in problems]
        if bad:
            raise ConfigError(
                f"{len(bad)} invalid task(s); run `statebox tasks validate`:\n  " + "\n  ".join(bad)
            )

    async def run_trial(self, task: Task, agent: AgentFactory, trial: int) -> None:
        # Each worker task sets its own scope: concurrent trials never share a meter.
        with metering() as meter:
            await self._run_trial(task, agent, trial, meter)

    async def _run_trial(
        self, task: Task, agent: AgentFactory, trial: int, meter: UsageMeter
    ) -> None:
        domain = self.domains[task.domain]
        key = trial_id(task.id, agent.agent_id, trial)
        started = datetime.now(UTC)
        t0 = time.perf_counter()
        user = self.users(task, trial)
        mitigations: Mitigations = getattr(agent, "mitigations", None) or self.c.mitigations
        approver = None
        if mitigations.approval_gate is not None and isinstance(domain, Domain):
            make = {**BUILTIN_APPROVERS, **self.c.approvers}[mitigations.approval_gate]
            policy_mode = self.c.policy_mode or task.policy_mode or "prompt"
            policy = domain.served_policy(policy_mode=policy_mode, record_steps=task.record_steps)
            approver = make(task, domain.toolset(record_steps=task.record_steps), policy)
        episode = Episode(
            domain,
            task,
            user,
            worlds=self.worlds,
            limits=self.c.limits,
            policy_mode=self.c.policy_mode,
            tool_surface=mitigations.tool_surface,
            distractors=mitigations.distractors,
            # An outside agent reaches the tools through a served surface (the gateway).
            served=bool(getattr(agent, "serves_tools", False)),
            approver=approver,
        )
        verdict: Verdict | None = None
        error: str | None = None
        status = TrialStatus.SYSTEM_ERROR
        termination = TerminationReason.SYSTEM_ERROR
        t_episode = t_judge = 0.0
        actor: Agent | None = None
        try:
            # An environment that does not say which tools write leaves the fault agent no
            # writes to perturb, unless it can tell which golden calls write.
            if isinstance(domain, Domain):
                mutating = frozenset(n for n, s in domain.tools.items() if s.mutates)
            elif isinstance(domain, DeclaresWrites):
                mutating = await domain.mutating_tools(task)
            else:
                mutating = frozenset()
            write_calls = await golden_write_calls(domain, task, agent)
            ctx = TrialContext(task, trial, self.c.seed, mutating, episode, write_calls)
            warn_inapplicable_faults(agent, ctx, domain)
            actor = agent(ctx)
            obs = await episode.reset()
            try:
                async with asyncio.timeout(self.c.trial_timeout_s):
                    while not obs.done:
                        action = await actor.act(obs)
                        if episode.done:  # ended by the agent's own gateway tool calls
                            break
                        obs = await episode.step(action)
            except TimeoutError:
                episode.stop(TerminationReason.TIMEOUT)
            except AgentLimitReached as exc:
                episode.stop(exc.reason)
            except AgentError as exc:  # the agent's doing: judged, and it fails
                episode.stop(TerminationReason.AGENT_ERROR)
                error = f"agent error: {exc}"
            if episode.fault is not None:
                # A call through the agent's own gateway broke statebox or its backend.
                raise episode.fault
            t_episode = time.perf_counter() - t0
            outcome = episode.outcome()
            termination = outcome.termination
            verdict = await self.judges[task.domain].judge(task, outcome)
            t_judge = time.perf_counter() - t0 - t_episode
            status = TrialStatus.PASSED if verdict.passed else TrialStatus.FAILED
            broken = [c for c in verdict.checks if c.error]
            if broken:  # a check that could not be evaluated is an infrastructure error
                status = TrialStatus.SYSTEM_ERROR
                error = "check error: " + "; ".join(f"{c.name}: {c.detail}" for c in broken)
                self.system_errors += 1
                self.writer.write_error(
                    ErrorRecord(
                        trial_id=key,
                        task_id=task.id,
                        agent_id=agent.agent_id,
                        trial=trial,
                        type="CheckError",
                        message=error,
                        traceback="",
                        at=datetime.now(UTC),
                    )
                )
        except Exception as exc:  # recorded as a system error with its traceback
            status, verdict = TrialStatus.SYSTEM_ERROR, None
            termination = TerminationReason.SYSTEM_ERROR
            error = f"{type(exc).__name__}: {exc}"
            self.system_errors += 1
            self.writer.write_error(
                ErrorRecord(
                    trial_id=key,
                    task_id=task.id,
                    agent_id=agent.agent_id,
                    trial=trial,
                    type=type(exc).__name__,
                    message=str(exc),
                    traceback=traceback.format_exc(),
                    at=datetime.now(UTC),
                )
            )
        finally:
            transcript = episode.transcript
            episode.close()
        try:
            user_info: UserInfo | None = self.user_info(task, user, transcript)
        except Exception:  # an unauditable transcript must not cost the trial its record
            user_info = None
        record = TrialRecord(
            trial_id=key,
            campaign_id=self.manifest.campaign_id,
            task_id=task.id,
            domain=task.domain,
            family=task.family,
            split=task.split,
            agent_id=agent.agent_id,
            trial=trial,
            status=status,
            verdict=verdict,
            termination=termination,
            transcript=transcript,
            token_trace=_token_trace(actor),
            started_at=started,
            error=error,
            timings=Timings(episode_s=t_episode, judge_s=t_judge, total_s=time.perf_counter() - t0),
            cost_usd=meter.cost_usd,
            usage=meter.by_role(),
            model_calls=tuple(meter.calls),
            thoughts=tuple(getattr(actor, "thoughts", ())),
            thought_steps=tuple(getattr(actor, "thought_steps", ())),
            user=user_info,
            approvals=ApprovalCounts.of(transcript) if approver is not None else None,
        )
        record = self.write_record(record)
        self.progress.trial_done(record)

    def write_record(self, record: TrialRecord) -> TrialRecord:
        """Append ``record`` to the results.

        One that cannot be written (its content will not serialise) is replaced by a
        bare system-error record plus an errors.jsonl line.

        Returns:
            The record written.
        """
        try:
            self.writer.write(record)
        except Exception as exc:  # an unwritable record must not end the campaign
            self.writer.write_error(
                ErrorRecord(
                    trial_id=record.trial_id,
                    task_id=record.task_id,
                    agent_id=record.agent_id,
                    trial=record.trial,
                    type=type(exc).__name__,
                    message=f"trial record could not be written: {exc}",
                    traceback=traceback.format_exc(),
                    at=datetime.now(UTC),
                )
            )
            record = record.model_copy(
                update={
                    "status": TrialStatus.SYSTEM_ERROR,
                    "verdict": None,
                    "transcript": (),
                    "error": f"{type(exc).__name__}: record not writable",
                }
            )
            self.writer.write(record)
        return record


def _token_trace(actor: object) -> TokenTrace | None:
    """The agent's token trace, if it keeps one (`LLMAgent.token_trace`)."""
    trace = getattr(actor, "token_trace", None)
    return trace if isinstance(trace, TokenTrace) else None


async def _run_pending(
    runner: _Runner, todo: list[tuple[Task, AgentFactory, int]], executor: TrialExecutor | None
) -> None:
    c = runner.c
    queue = iter(todo)

    async def worker() -> None:
        for task, agent, i in queue:
            await runner.run_trial(task, agent, i)
            # Yield even when an agent never awaits (oracle, fault injection): other
            # workers interleave and a Ctrl-C cancellation is delivered promptly.
            await asyncio.sleep(0)

    try:
        if executor is not None:
            await executor.run(runner, todo)
        else:
            async with asyncio.TaskGroup() as tg:
                for _ in range(min(c.concurrency, len(todo)) or 0):
                    tg.create_task(worker())
    finally:
        runner.progress.finish()
        for a in c.agents:  # agents holding servers (bring-your-own) stop them here
            aclose = getattr(a, "aclose", None)
            if aclose is not None:
                await aclose()


async def run_campaign(
    campaign: Campaign,
    registry: Registry,
    progress: ProgressSink | None = None,
    executor: TrialExecutor | None = None,
) -> CampaignResult:
    """Run (or resume) a campaign and write its directory.

    Args:
        campaign: What to run.
        registry: Where the tasks' domains are found.
        progress: Where progress goes.
        executor: Where the pending trials run (None: this event loop, ``concurrency``
            at a time; `RayExecutor`: a Ray cluster). Planning, resume and the results
            file are the same for both.

    Returns:
        Counts of planned, skipped (resume), run and system-error trials.

    Raises:
        ConfigError: No tasks, trials < 1, concurrency < 1, an invalid task (golden
            replay), a directory that already holds a campaign without ``resume``, or
            a resume whose tasks, agents, seed or policy mode differ.
        DomainError: A task names an unknown domain.
    """
    c = campaign
    progress = progress or NullProgress()
    if c.retry_errors and not c.resume:
        raise ConfigError("--retry-errors re-runs a campaign's system errors; add --resume")
    if not c.tasks:
        where = f" in {c.task_source}" if c.task_source not in ("", "tasks") else ""
        raise ConfigError(f"no tasks to run{where}")
    if c.trials < 1 or c.concurrency < 1:
        raise ConfigError("trials and concurrency must be at least 1")
    if not c.agents:
        raise ConfigError("no agent to run")
    for a in c.agents:
        check_approval_gate(
            (getattr(a, "mitigations", None) or c.mitigations).approval_gate,
            c.approvers,
            concurrency=c.concurrency,
        )
    if c.user_behaviour not in {b.value for b in UserBehaviour}:
        raise ConfigError(
            f"unknown user behaviour {c.user_behaviour!r}; choose from "
            + ", ".join(b.value for b in UserBehaviour)
        )
    domains: dict[str, Domain | Environment] = {}
    for name in sorted({t.domain for t in c.tasks}):
        try:
            domains[name] = c.environments.get(name) or registry.domain(name)
        except DomainError as exc:
            # Name a task of that domain: the reader has a file to open, not just a name.
            task = next(t for t in c.tasks if t.domain == name)
            raise DomainError(f"task {task.id}, field domain: {exc}") from exc
    if c.out.exists() and not c.out.is_dir():
        raise ConfigError(f"--out {c.out}: is a file, not a campaign directory")
    manifest = _manifest(c, domains)
    plan = [(t, a, i) for t in c.tasks for a in c.agents for i in range(c.trials)]
    runner = _Runner(c, domains, manifest, progress)
    await runner.preflight()  # before anything is written: an invalid task leaves no directory
    # Trials pay for every world they use: none inherits a connection the preflight's
    # replays left in the pool (a task's later trials reuse its first trial's).
    runner.worlds.close_idle()
    if runner.baselines:
        manifest = manifest.model_copy(update={"baselines": runner.baselines})
        runner.manifest = manifest
    try:
        c.out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"--out {c.out}: cannot create it: {exc.strerror}") from exc
    # The lock comes before the manifest is read: two runs on one directory (two new
    # campaigns, two resumes) never both read it as it was and then both append.
    lock = _lock(c.out)
    try:
        manifest, done = _resume_state(c, manifest)
        runner.manifest = manifest
        todo = [p for p in plan if trial_id(p[0].id, p[1].agent_id, p[2]) not in done]
        write_manifest(c.out, manifest)  # first: its presence is what marks a campaign
        with ResultsWriter(c.out) as writer:
            runner.writer = writer
            progress.start(len(plan), len(plan) - len(todo))
            await _run_pending(runner, todo, executor)
    finally:
        lock.close()  # releases the flock
    return CampaignResult(c.out, len(plan), len(plan) - len(todo), len(todo), runner.system_errors)
