"""Identity tools: verify a caller (recorded as a verification event), read and update contact data.

`verify_identity` writes an event whether the check passes or fails, so the state shows
every attempt; it never says which of date of birth or ZIP code was wrong.
"""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from typing import Any

from statebox.domains.auto_insurance.tools._records import (
    CUSTOMERS,
    POLICIES,
    VERIFICATIONS,
    require_verified,
)
from statebox.kit import text
from statebox.tools import ToolError, tool
from statebox.world import WorldTx

__all__ = ["get_customer", "update_contact_info", "verify_identity"]


@tool(mutates=True)
def verify_identity(
    tx: WorldTx, policy_id: str, date_of_birth: str, zip_code: str
) -> dict[str, Any]:
    """Verify the caller against a policy: the named insured's date of birth and garaging ZIP code.

    Every attempt is recorded as a verification event (passed or failed). Other tools work
    only after a passed verification in this conversation.

    Args:
        policy_id: Policy number, such as 'POL-300001'.
        date_of_birth: The caller's date of birth, 'YYYY-MM-DD'.
        zip_code: The 5-digit ZIP code the caller gives, such as '97205'.
    """
    policy = POLICIES.row(tx, policy_id)
    customer_id = text(policy["customer_id"])
    customer = tx.one("SELECT * FROM customers WHERE id = ?", [customer_id])
    assert customer is not None  # foreign key
    passed = (
        customer["date_of_birth"] == date_of_birth.strip()
        and customer["zip_code"] == zip_code.strip()
    )
    event = VERIFICATIONS.record(
        tx, customer_id, method="policy_dob_zip", passed=passed, policy_id=policy_id
    )
    if not passed:
        return {"verified": False, "event_id": event["id"], "policy_id": policy_id}
    return {
        "verified": True,
        "event_id": event["id"],
        "policy_id": policy_id,
        "customer_id": customer_id,
        "name": f"{customer['first_name']} {customer['last_name']}",
    }


@tool(mutates=False)
def get_customer(tx: WorldTx, customer_id: str) -> dict[str, Any]:
    """Get a verified customer's profile and their policies.

    Args:
        customer_id: Customer id, such as 'CUS-1001'.
    """
    row = CUSTOMERS.row(tx, customer_id)
    require_verified(tx, customer_id)
    policies = tx.query(
        "SELECT id, status, term_start, term_end, premium_annual FROM policies "
        "WHERE customer_id = ? ORDER BY id",
        [customer_id],
    )
    return {**row, "policies": policies, "as_of": tx.today.isoformat()}


@tool(mutates=True)
def update_contact_info(
    tx: WorldTx, customer_id: str, email: str | None = None, phone: str | None = None
) -> dict[str, Any]:
    """Change a verified customer's email address and/or phone number.

    Args:
        customer_id: Customer id, such as 'CUS-1001'.
        email: New email address; null to keep it.
        phone: New phone number, such as '555-0100'; null to keep it.
    """
    row = CUSTOMERS.row(tx, customer_id)
    require_verified(tx, customer_id)
    values: dict[str, Any] = {}
    if email is not None and email.strip() != row["email"]:
        if "@" not in email:
            raise ToolError("invalid_state", "email must be an address like name@example.com")
        values["email"] = email.strip()
    if phone is not None and phone.strip() != row["phone"]:
        values["phone"] = phone.strip()
    if not values:
        raise ToolError("invalid_state", "nothing to change: give a new email or phone")
    tx.update("customers", {"id": customer_id}, values)
    return {**row, **values}
