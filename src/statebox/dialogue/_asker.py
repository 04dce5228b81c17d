"""The agent side of eliciting facts: ask with the facts' phrases, read the answers.

`FactGatherer` is what the privileged agents (the oracle, the fault-injection agent,
the scripted "perfect model") use to talk to a user: first ask for every fact of the
task, one direct question each, following up on the ones not answered; then, before
each golden call that passes a fact's value, make sure the user actually said that
value — asking again when it is missing, and saying it does not match when the user
gave another one (so a user who misremembers corrects it). It never passes a value the
user did not say: with ``verify=False`` (a fault) it passes what the user said instead.

It is a plain state machine fed with what each side said, so the scripted server can
rebuild it from a stateless conversation and reach the same step.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Mapping
from typing import Any, Literal, NamedTuple

from statebox.dialogue._text import ask_sentence, asked_facts, join_asks, mentions
from statebox.tasks import Fact, Task
from statebox.world import Scalar

__all__ = ["FactGatherer", "GatherStep", "value_said"]

_EMAIL = re.compile(r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}")
_EMAIL_FULL = re.compile(r"^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$")
_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _shape(value: Scalar) -> re.Pattern[str] | None:
    """A pattern matching values of the same shape (for reading a misremembered one)."""
    if not isinstance(value, str) or " " in value or not any(c.isdigit() for c in value):
        return _EMAIL if isinstance(value, str) and _EMAIL_FULL.match(value) else None
    if _ISO.match(value):
        return re.compile(r"(?<![\d-])\d{4}-\d{2}-\d{2}(?![\d-])")
    parts = ["[A-Za-z]" if c.isalpha() else r"\d" if c.isdigit() else re.escape(c) for c in value]
    return re.compile(r"(?<![A-Za-z0-9])" + "".join(parts) + r"(?![A-Za-z0-9])")


def value_said(text: str, fact: Fact, others: set[str] = frozenset()) -> Scalar | None:  # type: ignore[assignment]
    """The value ``text`` gives for ``fact``: the true one, its slip, or one of its shape.

    Args:
        text: The user's words.
        fact: The fact asked for.
        others: Other facts' values (never read as this fact's).

    Returns:
        The value, or None when the text gives none.
    """
    if fact.value is not None and mentions(text, str(fact.value)):
        return fact.value
    if fact.first is not None and mentions(text, str(fact.first)):
        return fact.first
    if fact.say and "{value}" not in fact.say and fact.words().lower() in text.lower():
        return fact.value  # the user's own words for a fact said without its value
    pattern = _shape(fact.value)
    if pattern is None:
        return None
    for m in pattern.finditer(text):
        token = m.group(0).rstrip(".")
        if token not in others:
            return token
    return None


class GatherStep(NamedTuple):
    """What the agent does next.

    Attributes:
        kind: ``ask`` (send ``text`` to the user), ``call`` (make the call with
            ``args``), ``end`` (give up with ``text``: a needed fact was never given).
        text: The message (ask, end).
        args: The call's arguments with the values the user gave (call).
    """

    kind: Literal["ask", "call", "end"]
    text: str = ""
    args: dict[str, Any] | None = None


def _values(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for v in value.values():
            yield from _values(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _values(v)
    else:
        yield value


def _replace(value: Any, old: Scalar, new: Scalar) -> Any:
    if isinstance(value, dict):
        return {k: _replace(v, old, new) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_replace(v, old, new) for v in value]
    return new if value == old and type(value) is type(old) else value


class FactGatherer:
    """Asks a user for a task's facts and hands out call arguments they back.

    Args:
        task: The task (its facts are what is asked for).
        verify: Say so when the user's value does not match before using it (False: a
            fault — use whatever the user said).
        follow_up: Ask again for facts the first round left unanswered (False: a
            fault — give up when a call needs one).
        repeat_ask: Ask once more for a fact already given (a fault).
        max_asks: Times one fact is asked for (checks included) before giving up.
    """

    def __init__(
        self,
        task: Task,
        *,
        verify: bool = True,
        follow_up: bool = True,
        repeat_ask: bool = False,
        max_asks: int = 3,
    ) -> None:
        self.facts: Mapping[str, Fact] = task.user.facts
        self.verify = verify
        self.follow_up = follow_up
        self.max_asks = max_asks
        self.said: dict[str, Scalar] = {}
        """Fact name → the value the user last gave."""
        self.asks: Counter[str] = Counter()
        self._last: list[str] = []
        self._repeat_pending = repeat_ask
        self._rounds = 0

    # ------------------------------------------------------------------ what was said

    def agent_said(self, text: str) -> None:
        """Record a message the agent sent (which facts it asked for)."""
        self._last = asked_facts(text, self.facts)
        if any(n in self.said for n in self._last):
            self._repeat_pending = False  # asked again for a fact already given
        self.asks.update(self._last)
        self._rounds += 1

    def user_said(self, text: str) -> None:
        """Record a user message.

        Every fact whose value it states, and what it gives for the facts just asked for.
        """
        for name, fact in self.facts.items():
            others = {str(f.value) for n, f in self.facts.items() if n != name}
            if name in self._last:
                v = value_said(text, fact, others)
            elif fact.value is not None and mentions(text, str(fact.value)):
                v = fact.value
            else:
                v = None
            if v is not None:
                self.said[name] = v

    # ------------------------------------------------------------------ what to do

    def _phrase(self, name: str) -> str:
        return self.facts[name].ask[0]

    def opening_message(self) -> str | None:
        """The next message of the asking phase, or None once the phase is over.

        Send it, then `agent_said` it. It depends only on what was said, so a replay of
        the same conversation reaches the same message.
        """
        missing = [n for n in self.facts if n not in self.said]
        if missing and self._rounds == 0:
            return "Happy to help. " + join_asks([self._phrase(n) for n in missing])
        if missing and self.follow_up:
            # Follow-ups ask one fact at a time: a user who answers one question per
            # message is asked each missing fact in turn, not all of them again.
            ask = [n for n in missing if self.asks[n] < self.max_asks]
            if ask:
                return ask_sentence(self._phrase(ask[0]))
        if self._repeat_pending and self.said:
            name = next(n for n in self.facts if n in self.said)
            question = ask_sentence(self._phrase(name))
            return "Sorry, " + question[0].lower() + question[1:]
        return None

    def for_call(self, args: dict[str, Any]) -> GatherStep:
        """The arguments of a golden call with the user's values, or a message first.

        A fact's true value in ``args`` must have been said by the user; its declared
        slip may be passed when that is what the user said.
        """
        present = [v for v in _values(args) if v is not None]
        for name, fact in self.facts.items():
            said = self.said.get(name)
            if fact.first is not None and fact.first in present and said == fact.first:
                continue
            if fact.value is None or fact.value not in present:
                continue
            if said == fact.value:
                continue
            phrase = self._phrase(name)
            if self.asks[name] >= self.max_asks or (said is None and not self.follow_up):
                if said is not None and not self.verify:
                    args = _replace(args, fact.value, said)
                    continue
                return GatherStep("end", f"I'm sorry, I can't go on without your {phrase}.")
            if said is None:
                return GatherStep("ask", ask_sentence(phrase))
            if not self.verify:
                args = _replace(args, fact.value, said)
                continue
            label = fact.name_in_text
            return GatherStep(
                "ask",
                f"I couldn't find a match for that {label}. Could you double-check your {phrase}?",
            )
        return GatherStep("call", args=args)
