"""A small shop's support tools as an MCP server (official ``mcp`` SDK), over PostgreSQL or SQLite.

It knows nothing about statebox: no lifecycle tools, no state hashes. It reads two
environment variables, as a company's own server would read its configuration:

- ``SHOP_DATABASE_URL``: ``postgresql://...`` for PostgreSQL, else a SQLite file path;
- ``SHOP_NOW``: the current time (ISO 8601), so every run of a task stamps the same
  times (statebox sets it to the task's frozen clock; unset, the wall clock).

Run it over stdio (the default) or streamable HTTP: ``python server.py --http PORT``.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, Literal

from mcp.server.fastmcp import FastMCP
from mcp.types import ToolAnnotations

READ = ToolAnnotations(readOnlyHint=True)
WRITE = ToolAnnotations(readOnlyHint=False, destructiveHint=False)


def _now() -> datetime:
    raw = os.environ.get("SHOP_NOW")
    return datetime.fromisoformat(raw) if raw else datetime.now(UTC)


class Store:
    """The shop's database: one connection, one transaction per tool call."""

    def __init__(self, url: str) -> None:
        self.postgres = url.startswith(("postgresql://", "postgres://"))
        if self.postgres:
            import psycopg
            from psycopg.rows import dict_row

            self.conn: Any = psycopg.connect(url, autocommit=True, row_factory=dict_row)
        else:
            self.conn = sqlite3.connect(url, isolation_level=None)
            self.conn.row_factory = sqlite3.Row
            self.conn.execute("PRAGMA foreign_keys = ON")

    def _sql(self, sql: str) -> str:
        return sql if self.postgres else sql.replace("%s", "?")

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Run the block in one transaction (rolled back if it raises)."""
        if self.postgres:
            with self.conn.transaction():
                yield
            return
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def rows(self, sql: str, *params: Any) -> list[dict[str, Any]]:
        """All rows of a query, as plain JSON values."""
        return [self._plain(dict(r)) for r in self.conn.execute(self._sql(sql), params)]

    def one(self, sql: str, *params: Any) -> dict[str, Any] | None:
        """The first row of a query, or None."""
        rows = self.rows(sql, *params)
        return rows[0] if rows else None

    def run(self, sql: str, *params: Any) -> None:
        """Run one write."""
        self.conn.execute(self._sql(sql), params)

    def json(self, value: Any) -> Any:
        """A JSON value as this database takes it (jsonb, or sorted JSON text)."""
        if self.postgres:
            from psycopg.types.json import Jsonb

            return Jsonb(value)
        return json.dumps(value, sort_keys=True)

    def instant(self, value: datetime) -> Any:
        """A time as this database takes it (timestamptz, or ISO 8601 text in UTC)."""
        return value if self.postgres else value.astimezone(UTC).isoformat()

    def next_id(self, table: str) -> int:
        """The next id of ``table`` (one more than the largest, as on either kind)."""
        row = self.one(f"SELECT COALESCE(MAX(id), 0) + 1 AS n FROM {table}")
        assert row is not None
        return int(row["n"])

    def _plain(self, row: dict[str, Any]) -> dict[str, Any]:
        out = {}
        for k, v in row.items():
            if isinstance(v, Decimal):
                v = float(v)
            elif isinstance(v, datetime):
                v = v.astimezone(UTC).isoformat()
            elif not self.postgres and k in ("address", "shipping", "tags"):
                v = json.loads(v)
            elif not isinstance(v, str | int | float | bool | dict | list) and v is not None:
                v = str(v)
            out[k] = bool(v) if k == "vip" else v
        return out


mcp = FastMCP("shop")
store: Store


@mcp.tool(annotations=READ)
def find_customer(email: str) -> dict[str, Any]:
    """Look up a customer by email address.

    Args:
        email: The customer's email, e.g. "ada@example.com".
    """
    row = store.one("SELECT * FROM customers WHERE email = %s", email.strip().lower())
    if row is None:
        raise ValueError(f"no customer with email {email!r}")
    return row


@mcp.tool(annotations=READ)
def list_orders(customer_id: int) -> list[dict[str, Any]]:
    """List a customer's orders, newest first.

    Args:
        customer_id: The customer's id, e.g. 2.
    """
    return store.rows(
        "SELECT id, status, total, placed_at FROM orders WHERE customer_id = %s "
        "ORDER BY placed_at DESC",
        customer_id,
    )


@mcp.tool(annotations=READ)
def get_order(order_id: int) -> dict[str, Any]:
    """One order with its refunds so far.

    Args:
        order_id: The order number, e.g. 1002.
    """
    order = store.one("SELECT * FROM orders WHERE id = %s", order_id)
    if order is None:
        raise ValueError(f"no order {order_id}")
    order["refunds"] = store.rows(
        "SELECT amount, reason, created_at FROM refunds WHERE order_id = %s ORDER BY id", order_id
    )
    return order


def _order(order_id: int) -> dict[str, Any]:
    order = store.one("SELECT * FROM orders WHERE id = %s", order_id)
    if order is None:
        raise ValueError(f"no order {order_id}")
    return order


def _note(order_id: int, body: str) -> int:
    note_id = store.next_id("notes")
    store.run(
        "INSERT INTO notes (id, order_id, body, created_at) VALUES (%s, %s, %s, %s)",
        note_id,
        order_id,
        body,
        store.instant(_now()),
    )
    return note_id


@mcp.tool(annotations=WRITE)
def cancel_order(order_id: int, reason: str) -> dict[str, Any]:
    """Cancel an order that has not shipped yet, noting why.

    Args:
        order_id: The order number, e.g. 1002.
        reason: Why the customer cancels, in a few words (kept as a note on the order).
    """
    with store.transaction():
        order = _order(order_id)
        if order["status"] != "placed":
            raise ValueError(f"order {order_id} is {order['status']}; only placed orders cancel")
        store.run(
            "UPDATE orders SET status = 'cancelled', updated_at = %s WHERE id = %s",
            store.instant(_now()),
            order_id,
        )
        _note(order_id, f"Cancelled: {reason}")
    return {"order_id": order_id, "status": "cancelled"}


@mcp.tool(annotations=WRITE)
def refund_order(
    order_id: int, amount: float, reason: Literal["damaged", "late", "changed_mind", "other"]
) -> dict[str, Any]:
    """Refund part or all of a shipped or delivered order.

    Args:
        order_id: The order number, e.g. 1001.
        amount: The amount to refund, in the order's currency, e.g. 12.5.
        reason: Why the refund is given.
    """
    with store.transaction():
        order = _order(order_id)
        if order["status"] not in ("shipped", "delivered"):
            raise ValueError(f"order {order_id} is {order['status']}; cancel it instead")
        done = store.one(
            "SELECT COALESCE(SUM(amount), 0) AS s FROM refunds WHERE order_id = %s", order_id
        )
        left = round(float(order["total"]) - float(done["s"] if done else 0), 2)
        if amount <= 0 or amount > left:
            raise ValueError(f"refund must be more than 0 and at most {left}")
        refund_id = store.next_id("refunds")
        store.run(
            "INSERT INTO refunds (id, order_id, amount, reason, created_at) "
            "VALUES (%s, %s, %s, %s, %s)",
            refund_id,
            order_id,
            amount,
            reason,
            store.instant(_now()),
        )
    return {"refund_id": refund_id, "order_id": order_id, "amount": amount}


@mcp.tool(annotations=WRITE)
def update_shipping_address(order_id: int, street: str, city: str, postcode: str) -> dict[str, Any]:
    """Change where a placed order will be shipped.

    Args:
        order_id: The order number, e.g. 1003.
        street: Street and number, e.g. "3 Bletchley Road".
        city: City, e.g. "Milton Keynes".
        postcode: Postcode, e.g. "MK3 6EB".
    """
    with store.transaction():
        order = _order(order_id)
        if order["status"] != "placed":
            raise ValueError(f"order {order_id} is {order['status']}; its address is fixed")
        shipping = {"street": street, "city": city, "postcode": postcode}
        store.run(
            "UPDATE orders SET shipping = %s, updated_at = %s WHERE id = %s",
            store.json(shipping),
            store.instant(_now()),
            order_id,
        )
    return {"order_id": order_id, "shipping": shipping}


@mcp.tool(annotations=WRITE)
def tag_customer(customer_id: int, tag: str) -> dict[str, Any]:
    """Add a tag to a customer's record (kept once).

    Args:
        customer_id: The customer's id, e.g. 3.
        tag: The tag, e.g. "moved".
    """
    with store.transaction():
        row = store.one("SELECT tags FROM customers WHERE id = %s", customer_id)
        if row is None:
            raise ValueError(f"no customer {customer_id}")
        tags = list(row["tags"])
        if tag not in tags:
            tags.append(tag)
            value = tags if store.postgres else json.dumps(tags)
            store.run("UPDATE customers SET tags = %s WHERE id = %s", value, customer_id)
    return {"customer_id": customer_id, "tags": tags}


def main() -> None:
    """Open the database and serve over stdio, or over HTTP with ``--http PORT``."""
    global store
    store = Store(os.environ["SHOP_DATABASE_URL"])
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        mcp.settings.host = "127.0.0.1"
        mcp.settings.port = int(sys.argv[2])
        mcp.run("streamable-http")
    else:
        mcp.run("stdio")


if __name__ == "__main__":
    main()
