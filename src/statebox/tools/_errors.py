"""Tool refusals: errors meant for the agent, not failures of statebox.

Every refusal has a *kind* (what the code that refused says happened) and a *class*
the agent can act on (docs/mitigations.md): ``invalid_arguments`` (fix the call),
``not_found`` (look the id up), ``precondition_failed`` (read the state, follow the
policy), ``conflict`` (already done: do not repeat it), ``transient`` (a retry may
succeed) and ``forbidden`` (do not retry). The class is derived from the kind
(`error_class_for`) unless the tool refines it (``ToolError(..., error_class=...)``:
the shared kit marks repeats and duplicates as ``conflict``); each class has a short
hint the agent receives with the message.
"""

from __future__ import annotations

from typing import Literal, TypeAlias, get_args

__all__ = [
    "ERROR_CLASSES",
    "ERROR_HINTS",
    "DispatchErrorKind",
    "ErrorClass",
    "ToolError",
    "ToolErrorKind",
    "error_class_for",
]

ToolErrorKind: TypeAlias = Literal["not_found", "invalid_state", "not_permitted"]
"""Kinds a tool may raise: missing object, wrong state for the action, refused by policy."""

DispatchErrorKind: TypeAlias = Literal[
    "not_found",
    "invalid_state",
    "not_permitted",
    "invalid_arguments",
    "unknown_tool",
    "not_allowed",
    "approval_refused",
    "internal_error",
]
"""Every kind an agent can receive: the tool kinds plus those the dispatcher adds.

``approval_refused``: an approver refused an approval-gated call (``--approval-gate``);
the tool did not run. ``internal_error`` marks a call statebox itself failed to run (a
bug, a backend that died); it is recorded in the transcript and makes the trial a
system error."""

ErrorClass: TypeAlias = Literal[
    "invalid_arguments", "not_found", "precondition_failed", "conflict", "transient", "forbidden"
]
"""What the agent can do about a refusal (see the module docstring)."""

ERROR_CLASSES: tuple[ErrorClass, ...] = get_args(ErrorClass)
"""Every class, in a fixed order (reports list them so)."""

ERROR_HINTS: dict[ErrorClass, str] = {
    "invalid_arguments": "Fix the arguments to match the tool's schema, then call again.",
    "not_found": "Check the id or name (look it up, or ask the customer); "
    "the same call will fail again.",
    "precondition_failed": "The record is not in a state that allows this: read its "
    "current state and follow the policy before trying again.",
    "conflict": "Already done, or it clashes with an existing record: read the current "
    "state instead of repeating the call.",
    "transient": "A temporary failure: the same call may succeed if you retry it.",
    "forbidden": "Not permitted (by the policy or an approver): do not retry it; tell the "
    "customer or take a permitted path.",
}
"""The agent-facing hint of each class."""

_BY_KIND: dict[str, ErrorClass] = {
    "invalid_arguments": "invalid_arguments",
    "not_found": "not_found",
    "unknown_tool": "not_found",
    "invalid_state": "precondition_failed",
    "not_permitted": "forbidden",
    "not_allowed": "forbidden",
    "approval_refused": "forbidden",
    "internal_error": "transient",
}


def error_class_for(kind: str) -> ErrorClass:
    """The default class of a refusal kind (``precondition_failed`` for one not known).

    Records written before classes existed carry only the kind: their class is this.
    """
    return _BY_KIND.get(kind, "precondition_failed")


class ToolError(Exception):
    """Raised by a tool to refuse a call; the transaction rolls back and the agent gets a result.

    Args:
        kind: What went wrong, from `ToolErrorKind`.
        message: Agent-facing explanation (no secrets, no evaluator data).
        error_class: A class finer than the kind's default (`error_class_for`), e.g.
            ``conflict`` for a repeat of something already done; None: the default.
    """

    def __init__(
        self, kind: ToolErrorKind, message: str, *, error_class: ErrorClass | None = None
    ) -> None:
        self.kind: ToolErrorKind = kind
        self.message = message
        self.error_class: ErrorClass = error_class or error_class_for(kind)
        super().__init__(f"{kind}: {message}")
