"""Whatever an agent sends is the agent's doing: values the tools cannot use are refusals.

Issue 17, item 1: an integer of 2**63 or more in a tool argument raised OverflowError
inside SQLite, so the trial became a system error that ``--retry-errors`` re-ran (a
second chance for a failing agent). Now the schemas bound integers to 64 bits and any
binding error is an ``invalid_arguments`` result.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest

from fixtures.hostile import set_balance, store_blob
from fixtures.toy import TOOLS
from statebox.domains import Domain
from statebox.registry import default_registry
from statebox.tasks import Task, WorldCache
from statebox.tools import INT64_MAX, INT64_MIN, Dispatcher, ToolCall, tool, tool_map
from statebox.world import World, WorldTx

HUGE = [2**63, -(2**63) - 1, 10**30]


@tool(mutates=True)
def broken_sql(tx: WorldTx, account_id: str) -> None:
    """A tool with a bug: wrong number of SQL parameters.

    Args:
        account_id: Account id.
    """
    tx.execute("update accounts set balance = ? where id = ?", (1,))


def test_integer_parameters_are_bounded_to_64_bits_in_the_schema_and_in_validation(
    world: World,
) -> None:
    spec = set_balance
    props = spec.input_schema()["properties"]
    assert (props["cents"]["minimum"], props["cents"]["maximum"]) == (INT64_MIN, INT64_MAX)
    assert props["floor"]["anyOf"][0]["maximum"] == INT64_MAX
    d = Dispatcher(world, tool_map([*TOOLS, set_balance]))
    before = world.state().hash()
    for args in [{"cents": v} for v in HUGE] + [{"cents": 1, "floor": 2**63}]:
        r = d.call(ToolCall(tool="set_balance", args={"account_id": "A1", **args}))
        assert not r.ok and r.error is not None and r.error.kind == "invalid_arguments"
        assert ("floor" if "floor" in args else "cents") in r.error.message
    assert world.state().hash() == before
    ok = d.call(ToolCall(tool="set_balance", args={"account_id": "A1", "cents": INT64_MAX}))
    assert ok.ok


def test_a_value_sqlite_cannot_bind_is_invalid_arguments_and_the_world_is_untouched(
    world: World,
) -> None:
    d = Dispatcher(world, tool_map([*TOOLS, store_blob]))
    before = world.state().hash()
    for payload in [2**63, {"nested": [1, 2]}, [1, 2]]:
        r = d.call(ToolCall(tool="store_blob", args={"account_id": "A1", "payload": payload}))
        assert not r.ok and r.error is not None
        assert r.error.kind == "invalid_arguments", payload
    assert world.state().hash() == before


def test_a_tool_bug_in_sql_still_raises(world: World) -> None:
    d = Dispatcher(world, tool_map([*TOOLS, broken_sql]))
    with pytest.raises(sqlite3.ProgrammingError):
        d.call(ToolCall(tool="broken_sql", args={"account_id": "A1"}))


@pytest.fixture(scope="module")
def built_in() -> Iterator[
    tuple[dict[str, Domain], dict[tuple[str, str], tuple[Task, dict[str, Any]]]]
]:
    registry = default_registry()
    tasks = registry.suite("all@1.0")
    domains = {t.domain: registry.domain(t.domain) for t in tasks}
    base: dict[tuple[str, str], tuple[Task, dict[str, Any]]] = {}
    for t in tasks:
        for c in t.golden:
            base.setdefault((t.domain, c.tool), (t, dict(c.args)))
    yield domains, base


def _integer_params(schema: dict[str, Any]) -> list[str]:
    def ints(s: dict[str, Any]) -> bool:  # an enum of integers is bounded already
        open_int = s.get("type") == "integer" and "enum" not in s
        return open_int or any(ints(x) for x in s.get("anyOf", []))

    return [p for p, s in schema.get("properties", {}).items() if ints(s)]


def test_every_integer_of_every_built_in_tool_schema_carries_64_bit_bounds(built_in: Any) -> None:
    domains, _ = built_in
    seen = 0
    for d in domains.values():
        for spec in d.tools.values():
            for p in _integer_params(spec.input_schema()):
                prop = spec.input_schema()["properties"][p]
                branch = next(
                    s for s in [prop, *prop.get("anyOf", [])] if s.get("type") == "integer"
                )
                assert branch["minimum"] >= INT64_MIN and branch["maximum"] <= INT64_MAX, (
                    spec.name,
                    p,
                )
                seen += 1
    assert seen >= 5  # the built-in domains have integer parameters to check


def test_huge_integers_in_any_built_in_tool_are_refusals_never_exceptions(built_in: Any) -> None:
    domains, base = built_in
    worlds = WorldCache()
    refused: set[str] = set()
    for (name, tool_name), (task, args) in sorted(base.items()):
        d = domains[name]
        for p in _integer_params(d.tools[tool_name].input_schema()):
            for value in HUGE:
                world = worlds.clone(d, task)
                try:
                    r = Dispatcher(world, d.tools).call(
                        ToolCall(tool=tool_name, args={**args, p: value})
                    )
                finally:
                    world.close()
                assert not r.ok and r.error is not None and r.error.kind == "invalid_arguments"
                refused.add(tool_name)
    # The three the outside trials overflowed with (item 1) are among them.
    assert {"add_loyalty_points", "create_access_request", "create_hardware_order"} <= refused
