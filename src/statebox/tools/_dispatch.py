"""Tool calls and results, and the allowlisted dispatcher that runs them on a world.

The dispatcher is the only way a tool runs: it refuses names outside the allowlist or
unknown (both answered `unknown_tool`, so the allowlist leaks nothing), validates
arguments (`invalid_arguments`), and runs the tool in one transaction. Every refusal
is a `ToolResult` with an error for the agent and leaves the world untouched; only a
bug in a tool escapes as an exception (the runner records it as a system error).

Whatever an agent sends is the agent's doing: a value the schema let through but that
SQLite cannot bind or Python cannot compute with (an integer beyond 64 bits, a date
out of range, a string too big) is an ``invalid_arguments`` result too, never a
system error a re-run could turn into a second chance.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from pydantic import ValidationError
from pydantic_core import to_jsonable_python

from statebox._model import Model
from statebox.errors import DomainError
from statebox.tools._errors import (
    ERROR_HINTS,
    DispatchErrorKind,
    ErrorClass,
    ToolError,
    error_class_for,
)
from statebox.tools._spec import ToolSpec
from statebox.world import World

__all__ = ["Dispatcher", "ToolCall", "ToolFailure", "ToolResult"]


class ToolCall(Model):
    """One tool call as an agent or a golden trajectory makes it."""

    tool: str
    """Tool name."""
    args: dict[str, Any] = {}
    """Arguments by name, sent verbatim (explicit nulls kept)."""
    id: str = ""
    """Call id chosen by the caller (LLM tool-call id); empty when none."""


class ToolFailure(Model):
    """Why a call was refused.

    Records written before error classes existed carry no ``error_class`` and no
    ``hint``: `classified` and `agent_view` derive them from the kind, so old records
    load, report and verify unchanged.
    """

    kind: DispatchErrorKind
    """Error kind."""
    message: str
    """Agent-facing explanation."""
    error_class: ErrorClass | None = None
    """What the agent can do about it (docs/mitigations.md); None: a record from before
    classes (derived from ``kind``)."""
    hint: str | None = None
    """The class's agent-facing hint; None: a record from before classes."""

    @classmethod
    def of(
        cls, kind: DispatchErrorKind, message: str, error_class: ErrorClass | None = None
    ) -> ToolFailure:
        """A refusal with its class (the kind's default unless refined) and hint."""
        klass = error_class or error_class_for(kind)
        return cls(kind=kind, message=message, error_class=klass, hint=ERROR_HINTS[klass])

    def classified(self) -> ErrorClass:
        """The class: the recorded one, else the kind's default."""
        return self.error_class or error_class_for(self.kind)

    def agent_view(self) -> dict[str, str]:
        """What the agent is sent: kind, class, message and hint."""
        klass = self.classified()
        return {
            "kind": self.kind,
            "class": klass,
            "message": self.message,
            "hint": self.hint or ERROR_HINTS[klass],
        }


class ToolResult(Model):
    """The outcome of one tool call."""

    tool: str
    """Tool name as called."""
    call_id: str = ""
    """The call's id."""
    ok: bool
    """True when the tool ran and committed."""
    output: Any = None
    """JSON-compatible return value when ``ok``."""
    error: ToolFailure | None = None
    """The refusal when not ``ok``."""
    mutating: bool = False
    """Whether the tool is declared mutating (False for unknown tools)."""
    wrote: bool = False
    """Whether the call changed the world."""


def _error(
    call: ToolCall,
    kind: DispatchErrorKind,
    message: str,
    mutating: bool,
    error_class: ErrorClass | None = None,
) -> ToolResult:
    return ToolResult(
        tool=call.tool,
        call_id=call.id,
        ok=False,
        error=ToolFailure.of(kind, message, error_class),
        mutating=mutating,
    )


_BINDING_ERRORS = (OverflowError, sqlite3.InterfaceError, sqlite3.DataError)
"""Errors of values that cannot be bound or computed with (agent-sent data, not bugs)."""


def _binding_error(exc: BaseException) -> bool:
    if isinstance(exc, _BINDING_ERRORS):
        return True
    # sqlite3 names the parameter it could not bind ("Error binding parameter 2: ..."),
    # unlike a bug in the SQL ("Incorrect number of bindings supplied").
    text = str(exc).lower()
    return isinstance(exc, sqlite3.ProgrammingError) and "error binding parameter" in text


