"""Travel's row lookups (unknown ids are refused with the id format, `statebox.kit.Table`)."""

from __future__ import annotations

from statebox.kit import Table

__all__ = ["BOOKINGS", "CUSTOMERS", "LOYALTY_ACCOUNTS", "booking_row", "customer_row"]

CUSTOMERS = Table("customers", "customer", "CUS-0001")
BOOKINGS = Table("bookings", "booking", "BK-100001")
LOYALTY_ACCOUNTS = Table(
    "loyalty_accounts",
    "loyalty account",
    "",
    key="customer_id",
    missing="customer {key} has no loyalty account",
)
customer_row = CUSTOMERS.row
booking_row = BOOKINGS.row
