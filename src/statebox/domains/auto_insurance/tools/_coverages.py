"""Coverage tools: deductibles, liability limits, optional coverages.

Liability is mandatory on every vehicle (the tool refuses to remove it). The tools also
refuse a deductible above $1,000 on a financed vehicle and a lower liability limit while a
claim is open or, below 50/100, while a driver is under 25 (policy.md §3.3); the other
lender requirements and age limits are policy.
"""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from typing import Any, Literal

from statebox.domains.auto_insurance.rating import LIABILITY_LIMITS, age_on, coverage_premium
from statebox.domains.auto_insurance.tools._records import (
    COVERAGES,
    coverage_row,
    iso_date,
    open_claims,
    policy_row,
    record_endorsement,
    require_active,
    vehicle_row,
)
from statebox.kit import Transition, integer, new_id, text
from statebox.tools import ToolError, tool
from statebox.world import WorldTx

__all__ = ["add_coverage", "change_deductible", "change_liability_limit", "remove_coverage"]

_LIEN_MAX_DEDUCTIBLE = 1000
_YOUTH_AGE = 25
_YOUTH_MIN_LIMIT = "50/100"
_REMOVE = Transition(
    COVERAGES, allowed=("active",), to="removed", refusal="{noun} {id} is already removed"
)


def _usage(tx: WorldTx, vehicle_id: str) -> str:
    row = tx.one("SELECT usage FROM vehicles WHERE id = ?", [vehicle_id])
    assert row is not None  # foreign key
    return text(row["usage"])


@tool(mutates=True)
def change_deductible(
    tx: WorldTx, coverage_id: str, deductible: Literal[250, 500, 1000, 2000]
) -> dict[str, Any]:
    """Change the deductible of a collision or comprehensive coverage, effective today.

    Args:
        coverage_id: Coverage id, such as 'COV-00001'.
        deductible: The new deductible in dollars.
    """
    cov = coverage_row(tx, coverage_id)
    require_active(policy_row(tx, text(cov["policy_id"])))
    if cov["status"] != "active" or cov["kind"] not in ("collision", "comprehensive"):
        raise ToolError(
            "invalid_state", "only active collision or comprehensive coverages have a deductible"
        )
    if integer(cov["deductible"]) == deductible:
        raise ToolError("invalid_state", f"the deductible is already ${deductible}")
    lien = tx.one("SELECT lienholder FROM vehicles WHERE id = ?", [cov["vehicle_id"]])
    if lien is not None and lien["lienholder"] and deductible > _LIEN_MAX_DEDUCTIBLE:
        raise ToolError(
            "invalid_state",
            f"vehicle {cov['vehicle_id']} has a lienholder: the deductible may be at most "
            f"${_LIEN_MAX_DEDUCTIBLE}",
        )
    premium = coverage_premium(
        text(cov["kind"]), _usage(tx, text(cov["vehicle_id"])), None, deductible
    )
    COVERAGES.update(tx, cov, {"deductible": deductible, "premium_annual": premium})
    endorsement = record_endorsement(tx, text(cov["policy_id"]), "change_deductible", coverage_id)
    return {"coverage_id": coverage_id, "deductible": deductible, "endorsement": endorsement}


def _lowering_allowed(tx: WorldTx, policy_id: str, limit_code: str) -> None:
    """Refuse a lower liability limit the policy does not allow (§3.3)."""
    claims = open_claims(tx, policy_id)
    if claims:
        raise ToolError(
            "invalid_state", f"claim {claims[0]} is open: the liability limit cannot be lowered"
        )
    if LIABILITY_LIMITS.index(limit_code) >= LIABILITY_LIMITS.index(_YOUTH_MIN_LIMIT):
        return
    for d in tx.query(
        "SELECT id, date_of_birth FROM drivers WHERE policy_id = ? AND status = 'active' "
        "ORDER BY id",
        [policy_id],
    ):
        if age_on(iso_date(text(d["date_of_birth"]), "date_of_birth"), tx.today) < _YOUTH_AGE:
            raise ToolError(
                "invalid_state",
                f"driver {d['id']} is under {_YOUTH_AGE}: the lowest limit is {_YOUTH_MIN_LIMIT}",
            )


