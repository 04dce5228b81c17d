"""Claim tools: first notice of loss, documents, status, withdrawal.

`file_claim` derives the coverage a loss falls under (collision for collisions,
comprehensive for everything else) and opens the claim; whether the loss is covered
and eligible is policy (policy.md). A claim waiting on documents moves to
`under_review` by itself once every requested document is received. A claim reporting
injuries is never withdrawn by these tools (§6.4).
"""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from typing import Any, Literal

from statebox.domains.auto_insurance.tools._records import (
    CLAIMS,
    UNDECIDED,
    VEHICLES,
    claim_row,
    iso_date,
    on_policy,
    policy_row,
)
from statebox.kit import Row, Table, Transition, new_id, stamp, text
from statebox.tools import ToolError, tool
from statebox.world import WorldTx

__all__ = [
    "file_claim",
    "get_claim",
    "list_claims",
    "mark_document_received",
    "request_claim_documents",
    "withdraw_claim",
]

DocumentKind = Literal[
    "police_report", "photos", "repair_estimate", "medical_records", "proof_of_ownership"
]
_RECEIVE = Transition(
    Table("claim_documents", "document", "DOC-00001"),
    allowed=("requested",),
    to="received",
    stamp="received_at",
    refusal="{noun} {id} is already received",
)
_WITHDRAW = UNDECIDED._replace(to="withdrawn", stamp="updated_at")


def _claim_view(tx: WorldTx, claim_id: str) -> dict[str, Any]:
    row = claim_row(tx, claim_id)
    docs = tx.query("SELECT * FROM claim_documents WHERE claim_id = ? ORDER BY id", [claim_id])
    return {**row, "documents": docs}


@tool(mutates=False)
def get_claim(tx: WorldTx, claim_id: str) -> dict[str, Any]:
    """Get a claim with its documents.

    Args:
        claim_id: Claim id, such as 'CLM-00001'.
    """
    return _claim_view(tx, claim_id)


@tool(mutates=False)
def list_claims(tx: WorldTx, policy_id: str) -> list[dict[str, Any]]:
    """List a policy's claims, newest loss first.

    Args:
        policy_id: Policy number, such as 'POL-300001'.
    """
    policy_row(tx, policy_id)
    return tx.query(
        "SELECT id, vehicle_id, loss_date, loss_type, coverage_kind, status, reported_at "
        "FROM claims WHERE policy_id = ? ORDER BY loss_date DESC, id",
        [policy_id],
    )


@tool(mutates=True)
def file_claim(
    tx: WorldTx,
    policy_id: str,
    vehicle_id: str,
    loss_date: str,
    loss_type: Literal["collision", "glass", "theft", "vandalism", "weather", "animal"],
    injuries: bool,
    description: str,
    police_report_number: str | None = None,
) -> dict[str, Any]:
    """Open a claim (first notice of loss) for a vehicle on a policy; status 'open'.

    Args:
        policy_id: Policy number, such as 'POL-300001'.
        vehicle_id: The damaged vehicle's id, such as 'VEH-0001'.
        loss_date: The day of the loss, 'YYYY-MM-DD'.
        loss_type: What happened.
        injuries: True when anyone was hurt.
        description: What happened, in a sentence or two.
        police_report_number: The police report number, such as 'PR-2025117'; null when none.
    """
    policy_row(tx, policy_id)
    on_policy(tx, VEHICLES, vehicle_id, policy_id)
    loss = iso_date(loss_date, "loss_date")
    if loss > tx.today:
        raise ToolError("invalid_state", "the loss date cannot be in the future")
    if not description.strip():
        raise ToolError("invalid_state", "describe what happened")
    now = stamp(tx)
    row = tx.insert(
        "claims",
        {
            "id": new_id(tx, "claims", "CLM-"),
            "policy_id": policy_id,
            "vehicle_id": vehicle_id,
            "loss_date": loss.isoformat(),
            "loss_type": loss_type,
            "coverage_kind": "collision" if loss_type == "collision" else "comprehensive",
            "injuries": int(injuries),
            "police_report_number": police_report_number.strip() if police_report_number else None,
            "status": "open",
            "description": description.strip(),
            "reported_at": now,
            "updated_at": now,
        },
    )
    return row


@tool(mutates=True)
def request_claim_documents(
    tx: WorldTx, claim_id: str, kinds: list[DocumentKind]
) -> dict[str, Any]:
    """Ask the customer for documents on a claim; the claim waits for them ('awaiting_documents').

    Args:
        claim_id: Claim id, such as 'CLM-00001'.
        kinds: The documents needed, such as ["photos", "repair_estimate"].
    """
    claim = UNDECIDED.check(claim_row(tx, claim_id))
    if not kinds or len(set(kinds)) != len(kinds):
        raise ToolError("invalid_state", "name each needed document once")
    have = {
        r["kind"]
        for r in tx.query("SELECT kind FROM claim_documents WHERE claim_id = ?", [claim_id])
    }
    dup = sorted(set(kinds) & {text(k) for k in have})
    if dup:
        raise ToolError("invalid_state", f"already requested or received: {dup}")
    now = stamp(tx)
    docs: list[Row] = [
        tx.insert(
            "claim_documents",
            {
                "id": new_id(tx, "claim_documents", "DOC-"),
                "claim_id": claim_id,
                "kind": kind,
                "status": "requested",
                "requested_at": now,
                "received_at": None,
            },
        )
        for kind in kinds
    ]
    CLAIMS.update(tx, claim, {"status": "awaiting_documents", "updated_at": now})
    return {"claim_id": claim_id, "status": "awaiting_documents", "documents": docs}


@tool(mutates=True)
def mark_document_received(tx: WorldTx, document_id: str) -> dict[str, Any]:
    """Record that a requested claim document has arrived.

    Args:
        document_id: Document id, such as 'DOC-00001'.
    """
    doc = _RECEIVE.table.row(tx, document_id)
    claim_id = text(doc["claim_id"])
    claim = claim_row(tx, claim_id)
    _RECEIVE.write(tx, _RECEIVE.check(doc))
    now = stamp(tx)
    left = tx.one(
        "SELECT count(*) AS n FROM claim_documents WHERE claim_id = ? AND status = 'requested'",
        [claim_id],
    )
    status = claim["status"]
    if left is not None and left["n"] == 0 and status == "awaiting_documents":
        status = "under_review"
        CLAIMS.update(tx, claim, {"status": status, "updated_at": now})
    return {"document_id": document_id, "status": "received", "claim_status": status}


@tool(mutates=True)
def withdraw_claim(tx: WorldTx, claim_id: str) -> dict[str, Any]:
    """Withdraw a claim at the customer's request (only before a decision).

    Args:
        claim_id: Claim id, such as 'CLM-00001'.
    """
    claim = _WITHDRAW.check(claim_row(tx, claim_id))
    if claim["injuries"]:
        raise ToolError("invalid_state", f"claim {claim_id} reports injuries: it is not withdrawn")
    _WITHDRAW.write(tx, claim)
    return {"claim_id": claim_id, "status": "withdrawn"}
