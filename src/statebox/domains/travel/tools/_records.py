"""Row lookups, money and date helpers shared by the travel tools."""

from __future__ import annotations

from datetime import date
from typing import Any

from statebox.tools import ToolError
from statebox.world import Scalar, WorldTx

__all__ = ["Row", "booking_row", "customer_row", "days_until", "money", "stamp", "text"]

Row = dict[str, Scalar]


def text(value: Scalar) -> str:
    """A column value as text (ids and dates are stored as TEXT)."""
    return "" if value is None else str(value)


def money(value: Any) -> float:
    """Dollars rounded to cents."""
    return round(float(value) + 0.0, 2)


def stamp(tx: WorldTx) -> str:
    """The frozen clock as an ISO timestamp."""
    return tx.now.isoformat()


def days_until(tx: WorldTx, day: Scalar) -> int:
    """Whole days from today (the frozen clock) to ``day`` (negative when past)."""
    return (date.fromisoformat(text(day)) - tx.today).days


def customer_row(tx: WorldTx, customer_id: str) -> Row:
    """The customer row, or `ToolError` not_found."""
    row = tx.one("SELECT * FROM customers WHERE id = ?", [customer_id])
    if row is None:
        raise ToolError("not_found", f"no customer {customer_id!r} (ids look like 'CUS-0001')")
    return row


def booking_row(tx: WorldTx, booking_id: str) -> Row:
    """The booking row, or `ToolError` not_found."""
    row = tx.one("SELECT * FROM bookings WHERE id = ?", [booking_id])
    if row is None:
        raise ToolError("not_found", f"no booking {booking_id!r} (ids look like 'BK-100001')")
    return row
