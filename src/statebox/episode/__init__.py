"""Episodes: the reset/step environment loop, its actions, observations and limits."""

from statebox.episode._episode import Episode, EpisodeOutcome
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
    "CallTool",
    "End",
    "Episode",
    "EpisodeOutcome",
    "Event",
    "Limits",
    "MessageUser",
    "Observation",
    "TerminationReason",
    "ToolInfo",
    "UserReply",
    "UserSimulator",
]
