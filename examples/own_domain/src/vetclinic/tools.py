"""The clinic's tools: what the front-desk agent can read and do.

Built on `statebox.kit`: row lookups that refuse unknown ids alike (`kit.Table`), id
sequences (`kit.IdFormat`), the identity check with its log (`kit.identity_tool`), the
note book (`kit.note_tools`) and the consent log (`kit.consent_tools`, the step tools).
Every owner's record is guarded: nothing of theirs is read or written until
`verify_owner` passed in this conversation.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any, Literal

from statebox import kit
from statebox.tools import ToolError, ToolSpec, tool
from statebox.world import WorldTx

__all__ = ["STEP_SCHEMA", "STEP_TOOLS", "TOOLS"]

OWNERS = kit.Table("owners", "owner", "OWN-001")
PETS = kit.Table("pets", "pet", "PET-001")
VETS = kit.Table("vets", "vet", "VET-01")
APPOINTMENTS = kit.Table("appointments", "appointment", "APT-0101")
PRESCRIPTIONS = kit.Table("prescriptions", "prescription", "RX-2001")

VERIFIED = kit.VerificationLog(subject="owner_id")  # refusals name verify_owner
OWNER = kit.Owner("owner_id", OWNERS, "Owner id, such as 'OWN-001'.", VERIFIED.require)

LATE_FEE = 40.0
"""Charged for a cancellation less than 24 hours before the appointment (policy §3)."""
_SLOT = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$")


def _verified_pet(tx: WorldTx, pet_id: str) -> dict[str, Any]:
    pet = PETS.row(tx, pet_id)
    VERIFIED.require(tx, kit.text(pet["owner_id"]))
    return pet


def _starts(tx: WorldTx, starts_at: str) -> datetime:
    """An appointment's start in the clock's timezone (clinic time)."""
    return datetime.strptime(starts_at, "%Y-%m-%d %H:%M").replace(tzinfo=tx.now.tzinfo)


@tool(mutates=False)
def find_owner(tx: WorldTx, email: str) -> dict[str, Any]:
    """Find an owner's id by the email on their file (nothing else is shown before verification).

    Args:
        email: The email address the caller gives.
    """
    row = tx.one("SELECT id FROM owners WHERE lower(email) = lower(?)", [email.strip()])
    if row is None:
        raise ToolError("not_found", "no owner has that email address")
    return {"owner_id": row["id"]}


VERIFY_OWNER = kit.identity_tool(
    kit.IdentityCheck(
        "verify_owner",
        "Verify the caller: the email on the owner's file and the name of one of their pets. "
        "Every attempt is recorded, passed or failed; the answer never says which detail "
        "did not match.",
        kit.Owner("owner_id", OWNERS, "Owner id, such as 'OWN-001'."),
        proofs=(
            kit.Proof("email", "The email the caller gives.", kit.matches("owners", "email")),
            kit.Proof(
                "pet_name",
                "The name of a pet the caller says is theirs.",
                kit.owns("pets", "owner_id", key="name"),
            ),
        ),
        methods=(("email", "pet_name"),),
        log=VERIFIED,
    )
)


@tool(mutates=False)
def get_owner(tx: WorldTx, owner_id: str) -> dict[str, Any]:
    """An owner's file: contact details, pets, each pet's appointments and prescriptions.

    Args:
        owner_id: Owner id, such as 'OWN-001'.
    """
    owner = OWNERS.row(tx, owner_id)
    VERIFIED.require(tx, owner_id)
    pets = tx.query("SELECT * FROM pets WHERE owner_id = ? ORDER BY id", [owner_id])
    for pet in pets:
        pet["appointments"] = tx.query(
            "SELECT * FROM appointments WHERE pet_id = ? ORDER BY starts_at", [pet["id"]]
        )
        pet["prescriptions"] = tx.query(
            "SELECT * FROM prescriptions WHERE pet_id = ? ORDER BY id", [pet["id"]]
        )
    return {**owner, "pets": pets}


@tool(mutates=False)
def list_vets(tx: WorldTx) -> list[dict[str, Any]]:
    """The clinic's vets: id, name, and whether they operate (surgery)."""
    return tx.query("SELECT * FROM vets ORDER BY id")


