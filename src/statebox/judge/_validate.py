"""Task validation and mutation testing (docs/design.md §5).

A task is valid when: its golden trajectory replays without error; the golden state
differs from the initial state (or equals it, for a read-only task); the allowlist and
golden tools exist in the domain; the oracle passes; the do-nothing agent fails
(unless read-only); and every real mutant is caught.

Mutants, each judged on state checks only (state + invariants):

- ``drop_write``: the golden trajectory without one mutating call (later calls that
  then fail are skipped);
- ``wrong_value``: the golden end state with one field the golden trajectory wrote
  changed to another value of its column;
- ``extra_write``: the golden end state with one untouched row of a table changed.

A mutant whose end state equals the golden state under the field policy is
*equivalent* and left out. A surviving mutant that only touches an excluded column is
counted as *excluded* with the policy's reason, never as caught. Check strength =
caught ÷ (caught + survived).

Everything here runs on a `StateJudge`, whatever holds its worlds: `task_problems` and
`validate_task` take a domain (and lint its identifiers), `judged_task_problems` and
`validate_judged_task` any judge (an external backend's, `statebox.backends`).
"""

from __future__ import annotations

from typing import Literal

from statebox._model import Model
from statebox.domains import Domain
from statebox.episode import EpisodeOutcome, TerminationReason
from statebox.errors import GoldenReplayError, StateboxError, TaskSpecError
from statebox.judge._judge import Judge, StateJudge
from statebox.judge._lint import lint_identifiers
from statebox.tasks import Task
from statebox.world import RowEffect, Scalar, WorldView, effects

__all__ = [
    "MutantResult",
    "TaskValidation",
    "judged_task_problems",
    "static_problems",
    "task_problems",
    "validate_judged_task",
    "validate_task",
]


class MutantResult(Model):
    """One mutant and whether the checks caught it."""

    kind: Literal["drop_write", "wrong_value", "extra_write"]
    """Mutation operator."""
    description: str
    """What was changed."""
    outcome: Literal["caught", "survived", "equivalent", "excluded"]
    """caught: the checks failed it; survived: they passed it; equivalent: same end state
    as golden; excluded: survived, but only touches a column the field policy excludes."""
    reason: str = ""
    """The field policy's reason, for excluded mutants."""


class TaskValidation(Model):
    """The validation of one task."""

    task_id: str
    """Task id."""
    problems: tuple[str, ...]
    """Every reason the task is invalid (empty when valid)."""
    mutants: tuple[MutantResult, ...] = ()
    """Every mutant tried."""

    @property
    def ok(self) -> bool:
        """Valid: no problems and no surviving mutant."""
        return not self.problems and self.survived == 0

    def _count(self, outcome: str) -> int:
        return sum(m.outcome == outcome for m in self.mutants)

    @property
    def caught(self) -> int:
        """Mutants the checks failed."""
        return self._count("caught")

    @property
    def survived(self) -> int:
        """Real mutants the checks passed."""
        return self._count("survived")

    @property
    def excluded(self) -> int:
        """Surviving mutants that only touch excluded columns."""
        return self._count("excluded")

    @property
    def check_strength(self) -> float | None:
        """Caught ÷ (caught + survived); None with no real mutant."""
        real = self.caught + self.survived
        return self.caught / real if real else None


def _outcome(task: Task, world: WorldView, judge: StateJudge) -> EpisodeOutcome:
    return EpisodeOutcome(
        initial=judge.initial_state(task),
        world=world,
        transcript=(),
        final_response="",
        termination=TerminationReason.AGENT_END,
    )


def _other_value(world: WorldView, table: str, column: str, current: Scalar) -> list[Scalar]:
    """Candidate replacement values: other values of the column, then type-based ones."""
    seen = world.column_values(table, column, 8)
    out: list[Scalar] = [v for v in seen if v != current]
    if isinstance(current, bool | int):
        out.append(current + 1)
    elif isinstance(current, float):
        out.append(round(current + 1.5, 2))
    elif isinstance(current, str):
        out.append(current + "-mutant")
    else:
        out.append("mutant")
    return out


def _set_field(
    world: WorldView, table: str, key: dict[str, Scalar], column: str, current: Scalar
) -> Scalar | None:
    """Change one field to the first candidate the schema accepts; returns it, or None."""
    for value in _other_value(world, table, column, current):
        if world.set_value(table, key, column, value):
            return value
    return None


