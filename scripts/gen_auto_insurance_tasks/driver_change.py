"""Driver tasks: eligibility by age and record (facts only the customer holds), removals."""

from __future__ import annotations

from datetime import date

from ._build import (
    TODAY,
    TaskSet,
    age_on,
    call,
    customer_of,
    drivers_of,
    ident,
    inv,
    pick,
)


def _active(policy: str) -> str:
    return f"select count(*) from drivers where policy_id = '{policy}' and status = 'active'"


def build(tasks: TaskSet) -> None:
    """Add drivers by age and record; escalate high-risk drivers; refuse under-16s; removals."""
    f = "driver-change"
    pols = pick(lambda p: len(drivers_of(p["id"])) == 1, 10)
    people = (
        # first, dob, relationship, accidents, violations, outcome
        ("Rowan", "1990-04-12", "spouse", 0, 0, "add"),
        ("Marisol", "1987-09-30", "spouse", 0, 1, "add"),
        ("Tobin", "2008-06-02", "child", 0, 0, "add"),
        ("Juniper", "2009-01-15", "child", 0, 0, "add"),
        ("Lars", "1979-11-11", "other", 1, 2, "add"),
        ("Dario", "1992-02-20", "spouse", 2, 0, "escalate"),
        ("Kezia", "2001-07-07", "other", 0, 3, "escalate"),
        ("Benji", "1995-03-03", "spouse", 2, 1, "escalate"),
        ("Pippa", "2010-08-19", "child", 0, 0, "too-young"),
    )
    for k, (first, dob, rel, acc, viol, outcome) in enumerate(people):
        policy = pols[k]
        c = customer_of(policy)
        lic = f"{policy[-2:]}DL{4400 + k:04d}"
        age = age_on(date.fromisoformat(dob), TODAY)
        # The new driver's details exist only in what the customer says: every one of
        # them is a fact (the policyholder's own date of birth is the identity fact).
        facts: dict[str, object] = {
            "driver_name": f"{first} {c['last_name']}",
            "driver_dob": dob,
            "driver_relationship": rel if rel != "other" else "roommate",
        }
        if outcome == "too-young":
            facts["permit"] = "Just got a learner's permit."
        else:
            facts.update(license_number=lic, accidents_3y=acc, violations_3y=viol)
        golden = ident(policy)
        invariants = []
        tags: list[str] = []
        if outcome == "add":
            golden.append(
                call(
                    "add_driver",
                    policy_id=policy,
                    first_name=first,
                    last_name=c["last_name"],
                    date_of_birth=dob,
                    license_number=lic,
                    relationship=rel,
                    accidents_3y=acc,
                    violations_3y=viol,
                )
            )
            invariants.append(inv(_active(policy), 2, "driver added"))
            if age < 25:
                tags.append("youth")
        elif outcome == "escalate":
            cid = c["id"]
            golden += [
                call("list_customer_tickets", customer_id=cid),
                call(
                    "create_ticket",
                    customer_id=cid,
                    category="policy",
                    subject=f"{policy}: underwriting review to add driver {first}",
                    policy_id=policy,
                ),
                call(
                    "escalate_ticket",
                    ticket_id="TCK-0501",
                    team="underwriting",
                    reason="high_risk_driver",
                ),
            ]
            invariants += [
                inv(_active(policy), 1, "driver not added"),
                inv(
                    "select team || ':' || escalation_reason from tickets where id = 'TCK-0501'",
                    "underwriting:high_risk_driver",
                    "escalated to underwriting",
                ),
            ]
            tags.append("escalation")
        else:
            invariants.append(inv(_active(policy), 1, "driver not added"))
        tasks.add(
            f,
            {"add": "add", "escalate": "high-risk", "too-young": "under-16"}[outcome],
            policy=policy,
            description=f"Add {rel} aged {age} with {acc} accident(s) and {viol} violation(s): "
            + {
                "add": "eligible, add.",
                "escalate": "over the limits: escalate to underwriting.",
                "too-young": "under 16: refuse.",
            }[outcome],
            opening="I'd like to add another driver to my car insurance.",
            goal="Add the driver",
            facts=facts,
            reacts={"accept": "Okay, thanks.", "thanks": "Okay, thanks."},
            golden=golden,
            invariants=invariants,
            refusal=outcome != "add",
            tags=[*tags, "threshold"],
            rubric=[
                "Does the agent tell the customer the driver cannot be added under 16? (yes/no)"
            ]
            if outcome == "too-young"
            else None,
            reference_response="I'm sorry, drivers must be at least 16 to be added, so I haven't "
            "added anyone."
            if outcome == "too-young"
            else "",
        )
    multi = pick(lambda p: len(drivers_of(p["id"])) >= 2, 3)
    for policy in multi[:2]:
        d = drivers_of(policy)[1]
        tasks.add(
            f,
            "remove",
            policy=policy,
            description="A household driver moved out: remove them.",
            opening=f"{d['first_name']} moved out and doesn't drive our cars anymore.",
            goal="Remove the driver",
            reacts={"agree": "Yes, please take them off."},
            golden=[*ident(policy), call("remove_driver", policy_id=policy, driver_id=d["id"])],
            invariants=[
                inv(f"select status from drivers where id = '{d['id']}'", "removed", "removed")
            ],
        )
