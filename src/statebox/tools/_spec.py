"""`@tool`: a typed, documented function becomes a tool with a JSON schema.

The first parameter (the `WorldTx`) is hidden from the agent; the others become one
pydantic model (``extra="forbid"``) built once at import, which gives both argument
validation and the JSON Schema. A parameter without a type or without a line under
``Args:``, a tool without a summary, or a reserved name fails at import, so a domain
cannot ship a tool the agent cannot understand.

Every ``int`` in a parameter's type (inside ``Optional``, unions, lists and tuples
too) is bounded to SQLite's 64-bit range, in the schema and in validation: an agent's
2**63 is an ``invalid_arguments`` result, never an overflow inside the tool.
"""

from __future__ import annotations

import inspect
import re
import types
from collections.abc import Callable, Sequence
from typing import Annotated, Any, NamedTuple, Union, get_args, get_origin, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, create_model

from statebox.errors import DomainError

__all__ = [
    "INT64_MAX",
    "INT64_MIN",
    "REQUIRED",
    "RESERVED_TOOL_NAMES",
    "ToolParam",
    "ToolSpec",
    "make_tool",
    "tool",
]

INT64_MIN = -(2**63)
"""Smallest integer a tool argument may carry (SQLite INTEGER)."""
INT64_MAX = 2**63 - 1
"""Largest integer a tool argument may carry (SQLite INTEGER)."""

RESERVED_TOOL_NAMES = frozenset(
    {"reset", "step", "state", "snapshot", "effects", "verdict", "init", "teardown", "close"}
)
"""Lifecycle names no tool may take (they live on the control API only)."""

REQUIRED: Any = ...
"""The default of a `ToolParam` the agent must give."""


class ToolParam(NamedTuple):
    """One agent-facing argument of a tool built by `make_tool`."""

    name: str
    """Argument name."""
    type: Any
    """Its type (``Literal`` for closed sets); validated strictly by the dispatcher."""
    doc: str
    """Agent-facing description (what an ``Args:`` line would say)."""
    default: Any = REQUIRED
    """Default value; `REQUIRED` when the agent must give it."""


_SECTION = re.compile(r"^(Args|Arguments|Returns|Raises|Example|Examples|Yields|Note):\s*$")


def _parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """Split a Google docstring into (description, {arg: description})."""
    lines = doc.splitlines()
    desc: list[str] = []
    args: dict[str, str] = {}
    section: str | None = None
    current: str | None = None
    for line in lines:
        m = _SECTION.match(line.strip())
        if m and not line.startswith((" ", "\t")):
            section, current = m.group(1), None
            continue
        if section is None:
            desc.append(line)
        elif section in ("Args", "Arguments"):
            am = re.match(r"^\s{2,}(\*{0,2}\w+)(?:\s*\(.*?\))?:\s*(.*)$", line)
            if am and (current is None or len(line) - len(line.lstrip()) <= 4):
                current = am.group(1)
                args[current] = am.group(2).strip()
            elif current and line.strip():
                args[current] = (args[current] + " " + line.strip()).strip()
    return "\n".join(desc).strip(), args


def _bounded(tp: Any) -> Any:
    """``tp`` with every ``int`` in it bounded to [INT64_MIN, INT64_MAX]."""
    if tp is int:
        return Annotated[int, Field(ge=INT64_MIN, le=INT64_MAX)]
    origin, args = get_origin(tp), get_args(tp)
    if origin is Annotated:
        # A tool's own, narrower bounds come after ours and win.
        return Annotated[(_bounded(args[0]), *tp.__metadata__)]
    if origin in (Union, types.UnionType):
        return Union[tuple(_bounded(a) for a in args)]  # noqa: UP007 (built from a tuple)
    if origin in (list, tuple, set, frozenset, dict) and args:
        return origin[tuple(a if a is Ellipsis else _bounded(a) for a in args)]
    return tp