def _busy(exc: sqlite3.OperationalError) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def _validation_message(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors(include_url=False):
        loc = ".".join(str(x) for x in err["loc"]) or "(arguments)"
        parts.append(f"{loc}: {err['msg']}")
    return "; ".join(parts)


# `json.dumps(..., allow_nan=False)` without building an encoder per call (same text, same errors).
_STRICT_JSON = json.JSONEncoder(allow_nan=False)


class Dispatcher:
    """Runs tool calls on one world, restricted to an allowlist.

    Args:
        world: The trial's world.
        tools: Every tool of the domain, by name.
        allowlist: Names the agent may call; None allows every domain tool.

    Raises:
        DomainError: When the allowlist names a tool the domain lacks.
    """

    def __init__(
        self, world: World, tools: Mapping[str, ToolSpec], allowlist: Collection[str] | None = None
    ) -> None:
        unknown = sorted(set(allowlist or ()) - set(tools))
        if unknown:
            raise DomainError(f"allowlist names tools the domain lacks: {unknown}")
        self.world = world
        self._tools = dict(tools)
        self._allowed = frozenset(tools if allowlist is None else allowlist)

    def specs(self) -> list[ToolSpec]:
        """The allowlisted tools, sorted by name (what an agent may see)."""
        return [self._tools[n] for n in sorted(self._allowed)]

    def refusal(self, call: ToolCall) -> ToolResult | None:
        """The refusal ``call`` would get before its tool runs, else None; runs nothing.

        Refusals before a tool runs: unknown or not allowed, bad arguments.
        """
        checked = self._validate(call)
        return checked if isinstance(checked, ToolResult) else None

    def _validate(self, call: ToolCall) -> ToolResult | tuple[ToolSpec, Any]:
        spec = self._tools.get(call.tool)
        # A tool outside the allowlist gets the very answer a nonexistent one gets: the
        # agent must not learn which tools exist beyond those it was given.
        if spec is None or call.tool not in self._allowed:
            return _error(call, "unknown_tool", f"no tool named {call.tool!r}", False)
        # Arguments are validated as the JSON an agent sends, in strict mode: `true` is not
        # 1.0, "12.5" is not a number, NaN and lone surrogates are refused.
        try:
            payload = _STRICT_JSON.encode(call.args)
        except (TypeError, ValueError) as exc:
            return _error(call, "invalid_arguments", f"not JSON values: {exc}", spec.mutates)
        try:
            args = spec.params.model_validate_json(payload, strict=True)
        except ValidationError as exc:
            return _error(call, "invalid_arguments", _validation_message(exc), spec.mutates)
        return spec, args

    def call(self, call: ToolCall) -> ToolResult:
        """Run one call in one transaction.

        Returns:
            A `ToolResult`; refusals (unknown, not allowed, bad arguments, `ToolError`,
            a violated constraint, a value SQLite cannot bind) carry an error and leave
            the world unchanged.

        Raises:
            DomainError: A tool declared read-only wrote to the world (rolled back).
            Exception: Any other exception from the tool is a bug and propagates.
        """
        checked = self._validate(call)
        if isinstance(checked, ToolResult):
            return checked
        spec, args = checked
        kwargs = {name: getattr(args, name) for name in type(args).__pydantic_fields__}
        conn = self.world.conn
        try:
            with self.world.transaction() as tx:
                before = conn.total_changes
                out = spec.fn(tx, **kwargs)
                if not spec.mutates and conn.total_changes != before:
                    raise DomainError(f"tool {spec.name} is declared read-only but wrote")
                output = to_jsonable_python(out)
        except ToolError as exc:
            return _error(call, exc.kind, exc.message, spec.mutates, exc.error_class)
        except sqlite3.IntegrityError as exc:
            # A UNIQUE or primary-key clash is a duplicate of a record that exists.
            unique = "unique" in str(exc).lower()
            message = f"constraint failed: {exc}"
            klass: ErrorClass | None = "conflict" if unique else None
            return _error(call, "invalid_state", message, spec.mutates, klass)
        except sqlite3.OperationalError as exc:
            if not _busy(exc):
                raise
            # A locked or busy database: nothing ran (rolled back); a retry may succeed.
            message = f"the database is busy, try again: {exc}"
            return _error(call, "invalid_state", message, spec.mutates, "transient")
        except (OverflowError, sqlite3.Error) as exc:
            if not _binding_error(exc):
                raise
            message = f"a value cannot be stored or used: {exc}"
            return _error(call, "invalid_arguments", message, spec.mutates)
        return ToolResult(
            tool=call.tool,
            call_id=call.id,
            ok=True,
            output=output,
            mutating=spec.mutates,
            wrote=tx.wrote,
        )


def tool_map(tools: Iterable[ToolSpec]) -> dict[str, ToolSpec]:
    """Tools by name.

    Raises:
        DomainError: Two tools share a name.
    """
    out: dict[str, ToolSpec] = {}
    for t in tools:
        if t.name in out:
            raise DomainError(f"two tools are named {t.name!r}")
        out[t.name] = t
    return out
