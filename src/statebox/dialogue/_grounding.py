"""The grounding audit: did the simulated user say only what it was given, when asked?

Every follow-up user turn (the opening is the task's own words) is checked
deterministically:

* **ungrounded** — an identifier, email, date, amount or name that is in none of the
  user's spec (opening, persona, goal, facts, its behaviour lines, the plan's declared
  slips) nor what the agent has said so far. A simulated user that invents an order id,
  a date or a name is flagged, every time it says it; one that repeats what the agent
  said is not.
* **volunteered** — a fact stated before any agent message asked for it (by one of its
  ask phrases) and before the agent itself said its value. Facts the opening states are
  never volunteered.

Extraction is by shape: emails; ISO, ``March 3(, 2026)``, ``3 March 2026`` and
``3/4/2026`` dates; identifiers (a token with a digit and a letter or a dash, three
characters or more); amounts (other numbers, ``$1,200.50`` read as 1200.5); names
(runs of capitalised words, leading greetings and function words dropped; grounded when
every word occurs in what the user knows). The trade-off: a one-word name opening a
sentence, a lowercase name, or an invented fact with no digit and no capital (``the
blue one``) is not seen.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Literal

from statebox._model import Model
from statebox.dialogue._text import asked_facts, mentions
from statebox.tasks import UserSpec

__all__ = ["GroundingAudit", "UngroundedValue", "VolunteeredFact", "audit_user_turns"]

_EMAIL = re.compile(r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}")
_MONTHS = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december",
)  # fmt: skip
_MONTH = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DATES = (
    re.compile(r"(?<![\d-])(\d{4})-(\d{2})-(\d{2})(?![\d-])"),
    re.compile(rf"(?i)\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(\d{{4}}))?\b"),
    re.compile(rf"(?i)\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}(?:,?\s+(\d{{4}}))?\b"),
    re.compile(r"(?<![\d/])(\d{1,2})/(\d{1,2})/(\d{4})(?![\d/])"),
)
_ID = re.compile(r"(?<![A-Za-z0-9])[A-Za-z0-9][A-Za-z0-9\-_/.#]*[A-Za-z0-9](?![A-Za-z0-9])")
_NUMBER = re.compile(r"(?<![A-Za-z0-9.])[$€£]?\d[\d,]*(?:\.\d+)?(?![A-Za-z0-9])")
_DIGIT = re.compile(r"[0-9]")
_ANY_DIGIT = re.compile(r"\d")
_RUN = re.compile(r"[a-z0-9]+")
_NAME = re.compile(r"\b[A-Z][a-z'’]+(?:[ -][A-Z][a-z'’]+)*\b")
_NAME_PARTS = re.compile(r"[ -]")
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_STOP_WORDS = """
    i i'm i've i'd i'll my me mine the a an hi hello hey thanks thank yes no nope okay ok
    sorry please great fine actually just can could would will it it's its that that's this
    we our us sure bye goodbye alright oh well also and but so what which when where why
    how who do does did is are was were be been have has had not nothing anything something
    you your yours they them their there here then now today tomorrow yesterday if as at on
    in of for to from with by about after before perfect awesome wonderful right correct
    understood cheers dear sir madam mr mrs ms miss dr hmm um uh wait look listen honestly
    basically anyway otherwise again still only maybe perhaps sounds let let's
    monday tuesday wednesday thursday friday saturday sunday
"""
_STOP = frozenset(re.split(r"\s+", _STOP_WORDS.strip())) | set(_MONTHS)


class UngroundedValue(Model):
    """A value a user turn states that nothing the user knows or heard holds."""

    turn: int
    """Index of the user turn (0 is the opening; follow-ups count from 1)."""
    kind: Literal["identifier", "email", "date", "amount", "name"]
    """What shape it has."""
    value: str
    """The value as said."""


class VolunteeredFact(Model):
    """A fact the user stated before it was asked for."""

    turn: int
    """Index of the user turn."""
    fact: str
    """The fact's name."""


