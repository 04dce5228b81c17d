"""Policy tools: read a policy; add or remove vehicles and drivers (endorsements).

Each change records an endorsement effective today with the annual premium change, and
the policy premium is recomputed. The tools enforce what the data model needs (a
policy keeps at least one vehicle and its named insured; VINs have 17 characters) and
refuse what policy.md §3 forbids outright: a fifth vehicle, a business-use vehicle,
removing a vehicle with an open claim, a driver under 16 or above the record limits
(underwriting adds those). Whether a request should be attempted at all is policy.
"""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from typing import Any, Literal

from statebox.domains.auto_insurance.rating import age_on, coverage_premium, driver_surcharge
from statebox.domains.auto_insurance.tools._records import (
    VEHICLES,
    iso_date,
    on_policy,
    open_claims,
    policy_row,
    record_endorsement,
    require_active,
)
from statebox.kit import Table, Transition, new_id, text
from statebox.tools import ToolError, tool
from statebox.world import WorldTx

__all__ = ["add_driver", "add_vehicle", "get_policy", "remove_driver", "remove_vehicle"]

_MAX_VEHICLES = 4
_MIN_DRIVER_AGE = 16
_MAX_ACCIDENTS = 1
_MAX_VIOLATIONS = 2
_REMOVE_VEHICLE = Transition(
    VEHICLES,
    allowed=("active",),
    to="removed",
    today="removed_on",
    refusal="{noun} {id} is already removed",
)
_REMOVE_DRIVER = _REMOVE_VEHICLE._replace(table=Table("drivers", "driver", "DRV-0001"))


@tool(mutates=False)
def get_policy(tx: WorldTx, policy_id: str) -> dict[str, Any]:
    """Get a policy with its vehicles, drivers, coverages, endorsements and cancellations.

    Args:
        policy_id: Policy number, such as 'POL-300001'.
    """
    policy = policy_row(tx, policy_id)
    by = [policy_id]
    return {
        **policy,
        "as_of": tx.today.isoformat(),
        "vehicles": tx.query("SELECT * FROM vehicles WHERE policy_id = ? ORDER BY id", by),
        "drivers": tx.query("SELECT * FROM drivers WHERE policy_id = ? ORDER BY id", by),
        "coverages": tx.query("SELECT * FROM coverages WHERE policy_id = ? ORDER BY id", by),
        "endorsements": tx.query("SELECT * FROM endorsements WHERE policy_id = ? ORDER BY id", by),
        "cancellations": tx.query(
            "SELECT * FROM cancellations WHERE policy_id = ? ORDER BY id", by
        ),
    }


@tool(mutates=True)
def add_vehicle(
    tx: WorldTx,
    policy_id: str,
    vin: str,
    year: int,
    make: str,
    model: str,
    usage: Literal["commute", "pleasure", "business"],
    full_coverage: bool,
    lienholder: str | None = None,
) -> dict[str, Any]:
    """Add a vehicle to a policy, effective today, with liability at the policy's current limit.

    With full_coverage, collision and comprehensive are added too, each with a $500 deductible.

    Args:
        policy_id: Policy number, such as 'POL-300001'.
        vin: The 17-character vehicle identification number.
        year: Model year, such as 2022.
        make: Manufacturer, such as 'Toyota'.
        model: Model name, such as 'Corolla'.
        usage: How the vehicle is mostly used.
        full_coverage: True to add collision and comprehensive as well as liability.
        lienholder: The lender's name when the vehicle is financed or leased; null otherwise.
    """
    policy = policy_row(tx, policy_id)
    require_active(policy)
    if usage == "business":
        raise ToolError("invalid_state", "vehicles used for business are not eligible")
    active = tx.query(
        "SELECT id FROM vehicles WHERE policy_id = ? AND status = 'active'", [policy_id]
    )
    if len(active) >= _MAX_VEHICLES:
        raise ToolError(
            "invalid_state", f"policy {policy_id} already insures {_MAX_VEHICLES} vehicles"
        )
    vin = vin.strip().upper()
    if len(vin) != 17:
        raise ToolError("invalid_state", "a VIN has exactly 17 characters")
    if tx.one(
        "SELECT id FROM vehicles WHERE policy_id = ? AND vin = ? AND status = 'active'",
        [policy_id, vin],
    ):
        raise ToolError("invalid_state", f"vehicle {vin} is already on policy {policy_id}")
    liability = tx.one(
        "SELECT limit_code FROM coverages WHERE policy_id = ? AND kind = 'liability' "
        "AND status = 'active' ORDER BY id",
        [policy_id],
    )
    limit = text(liability["limit_code"]) if liability else "100/300"
    vehicle = tx.insert(
        "vehicles",
        {
            "id": new_id(tx, "vehicles", "VEH-", 4),
            "policy_id": policy_id,
            "vin": vin,
            "year": year,
            "make": make.strip(),
            "model": model.strip(),
            "usage": usage,
            "lienholder": lienholder.strip() if lienholder else None,
            "status": "active",
            "added_on": tx.today.isoformat(),
            "removed_on": None,
        },
    )
    kinds: list[tuple[str, str | None, int]] = [("liability", limit, 0)]
    if full_coverage:
        kinds += [("collision", None, 500), ("comprehensive", None, 500)]
    coverages = [
        tx.insert(
            "coverages",
            {
                "id": new_id(tx, "coverages", "COV-"),
                "policy_id": policy_id,
                "vehicle_id": vehicle["id"],
                "kind": kind,
                "limit_code": code,
                "deductible": ded,
                "premium_annual": coverage_premium(kind, usage, code, ded),
                "status": "active",
            },
        )
        for kind, code, ded in kinds
    ]
    endorsement = record_endorsement(tx, policy_id, "add_vehicle", text(vehicle["id"]))
    return {"vehicle": vehicle, "coverages": coverages, "endorsement": endorsement}


