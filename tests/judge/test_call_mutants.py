"""Call-level mutant operators (pure) and their run on a statebox domain."""

from __future__ import annotations

import asyncio

from statebox.judge._call_mutants import (
    CallMutantResult,
    call_mutants,
    domain_call_mutants,
    generalise,
    strength_table,
    survivor_table,
)
from statebox.registry import default_registry
from statebox.tasks import GoldenCall

GOLDEN = [
    GoldenCall(tool="get_order", args={"order_id": "O-0009"}),
    GoldenCall(
        tool="refund",
        args={
            "order_id": "O-0009",
            "amount": 12.5,
            "notify": True,
            "lines": [{"sku": "A7", "qty": 2}],
            "memo": None,
        },
    ),
    GoldenCall(tool="set_status", args={"status": "open"}),
]
WRITES = [False, True, True]
SCHEMAS = {"set_status": {"properties": {"status": {"enum": ["open", "closed", "held"]}}}}


def test_operators_drop_alter_repeat_writes_only() -> None:
    mutants = call_mutants(GOLDEN, WRITES, schemas=SCHEMAS, max_alter_per_call=10)
    by_kind = {(m.kind, m.at) for m in mutants}
    assert ("drop", 0) not in by_kind and ("repeat", 0) not in by_kind  # reads are left alone
    drop = next(m for m in mutants if m.kind == "drop" and m.at == 1)
    assert [c.tool for c in drop.calls] == ["get_order", "set_status"]
    repeat = next(m for m in mutants if m.kind == "repeat" and m.at == 2)
    assert [c.tool for c in repeat.calls] == ["get_order", "refund", "set_status", "set_status"]
    alters = {m.description.split(": ", 1)[1]: m for m in mutants if m.kind == "alter"}
    # Every scalar leaf, nested ones too; None is left alone; ids move to the next id.
    assert set(alters) == {
        "12.5 → 14.0",
        "'A7' → 'A8'",
        "True → False",
        "'O-0009' → 'O-0010'",
        "2 → 3",
        "'open' → 'closed'",
    }
    nested = alters["2 → 3"].calls[1].args
    assert nested["lines"] == [{"sku": "A7", "qty": 3}] and nested["memo"] is None
    assert GOLDEN[1].args["lines"] == [{"sku": "A7", "qty": 2}]  # the golden is untouched
    capped = call_mutants(GOLDEN, WRITES, schemas=SCHEMAS, max_alter_per_call=2)
    assert sum(m.kind == "alter" and m.at == 1 for m in capped) == 2


def test_tables_and_generalised_fields() -> None:
    assert generalise("shop:orders[O1].lines[0].qty") == "shop:orders[*].lines[*].qty"
    results = [
        CallMutantResult(task_id="t1", domain="a", kind="drop", description="d", outcome="killed"),
        CallMutantResult(
            task_id="t1",
            domain="a",
            kind="alter",
            description="x",
            outcome="survived",
            fields=("s:o[*].note",),
        ),
        CallMutantResult(
            task_id="t2", domain="b", kind="repeat", description="r", outcome="equivalent"
        ),
    ]
    rows = {r.domain: r for r in strength_table(results)}
    assert rows["a"].by_operator == {"drop": (1, 0), "alter": (0, 1), "repeat": (0, 0)}
    assert rows["a"].strength == 0.5 and rows["b"].strength is None
    assert (rows["all"].killed, rows["all"].survived, rows["all"].equivalent) == (1, 1, 1)
    assert survivor_table(results) == [("s:o[*].note", 1, "alter 1", "t1: x")]


def test_on_a_statebox_domain() -> None:
    registry = default_registry()
    domain = registry.domain("retail")
    task = next(t for t in registry.suite("retail@1.0") if t.id == "retail.warranty.claim.001")
    results = asyncio.run(domain_call_mutants(domain, task))
    kinds = {r.kind for r in results}
    assert kinds == {"drop", "alter", "repeat"}
    assert all(r.outcome in ("killed", "survived", "equivalent") for r in results)
    # A drop of a write is never equivalent here (every write of this task changes state).
    assert all(r.outcome == "killed" for r in results if r.kind == "drop")
    # The warranty description is free text the state checks leave out: its alter survives.
    survived = [r for r in results if r.outcome == "survived"]
    assert survived and all(r.fields == ("warranty_claims.description",) for r in survived)
