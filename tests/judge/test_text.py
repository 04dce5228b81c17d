"""Facts in free text: the normal form of amounts, dates, times and ids, whole tokens."""

from __future__ import annotations

import pytest

from statebox.judge import find_fact, normalise, respell


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("Refund of $1,250.00 approved", 1250),
        ("refund of 1250 dollars", "$1,250.00"),
        ("refund 1,250", 1250.0),
        ("a partial refund = $57.80", 57.8),
        ("loss on November 5, 2025", "2025-11-05"),
        ("loss on Nov 5th 2025", "2025-11-05"),
        ("loss on 5 November 2025", "2025-11-05"),
        ("loss on 11/05/2025", "2025-11-05"),
        ("late checkout at 3 pm", "15:00"),
        ("from 9am", "9:00"),
        ("order ord-10000020 is late", "ORD-10000020"),
        ("contractors cannot get it", "contractor"),
        ("call me at  +1-555-0241 ", "+1-555-0241"),
    ],
)
def test_equivalent_spellings_are_found(text: str, fact: object) -> None:
    assert find_fact(normalise(text), fact) is not None  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("refund of $12,500", 1250),  # a longer number is another amount
        ("refund of $1250.50", 1250),  # so is one with cents
        ("order ORD-100000201", "ORD-10000020"),  # a longer id is another id
        ("the contractual terms", "contract"),  # only a plural ending, not any suffix
        ("due 2025-11-06", "2025-11-05"),
        ("policy POL-300001 and 57", 300001),  # a number inside an id is no amount
    ],
)
def test_other_facts_are_not_found(text: str, fact: object) -> None:
    assert find_fact(normalise(text), fact) is None  # type: ignore[arg-type]


def test_alternatives_and_respelling() -> None:
    assert find_fact(normalise("the booking is cancelled"), ("canceled", "cancelled"))
    text = "Collision on 2025-10-31, estimated at $800; house 77 Juniper St"
    again = respell(text)
    assert again == "Collision on October 31, 2025, estimated at USD 800.00; house 77 Juniper St"
    assert normalise(again) == normalise(text)
