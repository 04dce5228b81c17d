"""Replaying a recorded trial: its actions and user messages through a fresh episode.

`replay_trial` rebuilds the trial's world from its task and domain, plays the recorded
transcript back — every tool call in order, every agent message, the user's recorded
replies — and judges the episode again. No model is called: the agent's actions and
the user's words come from the record. `statebox verify` checks that the replay
reproduces the recorded tool results and verdict exactly; `statebox rejudge` replays
old transcripts against fixed or changed tasks.

Rubric questions need a judge model: without one (``rubric=None``) they come back
unjudged, and `comparable_verdict` leaves them out of an exact comparison.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from statebox.domains import Domain
from statebox.episode import (
    Action,
    ApprovalDecision,
    CallTool,
    End,
    Episode,
    Event,
    Limits,
    MessageUser,
    TerminationReason,
    UserReply,
)
from statebox.judge import Judge, RubricJudge, Verdict
from statebox.kit import PolicyMode
from statebox.records import TrialRecord, TrialStatus
from statebox.runner._mitigations import Mitigations
from statebox.tasks import Task, WorldCache
from statebox.tools import ToolCall

__all__ = [
    "Replayed",
    "comparable_verdict",
    "first_difference",
    "predates_error_classes",
    "recorded_actions",
    "replay_trial",
]


class Replayed(NamedTuple):
    """A trial played back."""

    transcript: tuple[Event, ...]
    """The replay's events."""
    verdict: Verdict
    """The replay's verdict."""
    status: TrialStatus
    """passed or failed (a check that could not run: system_error)."""
    termination: TerminationReason
    """How the replayed episode ended."""


def recorded_actions(transcript: Sequence[Event]) -> list[Action]:
    """The agent's actions of a transcript, in order (tool calls, messages, the end)."""
    out: list[Action] = []
    for e in transcript:
        if e.kind == "tool_call" and e.call is not None:
            out.append(CallTool(call=e.call))
        elif e.kind == "agent_message":
            out.append(MessageUser(text=e.text or ""))
        elif e.kind == "end":
            out.append(End(text=e.text or ""))
    return out


class _RecordedApprover:
    """Decides as the recording's approver did, in order; a call it never held: refused."""

    name = "recorded"

    def __init__(self, transcript: Sequence[Event]) -> None:
        self._decisions = [e.approval for e in transcript if e.approval is not None]
        self._i = 0

    async def decide(self, call: ToolCall) -> ApprovalDecision:
        i = self._i
        self._i += 1
        if i < len(self._decisions):
            return self._decisions[i]
        return ApprovalDecision(approver="recorded", approved=False, reason="not in the record")


class _RecordedUser:
    """Says the recorded user messages in order; ends where the recording ended."""

    def __init__(self, transcript: Sequence[Event], termination: TerminationReason) -> None:
        self._texts = [e.text or "" for e in transcript if e.kind == "user_message"]
        self._ends = termination == TerminationReason.USER_END
        self._i = 0

    async def opening(self) -> str:
        self._i = 1
        return self._texts[0] if self._texts else ""

    async def reply(self, agent_message: str) -> UserReply:
        i = self._i
        self._i += 1
        if i >= len(self._texts):
            return UserReply("", True)  # the recording has no more: the user is gone
        return UserReply(self._texts[i], self._ends and i == len(self._texts) - 1)


