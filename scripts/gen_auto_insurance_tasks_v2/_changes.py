"""Policy-change intents: vehicles, drivers, deductibles, liability limits, cancellations.

A change is preceded by its disclosure (policy §1, steps). Distractor rows (two cars of
one make, an open claim on another car, an earlier ticket) are upserted over the seed;
`_compose` keeps the policy's stored premium equal to what the tools recompute, so
each endorsement's premium change is the same whatever order the agent works in.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta

from scripts.gen_auto_insurance_tasks._build import (
    SEED,
    TODAY,
    Patch,
    Row,
    age_on,
    call,
    cancellation,
    coverages_of,
    customer_of,
    day,
    drivers_of,
    fmt,
    inv,
    open_claims,
    ts,
    vehicles_of,
)
from scripts.gen_auto_insurance_tasks.vehicle_change import vin

from statebox.domains.auto_insurance.rating import coverage_premium

from ._compose import Ctx, Intent, Part

Build = Callable[[Ctx, int], Part]

__all__ = ["TEST", "TRAIN"]

_NEW_CARS = (
    (2024, "Toyota", "RAV4"),
    (2023, "Honda", "CR-V"),
    (2025, "Subaru", "Forester"),
    (2022, "Hyundai", "Tucson"),
    (2024, "Kia", "Sportage"),
    (2023, "Mazda", "CX-30"),
)
_LENDERS = ("Example Auto Finance", "Sample Credit Union", "Placeholder Bank")
_PEOPLE = (
    ("Rowan", "1990-04-12", "spouse"),
    ("Marisol", "1987-09-30", "spouse"),
    ("Tobin", "2006-06-02", "child"),
    ("Kezia", "2001-07-07", "other"),
    ("Benji", "1995-03-03", "spouse"),
    ("Lars", "1979-11-11", "other"),
)


def _active_vehicles(pid: str) -> int:
    return sum(v["status"] == "active" for v in vehicles_of(pid))


def _term_start(policy: str) -> str:
    return str(next(p for p in SEED["policies"] if p["id"] == policy)["term_start"])


def _extra_car(policy: str, k: int, year: int, make: str, model: str) -> Patch:
    """A distractor vehicle (liability only) added to the policy a year ago."""
    vid = f"VEH-09{k:02d}"
    limit = coverages_of(policy, kind="liability")[0]["limit_code"]
    return {
        "vehicles": [
            {
                "id": vid,
                "policy_id": policy,
                "vin": vin(900 + k),
                "year": year,
                "make": make,
                "model": model,
                "usage": "pleasure",
                "lienholder": None,
                "status": "active",
                "added_on": _term_start(policy),
                "removed_on": None,
            }
        ],
        "coverages": [
            {
                "id": f"COV-009{k:02d}",
                "policy_id": policy,
                "vehicle_id": vid,
                "kind": "liability",
                "limit_code": limit,
                "deductible": 0,
                "premium_annual": coverage_premium("liability", "pleasure", limit, 0),
                "status": "active",
            }
        ],
    }


def _merge(*patches: Patch) -> Patch:
    out: Patch = {}
    for p in patches:
        for table, rows in p.items():
            out.setdefault(table, []).extend(rows)
    return out


def _open_claim(policy: str, vehicle_id: str, claim_id: str, days_ago: int) -> Patch:
    loss = day(-days_ago)
    return {
        "claims": [
            {
                "id": claim_id,
                "policy_id": policy,
                "vehicle_id": vehicle_id,
                "loss_date": fmt(loss),
                "loss_type": "collision",
                "coverage_kind": "collision",
                "injuries": 0,
                "police_report_number": None,
                "status": "under_review",
                "description": "Backed into a post in a parking lot.",
                "reported_at": ts(loss + timedelta(days=1)),
                "updated_at": ts(loss + timedelta(days=4)),
            }
        ]
    }


def _new_vehicle(ctx: Ctx, n: int, financed: bool) -> tuple[Row, Row, Row]:
    year, make, model = _NEW_CARS[n % len(_NEW_CARS)]
    lender = _LENDERS[n % 3] if financed else None
    usage = "commute" if n % 2 == 0 else "pleasure"
    v = vin(200 + n + (50 if financed else 0))
    args = {
        "policy_id": ctx.policy,
        "vin": v,
        "year": year,
        "make": make,
        "model": model,
        "usage": usage,
        "full_coverage": financed,
        "lienholder": lender,
    }
    facts: Row = {
        "vin": v,
        "usage": "I drive it to work" if usage == "commute" else "just weekends and errands",
        "new_car": f"{year} {make} {model}",
    }
    info: Row = {
        "ownership": f"It's financed through {lender}." if lender else "I own it outright.",
        "coverage_choice": "Just liability is fine.",
    }
    if lender:
        facts["lienholder"] = lender
    return args, facts, info


# ----------------------------------------------------------------------------- test


def _vehicle_replace(ctx: Ctx, n: int) -> Part:
    have = _active_vehicles(ctx.policy)
    extras = [(2011, "Honda", "Civic"), (2019, "Honda", "Accord"), (2014, "Ford", "Focus")]
    patch = _merge(
        *(_extra_car(ctx.policy, k + 1, *extras[k]) for k in range(4 - have)),
    )
    sold = "VEH-0901"
    args, facts, info = _new_vehicle(ctx, n, financed=n % 3 == 2)
    return Part(
        opening="I just bought a new car and need it on my policy.",
        goal="Insure the new car in place of the one sold",
        description="Four vehicles insured: adding the new one is refused; the customer sold "
        "the 2011 Honda Civic (a 2019 Honda Accord is also insured), so it is removed first.",
        facts={**facts, "sold": "my 2011 Honda Civic"},
        info=info,
        patch=patch,
        golden=[
            call("add_vehicle", **args) | {"fails": "invalid_state"},
            ctx.disclose(),
            call("remove_vehicle", policy_id=ctx.policy, vehicle_id=sold),
            ctx.disclose(),
            call("add_vehicle", **args),
        ],
        invariants=[
            inv(f"select status from vehicles where id = '{sold}'", "removed", "Civic removed"),
            inv("select status from vehicles where id = 'VEH-0902'", "active", "Accord kept"),
        ],
        says="The Civic is off the policy and the new car is on it.",
        tags=["distractor"],
    )


def _vehicle_open_claim(ctx: Ctx, n: int) -> Part:
    car = vehicles_of(ctx.policy)[1]
    claim = "CLM-00441"
    patch = _open_claim(ctx.policy, car["id"], claim, 9 + n % 5)
    reuse = n % 2 == 1
    golden: list[Row] = [
        call("remove_vehicle", policy_id=ctx.policy, vehicle_id=car["id"])
        | {"fails": "invalid_state"},
        call("list_customer_tickets", customer_id=ctx.customer),
    ]
    if reuse:
        ticket = "TCK-0441"
        patch = _merge(
            patch,
            {
                "tickets": [
                    {
                        "id": ticket,
                        "customer_id": ctx.customer,
                        "policy_id": ctx.policy,
                        "claim_id": None,
                        "category": "policy",
                        "subject": f"{ctx.policy}: customer selling the {car['make']} "
                        f"{car['model']}, remove it",
                        "status": "open",
                        "priority": "normal",
                        "team": "service",
                        "hold_reason": None,
                        "escalation_reason": None,
                        "created_at": ts(day(-3), 9),
                        "updated_at": ts(day(-3), 9),
                    }
                ]
            },
        )
    else:
        ticket = ctx.ticket(claim)
        golden.append(
            call(
                "create_ticket",
                customer_id=ctx.customer,
                category="policy",
                subject=f"{ctx.policy}: remove {car['id']} once claim {claim} is decided",
                policy_id=ctx.policy,
            )
        )
    golden.append(call("hold_ticket", ticket_id=ticket, reason="open_claim"))
    return Part(
        opening=f"I sold my {car['make']} {car['model']}, please take it off my policy.",
        goal="Remove the sold car",
        description=f"The car has open claim {claim}: removal refused; "
        + (
            "the customer's open ticket about it is put on hold (open_claim)."
            if reuse
            else "a policy ticket on hold (open_claim)."
        ),
        patch=patch,
        golden=golden,
        invariants=[
            inv(f"select status from vehicles where id = '{car['id']}'", "active", "car kept"),
            inv(
                f"select status || ':' || hold_reason from tickets where id = '{ticket}'",
                "hold:open_claim",
                "ticket on hold for the claim",
            ),
        ],
        says=f"The car stays on the policy until claim {claim} is decided; the ticket is on hold.",
        tags=["hold", "distractor"] if reuse else ["hold"],
        refusal=True,
    )


def _driver_high_risk(ctx: Ctx, n: int) -> Part:
    first, dob, rel = _PEOPLE[n % len(_PEOPLE)]
    last = customer_of(ctx.policy)["last_name"]
    acc, viol = ((2, 0), (0, 3), (2, 1))[n % 3]
    lic = f"{ctx.policy[-2:]}HR{5500 + n:04d}"
    ticket = ctx.ticket(f"{first} {last}")
    return Part(
        opening="I want to add a driver to my policy.",
        goal="Add the driver",
        description=f"A driver with {acc} accidents and {viol} violations: adding is refused; "
        "a policy ticket escalated to underwriting (high_risk_driver).",
        facts={
            "driver_name": f"{first} {last}",
            "driver_dob": dob,
            "driver_relationship": rel if rel != "other" else "roommate",
            "license_number": lic,
            "accidents_3y": acc,
            "violations_3y": viol,
        },
        golden=[
            call(
                "add_driver",
                policy_id=ctx.policy,
                first_name=first,
                last_name=last,
                date_of_birth=dob,
                license_number=lic,
                relationship=rel,
                accidents_3y=acc,
                violations_3y=viol,
            )
            | {"fails": "invalid_state"},
            call("list_customer_tickets", customer_id=ctx.customer),
            call(
                "create_ticket",
                customer_id=ctx.customer,
                category="policy",
                subject=f"{ctx.policy}: underwriting review to add driver {first} {last}",
                policy_id=ctx.policy,
            ),
            call(
                "escalate_ticket", ticket_id=ticket, team="underwriting", reason="high_risk_driver"
            ),
        ],
        invariants=[
            inv(
                f"select count(*) from drivers where policy_id = '{ctx.policy}' "
                f"and license_number = '{lic}'",
                0,
                "driver not added",
            )
        ],
        says="Underwriting will review the driver and call you back.",
        tags=["escalation"],
        refusal=True,
    )


def _lien_collision(pid: str) -> Row | None:
    for v in vehicles_of(pid):
        if v["lienholder"]:
            cov = coverages_of(pid, v["id"], "collision")
            if cov and cov[0]["deductible"] == 500:
                return {**cov[0], "car": v}
    return None


def _deductible_cap(ctx: Ctx, n: int) -> Part:
    cov = _lien_collision(ctx.policy)
    assert cov is not None
    car = cov["car"]
    return Part(
        opening=f"I'd like a higher collision deductible on my {car['make']} {car['model']} "
        "to lower my premium.",
        goal="Raise the collision deductible",
        description=f"The {car['make']} has lienholder {car['lienholder']}: $2,000 is refused; "
        "the customer takes $1,000, the most allowed.",
        facts={"wanted_deductible": 2000},
        reacts={"alternative": True, "agree": "Okay, $1,000 then."},
        golden=[
            call("change_deductible", coverage_id=cov["id"], deductible=2000)
            | {"fails": "invalid_state"},
            ctx.disclose(),
            call("change_deductible", coverage_id=cov["id"], deductible=1000),
        ],
        invariants=[
            inv(f"select deductible from coverages where id = '{cov['id']}'", 1000, "deductible")
        ],
        says="Your collision deductible is now $1,000, the most a financed car may have.",
        tags=["alternative"],
    )


def _young(pid: str) -> bool:
    return any(age_on(date.fromisoformat(d["date_of_birth"]), TODAY) < 25 for d in drivers_of(pid))


def _limit_floor(ctx: Ctx, n: int) -> Part:
    patch: Patch = {}
    if not _young(ctx.policy):
        last = customer_of(ctx.policy)["last_name"]
        patch = {
            "drivers": [
                {
                    "id": "DRV-0901",
                    "policy_id": ctx.policy,
                    "first_name": ("Tobin", "Juniper", "Ellis")[n % 3],
                    "last_name": last,
                    "date_of_birth": f"200{3 + n % 4}-0{1 + n % 9}-15",
                    "license_number": f"{ctx.policy[-2:]}YD{7100 + n:04d}",
                    "relationship": "child",
                    "accidents_3y": 0,
                    "violations_3y": 0,
                    "surcharge_annual": 450.0,
                    "status": "active",
                    "added_on": fmt(day(-60)),
                    "removed_on": None,
                }
            ]
        }
    return Part(
        opening="I want to lower my liability coverage to the cheapest option.",
        goal="Lower the liability limit",
        description="A driver under 25 is on the policy: 25/50 is refused; the customer takes "
        "50/100.",
        facts={"wanted_limit": "25/50"},
        reacts={"alternative": True, "agree": "Fine, 50/100 then."},
        patch=patch,
        golden=[
            call("change_liability_limit", policy_id=ctx.policy, limit_code="25/50")
            | {"fails": "invalid_state"},
            ctx.disclose(),
            call("change_liability_limit", policy_id=ctx.policy, limit_code="50/100"),
        ],
        invariants=[
            inv(
                f"select count(*) from coverages where policy_id = '{ctx.policy}' and kind = "
                "'liability' and status = 'active' and limit_code != '50/100'",
                0,
                "every vehicle at 50/100",
            )
        ],
        says="Your liability limit is now 50/100, the lowest allowed with a driver under 25.",
        tags=["alternative"],
    )


def _backdate_capped(ctx: Ctx, n: int) -> Part:
    started = fmt(day(-(35 + n % 12)))
    today = fmt(TODAY)
    return Part(
        opening="I have insurance with another company now, so please cancel this policy.",
        goal="Cancel the policy back to when the new insurance started",
        description=f"Replaced coverage that started {started} (over 30 days ago): the backdated "
        "cancellation is refused; it is effective today.",
        facts={"new_start": started},
        reacts={"alternative": True, "agree": "Okay, today then."},
        golden=[
            call(
                "schedule_cancellation",
                policy_id=ctx.policy,
                effective_date=started,
                reason="replaced_coverage",
            )
            | {"fails": "invalid_state"},
            ctx.disclose(),
            call(
                "schedule_cancellation",
                policy_id=ctx.policy,
                effective_date=today,
                reason="replaced_coverage",
            ),
        ],
        invariants=[
            inv(
                f"select effective_date from cancellations where policy_id = '{ctx.policy}' "
                "and status = 'scheduled'",
                today,
                "effective today",
            )
        ],
        says=f"Your policy is cancelled effective today, {today}.",
        tags=["alternative"],
    )


def _cancel_open_claim(ctx: Ctx, n: int) -> Part:
    seeded = open_claims(ctx.policy)
    claim = seeded[0]["id"] if seeded else "CLM-00442"
    patch = {} if seeded else _open_claim(ctx.policy, vehicles_of(ctx.policy)[0]["id"], claim, 6)
    end = fmt(day(7 + n % 10))
    ticket = ctx.ticket(claim)
    return Part(
        opening="I'd like to cancel my auto policy.",
        goal="Cancel the policy",
        description=f"Open claim {claim}: the cancellation is refused; a policy ticket escalated "
        "to claims (cancellation_with_open_claim).",
        facts={"end_date": end},
        patch=patch,
        golden=[
            call("list_claims", policy_id=ctx.policy),
            call(
                "schedule_cancellation",
                policy_id=ctx.policy,
                effective_date=end,
                reason="customer_request",
            )
            | {"fails": "invalid_state"},
            call("list_customer_tickets", customer_id=ctx.customer),
            call(
                "create_ticket",
                customer_id=ctx.customer,
                category="policy",
                subject=f"{ctx.policy}: cancellation requested while claim {claim} is open",
                policy_id=ctx.policy,
            ),
            call(
                "escalate_ticket",
                ticket_id=ticket,
                team="claims",
                reason="cancellation_with_open_claim",
            ),
        ],
        invariants=[
            inv(f"select status from policies where id = '{ctx.policy}'", "active", "not cancelled")
        ],
        says="The claims team will call you back about the cancellation.",
        tags=["escalation"],
        refusal=True,
    )


def _rental_car(pid: str) -> Row | None:
    for v in vehicles_of(pid):
        kinds = {c["kind"] for c in coverages_of(pid, v["id"])}
        if {"collision", "comprehensive"} <= kinds and "rental" not in kinds:
            return v
    return None


def _optional(kind: str, find: Callable[[str], Row | None], opening: str, says: str) -> Build:
    """An intent adding one optional coverage to the car ``find`` picks."""

    def build(ctx: Ctx, n: int) -> Part:
        car = find(ctx.policy)
        assert car is not None
        return Part(
            opening=opening.format(car=f"{car['make']} {car['model']}"),
            goal=f"Add {kind} coverage",
            description=f"Add {kind} to a car that qualifies for it.",
            golden=[ctx.disclose(), call("add_coverage", vehicle_id=car["id"], kind=kind)],
            says=says,
        )

    return build


_rental = _optional(
    "rental",
    _rental_car,
    "I'd like rental car coverage on my {car}.",
    "Rental reimbursement is added at $40 a day.",
)


# ----------------------------------------------------------------------------- train


def _add_financed(ctx: Ctx, n: int) -> Part:
    args, facts, info = _new_vehicle(ctx, n, financed=True)
    return Part(
        opening="I bought a car with a loan and need it insured.",
        goal="Insure the new car",
        description="A financed car: added with full coverage and its lienholder.",
        facts=facts,
        info=info,
        golden=[ctx.disclose(), call("add_vehicle", **args)],
        invariants=[
            inv(
                f"select lienholder from vehicles where vin = '{args['vin']}'",
                args["lienholder"],
                "lienholder",
            )
        ],
        says="The new car is on the policy with full coverage.",
    )


def _vehicle_last(ctx: Ctx, n: int) -> Part:
    car = vehicles_of(ctx.policy)[0]
    today = fmt(TODAY)
    return Part(
        opening=f"I sold my {car['make']} {car['model']}, please take it off the policy.",
        goal="Stop insuring the sold car",
        description="The only vehicle: removal is refused; the customer cancels instead "
        "(vehicle_sold), effective today.",
        reacts={"alternative": True, "agree": "Yes, cancel it then, I'm not buying another."},
        golden=[
            call("remove_vehicle", policy_id=ctx.policy, vehicle_id=car["id"])
            | {"fails": "invalid_state"},
            ctx.disclose(),
            call(
                "schedule_cancellation",
                policy_id=ctx.policy,
                effective_date=today,
                reason="vehicle_sold",
            ),
        ],
        invariants=[
            inv(
                f"select reason from cancellations where policy_id = '{ctx.policy}'",
                "vehicle_sold",
                "reason",
            )
        ],
        says="Your policy is cancelled effective today.",
    )


def _driver_add(ctx: Ctx, n: int) -> Part:
    first, dob, rel = _PEOPLE[(n + 1) % len(_PEOPLE)]
    last = customer_of(ctx.policy)["last_name"]
    lic = f"{ctx.policy[-2:]}AD{6600 + n:04d}"
    acc, viol = ((0, 0), (1, 0), (0, 2))[n % 3]
    return Part(
        opening="I'd like to add someone to my policy as a driver.",
        goal="Add the driver",
        description=f"An eligible driver ({acc} accidents, {viol} violations): added.",
        facts={
            "driver_name": f"{first} {last}",
            "driver_dob": dob,
            "driver_relationship": rel if rel != "other" else "roommate",
            "license_number": lic,
            "accidents_3y": acc,
            "violations_3y": viol,
        },
        golden=[
            ctx.disclose(),
            call(
                "add_driver",
                policy_id=ctx.policy,
                first_name=first,
                last_name=last,
                date_of_birth=dob,
                license_number=lic,
                relationship=rel,
                accidents_3y=acc,
                violations_3y=viol,
            ),
        ],
        says=f"{first} is now a driver on the policy.",
    )


def _driver_remove(ctx: Ctx, n: int) -> Part:
    d = next(d for d in drivers_of(ctx.policy) if d["relationship"] != "named_insured")
    return Part(
        opening=f"{d['first_name']} moved out and no longer drives my car; please remove them.",
        goal="Remove the driver",
        description=f"Remove driver {d['id']} who moved out.",
        golden=[ctx.disclose(), call("remove_driver", policy_id=ctx.policy, driver_id=d["id"])],
        says=f"{d['first_name']} is off the policy.",
    )


def _owned_collision(pid: str) -> Row | None:
    for v in vehicles_of(pid):
        cov = coverages_of(pid, v["id"], "collision")
        if not v["lienholder"] and cov:
            return {**cov[0], "car": v}
    return None


def _deductible_raise(ctx: Ctx, n: int) -> Part:
    cov = _owned_collision(ctx.policy)
    assert cov is not None
    want = 2000 if cov["deductible"] != 2000 else 1000
    car = cov["car"]
    return Part(
        opening=f"Please raise the collision deductible on my {car['make']} {car['model']}.",
        goal="Raise the deductible",
        description=f"An owned car: collision deductible to ${want}.",
        facts={"wanted_deductible": want},
        golden=[
            ctx.disclose(),
            call("change_deductible", coverage_id=cov["id"], deductible=want),
        ],
        says=f"Your collision deductible is now ${want}.",
    )


def _limit_raise(ctx: Ctx, n: int) -> Part:
    return Part(
        opening="I'd like more liability protection on my policy.",
        goal="Raise the liability limit",
        description="Raise liability to 250/500.",
        facts={"wanted_limit": "250/500"},
        golden=[
            ctx.disclose(),
            call("change_liability_limit", policy_id=ctx.policy, limit_code="250/500"),
        ],
        says="Your liability limit is now 250/500.",
    )


def _roadside_car(pid: str) -> Row | None:
    for v in vehicles_of(pid):
        if v["year"] >= TODAY.year - 15 and not coverages_of(pid, v["id"], "roadside"):
            return v
    return None


_roadside = _optional(
    "roadside",
    _roadside_car,
    "Can I add roadside assistance to my {car}?",
    "Roadside assistance is added.",
)


def _backdate_ok(ctx: Ctx, n: int) -> Part:
    started = fmt(day(-(3 + n % 25)))
    return Part(
        opening="I switched to another insurer, so I need to cancel this policy.",
        goal="Cancel back to when the new insurance started",
        description=f"Replaced coverage from {started} (within 30 days): backdated.",
        facts={"new_start": started},
        golden=[
            ctx.disclose(),
            call(
                "schedule_cancellation",
                policy_id=ctx.policy,
                effective_date=started,
                reason="replaced_coverage",
            ),
        ],
        says=f"Your policy is cancelled effective {started}.",
    )


def _rescind(ctx: Ctx, n: int) -> Part:
    can = "CAN-00422"
    patch = cancellation(ctx.policy, can, day(6 + n % 9), "customer_request", day(-5))
    return Part(
        opening="I asked to cancel my policy last week but I've changed my mind.",
        goal="Keep the policy",
        description="A scheduled customer_request cancellation: rescinded before its date.",
        patch=patch,
        golden=[ctx.disclose(), call("rescind_cancellation", cancellation_id=can)],
        says=f"Cancellation {can} is rescinded; your policy stays active.",
    )


def _no_claim(pid: str) -> bool:
    return not open_claims(pid)


def _status_active(pid: str) -> bool:
    return next(p for p in SEED["policies"] if p["id"] == pid)["status"] == "active"


TEST = (
    Intent(
        "policy",
        "vehicle-replace",
        "vehicle",
        lambda p: _active_vehicles(p) in (1, 2),
        _vehicle_replace,
        excludes=("limit",),
        changed_from="Hi, I'd like to add another driver to my policy.",
    ),
    Intent(
        "policy",
        "vehicle-open-claim",
        "vehicle",
        lambda p: _active_vehicles(p) == 2 and _no_claim(p),
        _vehicle_open_claim,
        excludes=("limit", "cancellation"),
    ),
    Intent("policy", "driver-high-risk", "driver", _status_active, _driver_high_risk),
    Intent(
        "policy",
        "deductible-lien-cap",
        "deductible",
        lambda p: _lien_collision(p) is not None,
        _deductible_cap,
    ),
    Intent(
        "policy",
        "limit-youth-floor",
        "limit",
        lambda p: (
            _no_claim(p)
            and all(c["limit_code"] == "100/300" for c in coverages_of(p, kind="liability"))
        ),
        _limit_floor,
        excludes=("claim", "vehicle", "cancellation"),
    ),
    Intent(
        "cancellation",
        "backdate-capped",
        "cancellation",
        lambda p: _no_claim(p) and _term_start(p) <= fmt(day(-50)),
        _backdate_capped,
        excludes=("claim", "installment", "vehicle", "limit", "driver", "deductible", "coverage"),
        changed_from="Hi, I'd like to lower my premium.",
    ),
    Intent(
        "cancellation",
        "open-claim-escalate",
        "cancellation",
        _status_active,
        _cancel_open_claim,
        excludes=("installment", "limit", "vehicle"),
    ),
)
TEST += (Intent("policy", "rental-add", "coverage", lambda p: _rental_car(p) is not None, _rental),)
TRAIN = (
    Intent(
        "policy",
        "vehicle-add-financed",
        "vehicle",
        lambda p: _active_vehicles(p) < 4,
        _add_financed,
        excludes=("limit",),
    ),
    Intent(
        "policy",
        "vehicle-last",
        "vehicle",
        lambda p: _active_vehicles(p) == 1 and _no_claim(p),
        _vehicle_last,
        excludes=("installment", "cancellation", "limit", "claim"),
    ),
    Intent("policy", "driver-add", "driver", _status_active, _driver_add),
    Intent(
        "policy",
        "driver-remove",
        "driver",
        lambda p: any(d["relationship"] != "named_insured" for d in drivers_of(p)),
        _driver_remove,
    ),
    Intent(
        "policy",
        "deductible-raise",
        "deductible",
        lambda p: _owned_collision(p) is not None,
        _deductible_raise,
    ),
    Intent(
        "policy",
        "limit-raise",
        "limit",
        lambda p: all(c["limit_code"] != "250/500" for c in coverages_of(p, kind="liability")),
        _limit_raise,
        excludes=("vehicle",),
    ),
    Intent("policy", "roadside-add", "coverage", lambda p: _roadside_car(p) is not None, _roadside),
    Intent(
        "cancellation",
        "backdate-ok",
        "cancellation",
        lambda p: _no_claim(p) and _term_start(p) <= fmt(day(-30)),
        _backdate_ok,
        excludes=("claim", "installment", "vehicle", "limit", "driver", "deductible", "coverage"),
    ),
    Intent(
        "cancellation",
        "rescind-request",
        "cancellation",
        _status_active,
        _rescind,
        excludes=("installment", "vehicle"),
    ),
)