class GroundingAudit(Model):
    """The grounding audit of one trial's user turns."""

    user_turns: int = 0
    """Follow-up user turns audited (the opening is not counted)."""
    ungrounded_turns: int = 0
    """Follow-up turns with at least one ungrounded value."""
    volunteered_turns: int = 0
    """Follow-up turns that volunteered at least one fact."""
    ungrounded: tuple[UngroundedValue, ...] = ()
    """Every ungrounded value, by turn."""
    volunteered: tuple[VolunteeredFact, ...] = ()
    """Every volunteered fact, by turn."""


def _dates(text: str) -> tuple[set[str], str]:
    """Normalised dates (``MM-DD`` and ``YYYY-MM-DD``) and the text with them blanked."""
    found: set[str] = set()
    for i, pattern in enumerate(_DATES):
        if (i == 0 and "-" not in text) or (i == 3 and "/" not in text):
            continue  # the ISO pattern needs a "-", the numeric one a "/"
        matches = list(pattern.finditer(text))
        for m in matches:
            g = m.groups()
            if i == 0:
                y, mo, d = g[0], g[1], g[2]
            elif i == 1:
                mo, d, y = str(_month(g[0])), g[1], g[2]
            elif i == 2:
                d, mo, y = g[0], str(_month(g[1])), g[2]
            else:
                mo, d, y = g[0], g[1], g[2]
            md = f"{int(mo):02d}-{int(d):02d}"
            found.add(md)
            if y:
                found.add(f"{y}-{md}")
        if matches:  # with none, the substitution would give ``text`` back
            text = pattern.sub(" ", text)
    return found, text


def _month(word: str) -> int:
    w = word.lower().rstrip(".")[:3]
    return next(i for i, m in enumerate(_MONTHS, 1) if m.startswith(w))


def _number(token: str) -> float | None:
    try:
        return float(token.lstrip("$€£").replace(",", ""))
    except ValueError:
        return None


class _Shapes:
    """The emails, dates, identifiers, amounts and name words of a text."""

    def __init__(self, text: str) -> None:
        # Emails need an "@"; dates, identifiers and amounts a digit (``\d``, which every
        # such pattern needs): a text without is not searched for them.
        self.emails: set[str] = set()
        rest = text
        if "@" in text:
            self.emails = {e.lower().rstrip(".") for e in _EMAIL.findall(text)}
            rest = _EMAIL.sub(" ", text)
        digits = _ANY_DIGIT.search(rest) is not None
        self.dates: set[str] = set()
        if digits:
            self.dates, rest = _dates(rest)
        self.ids: set[str] = set()
        for tok in _ID.findall(rest) if digits else ():
            tok = tok.rstrip(".")
            # Tokens are ASCII: a digit is [0-9], a letter [A-Za-z] (tested cheapest first).
            if len(tok) < 3 or _DIGIT.search(tok) is None:
                continue
            shaped = tok.upper() != tok.lower() or "-" in tok
            if shaped and _number(tok) is None:
                self.ids.add(tok.lower())
        if self.ids:  # with none, the substitution below would give ``rest`` back
            rest = _ID.sub(
                lambda m: " " if m.group(0).rstrip(".").lower() in self.ids else m.group(0), rest
            )
        self.amounts = {
            n for t in (_NUMBER.findall(rest) if digits else ()) if (n := _number(t)) is not None
        }
        self.names: list[str] = []
        for sentence in _SENTENCE.split(rest):
            for m in _NAME.finditer(sentence):
                words = [w for w in _NAME_PARTS.split(m.group(0)) if w]
                while words and words[0].lower().replace("’", "'") in _STOP:
                    words.pop(0)
                if not words:
                    continue
                at_start = m.start() == 0 or not sentence[: m.start()].strip()
                if at_start and len(words) == 1 and m.group(0) == words[0]:
                    continue  # one capitalised word opening a sentence: ordinary grammar
                self.names.append(" ".join(words))


@lru_cache(maxsize=1024)
def _known_shapes(text: str) -> _Shapes:
    """The shapes of what a user knows (its spec and plan), extracted once per text.

    The same for every trial of a task; read only.
    """
    return _Shapes(text)


