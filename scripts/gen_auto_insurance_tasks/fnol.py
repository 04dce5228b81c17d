"""First-notice-of-loss tasks: coverage, deductibles, reporting window, theft reports, injuries."""

from __future__ import annotations

from ._build import (
    TaskSet,
    call,
    coverages_of,
    customer_of,
    day,
    fmt,
    ident,
    inv,
    note,
    open_claims,
    policies,
    vehicles_of,
)

_DOCS = {
    "collision": ["photos", "repair_estimate"],
    "glass": ["photos"],
    "theft": ["police_report", "proof_of_ownership"],
    "vandalism": ["police_report", "photos"],
    "weather": ["photos", "repair_estimate"],
    "animal": ["photos", "repair_estimate"],
}
_WHAT = {
    "collision": "I hit another car at an intersection",
    "glass": "a rock cracked my windshield on the highway",
    "theft": "my car was stolen from the parking garage",
    "vandalism": "someone smashed my side mirrors and keyed the doors",
    "weather": "a hailstorm dented the roof and hood",
    "animal": "I hit a deer on a country road",
}


def _vehicles(pred: object, n: int, skip: int = 0) -> list[tuple[str, dict[str, object]]]:
    out = []
    for p in policies():
        if open_claims(p["id"]):
            continue
        for v in vehicles_of(p["id"]):
            if pred(p, v):  # type: ignore[operator]
                out.append((p["id"], v))
                break
    out = out[skip : skip + n]
    assert len(out) == n
    return out


def _deductible(policy: str, vid: str, kind: str) -> int:
    covs = coverages_of(policy, vid, kind)
    return int(covs[0]["deductible"]) if covs else 0


def _claims(policy: str) -> str:
    return (
        f"select count(*) from claims where policy_id = '{policy}' and reported_at >= '2025-11-03'"
    )


