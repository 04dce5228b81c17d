"""The judge: golden replay, state comparison, checks, verdict (docs/design.md §6).

Golden replay is strict: a golden call that fails raises `GoldenReplayError` — the
task is invalid, and no verdict is ever computed against a shorter trajectory. Golden
states (the main trajectory and each accepted alternative) are cached per task.

`StateJudge` is the check pipeline over canonical states and a live terminal world,
whoever holds them; `Judge` is it over a domain's SQLite worlds, and an external
backend over a database statebox owns supplies its own (`statebox.backends`), so every
check, comparison and mutant applies to both.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence

from statebox.domains import Domain
from statebox.episode import EpisodeOutcome, Event, TerminationReason
from statebox.errors import GoldenReplayError, JudgeError
from statebox.judge._compare import Comparison, compare
from statebox.judge._rubric import RubricJudge
from statebox.judge._verdict import CheckResult, FailureSignature, Verdict, WeakEvaluatorFlags
from statebox.tasks import GoldenCall, Task, WorldCache
from statebox.tools import Dispatcher, ToolCall, ToolResult
from statebox.world import (
    FieldPolicy,
    RowEffect,
    State,
    World,
    WorldQueryError,
    WorldView,
    canonical_value,
    effects,
)

__all__ = [
    "Judge",
    "StateJudge",
    "failure_signature",
    "termination_check",
    "weak_evaluator_flags",
]


def _summary(c: Comparison) -> str:
    if c.matches:
        return "terminal state equals the golden state"
    parts = [f"{len(c.missing)} missing", f"{len(c.wrong)} wrong", f"{len(c.extra)} extra"]
    first = (c.missing or c.wrong or c.extra)[0]
    where = f"{first.table}{first.key}" + (f".{first.column}" if first.column else "")
    return ", ".join(parts) + f" (first: {first.kind} {first.op} {where})"


def weak_evaluator_flags(
    transcript: Sequence[Event], final_response: str, termination: TerminationReason
) -> WeakEvaluatorFlags:
    """What a tool-call grader would have seen (docs/design.md §6.7)."""
    results = [e.result for e in transcript if e.result is not None]
    text = final_response.strip()
    return WeakEvaluatorFlags(
        clean_termination=termination == TerminationReason.AGENT_END
        and bool(text)
        and not text.endswith("?"),
        called_mutating_tool=any(r.ok and r.mutating for r in results),
        last_tool_ok=not results or results[-1].ok,
    )


def termination_check(termination: TerminationReason) -> CheckResult:
    """The ``termination`` check every judged trial carries.

    A conversation cut off by a limit, a timeout or a system error is not a
    resolution, whatever the state.
    """
    return CheckResult(
        name="termination",
        kind="termination",
        passed=termination in (TerminationReason.AGENT_END, TerminationReason.USER_END),
        detail=f"episode ended by {termination.value}",
    )


def failure_signature(
    checks: Sequence[CheckResult],
    expected_effects: Sequence[RowEffect],
    tool_results: Sequence[ToolResult],
    termination: TerminationReason,
) -> FailureSignature | None:
    """The failure signature by precedence (docs/design.md §6.6), or None for a pass.

    Skipped checks (a rubric with no judge model) do not gate, so they sign nothing.
    """
    checks = [c for c in checks if not c.skipped]
    if all(c.passed for c in checks):
        return None
    if termination == TerminationReason.SYSTEM_ERROR or any(c.error for c in checks):
        return FailureSignature.SYSTEM_ERROR
    if termination == TerminationReason.AGENT_ERROR:
        return FailureSignature.AGENT_ERROR
    if any(not c.passed for c in checks if c.kind in ("state", "invariant")):
        if expected_effects and not any(r.ok and r.mutating for r in tool_results):
            return FailureSignature.NO_STATE_CHANGE
        if any(not r.ok for r in tool_results):
            return FailureSignature.TOOL_USAGE
        return FailureSignature.WRONG_STATE_UPDATE
    return FailureSignature.INCOMPLETE_RESOLUTION


class StateJudge:
    """The check pipeline: judges an ended episode by its canonical states and live world.

    Subclasses say where states and worlds come from: the task's initial state, the
    golden states, fresh and replayed worlds (for validation and mutants).

    Args:
        rubric: Judge model for rubric questions.
        skip_rubric: With no ``rubric`` judge, mark rubric checks skipped (reported, not
            gating) instead of errors (system_error). Ignored when ``rubric`` is given.
    """

    name: str
    """The domain name of the tasks this judge judges."""

    def __init__(self, rubric: RubricJudge | None = None, *, skip_rubric: bool = False) -> None:
        self.rubric = rubric
        self.skip_rubric = skip_rubric

    @property
    def field_policy(self) -> FieldPolicy:
        """Columns left out of state comparison."""
        raise NotImplementedError

    def tool_names(self) -> frozenset[str]:
        """Every tool the tasks may name."""
        raise NotImplementedError

    def mutates(self, tool: str) -> bool:
        """Whether ``tool`` is declared mutating."""
        raise NotImplementedError

    async def prepare(self, task: Task) -> None:
        """Make `golden_states` and `initial_state` of ``task`` ready (a no-op by default).

        Raises:
            GoldenReplayError: A golden or alternative call failed.
            TaskSpecError: The task's initial state cannot be built.
        """

    def initial_state(self, task: Task) -> State:
        """The task's initial canonical state."""
        raise NotImplementedError

    def golden_states(self, task: Task) -> tuple[State, ...]:
        """The golden state, then one per accepted alternative.

        Raises:
            GoldenReplayError: A golden or alternative call failed.
        """
        raise NotImplementedError

    async def fresh_world(self, task: Task) -> WorldView:
        """A fresh world of ``task`` in its initial state (the do-nothing agent's)."""
        raise NotImplementedError

    async def replay_world(
        self, task: Task, calls: Sequence[GoldenCall], *, strict: bool = True
    ) -> WorldView:
        """A fresh world of ``task`` after ``calls`` (see `Judge.replay`).

        Raises:
            GoldenReplayError: ``strict`` and a call failed.
        """
        raise NotImplementedError

    def _invariants(self, task: Task, world: WorldView) -> list[CheckResult]:
        out = []
        for i, inv in enumerate(task.checks.invariants):
            name, label = f"invariant[{i}]", inv.description or inv.sql
            try:
                rows = world.query(inv.sql)
            except (sqlite3.Error, WorldQueryError) as exc:  # a check error, never a pass
                out.append(
                    CheckResult(
                        name=name,
                        kind="invariant",
                        passed=False,
                        error=True,
                        detail=f"{label}: query failed: {exc}",
                    )
                )
                continue
            if len(rows) != 1 or len(rows[0]) != 1:
                out.append(
                    CheckResult(
                        name=name,
                        kind="invariant",
                        passed=False,
                        detail=f"{label}: expected one row of one column, got {rows[:3]}",
                    )
                )
                continue
            value = next(iter(rows[0].values()))
            ok = value == canonical_value(inv.equals)
            out.append(
                CheckResult(
                    name=name,
                    kind="invariant",
                    passed=ok,
                    detail=f"{label}: {value!r}" + ("" if ok else f" != {inv.equals!r}"),
                )
            )
        return out

    async def _response(self, task: Task, outcome: EpisodeOutcome) -> list[CheckResult]:
        spec = task.checks.response
        if spec is None:
            return []
        text = outcome.final_response.lower()
        out = []
        for i, s in enumerate(spec.contains):
            out.append(
                CheckResult(
                    name=f"response.contains[{i}]",
                    kind="response",
                    passed=s.lower() in text,
                    detail=f"contains {s!r}",
                )
            )
        for i, s in enumerate(spec.not_contains):
            out.append(
                CheckResult(
                    name=f"response.not_contains[{i}]",
                    kind="response",
                    passed=s.lower() not in text,
                    detail=f"does not contain {s!r}",
                )
            )
        conversation = "\n".join(f"{e.kind}: {e.text}" for e in outcome.transcript if e.text)
        for i, q in enumerate(spec.rubric):
            name = f"rubric[{i}]"
            if self.rubric is None:
                out.append(
                    CheckResult(
                        name=name,
                        kind="rubric",
                        passed=False,
                        error=not self.skip_rubric,
                        skipped=self.skip_rubric,
                        detail=f"{q}: no rubric judge configured"
                        + (" (skipped)" if self.skip_rubric else ""),
                    )
                )
                continue
            try:
                ans = await self.rubric.ask(q, outcome.final_response, conversation)
            except JudgeError as exc:
                out.append(
                    CheckResult(
                        name=name, kind="rubric", passed=False, error=True, detail=f"{q}: {exc}"
                    )
                )
                continue
            out.append(
                CheckResult(
                    name=name,
                    kind="rubric",
                    passed=ans.answer == "yes",
                    detail=f"{q} → {ans.answer}: {ans.reasoning}",
                )
            )
        return out

    async def judge(
        self, task: Task, outcome: EpisodeOutcome, *, state_only: bool = False
    ) -> Verdict:
        """Judge an ended episode.

        Args:
            task: The task.
            outcome: The episode's outcome (its world is read, not closed).
            state_only: Skip response and rubric checks (mutants and the do-nothing
                agent, which have no conversation).

        Returns:
            The `Verdict`.

        Raises:
            GoldenReplayError: The task's golden trajectory fails (the task is invalid).
        """
        if outcome.world is None or outcome.initial is None:
            raise JudgeError(
                f"task {task.id}: the episode ran on a backend that keeps its own state"
            )
        world, initial = outcome.world, outcome.initial
        policy = self.field_policy
        accepted = self.golden_states(task)
        final = world.state(initial)
        comparisons = [compare(initial, g, final, policy) for g in accepted]
        best = min(comparisons, key=lambda c: c.size)
        checks: list[CheckResult] = []
        if task.checks.state == "golden":
            checks.append(
                CheckResult(name="state", kind="state", passed=best.matches, detail=_summary(best))
            )
        checks += self._invariants(task, world)
        if not state_only:
            checks.append(termination_check(outcome.termination))
            checks += await self._response(task, outcome)
        expected = effects(initial, accepted[0], policy)
        results = [e.result for e in outcome.transcript if e.result is not None]
        return Verdict(
            checks=tuple(checks),
            comparison=best,
            expected_effects=tuple(expected),
            actual_effects=tuple(effects(initial, final, policy)),
            signature=failure_signature(checks, expected, results, outcome.termination),
            flags=weak_evaluator_flags(
                outcome.transcript, outcome.final_response, outcome.termination
            ),
        )


