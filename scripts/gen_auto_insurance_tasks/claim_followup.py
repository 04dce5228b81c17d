"""Claim follow-up tasks: documents received, status questions, withdrawals (not with injuries)."""

from __future__ import annotations

from ._build import (
    TaskSet,
    call,
    coverages_of,
    day,
    ident,
    inv,
    open_claims,
    pick,
    ts,
    vehicles_of,
)

_CLM = "CLM-00401"


def _claim(policy: str, status: str, injuries: int = 0) -> dict[str, object]:
    v = next(x for x in vehicles_of(policy) if coverages_of(policy, x["id"], "collision"))
    return {
        "id": _CLM,
        "policy_id": policy,
        "vehicle_id": v["id"],
        "loss_date": day(-12).isoformat(),
        "loss_type": "collision",
        "coverage_kind": "collision",
        "injuries": injuries,
        "police_report_number": None,
        "status": status,
        "description": "Hit a parked car.",
        "reported_at": ts(day(-11)),
        "updated_at": ts(day(-11)),
    }


def _doc(doc_id: str, kind: str) -> dict[str, object]:
    return {
        "id": doc_id,
        "claim_id": _CLM,
        "kind": kind,
        "status": "requested",
        "requested_at": ts(day(-11)),
        "received_at": None,
    }


def _status(status: str) -> dict[str, object]:
    return inv(f"select status from claims where id = '{_CLM}'", status, "claim status")


def build(tasks: TaskSet) -> None:
    """Add document receipts, status lookups and withdrawals."""
    f = "claim-followup"
    pols = pick(
        lambda p: (
            not open_claims(p["id"])
            and any(coverages_of(p["id"], v["id"], "collision") for v in vehicles_of(p["id"]))
        ),
        8,
        skip=4,
    )
    for policy, sent in ((pols[0], 2), (pols[1], 2), (pols[2], 1)):
        said = "the photos and the repair estimate" if sent == 2 else "the photos"
        golden = [
            *ident(policy),
            call("list_claims", policy_id=policy),
            call("get_claim", claim_id=_CLM),
            call("mark_document_received", document_id="DOC-00401"),
        ]
        if sent == 2:
            golden.append(call("mark_document_received", document_id="DOC-00402"))
        tasks.add(
            f,
            "documents-received" if sent == 2 else "one-document",
            policy=policy,
            description=f"Claim awaiting photos and an estimate; the customer sent {said}: record "
            + ("both; the claim moves to review." if sent == 2 else "the photos only."),
            opening="I sent in the documents for my claim. Can you check?",
            goal="Get the claim moving",
            facts={"sent": said},
            patch={
                "claims": [_claim(policy, "awaiting_documents")],
                "claim_documents": [
                    _doc("DOC-00401", "photos"),
                    _doc("DOC-00402", "repair_estimate"),
                ],
            },
            golden=golden,
            invariants=[_status("under_review" if sent == 2 else "awaiting_documents")],
        )
    for policy in pols[3:5]:
        tasks.add(
            f,
            "status",
            policy=policy,
            description="Status question on a claim under review: verification and reads only.",
            opening="What's happening with my claim?",
            goal="Know the claim status",
            info={"claim": "The one from last week or so."},
            reacts={"thanks": "Okay, thanks."},
            patch={"claims": [_claim(policy, "under_review")]},
            golden=[
                *ident(policy),
                call("list_claims", policy_id=policy),
                call("get_claim", claim_id=_CLM),
            ],
            invariants=[_status("under_review")],
            rubric=["Does the agent tell the customer the claim is under review? (yes/no)"],
            reference_response="Your claim is under review; no documents are outstanding.",
        )
    for policy, status in ((pols[5], "open"), (pols[6], "awaiting_documents")):
        tasks.add(
            f,
            "withdraw",
            policy=policy,
            description=f"The customer withdraws a claim that is {status} (no injuries): withdraw.",
            opening="I want to cancel my claim; I'll pay for the repair myself.",
            goal="Withdraw the claim",
            info={"claim": "The fender-bender claim."},
            reacts={"agree": "Yes, please withdraw it."},
            patch={"claims": [_claim(policy, status)]},
            golden=[
                *ident(policy),
                call("list_claims", policy_id=policy),
                call("withdraw_claim", claim_id=_CLM),
            ],
            invariants=[_status("withdrawn")],
        )
    policy = pols[7]
    tasks.add(
        f,
        "withdraw-injury",
        policy=policy,
        description="The claim reported injuries: it cannot be withdrawn by phone; no change.",
        opening="I'd like to withdraw my claim.",
        goal="Withdraw the claim",
        info={"claim": "That one. My friend is fine now, we'll sort it out ourselves."},
        reacts={"agree": "Yes, please withdraw it.", "accept": "Hmm, okay."},
        patch={"claims": [_claim(policy, "under_review", injuries=1)]},
        golden=[
            *ident(policy),
            call("list_claims", policy_id=policy),
            call("get_claim", claim_id=_CLM),
        ],
        invariants=[_status("under_review")],
        refusal=True,
        rubric=[
            "Does the agent explain that a claim with injuries cannot be withdrawn by phone? "
            "(yes/no)"
        ],
        reference_response="I'm sorry, because injuries were reported on this claim, it can't be "
        "withdrawn by phone. I haven't changed anything.",
    )
