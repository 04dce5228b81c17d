"""On-disk records of a campaign: `TrialRecord`, `ErrorRecord`, `Manifest`.

Every record leads with ``schema_version``; readers refuse versions they do not know
(`ResultsFormatError`). A trial is keyed by (task id, agent id, trial index); its
``trial_id`` is that key as one string.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Any, Literal, Protocol, TypeVar

from pydantic import AwareDatetime

from statebox._model import Model
from statebox.dialogue import GroundingAudit
from statebox.episode import Event, TerminationReason
from statebox.judge import Verdict
from statebox.llm import ModelCall, TokenTrace, Usage

__all__ = [
    "SCHEMA_VERSION",
    "AgentInfo",
    "ApprovalCounts",
    "ErrorRecord",
    "Manifest",
    "Timings",
    "TrialRecord",
    "TrialStatus",
    "UserInfo",
    "latest_per_trial",
    "trial_id",
]

SCHEMA_VERSION = 1
"""Version of results.jsonl, errors.jsonl and manifest.json written by this statebox."""


def trial_id(task_id: str, agent_id: str, trial: int) -> str:
    """The trial key as a string: ``<task id>/<agent id>/<trial>``."""
    return f"{task_id}/{agent_id}/{trial}"


class _Keyed(Protocol):
    @property
    def trial_id(self) -> str: ...


K = TypeVar("K", bound=_Keyed)


def latest_per_trial(records: Iterable[K]) -> list[K]:
    """One record per trial id: the last one in file order.

    results.jsonl is append-only, so a trial re-run by ``--resume --retry-errors``
    leaves its old ``system_error`` line in place and appends the new one. The rule
    every reader and metric follows: **the last line of a trial id wins**. The list
    keeps the position of each trial's first line (plan order).

    Args:
        records: Records (or rows) with a ``trial_id``, in file order.

    Returns:
        The latest record of each trial id.
    """
    latest: dict[str, K] = {}
    for r in records:
        latest[r.trial_id] = r
    return list(latest.values())


class TrialStatus(StrEnum):
    """A trial's outcome."""

    PASSED = "passed"
    """Every check passed."""
    FAILED = "failed"
    """At least one check failed."""
    SYSTEM_ERROR = "system_error"
    """statebox or an endpoint failed; counts as unsuccessful in canonical metrics."""


class Timings(Model):
    """Wall-clock durations of one trial, in seconds."""

    episode_s: float
    """Reset plus the agent loop."""
    judge_s: float
    """Judging."""
    total_s: float
    """Everything, including record writing."""


class ApprovalCounts(Model):
    """What an approval gate did in one trial (``--approval-gate``)."""

    held: int = 0
    """Calls the gate held for an approver."""
    approved: int = 0
    """Of those, approved (the tool ran)."""
    refused: int = 0
    """Of those, refused (the tool did not run; the agent got a ``forbidden`` error)."""

    @classmethod
    def of(cls, transcript: Iterable[Event]) -> ApprovalCounts:
        """The counts of a transcript's approval decisions."""
        decisions = [e.approval for e in transcript if e.approval is not None]
        approved = sum(1 for d in decisions if d.approved)
        return cls(held=len(decisions), approved=approved, refused=len(decisions) - approved)


class UserInfo(Model):
    """Who played the trial's user, how, and the grounding audit of its turns."""

    player: str
    """``rule``, ``human`` or the user model's ``provider:model``."""
    behaviour: str
    """The campaign's user behaviour (``cooperative``, ``misremembers``...)."""
    misremembered: str | None = None
    """The fact the misremembers behaviour got wrong at first (None: none)."""
    audit: GroundingAudit = GroundingAudit()
    """Ungrounded values and volunteered facts of the user's turns."""


