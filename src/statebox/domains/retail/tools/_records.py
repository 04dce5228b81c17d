"""Row lookups and value conversions shared by the retail tools.

Lookups raise `ToolError("not_found")` with an agent-facing message, so every tool
refuses an unknown id the same way. Converters narrow canonical `Scalar` values to
the Python type a column holds (the schema guarantees it; a mismatch is a bug).
Money is rounded to cents at every write so sums never drift in the last digit.
"""

from __future__ import annotations

from datetime import date, datetime

from statebox.tools import ToolError
from statebox.world import Scalar, WorldTx

__all__ = [
    "Row",
    "cents",
    "charged_payment",
    "customer_row",
    "days_between",
    "integer",
    "money",
    "new_id",
    "order_row",
    "refunded_total",
    "stamp",
    "text",
    "ticket_row",
]

Row = dict[str, Scalar]


def text(value: Scalar) -> str:
    """A TEXT column's value."""
    if not isinstance(value, str):
        raise TypeError(f"expected text, got {value!r}")
    return value


def integer(value: Scalar) -> int:
    """An INTEGER column's value."""
    if not isinstance(value, int):
        raise TypeError(f"expected an integer, got {value!r}")
    return value


def money(value: Scalar) -> float:
    """A REAL money column's value, in dollars."""
    if not isinstance(value, int | float):
        raise TypeError(f"expected a number, got {value!r}")
    return round(float(value), 2)


def cents(amount: float) -> float:
    """Round a dollar amount to cents."""
    return round(amount + 0.0, 2)


def stamp(tx: WorldTx) -> str:
    """The episode clock as an ISO 8601 timestamp."""
    return tx.now.isoformat()


def days_between(earlier: Scalar, today: date) -> int:
    """Whole days from an ISO date or timestamp to ``today``."""
    return (today - datetime.fromisoformat(text(earlier)).date()).days


def new_id(tx: WorldTx, name: str, prefix: str, width: int = 5) -> str:
    """The next id of a world sequence, numbered above every seeded id."""
    return tx.next_id(name, prefix=prefix, width=width, start=501)


def customer_row(tx: WorldTx, customer_id: str) -> Row:
    """The customer, or a not_found refusal."""
    row = tx.one("SELECT * FROM customers WHERE id = ?", [customer_id])
    if row is None:
        raise ToolError("not_found", f"no customer {customer_id!r} (ids look like 'CUS-0001')")
    return row


def order_row(tx: WorldTx, order_id: str) -> Row:
    """The order, or a not_found refusal."""
    row = tx.one("SELECT * FROM orders WHERE id = ?", [order_id])
    if row is None:
        raise ToolError("not_found", f"no order {order_id!r} (ids look like 'ORD-10000020')")
    return row


def ticket_row(tx: WorldTx, ticket_id: str) -> Row:
    """The ticket, or a not_found refusal."""
    row = tx.one("SELECT * FROM tickets WHERE id = ?", [ticket_id])
    if row is None:
        raise ToolError("not_found", f"no ticket {ticket_id!r} (ids look like '20')")
    return row


def charged_payment(tx: WorldTx, order_id: str) -> Row:
    """The order's captured payment, or an invalid_state refusal when none was captured."""
    row = tx.one(
        "SELECT * FROM payments WHERE order_id = ? AND status = 'captured' ORDER BY id",
        [order_id],
    )
    if row is None:
        raise ToolError(
            "invalid_state", f"order {order_id} has no captured payment to refund against"
        )
    return row


def refunded_total(tx: WorldTx, order_id: str) -> float:
    """Dollars already refunded on an order."""
    rows = tx.query("SELECT amount FROM refunds WHERE order_id = ?", [order_id])
    return cents(sum(money(r["amount"]) for r in rows))
