"""The clinic's seed: a few owners and pets, two vets, one booked appointment.

Tasks patch this (``initial_state``) with the rows their story needs; the seed holds
what every task shares.
"""

from __future__ import annotations

from typing import Any

__all__ = ["SEED"]

SEED: dict[str, list[dict[str, Any]]] = {
    "owners": [
        {
            "id": "OWN-001",
            "name": "Maya Lindqvist",
            "email": "maya.l@example.com",
            "phone": "+1 555 0101",
        },
        {
            "id": "OWN-002",
            "name": "Tomas Reyes",
            "email": "t.reyes@example.com",
            "phone": "+1 555 0102",
        },
        {
            "id": "OWN-003",
            "name": "Priya Nair",
            "email": "priya.nair@example.com",
            "phone": "+1 555 0103",
        },
    ],
    "pets": [
        {
            "id": "PET-001",
            "owner_id": "OWN-001",
            "name": "Biscuit",
            "species": "dog",
            "last_exam_on": "2025-11-20",
        },
        {
            "id": "PET-002",
            "owner_id": "OWN-002",
            "name": "Whiskers",
            "species": "cat",
            "last_exam_on": "2026-01-08",
        },
        {
            "id": "PET-003",
            "owner_id": "OWN-003",
            "name": "Clover",
            "species": "rabbit",
            "last_exam_on": "2024-12-02",
        },
        {
            "id": "PET-004",
            "owner_id": "OWN-002",
            "name": "Pepper",
            "species": "dog",
            "last_exam_on": "2025-09-14",
        },
    ],
    "vets": [
        {"id": "VET-01", "name": "Dr. Amara Okafor", "does_surgery": 1},
        {"id": "VET-02", "name": "Dr. Lee Brandt", "does_surgery": 0},
    ],
    "appointments": [
        {
            "id": "APT-0101",
            "pet_id": "PET-004",
            "vet_id": "VET-01",
            "kind": "exam",
            "starts_at": "2026-03-18 10:00",
            "status": "booked",
            "moved_by_clinic": 0,
            "cancel_reason": None,
            "cancel_fee": None,
            "created_at": "2026-03-01T09:00:00+00:00",
            "updated_at": "2026-03-01T09:00:00+00:00",
        },
    ],
    "prescriptions": [
        {
            "id": "RX-2001",
            "pet_id": "PET-001",
            "drug": "carprofen 75 mg",
            "refills_left": 2,
            "expires_on": "2026-09-30",
        },
        {
            "id": "RX-2002",
            "pet_id": "PET-002",
            "drug": "methimazole 5 mg",
            "refills_left": 3,
            "expires_on": "2026-12-31",
        },
        {
            "id": "RX-2003",
            "pet_id": "PET-002",
            "drug": "gabapentin 50 mg",
            "refills_left": 1,
            "expires_on": "2026-06-30",
        },
        {
            "id": "RX-2004",
            "pet_id": "PET-003",
            "drug": "meloxicam 0.5 mg/ml",
            "refills_left": 2,
            "expires_on": "2026-08-31",
        },
    ],
}
