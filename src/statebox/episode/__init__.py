"""Episodes: the reset/step environment loop, its actions, observations, limits and backends."""

from statebox.episode._approval import (
    APPROVER_KINDS,
    Approver,
    ApproverFactory,
    HumanApprover,
    LLMApprover,
    SimulatedApprover,
    canonical_call,
)
from statebox.episode._backend import Backend, StateSession, ToolSession
from statebox.episode._episode import DEFAULT_DISTRACTORS, Episode, EpisodeOutcome, surface_tools
from statebox.episode._readiness import ReadinessCheck
from statebox.episode._types import (
    Action,
    ApprovalDecision,
    CallTool,
    End,
    Event,
    Limits,
    MessageUser,
    Observation,
    TerminationReason,
    ToolInfo,
    ToolSurface,
    UserReply,
    UserSimulator,
)

__all__ = [
    "APPROVER_KINDS",
    "DEFAULT_DISTRACTORS",
    "Action",
    "ApprovalDecision",
    "Approver",
    "ApproverFactory",
    "Backend",
    "CallTool",
    "End",
    "Episode",
    "EpisodeOutcome",
    "Event",
    "HumanApprover",
    "LLMApprover",
    "Limits",
    "MessageUser",
    "Observation",
    "ReadinessCheck",
    "SimulatedApprover",
    "StateSession",
    "TerminationReason",
    "ToolInfo",
    "ToolSession",
    "ToolSurface",
    "UserReply",
    "UserSimulator",
    "canonical_call",
    "surface_tools",
]