class Judge(StateJudge):
    """Judges trials of one domain's tasks.

    Args:
        domain: The domain.
        worlds: Template cache (share the campaign's).
        rubric: Judge model for rubric questions.
        skip_rubric: With no ``rubric`` judge, mark rubric checks skipped (reported, not
            gating) instead of errors (system_error). Ignored when ``rubric`` is given.
    """

    def __init__(
        self,
        domain: Domain,
        worlds: WorldCache | None = None,
        rubric: RubricJudge | None = None,
        *,
        skip_rubric: bool = False,
    ) -> None:
        super().__init__(rubric, skip_rubric=skip_rubric)
        self.domain = domain
        self.name = domain.name
        self.worlds = worlds or WorldCache()
        self._golden: dict[str, tuple[Task, tuple[State, ...]]] = {}

    def replay(self, task: Task, calls: Iterable[GoldenCall], *, strict: bool = True) -> World:
        """Replay calls on a fresh world of ``task`` and return the live world.

        Args:
            task: The task.
            calls: The trajectory.
            strict: Raise on the first failed call (golden replay); when False, failed
                calls are skipped (mutant replay).

        Raises:
            GoldenReplayError: ``strict`` and a call failed (the world is closed).
        """
        world = self.worlds.clone(self.domain, task)
        dispatcher = Dispatcher(world, self.domain.tools, None)
        for step, call in enumerate(calls):
            result = dispatcher.call(ToolCall(tool=call.tool, args=call.args))
            if strict and not result.ok:
                world.close()
                reason = result.error.message if result.error else "failed"
                kind = result.error.kind if result.error else "error"
                raise GoldenReplayError(task.id, step, call.tool, f"{kind}: {reason}")
        return world

    def golden_states(self, task: Task) -> tuple[State, ...]:
        """The golden state, then one per accepted alternative (cached per task).

        Raises:
            GoldenReplayError: A golden or alternative call failed.
        """
        cached = self._golden.get(task.id)
        # Keyed by id but checked against the task itself: an edited task is replayed anew.
        states = cached[1] if cached and (cached[0] is task or cached[0] == task) else None
        if states is None:
            out = []
            initial = self.worlds.initial_state(self.domain, task)
            for trajectory in (task.golden, *task.checks.alternatives):
                world = self.replay(task, trajectory)
                try:
                    out.append(world.state(initial))
                finally:
                    world.close()
            states = tuple(out)
            self._golden[task.id] = (task, states)
        return states

    @property
    def field_policy(self) -> FieldPolicy:
        """The domain's field policy."""
        return self.domain.field_policy

    def tool_names(self) -> frozenset[str]:
        """The domain's tools."""
        return frozenset(self.domain.tools)

    def mutates(self, tool: str) -> bool:
        """Whether the domain declares ``tool`` mutating (False for an unknown one)."""
        spec = self.domain.tools.get(tool)
        return spec is not None and spec.mutates

    def initial_state(self, task: Task) -> State:
        """The task's initial state (from the shared template cache)."""
        return self.worlds.initial_state(self.domain, task)

    async def fresh_world(self, task: Task) -> World:
        """A fresh clone of the task's world."""
        return self.worlds.clone(self.domain, task)

    async def replay_world(
        self, task: Task, calls: Sequence[GoldenCall], *, strict: bool = True
    ) -> World:
        """`replay`, for callers that judge any backend."""
        return self.replay(task, calls, strict=strict)
