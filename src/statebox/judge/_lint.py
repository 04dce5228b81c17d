"""Identifier lint: every literal id a golden call needs must be reachable by the agent.

An agent under evaluation sees the user's messages and tool results, nothing else. A
golden trajectory that passes an id (a booking reference, a ticket number) the user
never states and no earlier call returns grades the agent on a guess. This lint
replays the golden trajectory on a fresh world and, step by step, checks that every
identifier argument is either held by the user (a ``user.facts`` value, or a whole
token of ``user.opening``, ``user.script`` or ``user.persona`` — the persona is what
an LLM user knows about itself, like the facts) or appeared in the output of an
earlier call (a read, or a write that returned a new id).

An argument counts as an identifier when it is a string that is not one of the tool's
closed choices (a JSON-schema ``enum``) and either looks like an id (no whitespace,
at least one digit, not an ISO date or time; or an email address) or equals a
primary-key value of some table in the task's initial world. Free text (notes,
messages) has whitespace and is never an identifier. The trade-off: a one-word
string that is neither id-shaped nor a key (a coupon word without digits) is not
checked.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from statebox._model import Model
from statebox.domains import Domain
from statebox.judge._judge import Judge
from statebox.tasks import Task
from statebox.tools import Dispatcher, ToolCall

__all__ = ["IdentifierProblem", "lint_identifiers"]

_ID_SHAPE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_\-./:+]*$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$")
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?$")


class IdentifierProblem(Model):
    """One identifier a golden call needs that the agent cannot know."""

    step: int
    """Index of the golden call (0-based)."""
    tool: str
    """The call's tool."""
    argument: str
    """Argument path, e.g. ``booking_id`` or ``items.0.id``."""
    value: str
    """The identifier."""

    def __str__(self) -> str:
        return (
            f"identifier lint: golden call {self.step} ({self.tool}) argument "
            f"{self.argument}={self.value!r} is neither stated by the user nor returned by an "
            "earlier call; add it to user.facts and the script, or read it first"
        )


def _strings(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """Every string inside a JSON-like value, with its dotted path."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(v, f"{path}.{k}" if path else str(k))
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            yield from _strings(v, f"{path}.{i}" if path else str(i))


def _scalars(value: Any) -> Iterator[str]:
    """Every scalar inside a JSON-like value, as text (ints too: ids may be numeric)."""
    if isinstance(value, dict):
        for v in value.values():
            yield from _scalars(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _scalars(v)
    elif isinstance(value, str):
        yield value
    elif isinstance(value, int) and not isinstance(value, bool):
        yield str(value)


def _enum_values(schema: dict[str, Any]) -> dict[str, set[str]]:
    """Top-level argument → its closed string choices (``Literal`` parameters)."""
    out: dict[str, set[str]] = {}
    defs = schema.get("$defs", {})
    for name, prop in schema.get("properties", {}).items():
        choices: set[str] = set()
        stack = [prop]
        while stack:
            p = stack.pop()
            if "$ref" in p:
                stack.append(defs.get(p["$ref"].rsplit("/", 1)[-1], {}))
            choices.update(str(v) for v in p.get("enum", ()))
            if "const" in p:
                choices.add(str(p["const"]))
            for key in ("anyOf", "oneOf", "allOf"):
                stack.extend(p.get(key, ()))
            if isinstance(p.get("items"), dict):
                stack.append(p["items"])
        out[name] = choices
    return out


def _looks_like_id(value: str) -> bool:
    if _EMAIL.match(value):
        return True
    return bool(
        _ID_SHAPE.match(value) and any(ch.isdigit() for ch in value) and not _ISO_DATE.match(value)
    )


def _mentions(text: str, value: str) -> bool:
    """Whether ``value`` occurs in ``text`` as a whole token (``20`` is not in ``2025``)."""
    return re.search(rf"(?<![A-Za-z0-9]){re.escape(value)}(?![A-Za-z0-9])", text) is not None


def lint_identifiers(
    domain: Domain, task: Task, judge: Judge | None = None, *, spoken_only: bool = False
) -> list[IdentifierProblem]:
    """Find golden-call identifiers the agent could neither be told nor look up.

    Args:
        domain: The task's domain.
        task: The task.
        judge: A judge to reuse (its world cache); a fresh one otherwise.
        spoken_only: Count only what the user says (opening and script) as stated, not
            ``facts`` or ``persona``: the bar for tasks a scripted user must make
            solvable, since it reveals nothing but its script.

    Returns:
        One `IdentifierProblem` per undiscoverable identifier, by step and argument
        (empty when the task is clean). Steps after a failing golden call are not
        linted (golden replay reports that failure).
    """
    judge = judge or Judge(domain)
    initial = judge.worlds.initial_state(domain, task)
    keys: set[str] = set()
    for table, rows in initial.rows.items():
        if len(initial.primary_keys[table]) == 1:
            keys.update(str(k[0]) for k in rows if k[0] is not None)
    user = task.user
    if spoken_only:
        stated: set[str] = set()
        said = "\n".join([user.opening, *user.script])
    else:
        stated = {str(v) for v in user.facts.values() if v is not None}
        said = "\n".join([user.opening, user.persona, *user.script, *stated])
    seen: set[str] = set()
    problems: list[IdentifierProblem] = []
    world = judge.worlds.clone(domain, task)
    try:
        dispatcher = Dispatcher(world, domain.tools, None)
        for step, call in enumerate(task.golden):
            spec = domain.tools[call.tool]
            enums = _enum_values(spec.input_schema())
            for path, value in _strings(call.args):
                if value in enums.get(path.split(".", 1)[0], ()):
                    continue
                if not (_looks_like_id(value) or value in keys):
                    continue
                if value in stated or value in seen or _mentions(said, value):
                    continue
                problems.append(
                    IdentifierProblem(step=step, tool=call.tool, argument=path, value=value)
                )
            result = dispatcher.call(ToolCall(tool=call.tool, args=call.args))
            if not result.ok:
                break
            seen.update(_scalars(result.output))
    finally:
        world.close()
    return problems
