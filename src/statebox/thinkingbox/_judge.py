"""Judge a ThinkingBox trial: run its check function, report a statebox `Verdict`.

The check function decides (it reads the server's own hashes); statebox adds what its
verdicts always carry: one ``rubric[i]`` check per yes/no question the function asked
(answered by statebox's strict `RubricJudge`, or recorded *skipped* with none — the
function is then told yes), the ``termination`` check, the effect comparison, the
weak-evaluator flags and the failure signature.

The comparison comes from the states the server reports (``initial_db_state``,
``golden_db_state``, ``result_db_state``: table → list of row objects), converted to
statebox `State`: a row's key is its ``id`` when every row of the table has a distinct
one, else the row's canonical JSON; nested values become canonical JSON strings. The
servers' hashes leave out fields they call unstable (timestamps, free text) that the
states still hold, so a server whose result hash equals its golden hash contributes no
discrepancy — under the server's own rules the two states are equal.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from statebox.episode import Event, TerminationReason
from statebox.errors import StateboxError
from statebox.judge import (
    CheckResult,
    Comparison,
    Discrepancy,
    RubricJudge,
    Verdict,
    WeakEvaluatorFlags,
    compare,
    failure_signature,
    termination_check,
    unrecovered_error,
    weak_evaluator_flags,
)
from statebox.tasks import Task
from statebox.thinkingbox._checks import CheckOutcome, YesNo, run_check
from statebox.thinkingbox._format import TbCase
from statebox.world import RowEffect, Scalar, State, canonical_value, effects

__all__ = ["TbJudge", "effects_states", "tool_calls_context"]


def _cell(value: Any) -> Scalar:
    if isinstance(value, dict | list):
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    try:
        return canonical_value(value)
    except TypeError:
        return str(value)


def _tables(value: Any) -> dict[str, list[dict[str, Any]]]:
    if not isinstance(value, Mapping):
        return {}
    return {str(t): [r for r in rows or [] if isinstance(r, dict)] for t, rows in value.items()}


def effects_states(effects_object: Mapping[str, Any], *, prefix: str = "") -> tuple[State, ...]:
    """Convert one server's effects object to statebox states.

    Args:
        effects_object: The server's ``__reserved__geteffects`` object; its
            ``initial_db_state``, ``golden_db_state`` and ``result_db_state`` (table →
            list of row objects) are read, a missing one as empty.
        prefix: Put before every table name (``"<server>/"`` when a case has several).

    Returns:
        ``(initial, golden, result)``. A table is keyed by ``id`` when, in all three,
        every row has a distinct, non-null scalar one; else by the row's canonical JSON
        (key column ``_row``). Nested values are canonical JSON strings.
    """
    raw = [
        _tables(effects_object.get(k))
        for k in ("initial_db_state", "golden_db_state", "result_db_state")
    ]
    by_id: dict[str, bool] = {}
    for tables in raw:
        for table, items in tables.items():
            ids = [r.get("id") for r in items]
            ok = all(isinstance(i, str | int) for i in ids) and len(set(ids)) == len(ids)
            by_id[table] = by_id.get(table, True) and ok
    states = []
    for tables in raw:
        rows: dict[str, dict[tuple[Scalar, ...], dict[str, Scalar]]] = {}
        for table, items in tables.items():
            out: dict[tuple[Scalar, ...], dict[str, Scalar]] = {}
            for r in items:
                row = {str(k): _cell(v) for k, v in r.items()}
                out[(row["id"],) if by_id[table] else (_cell(r),)] = row
            rows[prefix + table] = out
        keys = {prefix + t: ("id",) if by_id[t] else ("_row",) for t in tables}
        states.append(State(rows, keys))
    return tuple(states)


def tool_calls_context(transcript: Sequence[Event]) -> list[dict[str, Any]]:
    """The agent's tool calls as a check's ``x.tool_calls`` items (JSON-able).

    Returns:
        One ``{name, arguments, id, response}`` per tool call, in order; ``response`` is
        the output, or ``{"error": kind, "message": ...}`` for a failed call.
    """
    out = []
    for e in transcript:
        if e.kind != "tool_call" or e.call is None:
            continue
        response: Any = None
        if e.result is not None:
            response = e.result.output
            if not e.result.ok and e.result.error is not None:
                response = {"error": e.result.error.kind, "message": e.result.error.message}
        out.append(
            {"name": e.call.tool, "arguments": e.call.args, "id": e.call.id, "response": response}
        )
    return out


def _rubric_checks(outcome: CheckOutcome, reasons: Sequence[str]) -> list[CheckResult]:
    out = []
    for i, q in enumerate(outcome.rubrics):
        name = f"rubric[{i}]"
        if q.skipped:
            detail = f"{q.question}: no rubric judge configured (skipped; the check was told yes)"
            out.append(
                CheckResult(name=name, kind="rubric", passed=False, skipped=True, detail=detail)
            )
        elif q.answer is None:
            detail = f"{q.question}: {q.error}"
            out.append(
                CheckResult(name=name, kind="rubric", passed=False, error=True, detail=detail)
            )
        else:
            word = "yes" if q.answer else "no"
            reason = reasons[i] if i < len(reasons) else ""
            detail = f"{q.question} → {word}" + (f": {reason}" if reason else "")
            out.append(CheckResult(name=name, kind="rubric", passed=q.answer, detail=detail))
    return out


class TbJudge:
    """Judges trials of ThinkingBox cases.

    Args:
        rubric: Answers the checks' yes/no questions; None records them as skipped.
        timeout_s: Limit on one check function's run (judge calls not counted).
        python: Interpreter for the check subprocess (default: statebox's own).
    """

    def __init__(
        self, rubric: RubricJudge | None, *, timeout_s: float = 60.0, python: str | None = None
    ) -> None:
        self.rubric = rubric
        self.timeout_s = timeout_s
        self.python = python or sys.executable

    async def judge(
        self,
        task: Task,
        case: TbCase,
        effects_by_server: Mapping[str, Mapping[str, Any]],
        transcript: Sequence[Event],
        final_response: str,
        termination: TerminationReason,
    ) -> Verdict:
        """Run the case's check on a trial's end and build its verdict.

        Args:
            task: The case's task.
            case: The case.
            effects_by_server: server → its ``__reserved__geteffects`` object.
            transcript: The episode's events.
            final_response: The agent's final response.
            termination: Why the episode ended.

        Returns:
            The `Verdict`: checks ``thinkingbox:<function>`` (an error when the check
            raised something other than AssertionError or timed out), ``rubric[i]``,
            ``termination``.
        """
        conversation = "\n".join(f"{e.kind}: {e.text}" for e in transcript if e.text)
        reasons: list[str] = []
        yesno: YesNo | None = None
        if self.rubric is not None:
            rubric = self.rubric

            async def yesno(text: str, question: str) -> bool:
                try:
                    answer = await rubric.ask(question, text, conversation)
                except StateboxError:
                    reasons.append("")  # keeps reasons aligned with the questions asked
                    raise
                reasons.append(answer.reasoning)
                return answer.answer == "yes"

        context = {
            "effects": {k: dict(v) for k, v in effects_by_server.items()},
            "response": final_response,
            "tool_calls": tool_calls_context(transcript),
        }
        outcome = await run_check(
            case, context, yesno=yesno, timeout_s=self.timeout_s, python=self.python
        )
        servers = sorted(effects_by_server)
        hashes_match = bool(servers) and all(
            effects_by_server[s].get("result_db_hash") is not None
            and effects_by_server[s].get("result_db_hash")
            == effects_by_server[s].get("golden_db_hash")
            for s in servers
        )
        # The state is right by the server's hash: a failed check then failed on the reply.
        check = CheckResult(
            name=f"thinkingbox:{case.function}",
            kind="response" if hashes_match else "state",
            passed=outcome.status == "pass",
            error=outcome.status == "error",
            detail=outcome.message or "check passed",
        )
        checks = [
            check,
            termination_check(termination),
            *_rubric_checks(outcome, reasons),
        ]
        comparison, expected, actual, changed = self._effects(effects_by_server)
        weak = weak_evaluator_flags(transcript, final_response, termination)
        results = [e.result for e in transcript if e.result is not None]
        # MCP tools do not declare whether they mutate: a changed state says a call did.
        results = [r.model_copy(update={"mutating": changed and r.ok}) for r in results]
        return Verdict(
            checks=tuple(checks),
            comparison=comparison,
            expected_effects=tuple(expected),
            actual_effects=tuple(actual),
            # An unjudged rubric question fails closed and signs "unjudged" (the judge's
            # precedence), like statebox's own verdicts.
            signature=(signature := failure_signature(checks, expected, results, termination)),
            flags=WeakEvaluatorFlags(
                clean_termination=weak.clean_termination,
                called_mutating_tool=changed,
                last_tool_ok=weak.last_tool_ok,
            ),
            unrecovered_error=unrecovered_error(results) if signature is not None else None,
        )

    @staticmethod
    def _effects(
        by_server: Mapping[str, Mapping[str, Any]],
    ) -> tuple[Comparison, list[RowEffect], list[RowEffect], bool]:
        missing: list[Discrepancy] = []
        wrong: list[Discrepancy] = []
        extra: list[Discrepancy] = []
        expected: list[RowEffect] = []
        actual: list[RowEffect] = []
        changed = False
        prefixed = len(by_server) > 1
        for server in sorted(by_server):
            fx = by_server[server]
            prefix = f"{server}/" if prefixed else ""
            initial, golden, result = effects_states(fx, prefix=prefix)
            expected += effects(initial, golden)
            mine = effects(initial, result)
            actual += mine
            changed = changed or bool(mine)
            same = fx.get("result_db_hash") is not None and fx.get("result_db_hash") == fx.get(
                "golden_db_hash"
            )
            if not same:
                c = compare(initial, golden, result, None)
                missing += c.missing
                wrong += c.wrong
                extra += c.extra
        comparison = Comparison(missing=tuple(missing), wrong=tuple(wrong), extra=tuple(extra))
        return comparison, expected, actual, changed
