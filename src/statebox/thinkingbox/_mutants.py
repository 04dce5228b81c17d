"""Call-level mutation testing of a ThinkingBox dataset, through its real servers.

For each task (`validate_case`):

1. the golden calls are replayed one by one with a state read after each
   (`probe_golden`): which calls write, and the golden end state;
2. the golden trajectory is run again as the oracle's trial (fresh servers, the
   dataset's own check): the check must pass, and the fields whose values differ
   between the two golden runs (timestamps, generated ids) are *unstable*: no mutant is
   told apart from golden by them;
3. every call-level mutant (`call_mutants`: drop / alter / repeat a state-changing
   call) is run the same way, on fresh servers, and classified by its full end state
   (minus unstable fields) and the check's verdict: equivalent, killed or survived,
   with the fields that differ.

A task whose oracle run fails its own check, or whose servers fail, is reported with
the problem and no mutants.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from statebox.episode import Action, CallTool, End, Episode, Limits, Observation
from statebox.errors import StateboxError
from statebox.judge import Verdict
from statebox.judge._call_mutants import CallMutantResult, call_mutants, generalise
from statebox.tasks import GoldenCall, Task
from statebox.thinkingbox._environment import ThinkingBoxEnvironment, ThinkingBoxRun
from statebox.thinkingbox._probe import probe_golden, state_paths
from statebox.thinkingbox._session import TbSession
from statebox.tools import ToolCall
from statebox.users import RuleUser

__all__ = ["CaseValidation", "validate_case", "validate_thinkingbox"]


class CaseValidation(NamedTuple):
    """One task's mutation testing."""

    task_id: str
    domain: str
    problems: tuple[str, ...]
    """Why its mutants could not be judged (empty when they were)."""
    mutants: tuple[CallMutantResult, ...]
    unstable: tuple[str, ...]
    """Fields that differ between two golden runs (left out of every comparison)."""


class _Plan:
    """Plays a fixed trajectory, then ends with the task's reference response."""

    name = "mutant"
    config: dict[str, Any] = {}

    def __init__(self, calls: Sequence[GoldenCall], final: str) -> None:
        self._calls = list(calls)
        self._final = final or "Done."

    async def act(self, obs: Observation) -> Action:
        if self._calls:
            call = self._calls.pop(0)
            return CallTool(call=ToolCall(tool=call.tool, args=dict(call.args)))
        return End(text=self._final)


async def _run(
    env: ThinkingBoxEnvironment, task: Task, calls: Sequence[GoldenCall]
) -> tuple[Verdict, dict[str, str]]:
    """One trial of ``calls`` on fresh servers: the check's verdict and the end state."""
    episode = Episode(env, task, RuleUser(task), limits=Limits(max_steps=len(calls) + 5))
    agent = _Plan(calls, task.reference_response)
    try:
        obs = await episode.reset()
        while not obs.done:
            obs = await episode.step(await agent.act(obs))
        outcome = episode.outcome()
        verdict = await env.trial_judge(None).judge(task, outcome)
        session = outcome.session
        assert isinstance(session, TbSession)
        effects = await session.effects()
        state = {n: r.get("result_db_state") for n, r in effects.items()}
        return verdict, _flat(state)
    finally:
        episode.close()


def _flat(state: dict[str, Any]) -> dict[str, str]:
    return {f"{name}:{path}": v for name, s in state.items() for path, v in state_paths(s).items()}


def _diff(a: dict[str, str], b: dict[str, str], unstable: set[str]) -> list[str]:
    return sorted(
        p for p in set(a) | set(b) if a.get(p) != b.get(p) and generalise(p) not in unstable
    )


async def validate_case(
    env: ThinkingBoxEnvironment,
    task: Task,
    *,
    max_alter_per_call: int = 3,
    slots: asyncio.Semaphore | None = None,
) -> CaseValidation:
    """Run one task's call-level mutants (see the module doc)."""
    slots = slots or asyncio.Semaphore(1)

    async def guarded(fn: Callable[[], Any]) -> Any:
        async with slots:
            return await fn()

    try:
        probe, (verdict, golden) = await asyncio.gather(
            guarded(lambda: probe_golden(env, task)),
            guarded(lambda: _run(env, task, task.golden)),
        )
    except StateboxError as exc:
        return CaseValidation(task.id, task.domain, (f"golden replay failed: {exc}",), (), ())
    if not verdict.passed:
        failed = "; ".join(f"{c.name}: {c.detail}"[:300] for c in verdict.checks if not c.passed)
        return CaseValidation(
            task.id, task.domain, (f"the oracle fails its own check: {failed}",), (), ()
        )
    unstable = {generalise(p) for p in _diff(_flat(probe.final), golden, set())}
    mutants = call_mutants(
        task.golden, probe.writes, schemas=probe.schemas, max_alter_per_call=max_alter_per_call
    )

    async def one(m: Any) -> CallMutantResult | str:
        try:
            v, state = await guarded(lambda: _run(env, task, m.calls))
        except StateboxError as exc:
            return f"{m.description}: {exc}"
        diff = _diff(state, golden, unstable)
        outcome = "equivalent" if not diff else "killed" if not v.passed else "survived"
        return CallMutantResult(
            task_id=task.id,
            domain=task.domain,
            kind=m.kind,
            description=m.description,
            outcome=outcome,
            fields=tuple(sorted({generalise(p) for p in diff})) if outcome == "survived" else (),
        )

    ran = await asyncio.gather(*(one(m) for m in mutants))
    errors = tuple(f"mutant failed to run: {r}" for r in ran if isinstance(r, str))
    return CaseValidation(
        task.id,
        task.domain,
        errors,
        tuple(r for r in ran if isinstance(r, CallMutantResult)),
        tuple(sorted(unstable)),
    )


async def validate_thinkingbox(
    run: ThinkingBoxRun,
    *,
    concurrency: int = 4,
    max_alter_per_call: int = 3,
    on_case: Callable[[CaseValidation], None] | None = None,
) -> list[CaseValidation]:
    """Call-level mutation testing of every task of a loaded dataset.

    Args:
        run: The dataset's environments (`open_thinkingbox`).
        concurrency: Trials (golden or mutant) in flight at once.
        max_alter_per_call: Most ``alter`` mutants per state-changing call.
        on_case: Called as each task finishes (progress).

    Returns:
        One `CaseValidation` per task, in the dataset's order.
    """
    slots = asyncio.Semaphore(concurrency)
    tasks = run.tasks
    cases = {c.task.id: c for c in run.suite.cases}

    async def one(task: Task) -> CaseValidation:
        result = await validate_case(
            run.environments[cases[task.id].scenario],
            task,
            max_alter_per_call=max_alter_per_call,
            slots=slots,
        )
        if on_case is not None:
            on_case(result)
        return result

    # Tasks a few at a time (each fans its mutants out under the same slots).
    window = asyncio.Semaphore(max(2, concurrency))

    async def windowed(task: Task) -> CaseValidation:
        async with window:
            return await one(task)

    return list(await asyncio.gather(*(windowed(t) for t in tasks)))
