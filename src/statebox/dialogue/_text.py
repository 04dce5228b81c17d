"""Reading an agent's message: sentences, requests, ask phrases and cues.

Everything here is deterministic string work, shared by the rule-based user (what did
the agent ask for?), the privileged agents that ask for facts, and the grounding audit
(was a fact asked for before the user said it?). Matching is case-insensitive and by
whole words, so ``order number`` is not found inside ``reorder numbers``.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

from statebox.tasks import Fact

__all__ = [
    "ALTERNATIVE_CUES",
    "CHECK_CUES",
    "COMPLETION_CUES",
    "OPEN_QUESTION_CUES",
    "PROPOSAL_CUES",
    "REFUSAL_CUES",
    "SMALL_TALK_CUES",
    "ask_sentence",
    "asked_facts",
    "has_cue",
    "is_question",
    "is_request",
    "join_asks",
    "mentions",
    "sentences",
]

_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")

REQUEST_CUES = (
    "please",
    "could you",
    "can you",
    "would you",
    "may i have",
    "may i ask",
    "tell me",
    "let me know",
    "provide",
    "share",
    "i need",
    "i'll need",
    "i will need",
    "we need",
    "give me",
    "send me",
    "confirm",
    "what is",
    "what's",
    "which",
    "how many",
    "how much",
)
"""Words that make a sentence a request even without a question mark."""

PROPOSAL_CUES = (
    "shall i",
    "should i",
    "do you want me to",
    "would you like me to",
    "want me to",
    "may i proceed",
    "can i proceed",
    "shall we proceed",
    "would you like to proceed",
    "do you want to proceed",
    "go ahead",
    "ok to proceed",
    "okay to proceed",
    "do you confirm",
    "please confirm that",
    "can you confirm that",
    "could you confirm that",
    "confirm that you",
    "is that ok",
    "is that okay",
    "is that alright",
    "are you okay with",
    "do you agree",
    "do you accept",
    "would you like",
    "would that work",
    "does that work",
    "work for you",
    "works for you",
)
"""The agent proposes a change and waits for a yes or no."""

ALTERNATIVE_CUES = (
    "instead",
    "alternatively",
    "as an alternative",
    "what i can do",
    "i can offer",
    "i could offer",
    "another option",
    "other option",
)
"""The agent offers something other than what the user asked for."""

REFUSAL_CUES = (
    "can't",
    "cannot",
    "can not",
    "unable to",
    "not able to",
    "not possible",
    "not eligible",
    "isn't eligible",
    "ineligible",
    "not allowed",
    "doesn't allow",
    "does not allow",
    "won't be able",
    "must decline",
    "have to decline",
    "not permitted",
    "unfortunately",
    "i'm afraid",
    "i am afraid",
)
"""The agent says the request cannot be met."""

CHECK_CUES = (
    "doesn't match",
    "does not match",
    "didn't match",
    "did not match",
    "don't match",
    "do not match",
    "no match",
    "couldn't find",
    "could not find",
    "can't find",
    "cannot find",
    "unable to find",
    "no record",
    "not found",
    "couldn't verify",
    "could not verify",
    "unable to verify",
    "can't verify",
    "cannot verify",
    "verification failed",
    "failed",
    "double-check",
    "double check",
    "check again",
    "are you sure",
    "incorrect",
    "not correct",
)
"""The agent says a value the user gave does not match, or asks them to check it."""

COMPLETION_CUES = (
    "has been",
    "have been",
    "is now",
    "are now",
    "successfully",
    "all set",
    "all done",
    "is done",
    "i've ",
    "completed",
    "processed",
)
"""The agent reports the request done."""

OPEN_QUESTION_CUES = (
    "how can i help",
    "how may i help",
    "what can i do for you",
    "what can i help",
    "how can i assist",
    "how may i assist",
    "what brings you",
    "what do you need",
    "what would you like",
)
"""The agent asks what the user wants."""

SMALL_TALK_CUES = (
    "how are you",
    "how's your day",
    "how is your day",
    "hope you're",
    "hope you are",
    "nice weather",
    "lovely day",
)
"""Chit-chat that asks for nothing."""

_QUESTION_WORDS = (
    "what",
    "which",
    "how",
    "when",
    "where",
    "who",
    "whose",
    "why",
    "do",
    "does",
    "did",
    "is",
    "are",
    "was",
    "were",
    "have",
    "has",
    "can",
    "will",
    "would",
)


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` (split after ``.!?`` followed by a space, and at new lines)."""
    return [s.strip() for s in _SPLIT.split(text) if s.strip()]


@lru_cache(maxsize=4096)
def _pattern(phrase: str) -> re.Pattern[str]:
    words = [re.escape(w) for w in phrase.split()]
    return re.compile(r"(?<![A-Za-z0-9])" + r"\s+".join(words) + r"(?![A-Za-z0-9])", re.I)


def mentions(text: str, phrase: str) -> bool:
    """Whether ``phrase`` occurs in ``text`` as whole words, case-insensitively."""
    return bool(phrase.strip()) and _pattern(phrase.strip()).search(text) is not None


def _spans(text: str, phrase: str) -> list[tuple[int, int]]:
    return [m.span() for m in _pattern(phrase.strip()).finditer(text)]


