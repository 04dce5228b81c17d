"""Facts in free text: one normal form for amounts, dates and ids, and whole-token matching.

Text checks (what the agent wrote into the database) and reply checks (what it told the
user) ask whether a fact appears in a text. Both sides go through `normalise` first, so
spelling never decides a verdict:

- case and runs of whitespace; typographic dashes are ``-``;
- dates: ISO (``2025-11-05``), ``November 5, 2025``, ``Nov 5 2025``, ``5 November
  2025``, ``11/05/2025`` (US order: the built-in domains are US businesses) and
  ``2025/11/05`` all become ``2025-11-05``;
- times: ``3 pm``, ``3:00 PM`` and ``15:00`` all become ``15:00`` (``9:00`` → ``09:00``);
- amounts: ``$1,250.00``, ``USD 1,250``, ``1250.0`` and ``1250`` all become ``1250``
  (currency signs and thousands separators dropped, trailing zeros cut). A number
  glued to letters, ``-``, ``/`` or ``:`` is part of an id, a date or a time and is
  left as it is.

A fact matches as whole tokens: ``1250`` is not found in ``12500`` nor in ``1250.5``,
``ORD-1`` not in ``ORD-10``; a word may carry a plural ending (``contractor`` is found in
``contractors``). Deterministic, no model. `respell` writes the same facts
another way (for the validator's plausible-alternative probes).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from decimal import Decimal, InvalidOperation

from statebox.tasks import CheckFact

__all__ = [
    "fact_values",
    "facts_in",
    "find_fact",
    "normalise",
    "normalise_fact",
    "replace_fact",
    "respell",
]

_MONTHS = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
    "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
}  # fmt: skip
_MONTH_NAMES = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip
_MONTH = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_ORD = r"(?:st|nd|rd|th)?"
_MDY_WORDS = re.compile(rf"\b{_MONTH}\s+(\d{{1,2}}){_ORD},?\s+(\d{{4}})\b")
_DMY_WORDS = re.compile(rf"\b(\d{{1,2}}){_ORD}\s+(?:of\s+)?{_MONTH},?\s+(\d{{4}})\b")
_MDY_SLASH = re.compile(r"(?<![\d/])(\d{1,2})/(\d{1,2})/(\d{4})(?![\d/])")
_YMD_SLASH = re.compile(r"(?<![\d/])(\d{4})/(\d{1,2})/(\d{1,2})(?![\d/])")
_ISO = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
_CLOCK_12 = re.compile(r"(?<![\d:.])(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\b\.?")
_CLOCK_24 = re.compile(r"(?<![\d:.])(\d{1,2}):(\d{2})(?![\d:])")
# An amount: not glued to a word, an id, a date or a time on either side.
_NUMBER = re.compile(
    r"(?<![\w\-/:.])(?:[$€£]\s?|usd\s)?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?![\w\-/:]|\.\d|,\d{3})"
)
_BARE_NUMBER = re.compile(r"^\d+(\.\d+)?$")
_DASHES = str.maketrans({"\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-"})
_SPACE = re.compile(r"\s+")


def _iso(year: str, month: int, day: str) -> str:
    d = int(day)
    if not (1 <= month <= 12 and 1 <= d <= 31):
        return ""
    return f"{int(year):04d}-{month:02d}-{d:02d}"


def _month(word: str) -> int:
    return _MONTHS[word[:3]]


def _dates(text: str) -> str:
    text = _MDY_WORDS.sub(lambda m: _iso(m[3], _month(m[1]), m[2]) or m[0], text)
    text = _DMY_WORDS.sub(lambda m: _iso(m[3], _month(m[2]), m[1]) or m[0], text)
    text = _MDY_SLASH.sub(lambda m: _iso(m[3], int(m[1]), m[2]) or m[0], text)
    return _YMD_SLASH.sub(lambda m: _iso(m[1], int(m[2]), m[3]) or m[0], text)


def _clock(hour: int, minute: str | None, half: str | None = None) -> str | None:
    if half is not None:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if half == "p" else 0)
    m = int(minute or 0)
    return f"{hour:02d}:{m:02d}" if hour <= 23 and m <= 59 else None


def _times(text: str) -> str:
    text = _CLOCK_12.sub(lambda m: _clock(int(m[1]), m[2], m[3]) or m[0], text)
    return _CLOCK_24.sub(lambda m: _clock(int(m[1]), m[2]) or m[0], text)


def _amount(whole: str, frac: str | None) -> str:
    try:
        value = Decimal(whole.replace(",", "") + ("." + frac if frac else ""))
    except InvalidOperation:  # pragma: no cover - the pattern only yields digits
        return whole
    text = format(value, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def normalise(text: str) -> str:
    """The normal form both sides of a fact match are compared in (see the module)."""
    t = _SPACE.sub(" ", text.translate(_DASHES).lower()).strip()
    t = _times(_dates(t))
    return _NUMBER.sub(lambda m: _amount(m[1], m[2]), t)


def normalise_fact(value: str | int | float) -> str:
    """One fact value in normal form (a number is written as an amount first)."""
    if isinstance(value, bool):  # YAML's yes/no: a word, not a number
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return _amount(format(Decimal(repr(value)), "f"), None)
    return normalise(value)


def fact_values(fact: CheckFact) -> tuple[str | int | float, ...]:
    """The alternatives of a fact (one for a plain value)."""
    return fact if isinstance(fact, tuple) else (fact,)


def _pattern(needle: str) -> re.Pattern[str]:
    # Whole tokens: no letter or digit glued on, and no decimal or thousands part; a word
    # may take a plural ending ("contractor" is found in "contractors").
    plural = "(?:e?s)?" if needle[-1].isalpha() else ""
    # A bare number is an amount: never the digits of an id, a date or a time.
    glued = r"a-z0-9\-/:" if _BARE_NUMBER.match(needle) else "a-z0-9"
    return re.compile(
        rf"(?<![{glued}])(?<![0-9][.,]){re.escape(needle)}{plural}(?![{glued}])(?![.,][0-9])"
    )


def find_fact(normalised_text: str, fact: CheckFact) -> str | None:
    """The first alternative of ``fact`` that ``normalised_text`` carries, or None.

    Args:
        normalised_text: Text already passed through `normalise`.
        fact: A value or a tuple of alternatives.
    """
    for value in fact_values(fact):
        needle = normalise_fact(value)
        if needle and _pattern(needle).search(normalised_text):
            return needle
    return None


def replace_fact(normalised_text: str, needle: str, replacement: str) -> str:
    """``normalised_text`` with every whole-token ``needle`` replaced (text mutants)."""
    return _pattern(needle).sub(lambda _m: replacement, normalised_text)


def _respell_amount(m: re.Match[str]) -> str:
    if not m[0].startswith(("$", "€", "£")):
        return m[0]  # a bare number may be a house number or a count: not an amount
    whole, frac = m[1].replace(",", ""), m[2]
    value = Decimal(whole + ("." + frac if frac else ""))
    return f"USD {value:,.2f}"


def respell(text: str) -> str:
    """The same facts spelled another way (`normalise` of both is the same).

    ISO dates as ``November 5, 2025``; amounts with a currency sign as ``USD 1,250.00``
    (bare numbers are left alone: a house number is no amount).
    """
    t = _NUMBER.sub(_respell_amount, text)  # first: the words of a date hold bare numbers
    return _ISO.sub(
        lambda m: (
            f"{_MONTH_NAMES[int(m[2]) - 1]} {int(m[3])}, {m[1]}"
            if 1 <= int(m[2]) <= 12 and 1 <= int(m[3]) <= 31
            else m[0]
        ),
        t,
    )


def facts_in(texts: Iterable[str]) -> str:
    """Several texts read together, normalised (rows of one check, replies of one trial)."""
    return "\n".join(normalise(t) for t in texts)
