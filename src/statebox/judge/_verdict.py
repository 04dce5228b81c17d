"""The verdict: every check's result, the effect comparison, a failure signature, flags.

`Verdict.passed` is computed in one place — the conjunction of all check results
(docs/design.md §4, invariant 7) — never stored separately from them. A check that was
not judged (a rubric question with no judge model) is not a pass: the verdict fails closed.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import computed_field, model_validator

from statebox._model import Model
from statebox.judge._compare import Comparison
from statebox.tools import ErrorClass
from statebox.world import RowEffect

__all__ = ["CheckResult", "FailureSignature", "StateHashes", "Verdict", "WeakEvaluatorFlags"]


class FailureSignature(StrEnum):
    """One label per failed trial, by precedence (docs/design.md §6)."""

    SYSTEM_ERROR = "system_error"
    """statebox, an endpoint or the judge failed; the agent was not fully judged."""
    AGENT_ERROR = "agent_error"
    """The agent answered outside its protocol (malformed or oversized); its doing."""
    NO_STATE_CHANGE = "no_state_change"
    """Effects were required but no mutating call succeeded."""
    TOOL_USAGE = "tool_usage"
    """A tool call failed and the agent did not recover from it (unknown, not allowed, bad
    arguments, refused; no later call of the same tool succeeded); the state is wrong."""
    WRONG_STATE_UPDATE = "wrong_state_update"
    """The terminal state or an invariant is wrong."""
    INCOMPLETE_RESOLUTION = "incomplete_resolution"
    """The state is right but reply or rubric checks failed or the conversation ran out."""
    UNJUDGED = "unjudged"
    """Every judged check passed, but a rubric question had no judge model to answer it."""


class CheckResult(Model):
    """The result of one declared check."""

    name: str
    """Stable name: ``state``, ``invariant[0]``, ``text[0]``, ``reply.must_contain[1]``,
    ``rubric[0]``, ``termination``."""
    kind: Literal["state", "invariant", "text", "reply", "response", "rubric", "termination"]
    """Check kind (``response``: a check of an external environment on the reply)."""
    passed: bool
    """Whether it passed."""
    detail: str = ""
    """Why it failed (or what was checked)."""
    error: bool = False
    """True when the check could not be evaluated (counts as failed; signature system_error)."""
    skipped: bool = False
    """True when the check was *unjudged*: a rubric question with no judge model. It is
    not a pass (the verdict fails closed); reports give the figure over trials without
    unjudged checks beside the canonical one, named."""


class WeakEvaluatorFlags(Model):
    """What a grader that only reads the tool calls and the last message would have seen."""

    clean_termination: bool
    """The agent's last message is non-empty, carries the end marker (it closed the
    conversation: the agent's end action, or the message the user ended on) and is not
    a question — however the episode ended."""
    called_mutating_tool: bool
    """At least one mutating tool call succeeded."""
    last_tool_ok: bool
    """The last tool result carried no error (True when no tool was called)."""


class StateHashes(Model):
    """Canonical hashes (`statebox.world.state_hash`) of the states a verdict read.

    With them a verdict can be re-checked later against saved states.
    """

    initial: str | None = None
    """The task's initial state."""
    final: str | None = None
    """The trial's terminal state."""
    golden: str | None = None
    """The golden state (the golden trajectory's end state)."""


class Verdict(Model):
    """A trial's outcome as the judge sees it."""

    checks: tuple[CheckResult, ...]
    """Every declared check's result."""
    comparison: Comparison
    """Missing / wrong / extra against the closest accepted golden state."""
    expected_effects: tuple[RowEffect, ...]
    """Golden effects: initial → golden state, under the field policy."""
    actual_effects: tuple[RowEffect, ...]
    """Actual effects: initial → terminal state, under the field policy."""
    signature: FailureSignature | None
    """Failure signature; None when passed."""
    flags: WeakEvaluatorFlags
    """Weak-evaluator flags."""
    hashes: StateHashes = StateHashes()
    """Hashes of the initial, terminal and golden states (unprojected)."""
    unrecovered_error: ErrorClass | None = None
    """For a failed trial, the class of the last tool error the agent did not recover
    from (no later call of the same tool succeeded), e.g. ``precondition_failed``;
    None: a pass, every error recovered from or none, or a record from before classes."""

    @model_validator(mode="before")
    @classmethod
    def _drop_derived(cls, data: Any) -> Any:
        # Derived fields are written for readers of the JSON and recomputed on load.
        if isinstance(data, dict) and ("passed" in data or "tool_grader_fooled" in data):
            data = {k: v for k, v in data.items() if k not in ("passed", "tool_grader_fooled")}
        return data

    @computed_field  # type: ignore[prop-decorator]
    @property
    def passed(self) -> bool:
        """True iff every check passed (a conjunction; an unjudged check is no pass)."""
        return all(c.passed and not c.skipped for c in self.checks)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def tool_grader_fooled(self) -> bool:
        """Failed, yet ended cleanly after a successful mutating call with no last-call error."""
        f = self.flags
        return not self.passed and f.clean_termination and f.called_mutating_tool and f.last_tool_ok