def build(tasks: TaskSet) -> None:
    """Add covered losses with their documents, and refusals by coverage, deductible and dates."""
    f = "fnol"

    def full(p: dict[str, object], v: dict[str, object]) -> bool:
        return bool(coverages_of(str(p["id"]), str(v["id"]), "collision")) and str(
            p["term_start"]
        ) <= fmt(day(-15))

    covered = _vehicles(full, 11)
    cases = (
        # loss type, days ago, estimate, police report, injuries
        ("collision", 5, 3200, None, False),
        ("collision", 2, 5400, "PR-77120", False),
        ("glass", 3, 1150, None, False),
        ("theft", 1, 18000, "PR-77301", False),
        ("vandalism", 4, 2100, "PR-77455", False),
        ("weather", 9, 2600, None, False),
        ("animal", 6, 3900, None, False),
        ("collision", 1, 7800, "PR-77812", True),
        ("collision", 3, 6100, "PR-77990", True),
    )
    for k, (loss, ago, estimate, report, hurt) in enumerate(cases):
        policy, v = covered[k]
        cid = customer_of(policy)["id"]
        date = fmt(day(-ago))
        facts: dict[str, object] = {"loss_date": date, "estimate_usd": estimate}
        if report:
            facts["police_report_number"] = report
        docs = _DOCS[loss] + (["medical_records"] if hurt else [])
        golden = [
            *ident(policy),
            call("list_claims", policy_id=policy),
            call(
                "file_claim",
                policy_id=policy,
                vehicle_id=v["id"],
                loss_date=date,
                loss_type=loss,
                injuries=hurt,
                description=f"{_WHAT[loss].capitalize()}; estimate ${estimate}.",
                police_report_number=report,
            ),
            call("request_claim_documents", claim_id="CLM-00501", kinds=docs),
        ]
        invariants = [
            inv(
                "select loss_type || ':' || coverage_kind || ':' || injuries || ':' || status "
                "from claims where id = 'CLM-00501'",
                f"{loss}:{'collision' if loss == 'collision' else 'comprehensive'}:{int(hurt)}"
                ":awaiting_documents",
                "claim filed",
            ),
            inv(
                "select group_concat(kind, ',') from (select kind from claim_documents "
                "where claim_id = 'CLM-00501' order by id)",
                ",".join(docs),
                "documents requested",
            ),
        ]
        if hurt:
            golden += [
                call("list_customer_tickets", customer_id=cid),
                call(
                    "create_ticket",
                    customer_id=cid,
                    category="claim",
                    subject=f"{policy}: injury claim needs the claims team",
                    policy_id=policy,
                    claim_id="CLM-00501",
                    priority="urgent",
                ),
                call("escalate_ticket", ticket_id="TCK-0501", team="claims", reason="injury_claim"),
            ]
            invariants.append(
                inv(
                    "select priority || ':' || team || ':' || escalation_reason from tickets "
                    "where id = 'TCK-0501'",
                    "urgent:claims:injury_claim",
                    "injury escalated",
                )
            )
        tasks.add(
            f,
            "injury" if hurt else f"file-{loss}",
            policy=policy,
            description=f"{loss} {ago} days ago on a covered vehicle, estimate ${estimate} above "
            f"the deductible: file, request {', '.join(docs)}"
            + ("; urgent claim ticket escalated to claims." if hurt else "."),
            opening=f"I need to report a claim on my {v['make']} {v['model']}.",
            goal="Open a claim",
            facts=facts,
            info={
                "what_happened": _WHAT[loss].capitalize() + ".",
                "injuries": "Someone was hurt, my passenger went to the ER."
                if hurt
                else "Nobody was hurt.",
            },
            reacts={"thanks": "Okay, I'll send those. Thanks."},
            golden=golden,
            invariants=invariants,
            tags=["escalation"] if hurt else [],
            text=[note("claims", "description", {"policy_id": policy}, estimate)],
        )
    # Refusals.
    policy, v = covered[9]
    tasks.add(
        f,
        "theft-no-report",
        policy=policy,
        description="Theft without a police report number: do not file.",
        opening=f"My {v['make']} {v['model']} was stolen last night!",
        goal="Open a theft claim",
        facts={
            "police_report": {
                "value": "haven't called the police",
                "say": "No, I haven't called the police yet, I wanted to call you first.",
            }
        },
        info={"loss_date": {"value": fmt(day(-1)), "say": "It was taken on {value}."}},
        reacts={"accept": "Okay, I'll do that."},
        golden=[*ident(policy), call("list_claims", policy_id=policy)],
        invariants=[inv(_claims(policy), 0, "no claim filed")],
        refusal=True,
        rubric=[
            "Does the agent ask the customer to file a police report before the theft claim "
            "can be opened? (yes/no)"
        ],
        reference_response="I'm sorry about your car. Before I can open a theft claim I need a "
        "police report number, so please report the theft to the police first and call us back.",
    )
    ((policy, v),) = _vehicles(lambda p, v: not coverages_of(p["id"], v["id"], "collision"), 1)
    tasks.add(
        f,
        "no-collision-coverage",
        policy=policy,
        description="Collision on a liability-only vehicle: not covered; do not file.",
        opening=f"I had an accident with my {v['make']} {v['model']} and need to file a claim.",
        goal="Open a claim",
        facts={"loss_date": fmt(day(-2))},
        info={"what_happened": "I slid into a guardrail.", "estimate_usd": 2500},
        reacts={"accept": "Oh no."},
        golden=[*ident(policy), call("list_claims", policy_id=policy)],
        invariants=[inv(_claims(policy), 0, "no claim filed")],
        refusal=True,
    )
    for k, (loss, estimate) in enumerate((("glass", 350), ("collision", 800))):
        policy, v = _vehicles(
            lambda p, v, lo=loss, e=estimate: (
                full(p, v)
                and _deductible(
                    p["id"], v["id"], "collision" if lo == "collision" else "comprehensive"
                )
                >= e
            ),
            1,
            k,
        )[0]
        cid = customer_of(policy)["id"]
        kind = "collision" if loss == "collision" else "comprehensive"
        ded = _deductible(policy, str(v["id"]), kind)
        tasks.add(
            f,
            "below-deductible",
            policy=policy,
            description=f"{loss} damage estimated at ${estimate}, at or below the ${ded} {kind} "
            "deductible: do not file; CRM note (claim).",
            opening=f"I need to file a claim for damage to my {v['make']} {v['model']}.",
            goal="Open a claim",
            facts={"estimate_usd": {"value": estimate, "say": "The shop quoted ${value}."}},
            info={"loss_date": fmt(day(-3)), "what_happened": _WHAT[loss].capitalize() + "."},
            reacts={"accept": "I see, I'll pay it myself then."},
            golden=[
                *ident(policy),
                call("list_claims", policy_id=policy),
                call(
                    "add_crm_note",
                    customer_id=cid,
                    category="claim",
                    policy_id=policy,
                    body=f"{loss} damage on {fmt(day(-3))} estimated at ${estimate}, not above "
                    f"the ${ded} deductible; advised no claim.",
                ),
            ],
            invariants=[
                inv(_claims(policy), 0, "no claim filed"),
                inv(
                    f"select category from crm_notes where customer_id = '{cid}' and "
                    "created_at >= '2025-11-03'",
                    "claim",
                    "advice noted",
                ),
            ],
            refusal=True,
            tags=["threshold"],
            text=[note("crm_notes", "body", {"customer_id": cid}, estimate, loss)],
        )
    policy, v = _vehicles(lambda p, v: full(p, v) and str(p["term_start"]) <= fmt(day(-80)), 1, 2)[
        0
    ]
    tasks.add(
        f,
        "late-report",
        policy=policy,
        description="Loss 75 days ago: outside the 60-day reporting window; do not file.",
        opening="I want to report some damage to my car from a while back.",
        goal="Open a claim",
        facts={"loss_date": fmt(day(-75))},
        info={"what_happened": _WHAT["collision"].capitalize() + ".", "estimate_usd": 4000},
        reacts={"accept": "Hmm."},
        golden=[*ident(policy), call("list_claims", policy_id=policy)],
        invariants=[inv(_claims(policy), 0, "no claim filed")],
        refusal=True,
        tags=["dates"],
    )
    policy, v = covered[10]
    tasks.add(
        f,
        "before-vehicle-added",
        policy=policy,
        description="The vehicle was added to the policy after the loss date: do not file.",
        opening=f"I need to open a claim on my {v['make']} {v['model']}.",
        goal="Open a claim",
        facts={"loss_date": fmt(day(-6))},
        info={"what_happened": _WHAT["weather"].capitalize() + ".", "estimate_usd": 3000},
        reacts={"accept": "Oh."},
        patch={"vehicles": [{"id": v["id"], "added_on": fmt(day(-3))}]},
        golden=[*ident(policy), call("list_claims", policy_id=policy)],
        invariants=[inv(_claims(policy), 0, "no claim filed")],
        refusal=True,
        tags=["dates"],
    )
