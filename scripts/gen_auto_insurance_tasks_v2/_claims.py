"""Claim and contact intents: first notice of loss, documents, withdrawals, contact details.

Claims added over the seed are distractors too: two claims waiting on photos, a claim
with injuries beside one without, so the agent must pick the claim the customer means.
"""

from __future__ import annotations

from datetime import timedelta

from scripts.gen_auto_insurance_tasks._build import (
    Patch,
    Row,
    call,
    coverages_of,
    customer_of,
    day,
    fmt,
    inv,
    note,
    open_claims,
    ts,
    vehicles_of,
)
from scripts.gen_auto_insurance_tasks.fnol import _DOCS, _WHAT

from ._compose import Ctx, Intent, Part

__all__ = ["TEST", "TRAIN"]


def _claim(
    policy: str,
    vehicle_id: str,
    claim_id: str,
    loss_type: str,
    days_ago: int,
    status: str,
    injuries: int = 0,
) -> Row:
    loss = day(-days_ago)
    return {
        "id": claim_id,
        "policy_id": policy,
        "vehicle_id": vehicle_id,
        "loss_date": fmt(loss),
        "loss_type": loss_type,
        "coverage_kind": "collision" if loss_type == "collision" else "comprehensive",
        "injuries": injuries,
        "police_report_number": None,
        "status": status,
        "description": _WHAT[loss_type].capitalize() + ".",
        "reported_at": ts(loss + timedelta(days=1)),
        "updated_at": ts(loss + timedelta(days=2)),
    }


def _doc(doc_id: str, claim_id: str, kind: str, days_ago: int) -> Row:
    return {
        "id": doc_id,
        "claim_id": claim_id,
        "kind": kind,
        "status": "requested",
        "requested_at": ts(day(-days_ago)),
        "received_at": None,
    }


def _covered(pid: str, kind: str) -> Row | None:
    for v in vehicles_of(pid):
        if coverages_of(pid, v["id"], kind):
            return v
    return None


def _loss(ctx: Ctx, kind: str, above: int, days: int) -> tuple[Row, int, int, str]:
    """The covered car, its deductible, an estimate ``above`` it and a loss date."""
    car = _covered(ctx.policy, kind)
    assert car is not None
    ded = int(coverages_of(ctx.policy, car["id"], kind)[0]["deductible"])
    return car, ded, ded + above, fmt(day(-days))


# ----------------------------------------------------------------------------- test


def _docs_received(ctx: Ctx, n: int) -> Part:
    car = vehicles_of(ctx.policy)[0]
    a, b = "CLM-00451", "CLM-00452"
    ago_a, ago_b = 12 + n % 6, 5 + n % 4
    patch: Patch = {
        "claims": [
            _claim(ctx.policy, car["id"], a, "collision", ago_a, "awaiting_documents"),
            _claim(ctx.policy, car["id"], b, "glass", ago_b, "awaiting_documents"),
        ],
        "claim_documents": [
            _doc("DOC-00451", a, "photos", ago_a - 1),
            _doc("DOC-00452", a, "repair_estimate", ago_a - 1),
            _doc("DOC-00453", b, "photos", ago_b - 1),
        ],
    }
    both = n % 2 == 0
    sent = "the photos and the repair estimate" if both else "the photos"
    golden = [
        call("list_claims", policy_id=ctx.policy),
        call("get_claim", claim_id=a),
        call("mark_document_received", document_id="DOC-00451"),
    ]
    if both:
        golden.append(call("mark_document_received", document_id="DOC-00452"))
    return Part(
        opening="I sent in documents for my claim and want to make sure you have them.",
        goal="Have the sent documents recorded",
        description=f"Two claims wait on photos; the customer means the collision of "
        f"{fmt(day(-ago_a))} and sent {sent}: only those are marked received.",
        facts={"claim_loss": fmt(day(-ago_a)), "sent": sent},
        patch=patch,
        golden=golden,
        invariants=[
            inv("select status from claim_documents where id = 'DOC-00453'", "requested", "other")
        ],
        says=f"I've recorded {sent} on claim {a}."
        + (" It is now under review." if both else " The repair estimate is still outstanding."),
        tags=["distractor"],
    )


