"""Actions, observations, transcript events and limits of an episode.

Three actions exist: call a tool, message the user, end. Observations carry what the
agent may see — the user's words, tool schemas of the allowlist, the policy text and
tool results — and nothing from the evaluator's side (golden trajectory, checks).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal, NamedTuple, Protocol, TypeAlias

from pydantic import Field

from statebox._model import Model
from statebox.kit import PolicyMode
from statebox.tools import ToolCall, ToolResult

__all__ = [
    "Action",
    "ApprovalDecision",
    "CallTool",
    "End",
    "Event",
    "Limits",
    "MessageUser",
    "Observation",
    "TerminationReason",
    "ToolInfo",
    "ToolSurface",
    "UserReply",
    "UserSimulator",
]


class CallTool(Model):
    """Call one tool."""

    kind: Literal["call_tool"] = "call_tool"
    """Action discriminator."""
    call: ToolCall
    """The call."""


class MessageUser(Model):
    """Say something to the user and wait for the reply."""

    kind: Literal["message_user"] = "message_user"
    """Action discriminator."""
    text: str
    """The message."""


class End(Model):
    """End the episode with a final message to the user (the end marker)."""

    kind: Literal["end"] = "end"
    """Action discriminator."""
    text: str = ""
    """The final response."""


Action: TypeAlias = Annotated[CallTool | MessageUser | End, Field(discriminator="kind")]
"""One agent action."""


class TerminationReason(StrEnum):
    """Why an episode ended."""

    AGENT_END = "agent_end"
    """The agent ended with a final response."""
    USER_END = "user_end"
    """The user simulator ended the conversation."""
    MAX_STEPS = "max_steps"
    """The action limit was reached."""
    MAX_TURNS = "max_turns"
    """The limit on agent messages to the user was reached."""
    TIMEOUT = "timeout"
    """The trial's wall-clock limit was reached."""
    MAX_TOOL_CALLS = "max_tool_calls"
    """The agent's limit on tool calls was reached."""
    AGENT_ERROR = "agent_error"
    """The agent broke its own protocol (a malformed or oversized answer from an outside
    agent): the agent's doing, so the trial fails; it is never re-run as a system error."""
    SYSTEM_ERROR = "system_error"
    """statebox or an endpoint failed."""


class ToolInfo(Model):
    """What an agent sees of one tool."""

    name: str
    """Tool name."""
    description: str
    """Agent-facing description."""
    input_schema: dict[str, Any]
    """JSON Schema of the arguments."""


class Observation(Model):
    """What the agent receives after reset or a step."""

    kind: Literal["start", "tool_result", "user_message", "done"]
    """What happened."""
    step: int
    """Actions taken so far."""
    user_message: str | None = None
    """The user's words (start and user_message)."""
    tool_result: ToolResult | None = None
    """The result of the last call (tool_result)."""
    tools: tuple[ToolInfo, ...] = ()
    """The allowlisted tools (start only)."""
    policy: str = ""
    """The domain policy the agent follows (start only): the whole text, or in ``search``
    mode a pointer to the ``search_policy`` tool."""
    policy_mode: PolicyMode = "prompt"
    """How the policy is served (start only): in the prompt, by search only, or both."""
    done: bool = False
    """Whether the episode is over."""
    termination: TerminationReason | None = None
    """Why it ended (done only)."""


ToolSurface: TypeAlias = Literal["full", "task", "minimal"]
"""Which tools an episode offers (docs/mitigations.md): ``full`` every domain tool,
``task`` the task's allowlist (the default), ``minimal`` the golden trajectories' tools
plus a fixed number of distractors chosen per task."""


class ApprovalDecision(Model):
    """An approver's decision on one held call (``--approval-gate``)."""

    approver: str
    """Who decided: ``simulated``, ``llm:MODEL`` or ``human``."""
    approved: bool
    """True: the tool ran; False: it did not, and the agent was told an approver refused."""
    reason: str = ""
    """Why, in the approver's words."""


class Event(Model):
    """One transcript entry."""

    kind: Literal["user_message", "agent_message", "tool_call", "end"]
    """What happened."""
    text: str | None = None
    """Message text (user_message, agent_message, end)."""
    call: ToolCall | None = None
    """The call (tool_call)."""
    result: ToolResult | None = None
    """Its result (tool_call)."""
    approval: ApprovalDecision | None = None
    """The approver's decision on a call held by an approval gate (None: not held)."""


class Limits(Model):
    """Per-episode limits; each ends the trial with a named termination reason."""

    max_steps: int = 200
    """Actions per episode."""
    max_turns: int = 30
    """Agent messages to the user per episode."""


class UserReply(NamedTuple):
    """A simulated user's reply: the text, and whether the user ends the conversation."""

    text: str
    done: bool


class UserSimulator(Protocol):
    """A simulated user (scripted, LLM or human)."""

    async def opening(self) -> str:
        """The user's first message."""
        ...

    async def reply(self, agent_message: str) -> UserReply:
        """The user's answer to one agent message."""
        ...