class TrialRecord(Model):
    """One trial: one line of results.jsonl."""

    schema_version: Literal[1] = 1
    """Record format version."""
    trial_id: str
    """``<task id>/<agent id>/<trial>``; unique in a campaign."""
    campaign_id: str
    """The campaign."""
    task_id: str
    """Task id."""
    domain: str
    """Task domain."""
    family: str
    """Task workflow family."""
    split: Literal["test", "train"]
    """Task split."""
    agent_id: str
    """Agent configuration id."""
    trial: int
    """Zero-based trial index."""
    status: TrialStatus
    """passed, failed or system_error."""
    verdict: Verdict | None
    """The judge's verdict (None for a system error before judging)."""
    termination: TerminationReason
    """Why the episode ended."""
    transcript: tuple[Event, ...] = ()
    """Every event of the episode."""
    token_trace: TokenTrace | None = None
    """The agent model's prompt and completion token ids and logprobs per model turn
    (None: its config does not trace tokens). Placed beside the transcript so the lean
    reader of reports (`statebox.records.read_trial_rows`) skips it with the transcript;
    never read by the judge."""
    timings: Timings
    """Durations."""
    started_at: AwareDatetime
    """When the trial started (UTC)."""
    error: str | None = None
    """For system errors: exception type and message (traceback in errors.jsonl); for
    a trial ended by ``agent_error``: what the agent sent wrong."""
    cost_usd: float = 0.0
    """Model spend of the trial in US dollars (0 for offline agents)."""
    usage: dict[str, Usage] = {}
    """Token usage and cost per role (``agent``, ``user``, ``judge``) that called a model."""
    model_calls: tuple[ModelCall, ...] = ()
    """Every model call of the trial, in order: role, model, tokens, cost, attempts."""
    thoughts: tuple[str, ...] = ()
    """Thoughts the agent recorded with the ``think`` tool (they change nothing)."""
    thought_steps: tuple[int, ...] = ()
    """Per thought, how many tool calls the agent had made before it (where known)."""
    user: UserInfo | None = None
    """The simulated user and its grounding audit (None: not recorded, e.g. a system
    error before the episode, or a record written before statebox audited users)."""
    approvals: ApprovalCounts | None = None
    """Calls held, approved and refused by the approval gate (None: the trial ran
    without one, or a record from before approval gates)."""


class ErrorRecord(Model):
    """One infrastructure error: one line of errors.jsonl."""

    schema_version: Literal[1] = 1
    """Record format version."""
    trial_id: str
    """The trial that failed."""
    task_id: str
    """Task id."""
    agent_id: str
    """Agent configuration id."""
    trial: int
    """Trial index."""
    type: str
    """Exception type name."""
    message: str
    """Exception message."""
    traceback: str
    """Formatted traceback."""
    at: AwareDatetime
    """When it happened (UTC)."""


class AgentInfo(Model):
    """An agent configuration of the campaign."""

    agent_id: str
    """Stable id."""
    name: str
    """Agent kind."""
    config: dict[str, Any]
    """Settings (redacted: never a secret)."""


class Manifest(Model):
    """manifest.json: what the campaign is, so results can be read and resumed exactly."""

    schema_version: Literal[1] = 1
    """Format version."""
    campaign_id: str
    """Campaign id."""
    statebox_version: str
    """statebox version that wrote it."""
    git_revision: str | None
    """Git revision of the working tree, when known."""
    created_at: AwareDatetime
    """Creation time (UTC)."""
    task_source: str
    """Suite name or task path."""
    task_bundle_hash: str
    """Sha256 over the tasks' canonical JSON."""
    environment_hash: str | None = None
    """Sha256 over `environment` (None in manifests written before it existed)."""
    environment: dict[str, str] = {}
    """Each part of the environment, hashed on its own: tasks, judge version, and per
    domain its policy text, schema, seed, tool schemas and field policy
    (`statebox.judge.environment_parts`); a resume refuses a change."""
    baselines: dict[str, dict[str, int]] = {}
    """Floors measured before the first trial: baseline agent (``noop``, ``refuse``) →
    ``tasks``, ``passed``, ``test_tasks``, ``passed_test`` over the campaign's tasks."""
    task_ids: tuple[str, ...]
    """Tasks in plan order."""
    agents: tuple[AgentInfo, ...]
    """Agent configurations."""
    trials: int
    """Trials per task and agent."""
    seed: int
    """Campaign seed."""
    settings: dict[str, Any]
    """Resolved settings (secrets redacted)."""
    verdict_settings: dict[str, Any] = {}
    """Every setting that can change a verdict (simulated user, judge, endpoints, models
    file, limits ...), by name; never a secret. A resume must match them key by key
    (`statebox.runner.run_campaign`); a key an older manifest lacks is not compared."""
