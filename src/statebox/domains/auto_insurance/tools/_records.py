"""Row lookups, value conversions and shared writes of the auto insurance tools.

Lookups raise `ToolError("not_found")` with an agent-facing message that gives the id
format. `require_verified` is the one hard identity rule: every tool but
`verify_identity` and CRM notes needs a passed verification of the customer recorded in
this conversation (stamped with the frozen clock). Premiums are recomputed from active
coverages and drivers after every endorsement, so the policy total never drifts.
"""

from __future__ import annotations

from datetime import date

from statebox.tools import ToolError
from statebox.world import Scalar, WorldTx

__all__ = [
    "Row",
    "cents",
    "claim_row",
    "coverage_row",
    "integer",
    "iso_date",
    "money",
    "new_id",
    "policy_row",
    "record_endorsement",
    "require_active",
    "require_verified",
    "stamp",
    "text",
    "ticket_row",
    "vehicle_row",
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


def iso_date(value: str, what: str) -> date:
    """Parse an agent-given ISO date, or refuse with invalid_state."""
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise ToolError("invalid_state", f"{what} must be a date like '2025-11-03'") from None


def new_id(tx: WorldTx, name: str, prefix: str, width: int = 5) -> str:
    """The next id of a world sequence, numbered above every seeded id."""
    return tx.next_id(name, prefix=prefix, width=width, start=501)


def _row(tx: WorldTx, table: str, key: str, what: str, example: str) -> Row:
    row = tx.one(f"SELECT * FROM {table} WHERE id = ?", [key])
    if row is None:
        raise ToolError("not_found", f"no {what} {key!r} (ids look like {example!r})")
    return row


def require_verified(tx: WorldTx, customer_id: str) -> None:
    """Refuse unless the customer passed identity verification in this conversation."""
    row = tx.one(
        "SELECT id FROM verification_events WHERE customer_id = ? AND result = 'passed' "
        "AND created_at = ?",
        [customer_id, stamp(tx)],
    )
    if row is None:
        raise ToolError(
            "not_permitted",
            f"customer {customer_id} is not verified in this conversation; "
            "call verify_identity first",
        )


def policy_row(tx: WorldTx, policy_id: str) -> Row:
    """The policy (its customer verified), or a refusal."""
    row = _row(tx, "policies", policy_id, "policy", "POL-300001")
    require_verified(tx, text(row["customer_id"]))
    return row


def vehicle_row(tx: WorldTx, vehicle_id: str) -> Row:
    """The vehicle (its customer verified), or a refusal."""
    row = _row(tx, "vehicles", vehicle_id, "vehicle", "VEH-0001")
    policy_row(tx, text(row["policy_id"]))
    return row


def coverage_row(tx: WorldTx, coverage_id: str) -> Row:
    """The coverage (its customer verified), or a refusal."""
    row = _row(tx, "coverages", coverage_id, "coverage", "COV-00001")
    policy_row(tx, text(row["policy_id"]))
    return row


def claim_row(tx: WorldTx, claim_id: str) -> Row:
    """The claim (its customer verified), or a refusal."""
    row = _row(tx, "claims", claim_id, "claim", "CLM-00001")
    policy_row(tx, text(row["policy_id"]))
    return row


def ticket_row(tx: WorldTx, ticket_id: str) -> Row:
    """The ticket (its customer verified), or a refusal."""
    row = _row(tx, "tickets", ticket_id, "ticket", "TCK-0001")
    require_verified(tx, text(row["customer_id"]))
    return row


def require_active(policy: Row) -> None:
    """Refuse changes to a policy that is not in force."""
    if policy["status"] == "cancelled":
        raise ToolError("invalid_state", f"policy {policy['id']} is cancelled")


def record_endorsement(tx: WorldTx, policy_id: str, kind: str, target_id: str) -> Row:
    """Recompute the policy premium and record the endorsement with the annual change."""
    before = money(policy_row(tx, policy_id)["premium_annual"])
    cov = tx.one(
        "SELECT coalesce(sum(premium_annual), 0) AS p FROM coverages "
        "WHERE policy_id = ? AND status = 'active'",
        [policy_id],
    )
    drv = tx.one(
        "SELECT coalesce(sum(surcharge_annual), 0) AS p FROM drivers "
        "WHERE policy_id = ? AND status = 'active'",
        [policy_id],
    )
    after = cents(money(cov["p"] if cov else 0) + money(drv["p"] if drv else 0))
    tx.update("policies", {"id": policy_id}, {"premium_annual": after})
    return tx.insert(
        "endorsements",
        {
            "id": new_id(tx, "endorsements", "END-"),
            "policy_id": policy_id,
            "kind": kind,
            "target_id": target_id,
            "effective_date": tx.today.isoformat(),
            "premium_change_annual": cents(after - before),
            "created_at": stamp(tx),
        },
    )
