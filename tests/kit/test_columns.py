"""Column helpers, id formats and row lookups of statebox.kit."""

from __future__ import annotations

import pytest

from fixtures.kit_desk import LOANS, world
from statebox import kit
from statebox.tools import ToolError


def test_column_helpers_narrow_or_fail_loudly() -> None:
    assert kit.text("a") == "a"
    assert kit.integer(3) == 3
    assert kit.number(2) == 2.0
    assert kit.money(10.005) == 10.01 and kit.money(3) == 3.0
    assert kit.cents(-0.0) == 0.0 and str(kit.cents(-0.0)) == "0.0"
    for bad, fn in [(None, kit.text), (True, kit.integer), ("1", kit.number), (False, kit.money)]:
        with pytest.raises(TypeError):
            fn(bad)  # type: ignore[operator]


def test_dates_come_from_the_frozen_clock() -> None:
    w = world()
    with w.transaction() as tx:
        assert kit.stamp(tx) == "2026-02-02T10:00:00+00:00"
        assert kit.in_days(tx, 5) == "2026-02-07"
        assert kit.days_until(tx, "2026-02-01") == -1
        assert kit.days_between("2026-01-30T09:00:00+00:00", tx.today) == 3
    assert kit.iso_date("2026-03-01", "due", example="2026-02-02").day == 1
    with pytest.raises(ToolError) as err:
        kit.iso_date("03/01/2026", "due", example="2026-02-02")
    assert (err.value.kind, err.value.message) == (
        "invalid_state",
        "due must be a date like '2026-02-02'",
    )


def test_ids_and_lookups() -> None:
    w = world()
    with w.transaction() as tx:
        fmt = kit.IdFormat("TK-", width=3)
        assert [fmt.next(tx, "tickets") for _ in range(2)] == ["TK-501", "TK-502"]
        assert kit.IdFormat("", width=0, start=7).next(tx, "bare") == "7"
        assert kit.new_id(tx, "x", "X-") == "X-00501"
        assert LOANS.row(tx, "L-2")["member_id"] == "M-2"
        assert LOANS.get(tx, "L-9") is None
        with pytest.raises(ToolError) as err:
            LOANS.row(tx, "L-9")
        assert err.value.message == "no loan 'L-9' (ids look like 'L-1')"
        tables = kit.Tables(LOANS)
        assert tables["loans"] is LOANS and tables.row(tx, "loans", "L-1")["id"] == "L-1"
        assert list(kit.ordered(tx, "loans", {"member_id": "M-1", "id": "L-3"})) == [
            "id",
            "member_id",
        ]


def test_a_tables_columns_are_those_pragma_table_info_lists_in_order() -> None:
    # `ordered` reads a table's columns from a prepared SELECT instead of the PRAGMA:
    # the same names in the same order for every table of every built-in domain, and
    # re-read after the table changes within the world.
    from datetime import UTC, datetime

    from statebox.registry import default_registry

    registry = default_registry()
    for name in registry.builtin_domains():
        w = registry.domain(name).template().clone(datetime.now(UTC))
        try:
            with w.transaction() as tx:
                for table in w.tables:
                    pragma = [r["name"] for r in tx.query(f'PRAGMA table_info("{table}")')]
                    assert list(tx.columns(table)) == pragma, (name, table)
        finally:
            w.close()
    w = world()
    with w.transaction() as tx:
        before = tx.columns("loans")
        tx.execute('ALTER TABLE "loans" ADD COLUMN note TEXT')
        assert tx.columns("loans") == (*before, "note")
