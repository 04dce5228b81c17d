"""Episodes: the reset/step environment loop, its actions, observations, limits and backends."""

from statebox.episode._backend import Backend, StateSession, ToolSession
from statebox.episode._episode import Episode, EpisodeOutcome
from statebox.episode._readiness import ReadinessCheck
from statebox.episode._types import (
    Action,
    CallTool,
    End,
    Event,
    Limits,
    MessageUser,
    Observation,
    TerminationReason,
    ToolInfo,
    UserReply,
    UserSimulator,
)

__all__ = [
    "Action",
    "Backend",
    "CallTool",
    "End",
    "Episode",
    "EpisodeOutcome",
    "Event",
    "Limits",
    "MessageUser",
    "Observation",
    "ReadinessCheck",
    "StateSession",
    "TerminationReason",
    "ToolInfo",
    "ToolSession",
    "UserReply",
    "UserSimulator",
]
