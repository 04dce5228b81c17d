"""`@tool`: typed, documented functions become tools; malformed ones fail at import."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import pytest

from fixtures.toy import get_account, set_status, transfer
from statebox.errors import DomainError
from statebox.tools import RESERVED_TOOL_NAMES, ToolSpec, tool
from statebox.world import WorldTx


def _named(name: str) -> Callable[..., Any]:
    def fn(tx: WorldTx, x: int) -> int:
        """Do a thing.

        Args:
            x: A number.
        """
        return x

    fn.__name__ = name
    return fn


def test_spec_of_a_toy_tool() -> None:
    assert isinstance(transfer, ToolSpec)
    assert transfer.name == "transfer"
    assert transfer.mutates is True
    assert get_account.mutates is False
    assert transfer.description == "Move money between two active accounts."
    assert repr(transfer) == "ToolSpec('transfer', mutates=True)"


def test_input_schema_is_strict_and_documented() -> None:
    schema = transfer.input_schema()
    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False
    assert "title" not in schema
    assert sorted(schema["required"]) == ["amount", "dst", "src"]
    assert schema["properties"]["amount"] == {"type": "number", "description": "Dollars, positive."}
    assert schema["properties"]["src"] == {"type": "string", "description": "Paying account id."}
    status = set_status.input_schema()["properties"]["status"]
    assert status["enum"] == ["active", "frozen", "closed"]
    assert status["description"] == "New status."


def test_defaults_are_optional_and_multiline_docs_join() -> None:
    @tool(mutates=False)
    def lookup(tx: WorldTx, account_id: str, limit: int = 5) -> int:
        """Look things up.

        More words that are still description.

        Args:
            account_id: Account id,
                continued on the next line.
            limit: How many.

        Returns:
            A number.
        """
        return limit

    schema = lookup.input_schema()
    assert schema["required"] == ["account_id"]
    assert schema["properties"]["limit"]["default"] == 5
    assert schema["properties"]["account_id"]["description"] == (
        "Account id, continued on the next line."
    )
    assert lookup.description == "Look things up.\n\nMore words that are still description."
    assert lookup(None, account_id="x", limit=2) == 2


@pytest.mark.parametrize("name", sorted(RESERVED_TOOL_NAMES))
def test_reserved_names_are_rejected(name: str) -> None:
    with pytest.raises(DomainError, match="reserved"):
        tool(mutates=False)(_named(name))


def test_underscore_names_are_rejected() -> None:
    with pytest.raises(DomainError, match="reserved"):
        tool(mutates=False)(_named("_private"))
    with pytest.raises(DomainError, match="reserved"):
        tool(mutates=False)(_named("__reserved__init"))


def test_reserved_set_covers_the_lifecycle() -> None:
    assert {"reset", "step", "state", "snapshot", "effects", "verdict"} <= RESERVED_TOOL_NAMES


def test_missing_type_hint_is_rejected() -> None:
    def untyped(tx: WorldTx, x) -> int:  # type: ignore[no-untyped-def]
        """Do it.

        Args:
            x: A thing.
        """
        return 1

    with pytest.raises(DomainError, match="parameter 'x' needs a type hint"):
        tool(mutates=True)(untyped)


def test_undocumented_argument_is_rejected() -> None:
    def half_documented(tx: WorldTx, x: int, y: int) -> int:
        """Do it.

        Args:
            x: A thing.
        """
        return 1

    with pytest.raises(DomainError, match="document parameter 'y' under Args"):
        tool(mutates=True)(half_documented)


def test_missing_summary_is_rejected() -> None:
    def silent(tx: WorldTx) -> int:
        return 1

    with pytest.raises(DomainError, match="docstring summary"):
        tool(mutates=False)(silent)


def test_missing_world_parameter_is_rejected() -> None:
    def nothing() -> int:
        """Do nothing."""
        return 1

    with pytest.raises(DomainError, match="first parameter"):
        tool(mutates=False)(nothing)


def test_mutates_has_no_default() -> None:
    with pytest.raises(TypeError):
        tool()  # type: ignore[call-arg]


def test_literal_and_validation_model() -> None:
    @tool(mutates=True)
    def pick(tx: WorldTx, colour: Literal["red", "blue"]) -> str:
        """Pick a colour.

        Args:
            colour: The colour.
        """
        return colour

    assert pick.params.model_validate({"colour": "red"}).colour == "red"  # type: ignore[attr-defined]
    with pytest.raises(ValueError):
        pick.params.model_validate({"colour": "green"})
    with pytest.raises(ValueError):
        pick.params.model_validate({"colour": "red", "extra": 1})