async def _judge_mutant(
    task: Task,
    judge: StateJudge,
    world: WorldView,
    kind: str,
    description: str,
    columns: list[tuple[str, str]],
) -> MutantResult:
    """Judge one mutant world; ``columns`` are the (table, column) pairs it changed."""
    policy = judge.field_policy
    golden = judge.golden_states(task)[0]
    final = world.state(judge.initial_state(task))
    if final == golden:
        return MutantResult(kind=kind, description=description, outcome="equivalent")
    if not columns and final.project(policy) == golden.project(policy):
        # A dropped write that differs only in excluded columns: say which.
        columns = sorted({(e.table, c) for e in effects(golden, final) for c in e.changed})
    verdict = await judge.judge(task, _outcome(task, world, judge), state_only=True)
    if not verdict.passed:
        return MutantResult(kind=kind, description=description, outcome="caught")
    reasons = [policy.reason(t, c) for t, c in columns]
    if columns and all(reasons):
        return MutantResult(
            kind=kind,
            description=description,
            outcome="excluded",
            reason="; ".join(sorted({r for r in reasons if r})),
        )
    return MutantResult(kind=kind, description=description, outcome="survived")


def _written_fields(
    expected: list[RowEffect], pk: dict[str, tuple[str, ...]]
) -> list[tuple[str, dict[str, Scalar], str, Scalar]]:
    out = []
    for e in expected:
        if e.kind == "delete" or e.after is None:
            continue
        for col, value in sorted(e.after.items()):
            if col not in pk[e.table]:
                out.append((e.table, e.key, col, value))
    return out


def static_problems(domain: Domain | StateJudge, task: Task) -> list[str]:
    """Problems visible without running anything: wrong domain, unknown tools.

    Args:
        domain: The task's domain, or the judge of an external backend's tasks.
        task: The task.

    Returns:
        One message per problem (empty when none).
    """
    name = domain.name
    tools = set(domain.tools) if isinstance(domain, Domain) else domain.tool_names()
    problems = []
    if task.domain != name:
        problems.append(f"task domain {task.domain!r} is not {name!r}")
    unknown = sorted(({c.tool for c in task.golden} | set(task.tools or ())) - set(tools))
    if unknown:
        problems.append(f"tools not in domain {name}: {unknown}")
    return problems


async def task_problems(
    domain: Domain, task: Task, judge: Judge | None = None, *, lint: bool = True
) -> list[str]:
    """Every reason a task is invalid, short of mutation testing.

    Static problems, a failing golden replay, the identifier lint (with ``lint``), a
    golden state that contradicts ``read_only``, an oracle that fails its own checks, a
    do-nothing agent that passes. The runner calls this before a campaign starts.

    Returns:
        One message per problem (empty when none).
    """
    judge = judge or Judge(domain)
    extra: list[str] = []
    if lint and not static_problems(domain, task):
        try:
            judge.golden_states(task)
            extra = [str(p) for p in lint_identifiers(domain, task, judge)]
        except (GoldenReplayError, TaskSpecError):
            pass  # judged_task_problems reports it
    return extra + await judged_task_problems(judge, task)


async def judged_task_problems(judge: StateJudge, task: Task, *, oracle: bool = True) -> list[str]:
    """`task_problems` on any judge's worlds, without the identifier lint.

    Args:
        judge: The judge (its worlds, its golden states).
        task: The task.
        oracle: Replay the golden trajectory once more and judge it (the oracle check,
            which catches a backend whose replays differ); False skips it where a
            replay costs a server start and the campaign's own trials will show it.

    Returns:
        One message per problem (empty when none).
    """
    failed: StateboxError | None = None
    if task.domain == judge.name:
        try:  # an external backend learns its tools here, so static problems come after
            await judge.prepare(task)
        except (GoldenReplayError, TaskSpecError) as exc:
            failed = exc
    problems = static_problems(judge, task)
    if problems:
        return problems
    try:
        if failed is not None:
            raise failed
        golden = judge.golden_states(task)[0]
        initial = judge.initial_state(task)
    except (GoldenReplayError, TaskSpecError) as exc:
        return [str(exc)]
    policy = judge.field_policy
    changed = golden.project(policy) != initial.project(policy)
    if task.read_only and changed:
        problems.append("declared read_only but the golden trajectory changes the state")
    if not task.read_only and not changed:
        problems.append("golden state equals the initial state: declare read_only or fix golden")

    if oracle:
        world = await judge.replay_world(task, task.golden)
        try:
            verdict = await judge.judge(task, _outcome(task, world, judge), state_only=True)
            if not verdict.passed:
                checks = [f"{c.name}: {c.detail}" for c in verdict.checks if not c.passed]
                problems.append(f"the oracle fails its own checks: {checks}")
        finally:
            world.close()
    if not task.read_only:
        nothing = await judge.fresh_world(task)
        try:
            verdict = await judge.judge(task, _outcome(task, nothing, judge), state_only=True)
            if verdict.passed:
                problems.append("the do-nothing agent passes")
        finally:
            nothing.close()
    return problems


