"""The grounding audit's shape extraction skips searches only where they find nothing.

`_Shapes` leaves out the email search without an "@", the date, identifier and amount
searches without a digit, a date pattern's substitution when it matched nothing; the
reference below is the extraction as it was, every search run on every text.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from statebox.dialogue import _grounding as g


def reference_dates(text: str) -> tuple[set[str], str]:
    found: set[str] = set()
    for i, pattern in enumerate(g._DATES):
        for m in pattern.finditer(text):
            x = m.groups()
            if i == 0:
                y, mo, d = x[0], x[1], x[2]
            elif i == 1:
                mo, d, y = str(g._month(x[0])), x[1], x[2]
            elif i == 2:
                d, mo, y = x[0], str(g._month(x[1])), x[2]
            else:
                mo, d, y = x[0], x[1], x[2]
            md = f"{int(mo):02d}-{int(d):02d}"
            found.add(md)
            if y:
                found.add(f"{y}-{md}")
        text = pattern.sub(" ", text)
    return found, text


def reference(text: str) -> tuple[set[str], set[str], set[str], set[float], list[str]]:
    emails = {e.lower().rstrip(".") for e in g._EMAIL.findall(text)}
    rest = g._EMAIL.sub(" ", text)
    dates, rest = reference_dates(rest)
    ids: set[str] = set()
    for tok in g._ID.findall(rest):
        tok = tok.rstrip(".")
        if len(tok) < 3 or g._DIGIT.search(tok) is None:
            continue
        if (tok.upper() != tok.lower() or "-" in tok) and g._number(tok) is None:
            ids.add(tok.lower())
    rest = g._ID.sub(lambda m: " " if m.group(0).rstrip(".").lower() in ids else m.group(0), rest)
    amounts = {n for t in g._NUMBER.findall(rest) if (n := g._number(t)) is not None}
    names: list[str] = []
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", rest):
        for m in g._NAME.finditer(sentence):
            words = [w for w in re.split(r"[ -]", m.group(0)) if w]
            while words and words[0].lower().replace("’", "'") in g._STOP:
                words.pop(0)
            if not words:
                continue
            at_start = m.start() == 0 or not sentence[: m.start()].strip()
            if at_start and len(words) == 1 and m.group(0) == words[0]:
                continue
            names.append(" ".join(words))
    return emails, dates, ids, amounts, names


PIECES = [
    "My", "email", "is", "Ann.Lee@example.com", "a@b", "@", "order", "ORD-10000020", "ord-7",
    "2026-03-04", "2026-3-4", "March", "3", "3rd", "of", "May", "2026", "12/05/2026", "1/2/2026",
    "$1,200.50", "42", "4.5", "٣", "١٢/٠٥/٢٠٢٦", "Jean-Luc", "Picard", "Hi", "Thanks", "Sarah",
    "O'Brien", "-", "/", ".", "?", "!", ",", "\n", " ", "A1B2", "x9", "#12",
]  # fmt: skip
texts = st.lists(st.sampled_from(PIECES), max_size=16).map(" ".join) | st.text(max_size=40)


@settings(max_examples=800)
@given(texts)
def test_shapes_match_the_extraction_with_every_search_run(text: str) -> None:
    s = g._Shapes(text)
    assert (s.emails, s.dates, s.ids, s.amounts, s.names) == reference(text)


NAME_PIECES = [
    "Ann", "ann", "ANN", "Lee", "O'Brien", "O’Brien", "Jean-Luc", "Kelvin", "K", "é", "Zoë",
    "x9", "9", " ", "\n", ".", "-", "'", "Annette", "Lee2", "Roſe", "İth",
]  # fmt: skip
name_texts = st.lists(st.sampled_from(NAME_PIECES), max_size=10).map("".join) | st.text(max_size=20)
name_words = st.sampled_from(
    ["Ann", "Lee", "O'Brien", "Zoë", "x9", "Jean", "Rose", "Ith"]
) | st.text(st.characters(blacklist_categories=("Z", "C")), min_size=1, max_size=6)


@settings(max_examples=800)
@given(name_texts, name_texts, name_words)
def test_a_grounded_name_word_is_what_mentions_finds_in_the_joined_texts(
    known: str, heard: str, word: str
) -> None:
    want = g.mentions(f"{known}\n{heard}", word)
    assert g._grounded_word(known, g._known_words(known), heard, word) == want