@tool(mutates=True)
def remove_vehicle(tx: WorldTx, policy_id: str, vehicle_id: str) -> dict[str, Any]:
    """Remove a vehicle and its coverages from a policy, effective today.

    Args:
        policy_id: Policy number, such as 'POL-300001'.
        vehicle_id: Vehicle id, such as 'VEH-0001'.
    """
    policy = policy_row(tx, policy_id)
    require_active(policy)
    vehicle = _REMOVE_VEHICLE.check(on_policy(tx, VEHICLES, vehicle_id, policy_id))
    claims = open_claims(tx, policy_id, vehicle_id)
    if claims:
        raise ToolError(
            "invalid_state",
            f"vehicle {vehicle_id} has an open claim ({claims[0]}); it stays until the claim "
            "is decided",
        )
    others = tx.query(
        "SELECT id FROM vehicles WHERE policy_id = ? AND status = 'active' AND id != ?",
        [policy_id, vehicle_id],
    )
    if not others:
        raise ToolError(
            "invalid_state", "a policy must insure at least one vehicle; this is the last one"
        )
    _REMOVE_VEHICLE.write(tx, vehicle)
    tx.execute(
        "UPDATE coverages SET status = 'removed' WHERE vehicle_id = ? AND status = 'active'",
        [vehicle_id],
    )
    endorsement = record_endorsement(tx, policy_id, "remove_vehicle", vehicle_id)
    return {"vehicle_id": vehicle_id, "status": "removed", "endorsement": endorsement}


@tool(mutates=True)
def add_driver(
    tx: WorldTx,
    policy_id: str,
    first_name: str,
    last_name: str,
    date_of_birth: str,
    license_number: str,
    relationship: Literal["spouse", "child", "other"],
    accidents_3y: int,
    violations_3y: int,
) -> dict[str, Any]:
    """Add a driver to a policy, effective today; the rating surcharge is computed automatically.

    Args:
        policy_id: Policy number, such as 'POL-300001'.
        first_name: Driver's first name.
        last_name: Driver's last name.
        date_of_birth: Driver's date of birth, 'YYYY-MM-DD'.
        license_number: Driver's licence number, such as 'OR12345678'.
        relationship: The driver's relationship to the named insured.
        accidents_3y: At-fault accidents in the last 3 years, as the customer states.
        violations_3y: Moving violations in the last 3 years, as the customer states.
    """
    policy = policy_row(tx, policy_id)
    require_active(policy)
    dob = iso_date(date_of_birth, "date_of_birth")
    if accidents_3y < 0 or violations_3y < 0:
        raise ToolError("invalid_state", "accident and violation counts cannot be negative")
    if age_on(dob, tx.today) < _MIN_DRIVER_AGE:
        raise ToolError("invalid_state", f"a driver must be at least {_MIN_DRIVER_AGE} years old")
    if accidents_3y > _MAX_ACCIDENTS or violations_3y > _MAX_VIOLATIONS:
        raise ToolError(
            "invalid_state",
            "the driver's record is above the limits for adding by phone; underwriting must "
            "review it",
        )
    if tx.one(
        "SELECT id FROM drivers WHERE policy_id = ? AND license_number = ? AND status = 'active'",
        [policy_id, license_number.strip()],
    ):
        raise ToolError("invalid_state", f"licence {license_number} is already on the policy")
    driver = tx.insert(
        "drivers",
        {
            "id": new_id(tx, "drivers", "DRV-", 4),
            "policy_id": policy_id,
            "first_name": first_name.strip(),
            "last_name": last_name.strip(),
            "date_of_birth": dob.isoformat(),
            "license_number": license_number.strip(),
            "relationship": relationship,
            "accidents_3y": accidents_3y,
            "violations_3y": violations_3y,
            "surcharge_annual": driver_surcharge(
                age_on(dob, tx.today), accidents_3y, violations_3y
            ),
            "status": "active",
            "added_on": tx.today.isoformat(),
            "removed_on": None,
        },
    )
    endorsement = record_endorsement(tx, policy_id, "add_driver", text(driver["id"]))
    return {"driver": driver, "endorsement": endorsement}


@tool(mutates=True)
def remove_driver(tx: WorldTx, policy_id: str, driver_id: str) -> dict[str, Any]:
    """Remove a driver from a policy, effective today. The named insured cannot be removed.

    Args:
        policy_id: Policy number, such as 'POL-300001'.
        driver_id: Driver id, such as 'DRV-0001'.
    """
    policy = policy_row(tx, policy_id)
    require_active(policy)
    driver = _REMOVE_DRIVER.check(on_policy(tx, _REMOVE_DRIVER.table, driver_id, policy_id))
    if driver["relationship"] == "named_insured":
        raise ToolError("invalid_state", "the named insured cannot be removed from the policy")
    _REMOVE_DRIVER.write(tx, driver)
    endorsement = record_endorsement(tx, policy_id, "remove_driver", driver_id)
    return {"driver_id": driver_id, "status": "removed", "endorsement": endorsement}
