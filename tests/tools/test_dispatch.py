"""The dispatcher: allowlist, argument validation, one transaction per call (invariant 2)."""

from __future__ import annotations

import pytest

from fixtures.toy import TOOLS
from statebox.errors import DomainError
from statebox.tools import Dispatcher, ToolCall, ToolError, tool, tool_map
from statebox.world import World, WorldTx


@tool(mutates=True)
def debit_then_crash(tx: WorldTx, account_id: str) -> None:
    """Debit an account, then fail with a bug (not a refusal).

    Args:
        account_id: Account id.
    """
    tx.update("accounts", {"id": account_id}, {"balance": -999})
    raise KeyError("bug in the tool")


@tool(mutates=False)
def sneaky_read(tx: WorldTx, account_id: str) -> str:
    """Claims to read, but writes.

    Args:
        account_id: Account id.
    """
    tx.update("accounts", {"id": account_id}, {"status": "closed"})
    return "ok"


@tool(mutates=True)
def orphan_note(tx: WorldTx, account_id: str) -> None:
    """Insert a note whose account may not exist.

    Args:
        account_id: Account id.
    """
    tx.update("accounts", {"id": "A1"}, {"balance": 1})
    tx.insert("notes", {"id": "N-x", "account_id": account_id, "body": "b", "created_at": "t"})


@tool(mutates=True)
def refuse_after_write(tx: WorldTx, account_id: str) -> None:
    """Write, then refuse.

    Args:
        account_id: Account id.
    """
    tx.update("accounts", {"id": account_id}, {"status": "closed"})
    raise ToolError("not_permitted", "changed my mind")


ALL = tool_map([*TOOLS, debit_then_crash, sneaky_read, orphan_note, refuse_after_write])


def dispatcher(world: World, allow: list[str] | None = None) -> Dispatcher:
    return Dispatcher(world, ALL, allow)


def test_successful_call_commits_and_reports(world: World) -> None:
    before = world.state().hash()
    result = dispatcher(world).call(
        ToolCall(tool="transfer", args={"src": "A1", "dst": "A2", "amount": 40}, id="c1")
    )
    assert result.ok and result.error is None
    assert result.call_id == "c1"
    assert result.mutating is True and result.wrote is True
    assert result.output == {
        "id": "T-0001",
        "src": "A1",
        "dst": "A2",
        "amount": 40,
        "created_at": "2025-10-01T13:00:00+00:00",
    }
    rows = world.state().rows["accounts"]
    assert rows[("A1",)]["balance"] == 60
    assert rows[("A2",)]["balance"] == 65
    assert world.state().hash() != before


def test_read_only_call_reports_no_write(world: World) -> None:
    result = dispatcher(world).call(ToolCall(tool="get_account", args={"account_id": "A2"}))
    assert result.ok and result.mutating is False and result.wrote is False
    assert result.output == {"id": "A2", "owner": "Bo Example", "balance": 25, "status": "active"}


def test_refusal_after_a_debit_rolls_the_debit_back(world: World) -> None:
    # transfer debits first, then refuses for insufficient funds.
    before = world.state().hash()
    result = dispatcher(world).call(
        ToolCall(tool="transfer", args={"src": "A2", "dst": "A1", "amount": 500})
    )
    assert not result.ok
    assert result.error is not None
    assert result.error.kind == "invalid_state"
    assert result.error.message == "insufficient funds"
    assert result.mutating is True and result.wrote is False
    assert world.state().hash() == before


def test_refusal_to_a_frozen_account_rolls_back(world: World) -> None:
    before = world.state()
    result = dispatcher(world).call(
        ToolCall(tool="transfer", args={"src": "A1", "dst": "A3", "amount": 10})
    )
    assert result.error is not None and result.error.kind == "invalid_state"
    assert "A3 is frozen" in result.error.message
    assert world.state() == before


def test_generic_tool_error_rolls_back(world: World) -> None:
    before = world.state()
    result = dispatcher(world).call(ToolCall(tool="refuse_after_write", args={"account_id": "A1"}))
    assert result.error is not None and result.error.kind == "not_permitted"
    assert world.state() == before


def test_non_tool_error_propagates_without_partial_write(world: World) -> None:
    before = world.state().hash()
    with pytest.raises(KeyError, match="bug in the tool"):
        dispatcher(world).call(ToolCall(tool="debit_then_crash", args={"account_id": "A1"}))
    assert world.state().hash() == before
    # The world still works after the failed transaction.
    assert (
        dispatcher(world)
        .call(ToolCall(tool="set_status", args={"account_id": "A1", "status": "frozen"}))
        .ok
    )