async def replay_trial(
    record: TrialRecord,
    task: Task,
    domain: Domain,
    judge: Judge,
    *,
    worlds: WorldCache,
    limits: Limits,
    policy_mode: PolicyMode | None,
    rubric: RubricJudge | None = None,
    mitigations: Mitigations | None = None,
) -> Replayed:
    """Play ``record``'s transcript back on a fresh world of ``task`` and judge it.

    Args:
        record: The recorded trial.
        task: The task to replay it against (the recorded one, or a changed one).
        domain: The task's domain.
        judge: The judge (its rubric model, if any, answers rubric questions).
        worlds: Template cache shared by the replays.
        limits: The campaign's episode limits.
        policy_mode: The campaign's policy mode (None: each task's own).
        rubric: Answers rubric questions instead of the judge's own model.
        mitigations: The trial's tool surface (`trial_mitigations`); its approval
            gate's decisions come from the record (None: no mitigations).

    Returns:
        The replay's transcript, verdict, status and termination.
    """
    m = mitigations or Mitigations()
    gated = m.approval_gate is not None or any(e.approval for e in record.transcript)
    approver = _RecordedApprover(record.transcript) if gated else None
    episode = Episode(
        domain,
        task,
        _RecordedUser(record.transcript, record.termination),
        worlds=worlds,
        limits=limits,
        policy_mode=policy_mode,
        tool_surface=m.tool_surface,
        distractors=m.distractors,
        approver=approver,
    )
    try:
        obs = await episode.reset()
        for action, event in zip(
            recorded_actions(record.transcript),
            [e for e in record.transcript if e.kind != "user_message"],
            strict=True,
        ):
            if obs.done or episode.done:
                break
            if event.kind == "tool_call" and event.result is None:
                continue  # cancelled mid-call (the trial's time limit): it never ran
            obs = await episode.step(action)
        if not episode.done:
            episode.stop(record.termination)
        outcome = episode.outcome()
        verdict = await judge.judge(task, outcome, rubric=rubric)
        status = TrialStatus.PASSED if verdict.passed else TrialStatus.FAILED
        if any(c.error for c in verdict.checks):
            status = TrialStatus.SYSTEM_ERROR
        return Replayed(outcome.transcript, verdict, status, outcome.termination)
    finally:
        episode.close()


def first_difference(
    recorded: Sequence[Event], replayed: Sequence[Event]
) -> tuple[int, str] | None:
    """The first event where two transcripts differ: (index, what differs), or None.

    Tool calls are numbered from 1 in the message (``call 3 (refund_order)``). A call
    recorded without a result (cancelled by the trial's time limit) never ran and is
    not replayed.
    """
    recorded = [e for e in recorded if not (e.kind == "tool_call" and e.result is None)]
    calls = 0
    for i in range(max(len(recorded), len(replayed))):
        a = recorded[i] if i < len(recorded) else None
        b = replayed[i] if i < len(replayed) else None
        if a is not None and a.kind == "tool_call":
            calls += 1
        if a is None or b is None:
            missing = "the replay has" if a is None else "the record has"
            shown = a or b
            assert shown is not None  # one of the two exists within the range
            return i, f"event {i + 1}: {missing} an extra {shown.kind} event"
        if a == b or a == _unclassified(a, b):
            continue
        if a.kind == "tool_call" and a.call is not None:
            what = f"call {calls} ({a.call.tool})"
            if b.call != a.call:
                return i, f"{what}: the call differs"
            return (
                i,
                f"{what}: result differs (recorded {_short(a.result)}, now {_short(b.result)})",
            )
        return i, f"event {i + 1} ({a.kind}) differs"
    return None


def predates_error_classes(transcript: Sequence[Event]) -> bool:
    """Whether a recorded transcript holds a tool error without a class (an older record)."""
    return any(
        e.result is not None and e.result.error is not None and e.result.error.error_class is None
        for e in transcript
    )


def _unclassified(recorded: Event, replayed: Event) -> Event:
    """``replayed`` as a record from before error classes would hold it (no class, no hint).

    Only where ``recorded`` is such a record: an old campaign verifies unchanged.
    """
    a, b = recorded.result, replayed.result
    if a is None or b is None or a.error is None or b.error is None or a.error.error_class:
        return replayed
    error = b.error.model_copy(update={"error_class": None, "hint": None})
    return replayed.model_copy(update={"result": b.model_copy(update={"error": error})})


def _short(value: Any, limit: int = 160) -> str:
    text = "none" if value is None else value.model_dump_json(exclude_defaults=True)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def comparable_verdict(verdict: Verdict, *, drop_rubric: bool) -> dict[str, Any]:
    """A verdict as JSON for an exact comparison (rubric answers left out when asked)."""
    data = verdict.model_dump(mode="json")
    if drop_rubric:
        data["checks"] = [c for c in data["checks"] if c["kind"] != "rubric"]
        # The rubric's answers decide these too: they are the record's, not re-asked.
        for derived in ("signature", "passed", "tool_grader_fooled"):
            data.pop(derived, None)
    return data
