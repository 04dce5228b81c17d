"""Vehicle tasks: owned and financed vehicles, ineligible use, the 4-vehicle cap, removals."""

from __future__ import annotations

from ._build import (
    TaskSet,
    call,
    claims_of,
    customer_of,
    day,
    ident,
    inv,
    open_claims,
    pick,
    ts,
    vehicles_of,
)

_CARS = (
    (2024, "Honda", "CR-V"),
    (2023, "Toyota", "RAV4"),
    (2022, "Mazda", "Mazda3"),
    (2019, "Subaru", "Forester"),
    (2021, "Kia", "Telluride"),
    (2018, "Ford", "Escape"),
    (2025, "Hyundai", "Ioniq 5"),
    (2020, "Nissan", "Leaf"),
)


def vin(n: int) -> str:
    """A made-up 17-character VIN."""
    return f"SBX0DEMO{n:09d}"


def _count(policy: str, extra: str = "") -> str:
    return (
        f"select count(*) from vehicles where policy_id = '{policy}' and status = 'active'{extra}"
    )


def build(tasks: TaskSet) -> None:
    """Add vehicle additions and removals whose outcome turns on loans, use, caps and claims."""
    f = "vehicle-change"
    single = pick(lambda p: len(vehicles_of(p["id"])) == 1 and not open_claims(p["id"]), 9)
    for k, (policy, full, lender, usage) in enumerate(
        (
            (single[0], False, None, "commute"),
            (single[1], False, None, "pleasure"),
            (single[2], True, None, "commute"),
            (single[3], True, "Example Auto Finance", "commute"),
            (single[4], True, "Sample Credit Union", "pleasure"),
        )
    ):
        year, make, model = _CARS[k]
        v = vin(k + 1)
        use = "I drive it to work" if usage == "commute" else "it's just for weekends and errands"
        wants = "Just liability is fine." if not full or lender else "Give it full coverage."
        loan = f" It's financed through {lender}." if lender else " I own it outright."
        facts = {"vin": v, "usage": use}
        if lender:
            facts["lienholder"] = lender
        tasks.add(
            f,
            "add-financed" if lender else ("add-full" if full else "add-liability"),
            policy=policy,
            description=f"Add a {year} {make} {model} used for {usage}; "
            + (
                "financed, so full coverage although the customer asked for liability only."
                if lender
                else ("owned, full coverage by choice." if full else "owned, liability only.")
            ),
            opening=f"I just bought a {year} {make} {model} and need it on my policy.",
            goal="Insure the new car",
            facts=facts,
            info={
                "ownership": loan.strip(),
                "coverage_choice": wants,
            },
            reacts={"thanks": "Thanks!"},
            golden=[
                *ident(policy),
                call(
                    "add_vehicle",
                    policy_id=policy,
                    vin=v,
                    year=year,
                    make=make,
                    model=model,
                    usage=usage,
                    full_coverage=full,
                    lienholder=lender,
                ),
            ],
            invariants=[
                inv(
                    "select count(*) from coverages c join vehicles v on v.id = c.vehicle_id "
                    f"where v.vin = '{v}' and c.status = 'active'",
                    3 if full else 1,
                    "coverages on the new vehicle",
                )
            ],
        )
    for k, (policy, job) in enumerate(
        (
            (single[5], "I'll be doing food deliveries with it"),
            (single[6], "I drive for a ride-hailing app"),
        )
    ):
        year, make, model = _CARS[5 + k]
        v = vin(10 + k)
        tasks.add(
            f,
            "business-use",
            policy=policy,
            description="The new vehicle is used for business (delivery / ride-hailing): not "
            "eligible; no change.",
            opening=f"I want to add my {year} {make} {model} to my auto policy.",
            goal="Insure the car",
            facts={"use": {"value": job, "say": "{value}, mostly evenings."}},
            info={"vin": v},
            reacts={"accept": "Oh, I didn't know that."},
            golden=ident(policy),
            invariants=[inv(_count(policy), 1, "no vehicle added")],
            refusal=True,
            rubric=[
                "Does the agent explain that vehicles used for business are not eligible? (yes/no)"
            ],
            reference_response="I'm sorry, we only insure vehicles for personal use; a car used "
            "for deliveries or ride-hailing isn't eligible, so I haven't added it.",
        )
    policy = single[7]
    base = vehicles_of(policy)[0]
    extra = [
        {**base, "id": f"VEH-040{n}", "vin": vin(20 + n), "year": 2015 + n, "lienholder": None}
        for n in range(1, 4)
    ]
    tasks.add(
        f,
        "fifth-vehicle",
        policy=policy,
        description="The policy already insures 4 vehicles: a fifth is refused.",
        opening="I need to add one more car to my policy.",
        goal="Insure a fifth car",
        info={
            "vehicle": "It's a 2022 Mazda Mazda3.",
            "vin": vin(30),
            "usage": "For commuting.",
        },
        reacts={"accept": "Hmm, okay."},
        patch={"vehicles": extra},
        golden=ident(policy),
        invariants=[inv(_count(policy), 4, "still four vehicles")],
        refusal=True,
    )
    double = pick(lambda p: len(vehicles_of(p["id"])) == 2 and not open_claims(p["id"]), 4)
    for policy in double[:2]:
        gone = vehicles_of(policy)[1]
        tasks.add(
            f,
            "remove-sold",
            policy=policy,
            description="The customer sold one of two vehicles and there is no open claim: "
            "remove it.",
            opening=f"I sold my {gone['make']} {gone['model']}. Please take it off my insurance.",
            goal="Remove the sold car",
            reacts={"agree": "Yes, sold it last weekend.", "thanks": "Thank you."},
            golden=[
                *ident(policy),
                call("remove_vehicle", policy_id=policy, vehicle_id=gone["id"]),
            ],
            invariants=[
                inv(f"select status from vehicles where id = '{gone['id']}'", "removed", "removed")
            ],
        )
    for k, policy in enumerate(double[2:]):
        gone = vehicles_of(policy)[1]
        cid = customer_of(policy)["id"]
        claim = {
            "id": f"CLM-0040{k + 1}",
            "policy_id": policy,
            "vehicle_id": gone["id"],
            "loss_date": day(-9).isoformat(),
            "loss_type": "collision",
            "coverage_kind": "collision",
            "injuries": 0,
            "police_report_number": None,
            "status": "awaiting_documents",
            "description": "Backed into a pole.",
            "reported_at": ts(day(-8)),
            "updated_at": ts(day(-8)),
        }
        assert not claims_of(policy) or all(c["id"] != claim["id"] for c in claims_of(policy))
        tasks.add(
            f,
            "remove-open-claim",
            policy=policy,
            description="The vehicle to remove has an open claim: no removal; a policy ticket on "
            "hold (open_claim).",
            opening=f"I'm selling my {gone['make']} {gone['model']}, please remove it from "
            "my policy.",
            goal="Remove the car",
            reacts={
                "agree": "Yes, that's the one with the claim from last week.",
                "accept": "Okay.",
            },
            patch={"claims": [claim]},
            golden=[
                *ident(policy),
                call("list_claims", policy_id=policy),
                call("list_customer_tickets", customer_id=cid),
                call(
                    "create_ticket",
                    customer_id=cid,
                    category="policy",
                    subject=f"{policy}: remove vehicle once its open claim is decided",
                    policy_id=policy,
                ),
                call("hold_ticket", ticket_id="TCK-0501", reason="open_claim"),
            ],
            invariants=[
                inv(f"select status from vehicles where id = '{gone['id']}'", "active", "kept"),
                inv(
                    "select status || ':' || hold_reason from tickets where id = 'TCK-0501'",
                    "hold:open_claim",
                    "ticket on hold for the claim",
                ),
            ],
            tags=["hold"],
        )
    policy = single[8]
    only = vehicles_of(policy)[0]
    tasks.add(
        f,
        "remove-last",
        policy=policy,
        description="The customer asks to remove their only vehicle: refused (offer cancellation).",
        opening=f"Please remove my {only['make']} {only['model']} from the policy.",
        goal="Remove the car",
        reacts={
            "confirm": False,
            "decline": "I'm not sure I want to cancel. Let me think about it.",
            "accept": "Bye.",
        },
        golden=ident(policy),
        invariants=[inv(_count(policy), 1, "vehicle kept")],
        refusal=True,
    )