@lru_cache(maxsize=256)
def _cue_pattern(cues: tuple[str, ...]) -> re.Pattern[str] | None:
    """One search for a tuple of cues: the alternation of each cue's own test."""
    parts = []
    for cue in cues:
        if cue.endswith(" "):
            parts.append(re.escape(f" {cue}"))  # a plain, case-sensitive substring
        elif cue.strip():
            words = [re.escape(w) for w in cue.strip().split()]
            parts.append(r"(?i:(?<![A-Za-z0-9])" + r"\s+".join(words) + r"(?![A-Za-z0-9]))")
    return re.compile("|".join(parts)) if parts else None


@lru_cache(maxsize=4096)
def _phrase_needs(phrase: str) -> str:
    """What an ASCII text must hold for `_pattern` of ``phrase`` to match in it.

    Its longest word, lowercased: a case-insensitive ASCII match is a lowercase one.
    ``""`` (always there) when a word is not ASCII.
    """
    words = [w.lower() for w in phrase.split()]
    if not words or not all(w.isascii() for w in words):
        return ""
    return max(words, key=len)


@lru_cache(maxsize=256)
def _cue_needs(cues: tuple[str, ...]) -> tuple[tuple[str, bool, str], ...]:
    """Per cue of `_cue_pattern`'s: (cue, whether it is a plain substring, what it needs).

    A plain cue needs its own text (`` cue``), and is found exactly when that is in the
    text. A word cue needs its longest word, lowercased, somewhere in an ASCII text
    (``""`` when a word is not ASCII: then it is always searched for).
    """
    out = []
    for cue in cues:
        if cue.endswith(" "):
            out.append((cue, True, f" {cue}"))
        elif cue.strip():
            words = [w.lower() for w in cue.strip().split()]
            ascii_words = all(w.isascii() for w in words)
            out.append((cue, False, max(words, key=len) if ascii_words else ""))
    return tuple(out)


def has_cue(text: str, cues: Iterable[str]) -> bool:
    """Whether any cue occurs in ``text`` (cues ending in a space match a word start)."""
    low = " " + text.lower().replace("’", "'") + " "
    if isinstance(cues, tuple):  # the cue lists: one search instead of one per cue
        if low.isascii():
            # In an ASCII text a word cue can match only where each of its words occurs
            # (a case-insensitive ASCII match is a lowercase one), so the search runs
            # over the cues whose longest word is there; a plain cue there is a match.
            live = []
            for cue, plain, needs in _cue_needs(cues):
                if needs in low:
                    if plain:
                        return True
                    live.append(cue)
            if not live:
                return False
            pattern = _cue_pattern(tuple(live))
        else:
            pattern = _cue_pattern(cues)
        return pattern is not None and pattern.search(low) is not None
    for cue in cues:
        if cue.endswith(" "):
            if f" {cue}" in low:
                return True
        elif mentions(low, cue):
            return True
    return False


def is_question(sentence: str) -> bool:
    """A direct question: the sentence ends with a question mark."""
    return sentence.rstrip().endswith("?")


def is_request(sentence: str) -> bool:
    """A question, or a sentence with a request cue (``please provide``, ``I need``...)."""
    return is_question(sentence) or has_cue(sentence, REQUEST_CUES)


def asked_facts(text: str, facts: Mapping[str, Fact], *, direct_only: bool = False) -> list[str]:
    """The facts a message asks for, in the order the message asks them.

    A fact is asked when one of its phrases occurs in a request sentence (a direct
    question only, with ``direct_only``). A phrase overlapping a longer phrase of
    another fact (``email`` inside ``new email``) does not count for the shorter one.
    """
    found: list[tuple[int, str]] = []
    at = 0  # where the next sentence is looked for: sentences come in the text's order
    for sentence in sentences(text):
        i = text.find(sentence, at)
        offset, at = (i, i + len(sentence)) if i >= 0 else (at, at)
        if not (is_question(sentence) if direct_only else is_request(sentence)):
            continue
        hits: list[tuple[int, int, str]] = []
        # An ASCII sentence holds a phrase only where its longest word, lowercased, is
        # (see `_phrase_needs`): the phrases whose word is absent are not searched for.
        low = sentence.lower() if sentence.isascii() else None
        for name, fact in facts.items():
            for phrase in fact.ask:
                if low is not None and _phrase_needs(phrase) not in low:
                    continue
                hits += [(a, b, name) for a, b in _spans(sentence, phrase)]
        found += [(offset + a, name) for a, b, name in _unshadowed(hits)]
    out: list[str] = []
    for _, name in sorted(found):
        if name not in out:
            out.append(name)
    return out


def _unshadowed(hits: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """The hits no longer overlapping hit of another fact shadows.

    Only a hit starting less than the longest hit's length before another's end can
    overlap it, so each hit is checked against that window of the hits sorted by start,
    not against all of them: an agent's message repeating a phrase thousands of times
    costs linear time, not quadratic.
    """
    hits = sorted(hits)
    starts = [a for a, _, _ in hits]
    longest = max((b - a for a, b, _ in hits), default=0)
    out = []
    for a, b, name in hits:
        window = hits[bisect_right(starts, a - longest) : bisect_left(starts, b)]
        if not any(n2 != name and a < b2 and (b2 - a2) > (b - a) for a2, b2, n2 in window):
            out.append((a, b, name))
    return out


def ask_sentence(phrase: str) -> str:
    """A direct question asking for one fact by its phrase."""
    first = phrase.split()[0].lower() if phrase.split() else ""
    if first in _QUESTION_WORDS:
        return phrase[0].upper() + phrase[1:] + "?"
    return f"Could you tell me your {phrase}?"


def join_asks(phrases: Sequence[str]) -> str:
    """One message asking for several facts, one direct question each."""
    return " ".join(ask_sentence(p) for p in phrases)