def _fnol_glass(ctx: Ctx, n: int) -> Part:
    car, ded, estimate, loss = _loss(ctx, "comprehensive", 350 + 75 * (n % 5), 2 + n % 9)
    claim = ctx.claim()
    ctx.documents(1)
    desc = f"A rock cracked the windshield on the highway; estimate ${estimate}."
    return Part(
        opening=f"A rock cracked the windshield of my {car['make']} {car['model']}.",
        goal="Open a glass claim",
        description=f"Glass damage ${estimate} above the ${ded} deductible: file, request photos.",
        facts={
            "loss_date": loss,
            "estimate_usd": {"value": estimate, "say": "The glass shop quoted ${value}."},
        },
        info={
            "what_happened": "A rock hit the windshield on the highway.",
            "injuries": "Nobody was hurt.",
        },
        golden=[
            call(
                "file_claim",
                policy_id=ctx.policy,
                vehicle_id=car["id"],
                loss_date=loss,
                loss_type="glass",
                injuries=False,
                description=desc,
                police_report_number=None,
            ),
            call("request_claim_documents", claim_id=claim, kinds=_DOCS["glass"]),
        ],
        text=[note("claims", "description", {"policy_id": ctx.policy}, estimate)],
        says=f"Claim {claim} is open; please send photos of the damage.",
    )


def _withdraw_injury(ctx: Ctx, n: int) -> Part:
    car = vehicles_of(ctx.policy)[0]
    hurt, other = "CLM-00461", "CLM-00462"
    ago = 10 + n % 8
    patch: Patch = {
        "claims": [
            _claim(ctx.policy, car["id"], hurt, "collision", ago, "awaiting_documents", 1),
            _claim(ctx.policy, car["id"], other, "vandalism", ago - 4, "open"),
            _claim(ctx.policy, car["id"], "CLM-00463", "glass", ago + 60, "closed"),
        ]
    }
    return Part(
        opening="I want to withdraw my open claims, we're handling the damage ourselves.",
        goal="Withdraw the open claims",
        description=f"Two open claims: {hurt} reports injuries and is not withdrawn (refused); "
        f"{other} is withdrawn; a closed claim is left alone.",
        patch=patch,
        golden=[
            call("list_claims", policy_id=ctx.policy),
            call("withdraw_claim", claim_id=hurt) | {"fails": "invalid_state"},
            call("withdraw_claim", claim_id=other),
        ],
        invariants=[
            inv(f"select status from claims where id = '{hurt}'", "awaiting_documents", "kept")
        ],
        says=f"Claim {other} is withdrawn; claim {hurt} reports injuries, so it cannot be "
        "withdrawn by phone.",
        tags=["distractor"],
    )


def _email(ctx: Ctx, n: int) -> Part:
    c = customer_of(ctx.policy)
    new = f"{c['first_name'].lower()}.{('mail', 'home', 'work')[n % 3]}{n}@example.org"
    return Part(
        opening="I need to update my email address.",
        goal="Update the email address",
        description="Change the email address.",
        facts={"new_email": new},
        golden=[call("update_contact_info", customer_id=ctx.customer, email=new)],
        says="Your email address is updated.",
    )


# ----------------------------------------------------------------------------- train


def _fnol_injury(ctx: Ctx, n: int) -> Part:
    car, _, estimate, loss = _loss(ctx, "collision", 2400 + 100 * (n % 7), 1 + n % 6)
    claim = ctx.claim()
    ctx.documents(3)
    ticket = ctx.ticket(claim)
    return Part(
        opening=f"I was in an accident with my {car['make']} {car['model']}.",
        goal="Open a claim",
        description="A collision with an injury: file, request documents with medical records, "
        "an urgent claim ticket escalated to claims.",
        facts={
            "loss_date": loss,
            "estimate_usd": estimate,
            "injuries": "Yes, my passenger hurt her neck.",
        },
        info={"what_happened": _WHAT["collision"].capitalize() + "."},
        golden=[
            call(
                "file_claim",
                policy_id=ctx.policy,
                vehicle_id=car["id"],
                loss_date=loss,
                loss_type="collision",
                injuries=True,
                description=f"Collision at an intersection, passenger injured; "
                f"estimate ${estimate}.",
                police_report_number=None,
            ),
            call(
                "request_claim_documents",
                claim_id=claim,
                kinds=[*_DOCS["collision"], "medical_records"],
            ),
            call("list_customer_tickets", customer_id=ctx.customer),
            call(
                "create_ticket",
                customer_id=ctx.customer,
                category="claim",
                subject=f"{ctx.policy}: injury claim {claim} needs the claims team",
                policy_id=ctx.policy,
                claim_id=claim,
                priority="urgent",
            ),
            call("escalate_ticket", ticket_id=ticket, team="claims", reason="injury_claim"),
        ],
        text=[note("claims", "description", {"policy_id": ctx.policy}, estimate)],
        says=f"Claim {claim} is open and the claims team will call you.",
        tags=["escalation"],
    )


