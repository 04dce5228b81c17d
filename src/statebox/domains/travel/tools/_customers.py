"""CRM tools: find a customer, read the profile, change contact details, write notes."""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from typing import Any

from statebox.domains.travel.tools._records import CUSTOMERS, customer_row
from statebox.kit import IdFormat, NoteBook, Owner, found, note_tools
from statebox.tools import ToolError, tool
from statebox.world import WorldTx

__all__ = [
    "add_customer_note",
    "find_customer_by_email",
    "get_customer_profile",
    "update_customer_contact",
]


def _bookings(tx: WorldTx, customer_id: str) -> list[dict[str, Any]]:
    return tx.query(
        "SELECT id, reference, kind, status, start_date, end_date FROM bookings "
        "WHERE customer_id = ? ORDER BY id",
        [customer_id],
    )


@tool(mutates=False)
def find_customer_by_email(tx: WorldTx, email: str) -> dict[str, Any]:
    """Find a customer by email address; returns the customer id, name and loyalty tier.

    Args:
        email: The customer's email address, such as 'amara.abernathy@example.com'.
    """
    return found(
        tx,
        "SELECT c.id, c.first_name, c.last_name, c.email, l.tier FROM customers c "
        "LEFT JOIN loyalty_accounts l ON l.customer_id = c.id WHERE lower(c.email) = lower(?)",
        [email.strip()],
        f"no customer with email {email!r}",
    )


@tool(mutates=False)
def get_customer_profile(tx: WorldTx, customer_id: str) -> dict[str, Any]:
    """Get a customer's profile: contact details, loyalty account, corporate account, bookings.

    Args:
        customer_id: Customer id, such as 'CUS-0001'.
    """
    row = customer_row(tx, customer_id)
    return {
        **row,
        "loyalty": tx.one("SELECT * FROM loyalty_accounts WHERE customer_id = ?", [customer_id]),
        "bookings": _bookings(tx, customer_id),
        "notes": tx.query(
            "SELECT id, category, created_at FROM customer_notes WHERE customer_id = ? ORDER BY id",
            [customer_id],
        ),
    }


@tool(mutates=True)
def update_customer_contact(
    tx: WorldTx, customer_id: str, phone: str | None = None, email: str | None = None
) -> dict[str, Any]:
    """Change a customer's phone number and/or email address.

    Args:
        customer_id: Customer id, such as 'CUS-0001'.
        phone: New phone number, such as '+1-555-0199'; omit to keep.
        email: New email address; omit to keep.
    """
    customer_row(tx, customer_id)
    values: dict[str, Any] = {}
    if phone is not None:
        values["phone"] = phone.strip()
    if email is not None:
        email = email.strip().lower()
        if "@" not in email:
            raise ToolError("invalid_state", f"{email!r} is not an email address")
        other = tx.one("SELECT id FROM customers WHERE email = ? AND id != ?", [email, customer_id])
        if other is not None:
            raise ToolError("invalid_state", "that email address belongs to another account")
        values["email"] = email
    if not values:
        raise ToolError("invalid_state", "give a phone number or an email address to change")
    tx.update("customers", {"id": customer_id}, values)
    return customer_row(tx, customer_id)


NOTES = note_tools(
    NoteBook(
        "customer_notes",
        "customer_note",
        IdFormat("NOTE-", width=4, start=1),
        Owner("customer_id", CUSTOMERS, "Customer id, such as 'CUS-0001'."),
        ("contact_change", "complaint", "preference", "fraud_alert", "other"),
        clean_text=False,
        docs={"add_customer_note": "Add an internal CRM note to a customer's profile."},
    )
)
add_customer_note = NOTES["add_customer_note"]
