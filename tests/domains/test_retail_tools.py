"""Retail's suite-2.0 preconditions: refunds refuse an expired card (test_tool_rules.py) and
store credit takes their place, and a return holding a serial-tracked item is approved only
once the serial the customer reads is recorded. Seed rows carry neither (no expiry, no
serial), so suite 1.0's tasks behave as before."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from fixtures.domain_desks import RETAIL_NOW, card_order, domain
from statebox.testing import Desk


@pytest.fixture
def desk() -> Iterator[Desk]:
    with Desk.seeded(domain("retail"), RETAIL_NOW) as d:
        yield d


def test_store_credit_takes_the_place_of_a_refund_to_an_expired_card(desk: Desk) -> None:
    order = card_order(desk)
    desk.set("payments", {"id": order["payment_id"]}, {"card_expires": "2025-09"})
    refund = {"order_id": order["order_id"], "amount": 10.0, "reason": "lost_package"}
    desk("issue_refund", **refund).refused("invalid_state", "expired", order["payment_id"])
    refunds = "SELECT count(*) AS n FROM refunds WHERE order_id = ?"
    assert desk.value(refunds, order["order_id"]) == 0
    customer = desk.value("SELECT customer_id FROM orders WHERE id = ?", order["order_id"])
    credit = desk(
        "issue_store_credit",
        customer_id=customer,
        amount=10.0,
        reason="refund_fallback",
        order_id=order["order_id"],
    ).succeeded()
    assert credit["reason"] == "refund_fallback"


@pytest.mark.parametrize("expires", ["2025-10", "2027-01", None])
def test_a_card_valid_this_month_or_with_no_expiry_on_file_takes_a_refund(
    desk: Desk, expires: str | None
) -> None:
    order = card_order(desk)
    desk.set("payments", {"id": order["payment_id"]}, {"card_expires": expires})
    done = desk("issue_refund", order_id=order["order_id"], amount=5.0, reason="goodwill")
    assert done.succeeded()["amount"] == 5.0


def test_a_serial_tracked_return_is_approved_only_after_the_matching_serial_is_recorded(
    desk: Desk,
) -> None:
    order = card_order(desk)
    desk.set("order_items", {"id": order["item_id"]}, {"serial_number": "SN-4F7Q2K"})
    rma = desk(
        "create_return",
        order_id=order["order_id"],
        items=[{"order_item_id": order["item_id"], "quantity": 1}],
        reason="defective",
    ).succeeded()["id"]
    desk("approve_return", rma_id=rma).refused("invalid_state", "record_return_serial")
    desk("record_return_serial", rma_id=rma, serial_number="SN-000000").refused("invalid_state")
    flag = "SELECT serial_checked AS n FROM returns WHERE id = ?"
    assert desk.value(flag, rma) == 0
    # Read off a label: any case, spaces ignored.
    desk("record_return_serial", rma_id=rma, serial_number="sn-4f7 q2k").succeeded()
    assert desk.value(flag, rma) == 1
    approved = desk("approve_return", rma_id=rma).succeeded()
    assert approved["refund"]["amount"] == order["unit_price"]


def test_a_return_without_serial_tracked_items_is_approved_at_once_and_takes_no_serial(
    desk: Desk,
) -> None:
    order = card_order(desk)
    rma = desk(
        "create_return",
        order_id=order["order_id"],
        items=[{"order_item_id": order["item_id"], "quantity": 1}],
        reason="defective",
    ).output["id"]
    desk("record_return_serial", rma_id=rma, serial_number="SN-4F7Q2K").refused("invalid_state")
    desk("approve_return", rma_id=rma).succeeded()
