"""Retail's suite-2.0 preconditions: refunds refuse an expired card, and a return holding a
serial-tracked item is approved only once the serial the customer reads is recorded. Seed
rows carry neither (no expiry, no serial), so suite 1.0's tasks behave as before."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest

from statebox.domains.retail import DOMAIN as RETAIL
from statebox.tools import Dispatcher, ToolCall, ToolResult
from statebox.world import World

NOW = datetime.fromisoformat("2025-10-01T13:00:00+00:00")


@pytest.fixture
def retail() -> Iterator[tuple[World, Dispatcher]]:
    world = RETAIL.template().clone(NOW)
    try:
        yield world, Dispatcher(world, RETAIL.tools, None)
    finally:
        world.close()


def _run(tools: Dispatcher, tool: str, **args: Any) -> ToolResult:
    return tools.call(ToolCall(tool=tool, args=args))


def _card_order(world: World) -> dict[str, Any]:
    """A delivered seed order paid by card, with its payment and first item."""
    return world.query(
        "SELECT o.id AS order_id, p.id AS payment_id, i.id AS item_id, i.unit_price "
        "FROM orders o JOIN payments p ON p.order_id = o.id "
        "JOIN order_items i ON i.order_id = o.id "
        "WHERE o.status = 'delivered' AND p.method = 'card' AND p.status = 'captured' "
        "ORDER BY o.id, i.id LIMIT 1"
    )[0]


def _count(world: World, sql: str, *params: Any) -> int:
    return int(world.query(sql, list(params))[0]["n"])


def test_a_refund_to_an_expired_card_is_refused_and_store_credit_takes_its_place(
    retail: tuple[World, Dispatcher],
) -> None:
    world, tools = retail
    order = _card_order(world)
    world.conn.execute(
        "UPDATE payments SET card_expires = '2025-09' WHERE id = ?", [order["payment_id"]]
    )
    refused = _run(
        tools, "issue_refund", order_id=order["order_id"], amount=10.0, reason="lost_package"
    )
    assert not refused.ok and refused.error is not None
    assert refused.error.kind == "invalid_state"
    assert "expired" in refused.error.message and order["payment_id"] in refused.error.message
    n = "SELECT count(*) AS n FROM refunds WHERE order_id = ?"
    assert _count(world, n, order["order_id"]) == 0
    credit = _run(
        tools,
        "issue_store_credit",
        customer_id=world.query("SELECT customer_id FROM orders WHERE id = ?", [order["order_id"]])[
            0
        ]["customer_id"],
        amount=10.0,
        reason="refund_fallback",
        order_id=order["order_id"],
    )
    assert credit.ok and credit.output["reason"] == "refund_fallback"


@pytest.mark.parametrize("expires", ["2025-10", "2027-01", None])
def test_a_card_valid_this_month_or_with_no_expiry_on_file_takes_a_refund(
    retail: tuple[World, Dispatcher], expires: str | None
) -> None:
    world, tools = retail
    order = _card_order(world)
    world.conn.execute(
        "UPDATE payments SET card_expires = ? WHERE id = ?", [expires, order["payment_id"]]
    )
    done = _run(tools, "issue_refund", order_id=order["order_id"], amount=5.0, reason="goodwill")
    assert done.ok and done.output["amount"] == 5.0


def test_a_serial_tracked_return_is_approved_only_after_the_matching_serial_is_recorded(
    retail: tuple[World, Dispatcher],
) -> None:
    world, tools = retail
    order = _card_order(world)
    world.conn.execute(
        "UPDATE order_items SET serial_number = 'SN-4F7Q2K' WHERE id = ?", [order["item_id"]]
    )
    opened = _run(
        tools,
        "create_return",
        order_id=order["order_id"],
        items=[{"order_item_id": order["item_id"], "quantity": 1}],
        reason="defective",
    )
    assert opened.ok
    rma = opened.output["id"]
    early = _run(tools, "approve_return", rma_id=rma)
    assert not early.ok and early.error is not None
    assert early.error.kind == "invalid_state" and "record_return_serial" in early.error.message
    wrong = _run(tools, "record_return_serial", rma_id=rma, serial_number="SN-000000")
    assert not wrong.ok and wrong.error is not None and wrong.error.kind == "invalid_state"
    flag = "SELECT serial_checked AS n FROM returns WHERE id = ?"
    assert _count(world, flag, rma) == 0
    # Read off a label: any case, spaces ignored.
    right = _run(tools, "record_return_serial", rma_id=rma, serial_number="sn-4f7 q2k")
    assert right.ok and _count(world, flag, rma) == 1
    approved = _run(tools, "approve_return", rma_id=rma)
    assert approved.ok and approved.output["refund"]["amount"] == order["unit_price"]


def test_a_return_without_serial_tracked_items_is_approved_at_once_and_takes_no_serial(
    retail: tuple[World, Dispatcher],
) -> None:
    world, tools = retail
    order = _card_order(world)
    opened = _run(
        tools,
        "create_return",
        order_id=order["order_id"],
        items=[{"order_item_id": order["item_id"], "quantity": 1}],
        reason="defective",
    )
    rma = opened.output["id"]
    serial = _run(tools, "record_return_serial", rma_id=rma, serial_number="SN-4F7Q2K")
    assert not serial.ok and serial.error is not None and serial.error.kind == "invalid_state"
    assert _run(tools, "approve_return", rma_id=rma).ok