async def validate_task(domain: Domain, task: Task, judge: Judge | None = None) -> TaskValidation:
    """Validate one task (`task_problems`) and run its mutants.

    Args:
        domain: The task's domain.
        task: The task.
        judge: A judge to reuse (its golden cache); a fresh one otherwise.

    Returns:
        A `TaskValidation` listing every problem and mutant.
    """
    judge = judge or Judge(domain)
    problems = await task_problems(domain, task, judge)
    return await _mutants(judge, task, problems)


async def validate_judged_task(judge: StateJudge, task: Task) -> TaskValidation:
    """`validate_task` on any judge's worlds (an external backend's), without the lint.

    Returns:
        A `TaskValidation` listing every problem and mutant.
    """
    return await _mutants(judge, task, await judged_task_problems(judge, task))


async def _mutants(judge: StateJudge, task: Task, problems: list[str]) -> TaskValidation:
    try:
        if task.domain == judge.name:
            await judge.prepare(task)
    except (GoldenReplayError, TaskSpecError):
        return TaskValidation(task_id=task.id, problems=tuple(problems))
    if static_problems(judge, task):
        return TaskValidation(task_id=task.id, problems=tuple(problems))
    try:
        golden = judge.golden_states(task)[0]
        initial = judge.initial_state(task)
    except (GoldenReplayError, TaskSpecError):
        return TaskValidation(task_id=task.id, problems=tuple(problems))
    policy = judge.field_policy
    mutants: list[MutantResult] = []
    writes = [i for i, c in enumerate(task.golden) if judge.mutates(c.tool)]
    for i in writes:
        calls = [c for j, c in enumerate(task.golden) if j != i]
        world = await judge.replay_world(task, calls, strict=False)
        try:
            mutants.append(
                await _judge_mutant(
                    task,
                    judge,
                    world,
                    "drop_write",
                    f"drop golden call {i} ({task.golden[i].tool})",
                    [],
                )
            )
        finally:
            world.close()

    expected = effects(initial, golden)  # unprojected: mutate excluded columns too, and say so
    touched = {(e.table, tuple(sorted(e.key.items()))) for e in expected}
    for table, key, col, value in _written_fields(expected, golden.primary_keys):
        world = await judge.replay_world(task, task.golden)
        try:
            new = _set_field(world, table, key, col, value)
            if new is None:
                continue
            mutants.append(
                await _judge_mutant(
                    task,
                    judge,
                    world,
                    "wrong_value",
                    f"{table}{key}.{col}: {value!r} → {new!r}",
                    [(table, col)],
                )
            )
        finally:
            world.close()

    for table in sorted(golden.rows):
        rows = golden.rows[table]
        pk = golden.primary_keys[table]
        untouched = next(
            (
                k
                for k in sorted(rows, key=str)
                if (table, tuple(sorted(zip(pk, k, strict=True)))) not in touched
            ),
            None,
        )
        if untouched is None:
            continue
        row = rows[untouched]
        key = dict(zip(pk, untouched, strict=True))
        world = await judge.replay_world(task, task.golden)
        try:
            for col in sorted(row):
                if col in pk or policy.is_excluded(table, col):
                    continue
                new = _set_field(world, table, key, col, row[col])
                if new is None:
                    continue
                mutants.append(
                    await _judge_mutant(
                        task,
                        judge,
                        world,
                        "extra_write",
                        f"{table}{key}.{col}: {row[col]!r} → {new!r}",
                        [(table, col)],
                    )
                )
                break
        finally:
            world.close()
    return TaskValidation(task_id=task.id, problems=tuple(problems), mutants=tuple(mutants))
