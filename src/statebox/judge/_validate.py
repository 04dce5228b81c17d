"""Task validation and mutation testing (DESIGN.md §4).

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
"""

from __future__ import annotations

import sqlite3
from typing import Literal

from statebox._model import Model
from statebox.domains import Domain
from statebox.episode import EpisodeOutcome, TerminationReason
from statebox.errors import GoldenReplayError, TaskSpecError
from statebox.judge._judge import Judge
from statebox.judge._lint import lint_solvability
from statebox.tasks import Task
from statebox.world import RowEffect, Scalar, World, effects

__all__ = ["MutantResult", "TaskValidation", "static_problems", "task_problems", "validate_task"]


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


def _outcome(task: Task, world: World, judge: Judge) -> EpisodeOutcome:
    return EpisodeOutcome(
        initial=judge.worlds.initial_state(judge.domain, task),
        world=world,
        transcript=(),
        final_response="",
        termination=TerminationReason.AGENT_END,
    )


def _other_value(world: World, table: str, column: str, current: Scalar) -> list[Scalar]:
    """Candidate replacement values: other values of the column, then type-based ones."""
    rows = world.query(
        f'SELECT DISTINCT "{column}" FROM "{table}" WHERE "{column}" IS NOT NULL '
        f'ORDER BY "{column}" LIMIT 8'
    )
    seen = [next(iter(r.values())) for r in rows]
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
    world: World, table: str, key: dict[str, Scalar], column: str, current: Scalar
) -> Scalar | None:
    """Change one field to the first candidate the schema accepts; returns it, or None."""
    where = " AND ".join(f'"{c}" = ?' for c in key)
    for value in _other_value(world, table, column, current):
        try:
            world.conn.execute("SAVEPOINT mutant")
            world.conn.execute(
                f'UPDATE "{table}" SET "{column}" = ? WHERE {where}', [value, *key.values()]
            )
            world.conn.execute("RELEASE mutant")
            return value
        except sqlite3.Error:
            world.conn.execute("ROLLBACK TO mutant")
            world.conn.execute("RELEASE mutant")
    return None


async def _judge_mutant(
    task: Task,
    judge: Judge,
    world: World,
    kind: str,
    description: str,
    columns: list[tuple[str, str]],
) -> MutantResult:
    """Judge one mutant world; ``columns`` are the (table, column) pairs it changed."""
    policy = judge.domain.field_policy
    golden = judge.golden_states(task)[0]
    final = world.state(judge.worlds.initial_state(judge.domain, task))
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


def static_problems(domain: Domain, task: Task) -> list[str]:
    """Problems visible without running anything: wrong domain, unknown tools.

    Returns:
        One message per problem (empty when none).
    """
    problems = []
    if task.domain != domain.name:
        problems.append(f"task domain {task.domain!r} is not {domain.name!r}")
    unknown = sorted(({c.tool for c in task.golden} | set(task.tools or ())) - set(domain.tools))
    if unknown:
        problems.append(f"tools not in domain {domain.name}: {unknown}")
    return problems


async def task_problems(
    domain: Domain, task: Task, judge: Judge | None = None, *, lint: bool = True
) -> list[str]:
    """Every reason a task is invalid, short of mutation testing.

    Static problems, a failing golden replay, the solvability lint (with ``lint``), a
    golden state that contradicts ``read_only``, an oracle that fails its own checks, a
    do-nothing agent that passes. The runner calls this before a campaign starts.

    Returns:
        One message per problem (empty when none).
    """
    judge = judge or Judge(domain)
    problems = static_problems(domain, task)
    if problems:
        return problems
    try:
        golden = judge.golden_states(task)[0]
        initial = judge.worlds.initial_state(domain, task)
    except (GoldenReplayError, TaskSpecError) as exc:
        return [str(exc)]
    if lint:
        problems.extend(str(p) for p in lint_solvability(domain, task, judge))
    policy = domain.field_policy
    changed = golden.project(policy) != initial.project(policy)
    if task.read_only and changed:
        problems.append("declared read_only but the golden trajectory changes the state")
    if not task.read_only and not changed:
        problems.append("golden state equals the initial state: declare read_only or fix golden")

    oracle = judge.replay(task, task.golden)
    try:
        verdict = await judge.judge(task, _outcome(task, oracle, judge), state_only=True)
        if not verdict.passed:
            failed = [f"{c.name}: {c.detail}" for c in verdict.checks if not c.passed]
            problems.append(f"the oracle fails its own checks: {failed}")
    finally:
        oracle.close()
    if not task.read_only:
        nothing = judge.worlds.clone(domain, task)
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
    if static_problems(domain, task):
        return TaskValidation(task_id=task.id, problems=tuple(problems))
    try:
        golden = judge.golden_states(task)[0]
        initial = judge.worlds.initial_state(domain, task)
    except (GoldenReplayError, TaskSpecError):
        return TaskValidation(task_id=task.id, problems=tuple(problems))
    policy = domain.field_policy
    mutants: list[MutantResult] = []
    writes = [i for i, c in enumerate(task.golden) if domain.tools[c.tool].mutates]
    for i in writes:
        calls = [c for j, c in enumerate(task.golden) if j != i]
        world = judge.replay(task, calls, strict=False)
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
        world = judge.replay(task, task.golden)
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
        world = judge.replay(task, task.golden)
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
