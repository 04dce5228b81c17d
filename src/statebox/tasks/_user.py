"""The simulated user's part of a task: facts with their ask phrases, goal, behaviour.

One `UserSpec` is the single source of truth for every player of the user — the
rule-based user, the LLM user and a person at the terminal all get exactly these facts
and this behaviour. There is no turn-indexed script: a user answers what the agent asks
for (docs/users.md).
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import Field, field_validator, model_validator

from statebox._model import Model
from statebox.world import Scalar

__all__ = ["BehaviourSpec", "Fact", "UserSpec", "default_ask"]

_VALUE = re.compile(r"(?<![A-Za-z0-9@])[A-Za-z0-9][A-Za-z0-9_\-./@+:]*[A-Za-z0-9]|\d")


def default_ask(name: str) -> tuple[str, ...]:
    """Ask phrases derived from a fact's name: ``order_id`` → ``order id``, ``order number``."""
    words = name.replace("_", " ").strip()
    phrases = [words]
    if words.endswith(" id"):
        base = words[: -len(" id")]
        phrases += [f"{base} number", f"{base} ID"]
    return tuple(dict.fromkeys(phrases))


class Fact(Model):
    """One thing only the user knows, and how an agent can ask for it."""

    value: Scalar
    """The value (an id, an email, a date, an amount, a name, a choice)."""
    ask: tuple[str, ...] = Field(min_length=1)
    """Phrases an agent may use to ask for it (case-insensitive, whole words), e.g.
    ``order number``, ``order id``. The user reveals the fact only when a question or
    request of the agent's message contains one of them."""
    label: str = ""
    """How the user names it in a sentence (default: the first ask phrase)."""
    say: str = ""
    """The user's words when asked, with ``{value}`` (default: ``My {label} is {value}.``)."""
    first: Scalar = None
    """A slip: what the user says the first time instead of ``value``. They believe it
    until the agent says it does not match (or asks them to double-check it), then give
    ``value``. None: no slip."""

    @field_validator("ask")
    @classmethod
    def _phrases(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if any(not p.strip() for p in v):
            raise ValueError("an ask phrase is empty")
        return tuple(p.strip() for p in v)

    @property
    def name_in_text(self) -> str:
        """The label, or the first ask phrase."""
        return self.label or self.ask[0]

    def words(self, value: Scalar | None = None) -> str:
        """The sentence the user says for this fact (``value`` overrides the true one)."""
        v = self.value if value is None else value
        template = self.say or "My {label} is {value}."
        return template.replace("{label}", self.name_in_text).replace("{value}", str(v))


class BehaviourSpec(Model):
    """How the user reacts to what the agent proposes, refuses or offers."""

    confirm: bool = True
    """Whether the user agrees when the agent proposes the change (asks to go ahead)."""
    agree: str = "Yes, please go ahead."
    """Said when agreeing to a proposed change or accepting an alternative."""
    decline: str = "No, please leave it as it is."
    """Said when declining a proposed change (``confirm: false``) or an alternative."""
    pushback: int = Field(0, ge=0, le=5)
    """How many times the user pushes back on a refusal before accepting it."""
    push: str = "Are you sure? Is there really nothing you can do?"
    """Said when pushing back on a refusal."""
    accept: str = "Okay, I understand. Thanks anyway."
    """Said when accepting a refusal (the user then ends the conversation)."""
    alternative: bool = False
    """Whether the user accepts an alternative the agent offers instead of the request."""
    unknown: str = "Sorry, I don't know that."
    """Said when asked for something that is not in the facts."""
    thanks: str = "Great, thank you. That's all."
    """Said when the agent reports the request done (the user then ends)."""
    requests: int | None = Field(None, ge=1, le=5)
    """How many requests the user came with (None: one per ``intent:`` tag of the task, at
    least one). A refusal accepted or a request reported done closes one; the user ends
    after the last, so an agent that answers one request first still hears the other."""
    more: str = "Thanks. And my other request?"
    """Said when a request is closed and another is still open."""
    changed_from: str = ""
    """For the ``changes-goal`` behaviour: a related request the user opens with before
    switching to the task's own request in their first reply ('' : the behaviour says
    so and keeps the task's opening)."""


class UserSpec(Model):
    """The simulated user: what they say first, who they are, what only they know."""

    opening: str
    """The user's first message (every player opens with it verbatim)."""
    persona: str = ""
    """Who the user is, in their own role (never a place for facts the agent needs)."""
    goal: str = ""
    """What the user wants, in their words."""
    facts: dict[str, Fact] = {}
    """Private facts by name, each revealed only when asked for with one of its phrases.
    A plain value (``email: a@b.c``) is a fact whose ask phrases come from its name."""
    behaviour: BehaviourSpec = BehaviourSpec()
    """How the user reacts to proposals, refusals, alternatives and unknown questions."""

    @field_validator("opening")
    @classmethod
    def _says_something(cls, value: str) -> str:
        # A blank opening is a draft's TODO: deleted, not filled in: nothing to grade.
        if not value.strip():
            raise ValueError("the user's opening is empty: write what the user says first")
        return value

    @model_validator(mode="before")
    @classmethod
    def _shapes(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        if "script" in data:
            raise ValueError(_script_message(data))
        facts = data.get("facts")
        if isinstance(facts, dict):
            data = dict(data)
            data["facts"] = {
                k: {"value": v, "ask": list(default_ask(str(k)))}
                if not isinstance(v, dict | list)
                else v
                for k, v in facts.items()
            }
        return data


def _script_message(data: dict[str, Any]) -> str:
    """The error for an old task file with a turn-indexed ``user.script``."""
    lines = data.get("script")
    said = " ".join(str(x) for x in lines) if isinstance(lines, list | tuple) else str(lines)
    known = " ".join(
        [str(data.get("opening", ""))]
        + [
            str(v.get("value") if isinstance(v, dict) else v)
            for v in (data.get("facts") or {}).values()
        ]
        if isinstance(data.get("facts") or {}, dict)
        else [str(data.get("opening", ""))]
    )
    only = sorted(
        {t for t in _VALUE.findall(said) if any(c.isdigit() for c in t) and t not in known}
    )
    hint = f"; values only the script holds: {', '.join(only)}" if only else ""
    return (
        "user.script (turn-indexed replies) is no longer supported: the user answers what "
        "the agent asks for. Move every value the script states into user.facts, each with "
        "the phrases an agent may ask for it (facts: {name: {value: ..., ask: [...]}}), and "
        "reactions into user.behaviour (confirm, pushback, alternative), then delete "
        f"script{hint}"
    )