def test_read_only_tool_that_writes_is_a_domain_error_and_rolled_back(world: World) -> None:
    before = world.state().hash()
    with pytest.raises(DomainError, match="sneaky_read is declared read-only but wrote"):
        dispatcher(world).call(ToolCall(tool="sneaky_read", args={"account_id": "A1"}))
    assert world.state().hash() == before


def test_constraint_violation_is_invalid_state_and_rolled_back(world: World) -> None:
    before = world.state().hash()
    result = dispatcher(world).call(ToolCall(tool="orphan_note", args={"account_id": "ZZ"}))
    assert not result.ok
    assert result.error is not None and result.error.kind == "invalid_state"
    assert "constraint failed" in result.error.message
    assert world.state().hash() == before


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        ({"src": "A1", "dst": "A2"}, "amount: Field required"),
        ({"src": "A1", "dst": "A2", "amount": "lots"}, "amount:"),
        ({"src": "A1", "dst": "A2", "amount": 1, "memo": "hi"}, "memo: Extra inputs"),
        ({"src": None, "dst": "A2", "amount": 1}, "src:"),
    ],
)
def test_invalid_arguments(world: World, args: dict, fragment: str) -> None:
    before = world.state().hash()
    result = dispatcher(world).call(ToolCall(tool="transfer", args=args))
    assert not result.ok
    assert result.error is not None and result.error.kind == "invalid_arguments"
    assert fragment in result.error.message
    assert result.mutating is True
    assert world.state().hash() == before


def test_literal_argument_outside_its_values_is_invalid(world: World) -> None:
    result = dispatcher(world).call(
        ToolCall(tool="set_status", args={"account_id": "A1", "status": "deleted"})
    )
    assert result.error is not None and result.error.kind == "invalid_arguments"
    assert result.error.message.startswith("status:")


def test_unknown_tool(world: World) -> None:
    result = dispatcher(world).call(ToolCall(tool="drop_tables", args={}))
    assert not result.ok
    assert result.error is not None and result.error.kind == "unknown_tool"
    assert result.mutating is False


def test_tool_outside_allowlist_is_refused_like_an_unknown_tool(world: World) -> None:
    before = world.state().hash()
    d = dispatcher(world, ["get_account"])
    result = d.call(ToolCall(tool="transfer", args={"src": "A1", "dst": "A2", "amount": 1}))
    unknown = d.call(ToolCall(tool="wire_abroad", args={}))
    assert not result.ok
    assert result.error is not None and result.error.kind == "unknown_tool"
    # Nothing tells an existing, non-allowlisted tool from a nonexistent one.
    assert unknown.error is not None
    assert result.error.message.replace("transfer", "X") == unknown.error.message.replace(
        "wire_abroad", "X"
    )
    assert world.state().hash() == before
    assert [s.name for s in d.specs()] == ["get_account"]


def test_reserved_lifecycle_names_are_not_routable(world: World) -> None:
    for name in ("reset", "effects", "snapshot", "__reserved__init"):
        result = dispatcher(world).call(ToolCall(tool=name, args={}))
        assert result.error is not None and result.error.kind == "unknown_tool"


def test_allowlist_naming_a_missing_tool_is_a_domain_error(world: World) -> None:
    with pytest.raises(DomainError, match=r"\['nope'\]"):
        dispatcher(world, ["get_account", "nope"])


def test_specs_are_sorted_allowlisted_tools(world: World) -> None:
    names = [s.name for s in Dispatcher(world, tool_map(TOOLS)).specs()]
    assert names == ["add_note", "delete_note", "get_account", "set_status", "transfer"]
    assert [s.name for s in dispatcher(world, ["transfer", "add_note"]).specs()] == [
        "add_note",
        "transfer",
    ]
    assert dispatcher(world, []).specs() == []


def test_tool_map_rejects_duplicate_names() -> None:
    with pytest.raises(DomainError, match="two tools are named 'transfer'"):
        tool_map([*TOOLS, TOOLS[-1]])


@pytest.mark.parametrize(
    "amount",
    [True, "12.5", float("nan"), float("inf")],
)
def test_arguments_are_validated_strictly_as_json(world: World, amount: object) -> None:
    before = world.state().hash()
    result = Dispatcher(world, tool_map(TOOLS)).call(
        ToolCall(tool="transfer", args={"src": "A1", "dst": "A2", "amount": amount})
    )
    assert not result.ok
    assert result.error is not None and result.error.kind == "invalid_arguments"
    assert world.state().hash() == before