def _withdraw(ctx: Ctx, n: int) -> Part:
    car = vehicles_of(ctx.policy)[0]
    claim = "CLM-00463"
    ago = 6 + n % 9
    return Part(
        opening="I'd like to withdraw a claim I filed.",
        goal="Withdraw the claim",
        description="A claim without injuries: withdrawn.",
        facts={"claim_loss": fmt(day(-ago))},
        patch={"claims": [_claim(ctx.policy, car["id"], claim, "vandalism", ago, "open")]},
        golden=[call("list_claims", policy_id=ctx.policy), call("withdraw_claim", claim_id=claim)],
        says=f"Claim {claim} is withdrawn.",
    )


def _below_deductible(ctx: Ctx, n: int) -> Part:
    car, ded, estimate, loss = _loss(ctx, "comprehensive", -100 - 25 * (n % 4), 2 + n % 5)
    return Part(
        opening=f"Someone keyed the doors of my {car['make']} {car['model']}.",
        goal="Open a claim",
        description=f"Vandalism ${estimate}, not above the ${ded} deductible: no claim; a note.",
        facts={"estimate_usd": estimate},
        info={"loss_date": loss, "police_report": "Yes, I reported it."},
        golden=[
            call("list_claims", policy_id=ctx.policy),
            call(
                "add_crm_note",
                customer_id=ctx.customer,
                category="claim",
                policy_id=ctx.policy,
                body=f"vandalism damage estimated at ${estimate}, not above the ${ded} "
                "deductible; advised no claim.",
            ),
        ],
        text=[note("crm_notes", "body", {"customer_id": ctx.customer}, estimate, "vandalism")],
        says="The damage is below your deductible, so a claim would pay nothing.",
    )


def _phone(ctx: Ctx, n: int) -> Part:
    new = f"555-07{n % 100:02d}"
    return Part(
        opening="I have a new phone number.",
        goal="Update the phone number",
        description="Change the phone number.",
        facts={"new_phone": new},
        golden=[call("update_contact_info", customer_id=ctx.customer, phone=new)],
        says="Your phone number is updated.",
    )


def _no_claim(pid: str) -> bool:
    return not open_claims(pid)


TEST = (
    Intent(
        "claims",
        "docs-received",
        "claim",
        _no_claim,
        _docs_received,
        changed_from="Hi, I'd like to report a new claim.",
    ),
    Intent(
        "claims",
        "fnol-glass",
        "claim",
        lambda p: _covered(p, "comprehensive") is not None,
        _fnol_glass,
        changed_from="Hi, I'd like to check on an existing claim.",
    ),
    Intent("claims", "withdraw-injury", "claim", _no_claim, _withdraw_injury),
    Intent("contact", "email-change", "contact", lambda p: True, _email),
)
TRAIN = (
    Intent(
        "claims",
        "fnol-injury",
        "claim",
        lambda p: _covered(p, "collision") is not None,
        _fnol_injury,
    ),
    Intent("claims", "withdraw", "claim", _no_claim, _withdraw),
    Intent(
        "claims",
        "below-deductible",
        "claim",
        lambda p: _covered(p, "comprehensive") is not None,
        _below_deductible,
    ),
    Intent("contact", "phone-change", "contact", lambda p: True, _phone),
)