@tool(mutates=True)
def book_appointment(
    tx: WorldTx,
    pet_id: str,
    vet_id: str,
    kind: Literal["exam", "vaccination", "surgery"],
    starts_at: str,
) -> dict[str, Any]:
    """Book an appointment for a pet with a vet.

    Args:
        pet_id: Pet id, such as 'PET-001'.
        vet_id: Vet id, such as 'VET-01'.
        kind: What the visit is for.
        starts_at: Start in clinic time, 'YYYY-MM-DD HH:MM' on the hour: '2026-03-18 10:00'.
    """
    pet = _verified_pet(tx, pet_id)
    vet = VETS.row(tx, vet_id)
    if not _SLOT.match(starts_at):
        raise ToolError("invalid_state", "starts_at must look like '2026-03-18 10:00'")
    try:
        start = _starts(tx, starts_at)
    except ValueError:
        raise ToolError("invalid_state", f"{starts_at!r} is not a date and time") from None
    if start <= tx.now:
        raise ToolError("invalid_state", f"{starts_at} is in the past")
    if start.minute or not 9 <= start.hour <= 16 or start.weekday() == 6:
        raise ToolError(
            "invalid_state", "appointments start on the hour, 09:00 to 16:00, Monday to Saturday"
        )
    if kind == "surgery":
        if not vet["does_surgery"]:
            raise ToolError("not_permitted", f"{vet['name']} does not operate")
        last = pet["last_exam_on"]
        if last is None or kit.days_between(kit.text(last), tx.today) > 90:
            raise ToolError("invalid_state", "surgery needs an exam in the last 90 days")
    day = starts_at[:10]
    taken = {
        kit.text(r["starts_at"])[11:]
        for r in tx.query(
            "SELECT starts_at FROM appointments WHERE vet_id = ? AND status = 'booked' "
            "AND substr(starts_at, 1, 10) = ?",
            [vet_id, day],
        )
    }
    if starts_at[11:] in taken:
        free = [f"{h:02d}:00" for h in range(9, 17) if f"{h:02d}:00" not in taken]
        raise ToolError(
            "invalid_state",
            f"{vet['name']} is booked at {starts_at}; free that day: {', '.join(free) or 'none'}",
        )
    if tx.one(
        "SELECT id FROM appointments WHERE pet_id = ? AND starts_at = ? AND status = 'booked'",
        [pet_id, starts_at],
    ):
        raise ToolError("invalid_state", f"{pet['name']} already has an appointment then")
    stamp = kit.stamp(tx)
    row = {
        "id": kit.new_id(tx, "appointments", "APT-", width=4),
        "pet_id": pet_id,
        "vet_id": vet_id,
        "kind": kind,
        "starts_at": starts_at,
        "status": "booked",
        "moved_by_clinic": 0,
        "cancel_reason": None,
        "cancel_fee": None,
        "created_at": stamp,
        "updated_at": stamp,
    }
    return kit.ordered(tx, "appointments", tx.insert("appointments", row))


@tool(mutates=True)
def cancel_appointment(
    tx: WorldTx,
    appointment_id: str,
    reason: Literal["owner_request", "pet_unwell", "clinic_moved"],
) -> dict[str, Any]:
    """Cancel a booked appointment; one less than 24 hours away costs the late fee.

    Args:
        appointment_id: Appointment id, such as 'APT-0101'.
        reason: Why: the owner asks, the pet is unwell, or the clinic moved it.
    """
    appt = APPOINTMENTS.row(tx, appointment_id)
    _verified_pet(tx, kit.text(appt["pet_id"]))
    if appt["status"] != "booked":
        raise ToolError("invalid_state", f"appointment {appointment_id} is {appt['status']}")
    if reason == "clinic_moved" and not appt["moved_by_clinic"]:
        raise ToolError("not_permitted", f"the clinic did not move appointment {appointment_id}")
    late = _starts(tx, kit.text(appt["starts_at"])) - tx.now < timedelta(hours=24)
    fee = LATE_FEE if late and reason != "clinic_moved" else 0.0
    tx.update(
        "appointments",
        {"id": appointment_id},
        {
            "status": "cancelled",
            "cancel_reason": reason,
            "cancel_fee": fee,
            "updated_at": kit.stamp(tx),
        },
    )
    return APPOINTMENTS.row(tx, appointment_id)


@tool(mutates=True)
def refill_prescription(tx: WorldTx, prescription_id: str) -> dict[str, Any]:
    """Refill a prescription: one refill is used and the medicine is ready for pickup.

    Args:
        prescription_id: Prescription id, such as 'RX-2001'.
    """
    rx = PRESCRIPTIONS.row(tx, prescription_id)  # kit.Table: not_found, naming the id format
    _verified_pet(tx, kit.text(rx["pet_id"]))  # not_permitted until verify_owner passed
    if kit.text(rx["expires_on"]) < tx.today.isoformat():
        raise ToolError(
            "invalid_state", f"prescription {prescription_id} expired on {rx['expires_on']}"
        )
    if kit.integer(rx["refills_left"]) == 0:
        raise ToolError("invalid_state", f"prescription {prescription_id} has no refills left")
    tx.update(
        "prescriptions",
        {"id": prescription_id},
        {"refills_left": kit.integer(rx["refills_left"]) - 1},
    )
    refill = {
        "id": kit.new_id(tx, "refills", "RF-", width=4),
        "prescription_id": prescription_id,
        "status": "ready_for_pickup",
        "created_at": kit.stamp(tx),
    }
    return kit.ordered(tx, "refills", tx.insert("refills", refill))


NOTES = kit.note_tools(
    kit.NoteBook(
        table="clinic_notes",
        name="clinic_note",
        ids=kit.IdFormat("NOTE-", width=4),
        owner=OWNER,
        categories=("adverse_reaction", "general"),
        links=(kit.Link("pet_id", "The pet the note is about; null when none."),),
    )
)

CONSENTS = kit.ConsentLog(
    OWNER,
    related=(APPOINTMENTS,),
    confirmations=("cancellation",),
    disclosures=("late_cancellation_fee",),
)

TOOLS: tuple[ToolSpec, ...] = (
    find_owner,
    VERIFY_OWNER,
    get_owner,
    list_vets,
    book_appointment,
    cancel_appointment,
    refill_prescription,
    NOTES["add_clinic_note"],
)
"""The core tools: offered to every task."""

STEP_TOOLS: tuple[ToolSpec, ...] = tuple(kit.consent_tools(CONSENTS).values())
"""record_disclosure and record_confirmation: offered only to tasks with ``record_steps``."""

STEP_SCHEMA = VERIFIED.schema("owners") + CONSENTS.schema()
"""The kit's tables (verification log, consent log), appended to schema.sql."""
