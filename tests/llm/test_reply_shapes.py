"""Malformed model replies are endpoint failures, never an agent's empty answer."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from statebox.errors import ModelEndpointError
from statebox.llm._client import ModelClient, _int


@pytest.mark.parametrize("choices", [[], None])
def test_a_reply_without_choices_is_an_endpoint_error(choices: object) -> None:
    with pytest.raises(ModelEndpointError, match="without choices"):
        ModelClient._from_openai(SimpleNamespace(choices=choices, usage=None))


def test_token_counts_are_never_negative() -> None:
    assert _int(-1_000_000) == 0
    assert _int(True) == 0
    assert _int(12) == 12
