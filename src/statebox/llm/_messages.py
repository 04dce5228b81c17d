"""A provider-neutral conversation: what the agent, user and judge send to a model.

Each provider client translates these to its own wire shape (OpenAI chat messages,
Anthropic content blocks). Tool-call arguments stay the raw string the model wrote,
so malformed JSON reaches the agent loop, which answers it with an error result.
"""

from __future__ import annotations

import ipaddress
from typing import Any, Literal, NamedTuple, TypeAlias
from urllib.parse import urlsplit

from statebox._model import Model
from statebox.llm._tokens import TokenTurn

__all__ = [
    "DONE_MARKER",
    "JUDGE_PROMPT_HEAD",
    "TASK_HEADER",
    "USER_HEADER",
    "USER_STOP",
    "AssistantTurn",
    "Completion",
    "Message",
    "RequestedCall",
    "ToolOutput",
    "ToolSchema",
    "UserText",
    "task_headers",
]


class ToolSchema(NamedTuple):
    """A function the model may call."""

    name: str
    description: str
    parameters: dict[str, Any]
    """JSON Schema of the arguments."""


class RequestedCall(Model):
    """A tool call as the model wrote it."""

    id: str
    """Call id chosen by the model or provider."""
    name: str
    """Tool name (possibly unknown)."""
    arguments: str
    """Arguments as raw JSON text (possibly malformed)."""


class UserText(Model):
    """Words from the other side of the conversation."""

    role: Literal["user"] = "user"
    """Discriminator."""
    text: str
    """The text."""


class AssistantTurn(Model):
    """The model's own earlier reply."""

    role: Literal["assistant"] = "assistant"
    """Discriminator."""
    text: str = ""
    """Its text."""
    calls: tuple[RequestedCall, ...] = ()
    """Its tool calls."""
    reasoning: tuple[dict[str, Any], ...] = ()
    """Anthropic extended thinking blocks of the reply, verbatim (signed): sent back
    before its tool calls, as the API requires while thinking is on."""


class ToolOutput(Model):
    """The result of one requested call, sent back to the model."""

    role: Literal["tool"] = "tool"
    """Discriminator."""
    call_id: str
    """The call it answers."""
    name: str
    """Tool name."""
    content: str
    """Result as text (JSON)."""
    is_error: bool = False
    """Whether the call failed."""


Message: TypeAlias = UserText | AssistantTurn | ToolOutput
"""One conversation entry."""


class Completion(NamedTuple):
    """A model's reply."""

    text: str
    calls: tuple[RequestedCall, ...]
    reasoning: tuple[dict[str, Any], ...] = ()
    tokens: TokenTurn | None = None
    """Its token ids and logprobs, when the model's config traces tokens."""


DONE_MARKER = "<DONE>"
"""End marker: an agent reply carrying it ends the episode; a user reply carrying it
ends the conversation."""

JUDGE_PROMPT_HEAD = "You are a strict grader of a customer-service conversation."
"""First line of the rubric judge's system prompt (the scripted model keys on it)."""

TASK_HEADER = "X-Statebox-Task"
"""HTTP header naming the trial's task id, so a scripted model can replay that task.
Headers never reach a model's context; `task_headers` sends it to loopback only."""

USER_HEADER = "X-Statebox-User"
"""HTTP header of an LLM user's requests: ``<behaviour>;<seed>;<trial>``, so a scripted
model can play the same behaviour plan; sent beside `TASK_HEADER`, to loopback only."""

USER_STOP = "###STOP###"
"""The LLM user's stop token: a user reply carrying it ends the conversation."""


def task_headers(task_id: str, base_url: str | None) -> dict[str, str]:
    """The task header for a model on this machine (a scripted server); none otherwise.

    Evaluator-side ids have no business with a hosted provider, so the header goes only
    to loopback base URLs (``127.0.0.0/8``, ``localhost``, ``[::1]``).
    """
    host = urlsplit(base_url).hostname if base_url else None
    if host is None:
        return {}
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    return {TASK_HEADER: task_id} if loopback else {}
