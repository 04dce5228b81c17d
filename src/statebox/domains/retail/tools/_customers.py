"""Customer tools: look-up by email, profile, order list, saved addresses."""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from datetime import timedelta
from typing import Any, Literal

from statebox.domains.retail.tools._records import customer_row
from statebox.kit import cents, found, money, new_id, text
from statebox.tools import ToolError, tool
from statebox.world import WorldTx

__all__ = ["add_address", "find_customer_by_email", "get_customer_profile", "list_customer_orders"]


def spend_last_12_months(tx: WorldTx, customer_id: str) -> float:
    """Dollars spent on delivered orders placed in the 365 days up to today."""
    since = (tx.today - timedelta(days=365)).isoformat()
    rows = tx.query(
        "SELECT total FROM orders WHERE customer_id = ? AND status = 'delivered' "
        "AND substr(placed_at, 1, 10) >= ?",
        [customer_id, since],
    )
    return cents(sum(money(r["total"]) for r in rows))


def store_credit_balance(tx: WorldTx, customer_id: str) -> float:
    """The customer's store credit balance in dollars."""
    rows = tx.query("SELECT amount FROM store_credits WHERE customer_id = ?", [customer_id])
    return cents(sum(money(r["amount"]) for r in rows))


@tool(mutates=False)
def find_customer_by_email(tx: WorldTx, email: str) -> dict[str, Any]:
    """Find a customer by email address (case-insensitive).

    Args:
        email: The customer's email, such as 'sarah.martinez@example.com'.
    """
    return found(
        tx,
        "SELECT id, first_name, last_name, email FROM customers WHERE lower(email) = lower(?)",
        [email.strip()],
        f"no customer with email {email!r}",
    )


@tool(mutates=False)
def get_customer_profile(tx: WorldTx, customer_id: str) -> dict[str, Any]:
    """Get a customer's profile, membership, saved addresses, store credit and yearly spend.

    ``spend_last_12_months`` sums delivered orders placed in the 365 days up to today.

    Args:
        customer_id: Customer id, such as 'CUS-0001'.
    """
    customer = customer_row(tx, customer_id)
    membership = tx.one("SELECT * FROM memberships WHERE customer_id = ?", [customer_id])
    addresses = tx.query("SELECT * FROM addresses WHERE customer_id = ? ORDER BY id", [customer_id])
    return {
        **customer,
        "membership": membership,
        "addresses": addresses,
        "store_credit_balance": store_credit_balance(tx, customer_id),
        "spend_last_12_months": spend_last_12_months(tx, customer_id),
    }


@tool(mutates=False)
def list_customer_orders(tx: WorldTx, customer_id: str) -> list[dict[str, Any]]:
    """List a customer's orders, newest first.

    Args:
        customer_id: Customer id, such as 'CUS-0001'.
    """
    customer_row(tx, customer_id)
    return tx.query(
        "SELECT id, status, placed_at, total, replacement_for FROM orders "
        "WHERE customer_id = ? ORDER BY placed_at DESC, id DESC",
        [customer_id],
    )


@tool(mutates=True)
def add_address(
    tx: WorldTx,
    customer_id: str,
    label: Literal["home", "work", "other"],
    line1: str,
    city: str,
    state: str,
    postal_code: str,
    line2: str = "",
) -> dict[str, Any]:
    """Save a new US shipping address on a customer's account (it does not become the default).

    Args:
        customer_id: Customer id, such as 'CUS-0001'.
        label: What the address is for.
        line1: Street address, such as '42 Harbor Rd'.
        city: City.
        state: Two-letter state code, such as 'OR'.
        postal_code: Five-digit ZIP code, such as '97205'.
        line2: Apartment, suite or unit; empty when none.
    """
    customer_row(tx, customer_id)
    fields = {"line1": line1, "city": city, "state": state, "postal_code": postal_code}
    empty = [k for k, v in fields.items() if not v.strip()]
    if empty:
        raise ToolError("invalid_state", f"address fields must not be empty: {empty}")
    if len(state.strip()) != 2 or not (postal_code.strip().isdigit() and len(postal_code) == 5):
        raise ToolError("invalid_state", "state must be a 2-letter code and postal_code 5 digits")
    row = {
        "id": new_id(tx, "addresses", "ADR-", 4),
        "customer_id": customer_id,
        "label": label,
        "line1": line1.strip(),
        "line2": line2.strip(),
        "city": city.strip(),
        "state": state.strip().upper(),
        "postal_code": postal_code.strip(),
        "country": "US",
        "is_default": 0,
    }
    return tx.insert("addresses", row)


def address_text(tx: WorldTx, address_id: str) -> str:
    """One-line rendering of a saved address (for order views)."""
    row = tx.one("SELECT * FROM addresses WHERE id = ?", [address_id])
    if row is None:
        return ""
    unit = f", {text(row['line2'])}" if row["line2"] else ""
    return f"{text(row['line1'])}{unit}, {text(row['city'])}, {text(row['state'])} " + text(
        row["postal_code"]
    )