@lru_cache(maxsize=1024)
def _known_words(text: str) -> frozenset[str] | None:
    """The lowercased runs of letters and digits of what a user knows (None: not ASCII).

    In an ASCII text, a word of only ASCII letters and digits `mentions` finds exactly
    where one of these runs is that word: the same every trial of a task, read only.
    """
    return frozenset(_RUN.findall(text.lower())) if text.isascii() else None


def _grounded_word(known: str, words: frozenset[str] | None, heard: str, word: str) -> bool:
    """Whether `mentions` finds ``word`` in ``known`` and ``heard`` joined by a new line.

    ``word`` holds no space, so a match lies in one of the two texts; in ``known`` it is
    looked up in ``words`` (`_known_words`) where that is exact.
    """
    if words is not None and word.isascii() and word.isalnum():
        found = word.lower() in words
    else:
        found = mentions(known, word)
    return found or mentions(heard, word)


def _knowledge(spec: UserSpec, declared: Iterable[str]) -> list[str]:
    b = spec.behaviour
    texts = [spec.opening, spec.persona, spec.goal, b.changed_from]
    texts += [b.agree, b.decline, b.push, b.accept, b.unknown, b.thanks]
    for f in spec.facts.values():
        texts += [str(f.value), f.words()]
        if f.first is not None:
            texts.append(str(f.first))
    return [*texts, *declared]


def audit_user_turns(
    spec: UserSpec, turns: Sequence[tuple[str, str]], declared: Iterable[str] = ()
) -> GroundingAudit:
    """Audit a conversation's user turns.

    Args:
        spec: The user spec the user was given.
        turns: ``(speaker, text)`` in order, speaker ``user`` or ``agent``; the first
            user turn is the opening.
        declared: Values the behaviour plan had the user say (slips), grounded too.

    Returns:
        Counts and the flagged values and facts.
    """
    known = _knowledge(spec, declared)
    heard: list[str] = []
    agent_said: list[str] = []
    ungrounded: list[UngroundedValue] = []
    volunteered: list[VolunteeredFact] = []
    flagged_u: set[int] = set()
    flagged_v: set[int] = set()
    turn = -1
    known_text = "\n".join(known)
    base = _known_shapes(known_text)
    known_words = _known_words(known_text)
    asked: set[str] = set()  # facts the agent's messages so far asked for
    read = 0  # agent messages whose asked facts are in ``asked``
    for speaker, text in turns:
        if speaker != "user":
            agent_said.append(text)
            heard.append(text)
            continue
        turn += 1
        if turn == 0:
            continue  # the opening is in the spec
        heard_text = "\n".join(heard)
        context = _Shapes(heard_text)
        said = _Shapes(text)
        found: list[tuple[str, str]] = []
        found += [("email", e) for e in sorted(said.emails - base.emails - context.emails)]
        found += [("date", d) for d in sorted(said.dates - base.dates - context.dates)]
        found += [
            ("identifier", i)
            for i in sorted(said.ids - base.ids - context.ids)
            if i not in base.emails | context.emails
        ]
        found += [
            ("amount", f"{a:g}") for a in sorted(said.amounts - base.amounts - context.amounts)
        ]
        found += [
            ("name", n)
            for n in dict.fromkeys(said.names)
            if not all(_grounded_word(known_text, known_words, heard_text, w) for w in n.split())
        ]
        for kind, value in found:
            ungrounded.append(UngroundedValue(turn=turn, kind=kind, value=value))
            flagged_u.add(turn)
        for message in agent_said[read:]:
            asked.update(asked_facts(message, spec.facts))
        read = len(agent_said)
        agent_text = "\n".join(agent_said)
        for name, fact in spec.facts.items():
            values = [v for v in (fact.value, fact.first) if v is not None]
            if not any(mentions(text, str(v)) for v in values):
                continue
            if name in asked or any(mentions(spec.opening, str(v)) for v in values):
                continue
            if any(mentions(agent_text, str(v)) for v in values):
                continue
            volunteered.append(VolunteeredFact(turn=turn, fact=name))
            flagged_v.add(turn)
    return GroundingAudit(
        user_turns=max(turn, 0),
        ungrounded_turns=len(flagged_u),
        volunteered_turns=len(flagged_v),
        ungrounded=tuple(ungrounded),
        volunteered=tuple(volunteered),
    )
