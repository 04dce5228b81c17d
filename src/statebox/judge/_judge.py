"""The judge: golden replay, state comparison, checks, verdict (docs/design.md §6).

Golden replay is strict: a golden call that fails raises `GoldenReplayError` — the
task is invalid, and no verdict is ever computed against a shorter trajectory. The
accepted end states (the golden trajectory's, each alternative trajectory's and each
declared end state) are built once per task and cached.

The checks run in order: state (order-free matching of inserted rows, the field policy
plus the task's ``dont_care``), invariants, text, then — unless judging state only —
termination, reply and rubric. A rubric question with no judge model is *unjudged*:
it fails closed, never a pass (`Verdict.passed`).

`StateJudge` is that whole pipeline over canonical states and a live terminal world
(`WorldView`), whoever holds them; `Judge` is it over a domain's SQLite worlds, and an
external backend over a database statebox owns supplies its own (`statebox.backends`),
so every check, comparison, mutant and probe applies to both.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

from statebox.domains import Domain
from statebox.episode import Backend, EpisodeOutcome, Event, TerminationReason
from statebox.errors import GoldenReplayError, JudgeError
from statebox.judge._checks import (
    StateMatch,
    invariant_checks,
    match_state,
    reply_checks,
    selected_rows,
    text_checks,
)
from statebox.judge._compare import Comparison
from statebox.judge._rubric import RubricJudge
from statebox.judge._verdict import (
    CheckResult,
    FailureSignature,
    StateHashes,
    Verdict,
    WeakEvaluatorFlags,
)
from statebox.llm import DONE_MARKER
from statebox.tasks import GoldenCall, RubricQuestion, Task, WorldCache
from statebox.tools import Dispatcher, ErrorClass, ToolCall, ToolResult
from statebox.world import (
    ExcludedField,
    FieldPolicy,
    RowEffect,
    State,
    World,
    WorldView,
    canonical_value,
    effects,
)

__all__ = [
    "Judge",
    "StateJudge",
    "agent_messages",
    "failure_signature",
    "termination_check",
    "unrecovered_error",
    "weak_evaluator_flags",
]

_STATE_KINDS = ("state", "invariant", "text")
"""Checks on what the trial left in the backend (the signatures of wrong state)."""


def _summary(c: Comparison) -> str:
    if c.matches:
        return "terminal state equals an accepted state"
    parts = [f"{len(c.missing)} missing", f"{len(c.wrong)} wrong", f"{len(c.extra)} extra"]
    first = (c.missing or c.wrong or c.extra)[0]
    where = f"{first.table}{first.key}" + (f".{first.column}" if first.column else "")
    return ", ".join(parts) + f" (first: {first.kind} {first.op} {where})"


def agent_messages(transcript: Sequence[Event]) -> list[str]:
    """Every message the agent sent the user, in order (its final response included)."""
    return [e.text for e in transcript if e.kind in ("agent_message", "end") and e.text]


def weak_evaluator_flags(
    transcript: Sequence[Event], final_response: str, termination: TerminationReason
) -> WeakEvaluatorFlags:
    """What a tool-call grader would have seen (docs/design.md §6.7).

    Clean termination reads the agent's last message, however the episode ended: it is
    non-empty, carries the end marker — it is the agent's end action, holds the marker
    text, or is the message the user closed the conversation on — and is not a
    question.
    """
    results = [e.result for e in transcript if e.result is not None]
    said = [e for e in transcript if e.kind in ("agent_message", "end")]
    closed = termination in (TerminationReason.AGENT_END, TerminationReason.USER_END)
    if said:
        last = said[-1]
        text = (last.text or "").strip()
        marked = (
            last.kind == "end"
            or DONE_MARKER in text
            or (termination == TerminationReason.USER_END and transcript[-1] is not last)
        )
    else:  # a transcript without message events (an outside driver): its final response
        text, marked = final_response.strip(), closed
    text = text.replace(DONE_MARKER, "").strip()
    return WeakEvaluatorFlags(
        clean_termination=marked and bool(text) and not text.endswith("?"),
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


def unrecovered_error(tool_results: Sequence[ToolResult]) -> ErrorClass | None:
    """The class of the last failed call that no later call of the same tool made good.

    The failure analysis groups tool-usage failures by it: which class of error the
    agent failed to recover from (docs/mitigations.md).
    """
    for i in range(len(tool_results) - 1, -1, -1):
        r = tool_results[i]
        if r.ok or r.error is None:
            continue
        if not any(later.ok and later.tool == r.tool for later in tool_results[i + 1 :]):
            return r.error.classified()
    return None


def failure_signature(
    checks: Sequence[CheckResult],
    expected_effects: Sequence[RowEffect],
    tool_results: Sequence[ToolResult],
    termination: TerminationReason,
) -> FailureSignature | None:
    """The failure signature by precedence (docs/design.md §6.6), or None for a pass.

    ``tool_usage`` needs a tool error left unrecovered (`unrecovered_error`); a wrong
    state whose every refusal was made good is ``wrong_state_update``. Unjudged checks
    sign ``unjudged`` only when every judged check passed.
    """
    judged = [c for c in checks if not c.skipped]
    if all(c.passed for c in judged):
        return FailureSignature.UNJUDGED if len(judged) < len(checks) else None
    if termination == TerminationReason.SYSTEM_ERROR or any(c.error for c in judged):
        return FailureSignature.SYSTEM_ERROR
    if termination == TerminationReason.AGENT_ERROR:
        return FailureSignature.AGENT_ERROR
    if any(not c.passed for c in judged if c.kind in _STATE_KINDS):
        if expected_effects and not any(r.ok and r.mutating for r in tool_results):
            return FailureSignature.NO_STATE_CHANGE
        # A refusal made good by a later call of the same tool is no tool failure (2.0
        # builds one into most tasks); the same rule as the verdict's unrecovered_error.
        if unrecovered_error(tool_results) is not None:
            return FailureSignature.TOOL_USAGE
        return FailureSignature.WRONG_STATE_UPDATE
    return FailureSignature.INCOMPLETE_RESOLUTION


def _upserted(state: State, patch: Mapping[str, Sequence[Mapping[str, Any]]]) -> State:
    """``state`` with rows upserted by primary key (an ``end_states`` entry)."""
    rows = dict(state.rows)
    for table, new_rows in patch.items():
        if table not in state.primary_keys:
            raise ValueError(f"end_states: unknown table {table!r}")
        pk = state.primary_keys[table]
        out = dict(rows.get(table, {}))
        for row in new_rows:
            if any(c not in row for c in pk):
                raise ValueError(f"end_states: a {table} row lacks its key {list(pk)}")
            values = {c: canonical_value(v) for c, v in row.items()}
            key = tuple(values[c] for c in pk)
            out[key] = {**out.get(key, {}), **values}
        rows[table] = out
    return State(rows, state.primary_keys, state.base)


class _Prepared:
    """What the judge keeps per task: its accepted states, policy and golden effects."""

    __slots__ = ("accepted", "expected", "golden_hash", "initial_hash", "policy", "task")

    def __init__(self, task: Task, accepted: tuple[State, ...], policy: FieldPolicy) -> None:
        self.task = task
        self.accepted = accepted
        self.policy = policy
        self.expected: tuple[RowEffect, ...] | None = None
        self.initial_hash: str | None = None
        self.golden_hash: str | None = None


class StateJudge:
    """The check pipeline: judges an ended episode by its canonical states and live world.

    Subclasses say where states and worlds come from: the task's initial state, the
    states its golden and alternative trajectories end in, fresh and replayed worlds
    (for validation, mutants and probes) and the episodes validation plays.

    Args:
        rubric: Judge model for rubric questions.
        skip_rubric: With no ``rubric`` judge, record rubric questions *unjudged* (a
            fail-closed verdict, signature ``unjudged``) instead of check errors
            (system_error). Ignored when ``rubric`` is given.
    """

    name: str
    """The domain name of the tasks this judge judges."""

    def __init__(self, rubric: RubricJudge | None = None, *, skip_rubric: bool = False) -> None:
        self.rubric = rubric
        self.skip_rubric = skip_rubric
        self._prepared: dict[str, _Prepared] = {}

    # -- where states and worlds come from (each backend's own) -----------------------

    @property
    def field_policy(self) -> FieldPolicy:
        """Columns left out of state comparison (the domain's; tasks may add ``dont_care``)."""
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

    def replayed_states(self, task: Task) -> tuple[State, ...]:
        """The golden trajectory's end state, then each alternative trajectory's.

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

    def episode_backend(self) -> Domain | Backend:
        """What validation's episodes (oracle, baselines) run on: a domain or a backend."""
        raise NotImplementedError

    def episode_worlds(self) -> WorldCache | None:
        """The template cache those episodes share (None: the backend owns its worlds)."""
        return None

    @asynccontextmanager
    async def scratch_world(self, task: Task, golden: WorldView) -> AsyncIterator[WorldView]:
        """A world in the golden end state to change for one mutant; undone afterwards.

        ``golden`` is a live golden world the caller keeps open. By default a fresh
        golden replay, dropped after the block; `Judge` edits ``golden`` itself inside a
        SQLite savepoint that it rolls back (cheaper than a copy per mutant).
        """
        world = await self.replay_world(task, task.golden)
        try:
            yield world
        finally:
            world.close()

    # -- the pipeline -------------------------------------------------------------------

    def _prepare(self, task: Task) -> _Prepared:
        cached = self._prepared.get(task.id)
        # Keyed by id but checked against the task itself: an edited task is replayed anew.
        if cached is not None and (cached.task is task or cached.task == task):
            return cached
        out = list(self.replayed_states(task))
        for patch in task.checks.end_states:
            try:
                out.append(_upserted(out[0], patch))
            except ValueError as exc:
                raise GoldenReplayError(task.id, 0, "end_states", str(exc)) from exc
        prepared = _Prepared(task, tuple(out), self.policy(task))
        self._prepared[task.id] = prepared
        return prepared

    def policy(self, task: Task) -> FieldPolicy:
        """The columns left out of ``task``'s state comparison.

        The judge's field policy plus the task's ``dont_care`` (the judge's own object
        when the task declares none, so projections stay cached).
        """
        base = self.field_policy
        if not task.checks.dont_care:
            return base
        extra = tuple(
            ExcludedField(table=d.table, column=d.column, reason=f"dont_care: {d.reason}")
            for d in task.checks.dont_care
        )
        return FieldPolicy(excluded=base.excluded + extra)

    def golden_states(self, task: Task) -> tuple[State, ...]:
        """The accepted end states: the golden one, each alternative's, each declared one.

        Cached per task.

        Raises:
            GoldenReplayError: A golden or alternative call failed, or an end state is
                malformed.
        """
        return self._prepare(task).accepted

    def match(self, task: Task, final: State) -> StateMatch:
        """The closest accepted state to ``final`` (order-free unless ``checks.ordered``)."""
        p = self._prepare(task)
        return match_state(
            self.initial_state(task),
            p.accepted,
            final,
            p.policy,
            guard=self.field_policy,
            ordered=task.checks.ordered,
        )

    def deterministic_checks(
        self, task: Task, world: WorldView, final: State
    ) -> tuple[list[CheckResult], StateMatch]:
        """State, invariant and text checks of a terminal world (no conversation)."""
        initial = self.initial_state(task)
        m = self.match(task, final)
        checks: list[CheckResult] = []
        if task.checks.state == "golden":
            checks.append(
                CheckResult(
                    name="state",
                    kind="state",
                    passed=m.comparison.matches,
                    detail=_summary(m.comparison),
                )
            )
        checks += invariant_checks(task.checks.invariants, world.query)
        checks += text_checks(task.checks.text, initial, m.final, m.ids)
        return checks, m

    async def _rubric(
        self,
        task: Task,
        outcome: EpisodeOutcome,
        initial: State,
        final: State,
        rubric: RubricJudge | None,
    ) -> list[CheckResult]:
        out = []
        conversation = "\n".join(f"{e.kind}: {e.text}" for e in outcome.transcript if e.text)
        for i, item in enumerate(task.checks.rubric):
            name = f"rubric[{i}]"
            q = item.question if isinstance(item, RubricQuestion) else item
            context = conversation
            if isinstance(item, RubricQuestion):
                sel = item.row
                rows = selected_rows(sel, initial, final)
                shown = "\n".join(f"{sel.table}{key}.{sel.column}: {text}" for key, text in rows)
                context += (
                    f"\n\nText the agent wrote into the records ({sel.table}.{sel.column}):\n"
                    + (shown or "(no such row was written)")
                )
            if rubric is None:
                out.append(
                    CheckResult(
                        name=name,
                        kind="rubric",
                        passed=False,
                        error=not self.skip_rubric,
                        skipped=self.skip_rubric,
                        detail=f"{q}: no rubric judge configured"
                        + (" (unjudged: not a pass)" if self.skip_rubric else ""),
                    )
                )
                continue
            try:
                ans = await rubric.ask(q, outcome.final_response, context)
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

    def _expected(self, task: Task) -> tuple[RowEffect, ...]:
        p = self._prepare(task)
        if p.expected is None:
            p.expected = tuple(effects(self.initial_state(task), p.accepted[0], p.policy))
        return p.expected

    def _hashes(self, task: Task, final: State) -> StateHashes:
        p = self._prepare(task)
        if p.initial_hash is None:
            p.initial_hash = self.initial_state(task).hash()
            p.golden_hash = p.accepted[0].hash()
        return StateHashes(initial=p.initial_hash, final=final.hash(), golden=p.golden_hash)

    async def judge(
        self,
        task: Task,
        outcome: EpisodeOutcome,
        *,
        state_only: bool = False,
        rubric: RubricJudge | None = None,
    ) -> Verdict:
        """Judge an ended episode.

        Args:
            task: The task.
            outcome: The episode's outcome (its world is read, not closed).
            state_only: Only the checks on the terminal state (state, invariants, text):
                for mutants and probes, which have no conversation. Their verdicts carry
                no state hashes.
            rubric: Answers the rubric questions instead of the judge's own model (the
                validator's yes-judge).

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
        final = world.state(initial)
        checks, m = self.deterministic_checks(task, world, final)
        if not state_only:
            checks.append(termination_check(outcome.termination))
            checks += reply_checks(task.checks.reply, agent_messages(outcome.transcript))
            checks += await self._rubric(task, outcome, initial, m.final, rubric or self.rubric)
        expected = self._expected(task)
        results = [e.result for e in outcome.transcript if e.result is not None]
        signature = failure_signature(checks, expected, results, outcome.termination)
        return Verdict(
            checks=tuple(checks),
            comparison=m.comparison,
            expected_effects=expected,
            actual_effects=tuple(effects(initial, final, self._prepare(task).policy)),
            signature=signature,
            flags=weak_evaluator_flags(
                outcome.transcript, outcome.final_response, outcome.termination
            ),
            hashes=StateHashes() if state_only else self._hashes(task, final),
            # Only a failure has an error it did not recover from (a passed trial's
            # stray refusal changed nothing).
            unrecovered_error=unrecovered_error(results) if signature is not None else None,
        )


class Judge(StateJudge):
    """Judges trials of one domain's tasks.

    Args:
        domain: The domain.
        worlds: Template cache (share the campaign's).
        rubric: Judge model for rubric questions.
        skip_rubric: With no ``rubric`` judge, record rubric questions *unjudged* (a
            fail-closed verdict, signature ``unjudged``) instead of check errors
            (system_error). Ignored when ``rubric`` is given.
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

    def replay(self, task: Task, calls: Iterable[GoldenCall], *, strict: bool = True) -> World:
        """Replay calls on a fresh world of ``task`` and return the live world.

        Every tool of the domain may be called (the step tools too, whatever the task
        offers an agent).

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
            if not strict:
                continue
            kind = result.error.kind if result.error else None
            if call.fails is not None and kind != call.fails:
                world.close()
                got = f"refused with {kind}" if kind else "succeeded"
                raise GoldenReplayError(
                    task.id, step, call.tool, f"expected to be refused with {call.fails}; {got}"
                )
            if call.fails is None and not result.ok:
                world.close()
                reason = result.error.message if result.error else "failed"
                raise GoldenReplayError(task.id, step, call.tool, f"{kind or 'error'}: {reason}")
        return world

    def replayed_states(self, task: Task) -> tuple[State, ...]:
        """The end states of the golden and each alternative trajectory, replayed."""
        initial = self.worlds.initial_state(self.domain, task)
        out = []
        for trajectory in (task.golden, *task.checks.alternatives):
            world = self.replay(task, trajectory)
            try:
                out.append(world.state(initial))
            finally:
                world.close()
        return tuple(out)

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

    def episode_backend(self) -> Domain:
        """The domain."""
        return self.domain

    def episode_worlds(self) -> WorldCache:
        """The judge's template cache."""
        return self.worlds

    @asynccontextmanager
    async def scratch_world(self, task: Task, golden: WorldView) -> AsyncIterator[WorldView]:
        """``golden`` itself inside a savepoint rolled back after the block."""
        if not isinstance(golden, World):  # not one of ours: a copy, as any backend
            async with super().scratch_world(task, golden) as world:
                yield world
            return
        conn = golden.conn
        conn.execute("SAVEPOINT scratch")
        try:
            yield golden
        finally:
            conn.execute("ROLLBACK TO scratch")
            conn.execute("RELEASE scratch")
