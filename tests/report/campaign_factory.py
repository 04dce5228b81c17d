"""Synthetic campaigns whose per-task pass counts are known, written as real results files.

Each trial is a full, validated `TrialRecord` (verdict with checks, golden and actual
effects, a comparison, flags, a short transcript), so readers, summaries and the HTML
report see exactly what a real campaign writes. Failed trials cycle through three
shapes: a skipped write (missing effect, no mutating call), a wrong value after a
clean end (a tool-call grader would say done), and a wrong value whose last tool call
failed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path

from statebox.dialogue import GroundingAudit, UngroundedValue
from statebox.episode import Event, TerminationReason
from statebox.judge import CheckResult, Comparison, Discrepancy, FailureSignature, Verdict
from statebox.judge import WeakEvaluatorFlags as Flags
from statebox.records import (
    ResultsWriter,
    Timings,
    TrialRecord,
    TrialStatus,
    UserInfo,
    trial_id,
)
from statebox.tools import ToolCall, ToolFailure, ToolResult
from statebox.world import RowEffect

T0 = datetime(2025, 10, 1, 13, 0, tzinfo=UTC)

GOLDEN = (
    RowEffect(
        table="accounts",
        key={"id": "A1"},
        kind="update",
        before={"balance": 100},
        after={"balance": 60},
    ),
)


def _verdict(shape: int | None) -> Verdict:
    """A passing verdict (shape None) or one of three failure shapes (0, 1, 2)."""
    if shape is None:
        return Verdict(
            checks=(CheckResult(name="state", kind="state", passed=True),),
            comparison=Comparison(),
            expected_effects=GOLDEN,
            actual_effects=GOLDEN,
            signature=None,
            flags=Flags(clean_termination=True, called_mutating_tool=True, last_tool_ok=True),
        )
    state = CheckResult(name="state", kind="state", passed=False, detail="state differs")
    if shape == 0:
        miss = Discrepancy(
            kind="missing",
            op="update",
            table="accounts",
            key={"id": "A1"},
            column="balance",
            expected=60,
            actual=100,
        )
        return Verdict(
            checks=(state,),
            comparison=Comparison(missing=(miss,)),
            expected_effects=GOLDEN,
            actual_effects=(),
            signature=FailureSignature.NO_STATE_CHANGE,
            flags=Flags(clean_termination=True, called_mutating_tool=False, last_tool_ok=True),
        )
    wrong = Discrepancy(
        kind="wrong",
        op="update",
        table="accounts",
        key={"id": "A1"},
        column="balance",
        expected=60,
        actual=50,
    )
    actual = (
        RowEffect(
            table="accounts",
            key={"id": "A1"},
            kind="update",
            before={"balance": 100},
            after={"balance": 50},
        ),
    )
    return Verdict(
        checks=(state,),
        comparison=Comparison(wrong=(wrong,)),
        expected_effects=GOLDEN,
        actual_effects=actual,
        signature=FailureSignature.WRONG_STATE_UPDATE,
        flags=Flags(clean_termination=True, called_mutating_tool=True, last_tool_ok=shape == 1),
    )


def _transcript(shape: int | None) -> tuple[Event, ...]:
    amount = 40 if shape is None else 50
    ok = ToolResult(
        tool="transfer",
        call_id="c1",
        ok=True,
        output={"balance": 100 - amount},
        mutating=True,
        wrote=True,
    )
    events = [
        Event(kind="user_message", text="Please move 40 from A1 to A2."),
        Event(
            kind="tool_call",
            call=ToolCall(tool="transfer", args={"amount": amount}, id="c1"),
            result=ok,
        ),
    ]
    if shape == 2:
        failed = ToolResult(
            tool="get_account",
            call_id="c2",
            ok=False,
            error=ToolFailure(kind="not_found", message="no account A9"),
        )
        events.append(
            Event(
                kind="tool_call",
                call=ToolCall(tool="get_account", id="c2", args={"id": "A9"}),
                result=failed,
            )
        )
    events.append(Event(kind="end", text="Done: the transfer is made."))
    return tuple(events)


def make_trial(
    task_id: str,
    domain: str,
    agent_id: str,
    trial: int,
    passed: bool,
    *,
    system_error: bool = False,
    cost_usd: float = 0.0,
    shape: int = 0,
    user: UserInfo | None = None,
) -> TrialRecord:
    """One synthetic trial record."""
    if system_error:
        status, verdict, events = TrialStatus.SYSTEM_ERROR, None, ()
        termination = TerminationReason.SYSTEM_ERROR
    else:
        status = TrialStatus.PASSED if passed else TrialStatus.FAILED
        verdict = _verdict(None if passed else shape % 3)
        events = _transcript(None if passed else shape % 3)
        termination = TerminationReason.AGENT_END
    return TrialRecord(
        trial_id=trial_id(task_id, agent_id, trial),
        campaign_id="synthetic001",
        task_id=task_id,
        domain=domain,
        family=task_id.split(".")[1] if "." in task_id else "family",
        split="test",
        agent_id=agent_id,
        trial=trial,
        status=status,
        verdict=verdict,
        termination=termination,
        transcript=events,
        timings=Timings(episode_s=0.1, judge_s=0.01, total_s=0.12),
        started_at=T0,
        error="RuntimeError: endpoint down" if system_error else None,
        cost_usd=cost_usd,
        user=user,
    )


def write_campaign(
    directory: Path,
    passes: Mapping[str, Mapping[str, tuple[str, int, int]]],
    *,
    cost_per_trial_usd: Mapping[str, float] | None = None,
    system_errors: Mapping[str, Sequence[str]] | None = None,
    user_behaviour: str | None = None,
    ungrounded_tasks: Sequence[str] = (),
) -> list[TrialRecord]:
    """Write a campaign whose pass counts are given.

    Args:
        directory: Campaign directory to create.
        passes: agent id → task id → (domain, n trials, c passes). The first c trials
            pass; the rest fail, cycling through the failure shapes.
        cost_per_trial_usd: agent id → spend of each of its trials.
        system_errors: agent id → task ids whose last trial is a system error instead
            of a plain failure (the task must have c < n).
        user_behaviour: Record a rule user of this behaviour on every trial (two audited
            follow-up turns each); None: no user information, as old records.
        ungrounded_tasks: Tasks whose first trial's user invented an order id.

    Returns:
        The records written, in file order.
    """
    records: list[TrialRecord] = []
    errors = {a: set(ts) for a, ts in (system_errors or {}).items()}
    shape = 0
    with ResultsWriter(directory) as writer:
        for agent_id, tasks in passes.items():
            cost = (cost_per_trial_usd or {}).get(agent_id, 0.0)
            for task_id, (domain, n, c) in tasks.items():
                for i in range(n):
                    passed = i < c
                    sys_err = not passed and i == n - 1 and task_id in errors.get(agent_id, ())
                    user = None
                    if user_behaviour is not None:
                        invented = i == 0 and task_id in ungrounded_tasks
                        audit = GroundingAudit(
                            user_turns=2,
                            ungrounded_turns=int(invented),
                            ungrounded=(
                                UngroundedValue(turn=1, kind="identifier", value="ord-999"),
                            )
                            if invented
                            else (),
                        )
                        user = UserInfo(player="rule", behaviour=user_behaviour, audit=audit)
                    r = make_trial(
                        task_id,
                        domain,
                        agent_id,
                        i,
                        passed,
                        system_error=sys_err,
                        cost_usd=cost,
                        shape=shape,
                        user=user,
                    )
                    shape += 0 if passed else 1
                    writer.write(r)
                    records.append(r)
    return records
