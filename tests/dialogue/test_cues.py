"""`has_cue`'s prefilter finds exactly what one search over every cue finds."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from statebox.dialogue import _text
from statebox.tasks import Fact

CUE_LISTS = {
    name: getattr(_text, name) for name in dir(_text) if name.endswith("_CUES") and name.isupper()
}
WORDS = sorted(
    {w for cues in CUE_LISTS.values() for cue in cues for w in re.split(r"(\s+)", cue) if w}
)
# Case, apostrophes and characters whose case folding is not ASCII's (the Kelvin sign
# lowercases to "k", a long s matches "s" case-insensitively).
EXTRA = ["", " ", "  ", "\n", ".", "?", "!", ",", "’", "'", "-", "K", "ſ", "é", "İ", "ORD-1", "x"]
pieces = st.sampled_from(WORDS + [w.upper() for w in WORDS] + [w.title() for w in WORDS] + EXTRA)
texts = st.lists(pieces, max_size=14).map("".join)


def reference(text: str, cues: tuple[str, ...]) -> bool:
    """The search before the prefilter: one pattern of every cue over the whole text."""
    low = " " + text.lower().replace("’", "'") + " "
    pattern = _text._cue_pattern(cues)
    return pattern is not None and pattern.search(low) is not None


@settings(max_examples=600)
@given(texts, st.sampled_from(sorted(CUE_LISTS)))
def test_has_cue_agrees_with_one_search_over_every_cue(text: str, name: str) -> None:
    cues = CUE_LISTS[name]
    assert _text.has_cue(text, cues) == reference(text, cues)
    # The list form (one test per cue) agrees as well.
    assert _text.has_cue(text, list(cues)) == reference(text, cues)


def test_has_cue_finds_and_misses_known_cases() -> None:
    assert _text.has_cue("Could you double-check it?", _text.CHECK_CUES)
    assert not _text.has_cue("Your refund was issued.", _text.CHECK_CUES)
    # A non-ASCII text goes through the whole search: a long s is an "s" to it.
    assert _text.has_cue("Pleaſe share it", ("please",)) == reference(
        "Pleaſe share it", ("please",)
    )
    assert not _text.has_cue("anything", ())


FACTS = {
    "email": Fact(value="a@b.co", ask=("email", "email address", "new email")),
    "order": Fact(value="ORD-1", ask=("order number", "order ID", "order")),
    "name": Fact(value="Ann", ask=("full name", "name")),
    "odd": Fact(value="x", ask=("ſerial", "Kode")),  # not ASCII: always searched for
}
ASK_WORDS = sorted({w for f in FACTS.values() for p in f.ask for w in p.split()})
ask_pieces = st.sampled_from(
    ASK_WORDS + [w.upper() for w in ASK_WORDS] + WORDS[:40] + EXTRA + ["serial", "kode"]
)
messages = st.lists(ask_pieces, max_size=16).map(" ".join)


@settings(max_examples=600)
@given(messages, st.booleans())
def test_asked_facts_agrees_with_searching_every_phrase(text: str, direct: bool) -> None:
    got = _text.asked_facts(text, FACTS, direct_only=direct)
    real = _text._phrase_needs
    _text._phrase_needs = lambda phrase: ""  # type: ignore[assignment]  # every phrase searched
    try:
        want = _text.asked_facts(text, FACTS, direct_only=direct)
    finally:
        _text._phrase_needs = real
    assert got == want


def reference_asked(text: str, facts: dict[str, Fact], direct: bool) -> list[str]:
    """`asked_facts` as it was written first: every hit checked against every other."""
    found: list[tuple[int, str]] = []
    at = 0
    for sentence in _text.sentences(text):
        i = text.find(sentence, at)
        offset, at = (i, i + len(sentence)) if i >= 0 else (at, at)
        if not (_text.is_question(sentence) if direct else _text.is_request(sentence)):
            continue
        hits = [
            (a, b, name)
            for name, fact in facts.items()
            for phrase in fact.ask
            for a, b in _text._spans(sentence, phrase)
        ]
        for a, b, name in hits:
            if not any(
                n2 != name and a2 < b and a < b2 and (b2 - a2) > (b - a) for a2, b2, n2 in hits
            ):
                found.append((offset + a, name))
    out: list[str] = []
    for _, name in sorted(found):
        if name not in out:
            out.append(name)
    return out


@settings(max_examples=600)
@given(messages, st.booleans())
def test_asked_facts_agrees_with_checking_every_pair_of_hits(text: str, direct: bool) -> None:
    assert _text.asked_facts(text, FACTS, direct_only=direct) == reference_asked(
        text, FACTS, direct
    )


class _CountedName(str):
    """A fact name that counts the comparisons made with it."""

    compared = 0

    def __ne__(self, other: object) -> bool:
        _CountedName.compared += 1
        return str.__ne__(self, other)

    __hash__ = str.__hash__


def test_a_message_repeating_a_phrase_costs_comparisons_linear_in_its_hits() -> None:
    # An agent's message saying "order" thousands of times in one question used to
    # check every hit against every other: seconds of one server's event loop per
    # message, growing with the square of its length.
    facts = {_CountedName("order"): FACTS["order"], _CountedName("email"): FACTS["email"]}
    _CountedName.compared = 0
    hits = 3000
    assert _text.asked_facts("order " * hits + "?", facts) == ["order"]
    assert _CountedName.compared <= 10 * hits  # checked before: hits * hits
