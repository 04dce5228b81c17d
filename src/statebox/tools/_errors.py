"""Tool refusals: errors meant for the agent, not failures of statebox."""

from __future__ import annotations

from typing import Literal, TypeAlias

__all__ = ["DispatchErrorKind", "ToolError", "ToolErrorKind"]

ToolErrorKind: TypeAlias = Literal["not_found", "invalid_state", "not_permitted"]
"""Kinds a tool may raise: missing object, wrong state for the action, refused by policy."""

DispatchErrorKind: TypeAlias = Literal[
    "not_found",
    "invalid_state",
    "not_permitted",
    "invalid_arguments",
    "unknown_tool",
    "not_allowed",
    "internal_error",
]
"""Every kind an agent can receive: the tool kinds plus those the dispatcher adds.

``internal_error`` marks a call statebox itself failed to run (a bug, a backend that
died); it is recorded in the transcript and makes the trial a system error."""


class ToolError(Exception):
    """Raised by a tool to refuse a call; the transaction rolls back and the agent gets a result.

    Args:
        kind: What went wrong, from `ToolErrorKind`.
        message: Agent-facing explanation (no secrets, no evaluator data).
    """

    def __init__(self, kind: ToolErrorKind, message: str) -> None:
        self.kind: ToolErrorKind = kind
        self.message = message
        super().__init__(f"{kind}: {message}")
