"""The strict yes/no parse: anything but exactly yes or no is a judge error, never a yes."""

from __future__ import annotations

import pytest

from statebox.errors import JudgeError
from statebox.judge import parse_yes_no


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("yes", "yes"),
        ("Yes", "yes"),
        (" YES ", "yes"),
        ("yes.", "yes"),
        ("Yes!", "yes"),
        ("**Yes**", "yes"),
        ('"yes"', "yes"),
        ("no", "no"),
        ("No.", "no"),
        ("\n no \n", "no"),
        ("`NO`", "no"),
    ],
)
def test_exact_answers(text: str, expected: str) -> None:
    assert parse_yes_no(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "No ... yes",
        "yes, but",
        "Yes, the reply confirms it.",
        "no yes",
        "yes no",
        "y",
        "yeah",
        "nope",
        "Answer: yes",
        "maybe",
        "yes\nno",
    ],
)
def test_anything_else_is_a_judge_error(text: str) -> None:
    with pytest.raises(JudgeError, match="not exactly yes or no"):
        parse_yes_no(text)


def test_error_quotes_a_bounded_part_of_the_answer() -> None:
    with pytest.raises(JudgeError) as info:
        parse_yes_no("x" * 500)
    assert len(str(info.value)) < 200