@tool(mutates=True)
def change_liability_limit(
    tx: WorldTx, policy_id: str, limit_code: Literal["25/50", "50/100", "100/300", "250/500"]
) -> dict[str, Any]:
    """Change the liability limit of every vehicle on a policy, effective today.

    Args:
        policy_id: Policy number, such as 'POL-300001'.
        limit_code: Bodily-injury limits in thousands of dollars per person / per accident.
    """
    require_active(policy_row(tx, policy_id))
    rows = tx.query(
        "SELECT c.id, c.limit_code, v.usage FROM coverages c "
        "JOIN vehicles v ON v.id = c.vehicle_id "
        "WHERE c.policy_id = ? AND c.kind = 'liability' AND c.status = 'active' ORDER BY c.id",
        [policy_id],
    )
    if all(r["limit_code"] == limit_code for r in rows):
        raise ToolError("invalid_state", f"the liability limit is already {limit_code}")
    rank = LIABILITY_LIMITS.index
    if any(rank(limit_code) < rank(text(r["limit_code"])) for r in rows):
        _lowering_allowed(tx, policy_id, limit_code)
    for r in rows:
        tx.update(
            "coverages",
            {"id": r["id"]},
            {
                "limit_code": limit_code,
                "premium_annual": coverage_premium("liability", text(r["usage"]), limit_code, 0),
            },
        )
    endorsement = record_endorsement(tx, policy_id, "change_liability_limit", policy_id)
    return {"policy_id": policy_id, "limit_code": limit_code, "endorsement": endorsement}


@tool(mutates=True)
def add_coverage(
    tx: WorldTx, vehicle_id: str, kind: Literal["rental", "roadside"]
) -> dict[str, Any]:
    """Add an optional coverage to a vehicle, effective today (rental is $40/day).

    Args:
        vehicle_id: Vehicle id, such as 'VEH-0001'.
        kind: The optional coverage.
    """
    vehicle = vehicle_row(tx, vehicle_id)
    policy_id = text(vehicle["policy_id"])
    require_active(policy_row(tx, policy_id))
    if vehicle["status"] != "active":
        raise ToolError("invalid_state", f"vehicle {vehicle_id} is removed")
    if tx.one(
        "SELECT id FROM coverages WHERE vehicle_id = ? AND kind = ? AND status = 'active'",
        [vehicle_id, kind],
    ):
        raise ToolError("invalid_state", f"vehicle {vehicle_id} already has {kind} coverage")
    code = "40/day" if kind == "rental" else None
    cov = tx.insert(
        "coverages",
        {
            "id": new_id(tx, "coverages", "COV-"),
            "policy_id": policy_id,
            "vehicle_id": vehicle_id,
            "kind": kind,
            "limit_code": code,
            "deductible": 0,
            "premium_annual": coverage_premium(kind, text(vehicle["usage"]), code, 0),
            "status": "active",
        },
    )
    endorsement = record_endorsement(tx, policy_id, "add_coverage", text(cov["id"]))
    return {"coverage": cov, "endorsement": endorsement}


@tool(mutates=True)
def remove_coverage(tx: WorldTx, coverage_id: str) -> dict[str, Any]:
    """Remove a coverage from a vehicle, effective today. Liability cannot be removed.

    Args:
        coverage_id: Coverage id, such as 'COV-00001'.
    """
    cov = coverage_row(tx, coverage_id)
    policy_id = text(cov["policy_id"])
    require_active(policy_row(tx, policy_id))
    _REMOVE.check(cov)
    if cov["kind"] == "liability":
        raise ToolError("invalid_state", "liability coverage is required on every vehicle")
    _REMOVE.write(tx, cov)
    endorsement = record_endorsement(tx, policy_id, "remove_coverage", coverage_id)
    return {"coverage_id": coverage_id, "status": "removed", "endorsement": endorsement}