class ToolSpec:
    """A tool: name, agent-facing description, argument model, `mutates` flag, function.

    Attributes:
        name: Tool name (the function's name).
        description: Agent-facing text (docstring without the ``Args:`` section).
        mutates: Whether the tool may change state (golden replay, mutants and the
            weak-evaluator flags read it; a tool declared read-only that writes is a
            `DomainError` at call time).
        params: Pydantic model of the arguments.
        fn: The function; first parameter is the `WorldTx`.
    """

    __slots__ = ("_schema", "description", "fn", "mutates", "name", "params")

    def __init__(
        self,
        name: str,
        description: str,
        mutates: bool,
        params: type[BaseModel],
        fn: Callable[..., Any],
    ) -> None:
        self.name = name
        self.description = description
        self.mutates = mutates
        self.params = params
        self.fn = fn
        self._schema: dict[str, Any] | None = None

    def input_schema(self) -> dict[str, Any]:
        """JSON Schema of the arguments (``type: object``, ``additionalProperties: false``).

        Built once and shared by every caller (episodes rebuild tool lists per trial):
        treat it as read-only.
        """
        if self._schema is None:
            self._schema = self._build_schema()
        return self._schema

    def _build_schema(self) -> dict[str, Any]:
        schema = self.params.model_json_schema()
        schema.pop("title", None)
        for prop in schema.get("properties", {}).values():
            prop.pop("title", None)
        schema["additionalProperties"] = False
        return schema

    def __call__(self, tx: Any, **kwargs: Any) -> Any:
        return self.fn(tx, **kwargs)

    def __repr__(self) -> str:
        return f"ToolSpec({self.name!r}, mutates={self.mutates})"


def tool(*, mutates: bool) -> Callable[[Callable[..., Any]], ToolSpec]:
    """Declare a tool.

    Args:
        mutates: Whether the tool may change state. Required: no default.

    Returns:
        A decorator turning the function into a `ToolSpec`.

    Raises:
        DomainError: At import, for a reserved or underscore name, a missing summary,
            a parameter without a type hint or without an ``Args:`` line.

    Example:
        >>> @tool(mutates=True)
        ... def hold_ticket(tx, ticket_id: str) -> dict:
        ...     '''Put a ticket on hold.
        ...
        ...     Args:
        ...         ticket_id: Ticket id, such as "20".
        ...     '''
    """

    def decorate(fn: Callable[..., Any]) -> ToolSpec:
        name = fn.__name__
        if name in RESERVED_TOOL_NAMES or name.startswith("_"):
            raise DomainError(f"tool name {name!r} is reserved for lifecycle operations")
        doc = inspect.getdoc(fn) or ""
        description, arg_docs = _parse_docstring(doc)
        if not description:
            raise DomainError(f"tool {name}: add a docstring summary (it is agent-facing)")
        hints = get_type_hints(fn, include_extras=True)
        params = list(inspect.signature(fn).parameters.values())
        if not params:
            raise DomainError(f"tool {name}: the first parameter must be the world transaction")
        declared: list[ToolParam] = []
        for p in params[1:]:
            if p.name not in hints:
                raise DomainError(f"tool {name}: parameter {p.name!r} needs a type hint")
            if p.name not in arg_docs:
                raise DomainError(f"tool {name}: document parameter {p.name!r} under Args:")
            default = REQUIRED if p.default is inspect.Parameter.empty else p.default
            declared.append(ToolParam(p.name, hints[p.name], arg_docs[p.name], default))
        return make_tool(name, description, mutates=mutates, params=declared, fn=fn)

    return decorate


def make_tool(
    name: str,
    description: str,
    *,
    mutates: bool,
    params: Sequence[ToolParam],
    fn: Callable[..., Any],
) -> ToolSpec:
    """Build a tool from its parts: what `@tool` does with a function's signature and docstring.

    Toolkits that declare one tool for many domains (`statebox.kit`) build the name,
    description and arguments from data; the result is the same `ToolSpec` a decorated
    function gives, with the same schema for the same parts.

    Args:
        name: Tool name.
        description: Agent-facing description.
        mutates: Whether the tool may change state.
        params: The agent-facing arguments, in schema order.
        fn: Called as ``fn(tx, **arguments)`` with every argument by name.

    Returns:
        The tool.

    Raises:
        DomainError: A reserved or underscore name, an empty description or argument
            description, or two arguments with one name.
    """
    if name in RESERVED_TOOL_NAMES or name.startswith("_"):
        raise DomainError(f"tool name {name!r} is reserved for lifecycle operations")
    if not description.strip():
        raise DomainError(f"tool {name}: add a docstring summary (it is agent-facing)")
    fields: dict[str, Any] = {}
    for p in params:
        if p.name in fields:
            raise DomainError(f"tool {name}: two arguments are named {p.name!r}")
        if not p.doc.strip():
            raise DomainError(f"tool {name}: document parameter {p.name!r} under Args:")
        fields[p.name] = (_bounded(p.type), Field(p.default, description=p.doc))
    model = create_model(f"{name}_args", __config__=ConfigDict(extra="forbid"), **fields)
    return ToolSpec(name, description, mutates, model, fn)
