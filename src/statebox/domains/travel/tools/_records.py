"""Travel's row lookups (unknown ids are refused with the id format, `statebox.kit.Table`)."""

from __future__ import annotations

from statebox.kit import Table

__all__ = ["BOOKINGS", "CUSTOMERS", "booking_row", "customer_row"]

CUSTOMERS = Table("customers", "customer", "CUS-0001")
BOOKINGS = Table("bookings", "booking", "BK-100001")
customer_row = CUSTOMERS.row
booking_row = BOOKINGS.row
