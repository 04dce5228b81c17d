"""Row lookups, the identity rule and shared writes of the auto insurance tools.

Lookups raise `ToolError("not_found")` with an agent-facing message that gives the id
format (`statebox.kit.Table`); column helpers come from `statebox.kit`.
`require_verified` is the one hard identity rule: every tool but `verify_identity` and
CRM notes needs a passed verification of the customer recorded in this conversation
(stamped with the frozen clock, in `VERIFICATIONS`). Premiums are recomputed from active
coverages and drivers after every endorsement, so the policy total never drifts.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from statebox import kit
from statebox.kit import Row, Table, Transition, VerificationLog, cents, money, new_id, stamp, text
from statebox.tools import ToolError
from statebox.world import WorldTx

__all__ = [
    "CLAIMS",
    "COVERAGES",
    "CUSTOMERS",
    "OPEN_CLAIM",
    "POLICIES",
    "UNDECIDED",
    "VEHICLES",
    "VERIFICATIONS",
    "claim_row",
    "coverage_row",
    "iso_date",
    "on_policy",
    "open_claims",
    "past_due_items",
    "policy_row",
    "record_endorsement",
    "require_active",
    "require_verified",
    "vehicle_row",
]

VERIFICATIONS = VerificationLog(table="verification_events", tool="verify_identity")
"""Every identity verification attempt, passed or failed (written by verify_identity)."""
iso_date = partial(kit.iso_date, example="2025-11-03")
CUSTOMERS = Table("customers", "customer", "CUS-1001")
POLICIES = Table("policies", "policy", "POL-300001")
VEHICLES = Table("vehicles", "vehicle", "VEH-0001")
COVERAGES = Table("coverages", "coverage", "COV-00001")
CLAIMS = Table("claims", "claim", "CLM-00001")


def require_verified(tx: WorldTx, customer_id: str) -> None:
    """Refuse unless the customer passed identity verification in this conversation."""
    VERIFICATIONS.require(tx, customer_id)


def policy_row(tx: WorldTx, policy_id: str) -> Row:
    """The policy (its customer verified), or a refusal."""
    row = POLICIES.row(tx, policy_id)
    require_verified(tx, text(row["customer_id"]))
    return row


def _of_policy(table: Table) -> Callable[[WorldTx, str], Row]:
    """A lookup of ``table``'s rows whose policy's customer must be verified."""

    def lookup(tx: WorldTx, key: str) -> Row:
        row = table.row(tx, key)
        policy_row(tx, text(row["policy_id"]))
        return row

    return lookup


vehicle_row = _of_policy(VEHICLES)
"""The vehicle (its customer verified), or a refusal."""
coverage_row = _of_policy(COVERAGES)
"""The coverage (its customer verified), or a refusal."""
claim_row = _of_policy(CLAIMS)
"""The claim (its customer verified), or a refusal."""


def on_policy(tx: WorldTx, table: Table, key: str, policy_id: str) -> Row:
    """A row of ``table`` that belongs to the policy (``policy P has no vehicle 'X'`` else)."""
    row = tx.one(f'SELECT * FROM "{table.name}" WHERE id = ? AND policy_id = ?', [key, policy_id])
    if row is None:
        raise ToolError("not_found", f"policy {policy_id} has no {table.noun} {key!r}")
    return row


OPEN_CLAIM = ("open", "awaiting_documents", "under_review")
"""Claim statuses before a decision: the claim is still open (policy §3, §4)."""
UNDECIDED = Transition(CLAIMS, allowed=OPEN_CLAIM)
"""A guard: the claim is not decided yet (``claim X is <status>`` otherwise)."""


def open_claims(tx: WorldTx, policy_id: str, vehicle_id: str | None = None) -> list[str]:
    """Ids of the policy's open claims (of one vehicle when given)."""
    rows = tx.query(
        "SELECT id, vehicle_id FROM claims WHERE policy_id = ? AND status IN (?, ?, ?) ORDER BY id",
        [policy_id, *OPEN_CLAIM],
    )
    return [text(r["id"]) for r in rows if vehicle_id is None or r["vehicle_id"] == vehicle_id]


def past_due_items(tx: WorldTx, policy_id: str) -> list[str]:
    """Ids of the policy's past-due installments (unpaid, due before today) and charged fees."""
    late = tx.query(
        "SELECT id FROM installments WHERE policy_id = ? AND status = 'unpaid' AND due_date < ? "
        "ORDER BY seq",
        [policy_id, tx.today.isoformat()],
    )
    fees = tx.query(
        "SELECT id FROM fees WHERE policy_id = ? AND status = 'charged' ORDER BY id", [policy_id]
    )
    return [text(r["id"]) for r in [*late, *fees]]


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
