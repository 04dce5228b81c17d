"""Coverage tasks: deductibles, liability limits, optional coverages, dropping collision."""

from __future__ import annotations

from ._build import (
    TODAY,
    TaskSet,
    age_on,
    call,
    coverages_of,
    drivers_of,
    ident,
    inv,
    open_claims,
    pick,
    vehicles_of,
)


def _young(policy: str) -> bool:
    from datetime import date

    return any(
        age_on(date.fromisoformat(d["date_of_birth"]), TODAY) < 25 for d in drivers_of(policy)
    )


def _liability(policy: str) -> str:
    return str(coverages_of(policy, kind="liability")[0]["limit_code"])


def _vehicle(policy: str, pred: object) -> dict[str, object] | None:
    for v in vehicles_of(policy):
        if pred(v):  # type: ignore[operator]
            return v
    return None


def _has(policy: str, vid: str, kind: str) -> bool:
    return bool(coverages_of(policy, vid, kind))


def build(tasks: TaskSet) -> None:
    """Add coverage changes whose outcome turns on lenders, claims, drivers' and vehicles' ages."""
    f = "coverage-change"

    def first_vehicle(pred: object, n: int, skip: int = 0) -> list[tuple[str, dict[str, object]]]:
        ids = pick(
            lambda p: _vehicle(p["id"], pred) is not None and not open_claims(p["id"]), n, skip
        )
        return [(pid, _vehicle(pid, pred)) for pid in ids]  # type: ignore[misc]

    # Deductibles.
    owned = first_vehicle(
        lambda v: v["lienholder"] is None and _has(v["policy_id"], v["id"], "collision"), 3
    )
    financed = first_vehicle(lambda v: v["lienholder"] is not None, 2)
    for (policy, v), new in zip(owned, (1000, 2000, 250), strict=True):
        cov = coverages_of(policy, str(v["id"]), "collision")[0]
        if cov["deductible"] == new:
            new = 500
        tasks.add(
            f,
            "deductible",
            policy=policy,
            description=f"Owned vehicle: collision deductible {cov['deductible']} → {new}; "
            "allowed.",
            opening=f"I want to change the collision deductible on my {v['make']} {v['model']}.",
            goal="Change the deductible",
            facts={"deductible": new},
            golden=[
                *ident(policy),
                call("change_deductible", coverage_id=cov["id"], deductible=new),
            ],
            invariants=[
                inv(f"select deductible from coverages where id = '{cov['id']}'", new, "deductible")
            ],
        )
    for policy, v in financed:
        cov = coverages_of(policy, str(v["id"]), "collision")[0]
        tasks.add(
            f,
            "deductible-lender-cap",
            policy=policy,
            description="Financed vehicle: a $2,000 deductible exceeds the lender cap of "
            "$1,000; refuse.",
            opening=f"I'd like a higher deductible on my {v['make']} {v['model']} to save money.",
            goal="Raise the deductible to $2,000",
            facts={"deductible": {"value": 2000, "say": "The collision one, to ${value}."}},
            reacts={"accept": "Oh, okay."},
            golden=ident(policy),
            invariants=[
                inv(
                    f"select deductible from coverages where id = '{cov['id']}'",
                    cov["deductible"],
                    "deductible unchanged",
                )
            ],
            refusal=True,
            rubric=[
                "Does the agent explain that the lender limits the deductible to $1,000? (yes/no)"
            ],
            reference_response="Because your vehicle is financed, the lender requires a deductible "
            "of at most $1,000, so I can't set it to $2,000.",
        )
    # Liability limits.
    raise_to = pick(lambda p: _liability(p["id"]) == "50/100" and not open_claims(p["id"]), 2)
    for policy in raise_to:
        tasks.add(
            f,
            "liability-raise",
            policy=policy,
            description="Raise liability 50/100 → 100/300: always allowed.",
            opening="I think I need more liability coverage.",
            goal="Raise liability limits",
            facts={"limit": "100/300"},
            golden=[
                *ident(policy),
                call("change_liability_limit", policy_id=policy, limit_code="100/300"),
            ],
            invariants=[
                inv(
                    f"select count(*) from coverages where policy_id = '{policy}' and "
                    "kind = 'liability' and limit_code = '100/300' and status = 'active'",
                    len(vehicles_of(policy)),
                    "every vehicle at 100/300",
                )
            ],
        )
    claimed = pick(lambda p: _liability(p["id"]) == "100/300" and bool(open_claims(p["id"])), 1)[0]
    young_hi = pick(
        lambda p: _liability(p["id"]) == "100/300" and _young(p["id"]) and not open_claims(p["id"]),
        2,
    )
    plain = pick(
        lambda p: (
            _liability(p["id"]) == "100/300" and not _young(p["id"]) and not open_claims(p["id"])
        ),
        1,
    )[0]
    for policy, limit, allowed, why in (
        (claimed, "50/100", False, "open claim"),
        (young_hi[0], "25/50", False, "driver under 25"),
        (young_hi[1], "50/100", True, "driver under 25 but 50/100 is the floor"),
        (plain, "25/50", True, "no claim, no young driver"),
    ):
        golden = ident(policy)
        if allowed:
            golden.append(call("change_liability_limit", policy_id=policy, limit_code=limit))
        tasks.add(
            f,
            "liability-lower" if allowed else "liability-lower-refused",
            policy=policy,
            description=f"Lower liability 100/300 → {limit} ({why}): "
            + ("allowed." if allowed else "refused."),
            opening="I'd like to lower my liability limits to cut my premium.",
            goal="Lower liability limits",
            facts={"limit": {"value": limit, "say": "Drop it to {value}."}},
            reacts={"accept": "Okay."},
            golden=golden,
            invariants=[
                inv(
                    f"select count(*) from coverages where policy_id = '{policy}' and "
                    f"kind = 'liability' and limit_code = '{limit if allowed else '100/300'}' "
                    "and status = 'active'",
                    len(vehicles_of(policy)),
                    "liability limit",
                )
            ],
            refusal=not allowed,
            tags=["threshold"],
        )
    # Optional coverages.
    rent_ok = first_vehicle(
        lambda v: (
            _has(v["policy_id"], v["id"], "collision")
            and not _has(v["policy_id"], v["id"], "rental")
        ),
        1,
        3,
    )
    rent_no = first_vehicle(lambda v: not _has(v["policy_id"], v["id"], "collision"), 1)
    road_ok = first_vehicle(
        lambda v: (
            int(v["year"]) >= TODAY.year - 15 and not _has(v["policy_id"], v["id"], "roadside")
        ),
        1,
        2,
    )
    road_no = first_vehicle(
        lambda v: (
            int(v["year"]) < TODAY.year - 15 and not _has(v["policy_id"], v["id"], "roadside")
        ),
        1,
    )
    for (policy, v), kind, ok in (
        (rent_ok[0], "rental", True),
        (rent_no[0], "rental", False),
        (road_ok[0], "roadside", True),
        (road_no[0], "roadside", False),
    ):
        what = "rental car coverage" if kind == "rental" else "roadside assistance"
        golden = ident(policy)
        if ok:
            golden.append(call("add_coverage", vehicle_id=v["id"], kind=kind))
        tasks.add(
            f,
            f"add-{kind}" if ok else f"add-{kind}-refused",
            policy=policy,
            description=f"Add {kind} to a {v['year']} {v['make']}: "
            + (
                "eligible."
                if ok
                else (
                    "no collision/comprehensive: refuse."
                    if kind == "rental"
                    else "older than 15 model years: refuse."
                )
            ),
            opening=f"Can I add {what} to my {v['make']} {v['model']}?",
            goal=f"Add {what}",
            reacts={"agree": "Yes please.", "accept": "Okay."},
            golden=golden,
            invariants=[
                inv(
                    f"select count(*) from coverages where vehicle_id = '{v['id']}' and "
                    f"kind = '{kind}' and status = 'active'",
                    1 if ok else 0,
                    kind,
                )
            ],
            refusal=not ok,
        )
    # Removing collision.
    ((fin_policy, fin_v),) = first_vehicle(lambda v: v["lienholder"] is not None, 1, 2)
    ((own_policy, own_v),) = first_vehicle(
        lambda v: (
            v["lienholder"] is None
            and _has(v["policy_id"], v["id"], "collision")
            and int(v["year"]) < 2016
        ),
        1,
    )
    for policy, v, ok in ((fin_policy, fin_v, False), (own_policy, own_v, True)):
        cov = coverages_of(policy, str(v["id"]), "collision")[0]
        golden = ident(policy)
        if ok:
            golden.append(call("remove_coverage", coverage_id=cov["id"]))
        tasks.add(
            f,
            "drop-collision" if ok else "drop-collision-financed",
            policy=policy,
            description="Drop collision on "
            + (
                "an owned older car: allowed."
                if ok
                else "a financed car: the lender requires it; refuse."
            ),
            opening=f"My {v['make']} {v['model']} is getting old, "
            "I want to drop collision coverage.",
            goal="Remove collision coverage",
            info={"coverage": "Just collision."},
            reacts={"agree": "Yes, just collision.", "accept": "Alright."},
            golden=golden,
            invariants=[
                inv(
                    f"select status from coverages where id = '{cov['id']}'",
                    "removed" if ok else "active",
                    "collision coverage",
                )
            ],
            refusal=not ok,
        )
