"""Seed rows of the consulting_hr domain: a mid-sized consulting firm as of 2026-03-02.

Everything is synthetic and derived from one `random.Random(20260302)`, so the seed is the
same on every machine and run. Names come from generic first/last name lists (no real
persons), every email is at example.com and every client is invented. Dates sit relative
to `SEED_DATE`: new hires start in the next weeks, engagements run around it, courses
start after it.
"""

from __future__ import annotations

import random
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

__all__ = ["SEED_DATE", "seed_rows"]

SEED_DATE = date(2026, 3, 2)
"""The day the seed describes; tasks use a clock on it."""

Row = dict[str, Any]

_FIRST = (
    "Ada", "Bram", "Celia", "Dario", "Edith", "Fintan", "Gala", "Hugo", "Ines", "Jasper",
    "Kaia", "Lorcan", "Mirela", "Nils", "Odette", "Piet", "Rhea", "Sven", "Thea", "Ulric",
    "Vida", "Wren", "Xenia", "Yusuf", "Zora", "Anouk", "Basil", "Cleo", "Dmitri", "Elske",
)  # fmt: skip
_LAST = (
    "Abernethy", "Brightwater", "Cortland", "Delacroix", "Eastwood", "Fairbanks", "Greaves",
    "Hollister", "Ingram", "Juniper", "Kestrel", "Lockhart", "Merriweather", "Northcott",
    "Oakhurst", "Pemberton", "Quillfeather", "Ravensworth", "Stonebridge", "Thistlewood",
)  # fmt: skip
_PRACTICES = ("strategy", "technology", "risk", "people")
_CLIENTS = (
    ("CLI-01", "Harbor Freight Logistics Co", "Rotterdam campus", 1, "none"),
    ("CLI-02", "Aldmere Regional Bank", "Downtown tower, floor 12", 1, "baseline"),
    ("CLI-03", "Corvid Defence Systems", "Northfield secure site", 1, "secret"),
    ("CLI-04", "Bluebell Grocers", "Head office", 0, "none"),
    ("CLI-05", "Kestrel Health Trust", "Westside hospital annex", 1, "baseline"),
    ("CLI-06", "Orrin Energy Grid", "Control centre", 1, "secret"),
    ("CLI-07", "Pinecrest Publishing", "Riverside studio", 0, "none"),
    ("CLI-08", "Tamsin Telecom", "Network operations hub", 1, "none"),
)
_LIMITS = (
    ("airfare", 1200.0, 0.0),
    ("client_entertainment", 400.0, 0.0),
    ("ground_transport", 150.0, 25.0),
    ("home_office", 250.0, 25.0),
    ("lodging", 300.0, 0.0),
    ("meals", 75.0, 25.0),
    ("training_materials", 200.0, 25.0),
)
_COURSES = (
    ("CRS-101", "Data Storytelling Foundations", 450.0, 20, 12, None),
    ("CRS-102", "Advanced Data Storytelling", 900.0, 35, 10, "CRS-101"),
    ("CRS-103", "Cloud Architecture Essentials", 1200.0, 14, 15, None),
    ("CRS-104", "Cloud Architecture Professional", 2100.0, 42, 8, "CRS-103"),
    ("CRS-105", "Negotiation for Consultants", 650.0, 9, 12, None),
    ("CRS-106", "Project Risk Management", 800.0, 28, 2, None),
    ("CRS-107", "Executive Presence Workshop", 1500.0, 21, 6, None),
    ("CRS-108", "Agile Delivery Practitioner", 700.0, 5, 20, None),
    ("CRS-109", "Security Awareness for Client Sites", 0.0, 12, 40, None),
    ("CRS-110", "Financial Modelling Masterclass", 1800.0, 49, 10, "CRS-105"),
)
_SOFTWARE = (
    ("SW-101", "Figment Diagram Studio", "standard", 30, 120.0),
    ("SW-102", "Ledgerline Analytics", "standard", 12, 480.0),
    ("SW-103", "Quanta Stats Suite", "restricted", 6, 1900.0),
    ("SW-104", "Patchwork Code IDE", "standard", 40, 90.0),
    ("SW-105", "Vaultkey Password Manager", "standard", 60, 36.0),
    ("SW-106", "Prism Survey Builder", "standard", 4, 600.0),
    ("SW-107", "Sentinel Forensics Kit", "restricted", 3, 3200.0),
    ("SW-108", "Atlas GIS Pro", "restricted", 5, 2400.0),
)


def _ts(d: date, hour: int = 9) -> str:
    return datetime.combine(d, time(hour), tzinfo=UTC).isoformat()


def _day(offset: int) -> date:
    return SEED_DATE + timedelta(days=offset)


def _employees(rng: random.Random) -> list[Row]:
    rows: list[Row] = []
    names = [(f, la) for f in _FIRST for la in _LAST]
    rng.shuffle(names)
    for n in range(1, 49):
        first, last = names[n]
        if n <= 3:
            grade, manager = "partner", None
        elif n <= 9:
            grade, manager = "manager", f"EMP-{(n % 3) + 1:04d}"
        else:
            grade = ("analyst", "consultant", "senior")[n % 3]
            manager = f"EMP-{4 + n % 6:04d}"
        pre_start = n >= 43
        start = _day(3 + 4 * (n - 43)) if pre_start else _day(-rng.randint(120, 2400))
        rows.append(
            {
                "id": f"EMP-{n:04d}",
                "first_name": first,
                "last_name": last,
                "email": f"{first.lower()}.{last.lower()}@example.com",
                "grade": grade,
                "practice": _PRACTICES[n % 4],
                "manager_id": manager,
                "status": "pre_start" if pre_start else "active",
                "start_date": start.isoformat(),
                "end_date": None,
                "background_check": "pending" if n in (45, 47) else "cleared",
                "clearance_level": ("none", "baseline", "none", "secret", "baseline")[n % 5],
            }
        )
    return rows


def _engagements() -> list[Row]:
    rows: list[Row] = []
    for k in range(14):
        client = _CLIENTS[k % len(_CLIENTS)][0]
        closed = k in (6, 11)
        rows.append(
            {
                "id": f"ENG-{101 + k}",
                "client_id": client,
                "name": f"{_CLIENTS[k % len(_CLIENTS)][1].split()[0]} programme {k + 1}",
                "status": "closed" if closed else "active",
                "lead_id": f"EMP-{4 + k % 6:04d}",
                "start_date": _day(-200 + 7 * k).isoformat(),
                "end_date": _day(-20 if closed else 30 + 15 * k).isoformat(),
                "billable": 0 if k == 13 else 1,
            }
        )
    return rows


def seed_rows() -> dict[str, list[Row]]:
    """All seed rows, table by table (deterministic).

    Returns:
        table name → rows (column → value).
    """
    rng = random.Random(20260302)
    employees = _employees(rng)
    engagements = _engagements()
    active_eng = [e for e in engagements if e["status"] == "active"]
    client_of = {e["id"]: e["client_id"] for e in engagements}
    clients = [
        {"id": c, "name": n, "site": s, "requires_nda": nda, "required_clearance": cl}
        for c, n, s, nda, cl in _CLIENTS
    ]
    nda_clients = {c[0] for c in _CLIENTS if c[3]}
    accounts: list[Row] = []
    assignments: list[Row] = []
    ndas: list[Row] = []
    access: list[Row] = []
    equipment: list[Row] = []
    for e in employees:
        n = int(e["id"][4:])
        if e["status"] != "active":
            continue
        systems = ["email", "vpn", "timesheet"] + (["crm"] if e["grade"] != "analyst" else [])
        for s in systems:
            accounts.append(
                {
                    "id": f"ACT-{len(accounts) + 1:05d}",
                    "employee_id": e["id"],
                    "system": s,
                    "status": "active",
                    "created_at": _ts(date.fromisoformat(e["start_date"])),
                    "disabled_at": None,
                }
            )
        model = (
            "Performance 16" if e["grade"] in ("senior", "manager", "partner") else "Standard 14"
        )
        equipment.append(
            {
                "id": f"AST-{n:04d}",
                "kind": "laptop",
                "model": model,
                "status": "assigned",
                "employee_id": e["id"],
                "assigned_on": e["start_date"],
            }
        )
        if n <= 3:
            continue
        eng = active_eng[n % len(active_eng)]
        assignments.append(
            {
                "id": f"ASG-{len(assignments) + 1:05d}",
                "employee_id": e["id"],
                "engagement_id": eng["id"],
                "role": "lead"
                if e["grade"] == "manager"
                else e["grade"].replace("senior", "consultant"),
                "status": "active",
                "start_date": eng["start_date"],
                "end_date": None,
            }
        )
        client = client_of[eng["id"]]
        if client in nda_clients and n % 4 != 1:
            signed = _day(-rng.randint(100, 600))
            ndas.append(
                {
                    "id": f"NDA-{len(ndas) + 1:05d}",
                    "employee_id": e["id"],
                    "client_id": client,
                    "envelope_id": f"ENV-{rng.randint(1000, 9999)}-{n:02d}",
                    "signed_on": signed.isoformat(),
                    "expires_on": (signed + timedelta(days=730)).isoformat(),
                }
            )
            if n % 3 == 0:
                access.append(
                    {
                        "id": f"SAC-{len(access) + 1:05d}",
                        "employee_id": e["id"],
                        "client_id": client,
                        "status": "active",
                        "granted_on": _day(-30).isoformat(),
                        "expires_on": min(
                            _day(60), date.fromisoformat(eng["end_date"])
                        ).isoformat(),
                        "revoked_on": None,
                    }
                )
    for k in range(12):
        model = "Standard 14" if k % 2 == 0 else "Performance 16"
        equipment.append(
            {
                "id": f"AST-{101 + k:04d}",
                "kind": "laptop",
                "model": model,
                "status": "in_stock" if k < 10 else "in_repair",
                "employee_id": None,
                "assigned_on": None,
            }
        )
    for k in range(6):
        equipment.append(
            {
                "id": f"AST-{201 + k:04d}",
                "kind": "monitor" if k < 3 else "phone",
                "model": "View 27" if k < 3 else "Handset S",
                "status": "in_stock",
                "employee_id": None,
                "assigned_on": None,
            }
        )
    software: list[Row] = [
        {"id": i, "name": nm, "tier": t, "seats_total": s, "annual_cost": c}
        for i, nm, t, s, c in _SOFTWARE
    ]
    licences: list[Row] = []
    active_ids = [e["id"] for e in employees if e["status"] == "active"]
    for sw in software:
        used = {"SW-106": 4, "SW-107": 3}.get(sw["id"], min(sw["seats_total"] - 2, 5))
        for j in range(used):
            licences.append(
                {
                    "id": f"LIC-{len(licences) + 1:05d}",
                    "employee_id": active_ids[(j * 7 + int(sw["id"][3:])) % len(active_ids)],
                    "software_id": sw["id"],
                    "status": "active",
                    "assigned_at": _ts(_day(-rng.randint(30, 400))),
                    "released_at": None,
                }
            )
    courses = [
        {"id": i, "title": t, "cost": c, "starts_on": _day(d).isoformat(), "seats": s,
         "prerequisite_id": p}
        for i, t, c, d, s, p in _COURSES
    ]  # fmt: skip
    enrolments: list[Row] = []
    for k, emp in enumerate(active_ids[5:25]):
        course = _COURSES[k % 3 * 2]  # CRS-101, CRS-103, CRS-105
        enrolments.append(
            {
                "id": f"ENR-{len(enrolments) + 1:05d}",
                "employee_id": emp,
                "course_id": course[0],
                "status": "completed",
                "cost": course[2],
                "created_at": _ts(date(2025, 5, 1) + timedelta(days=k)),
                "updated_at": _ts(date(2025, 9, 1) + timedelta(days=k)),
            }
        )
    for k in range(2):  # CRS-106 is full
        enrolments.append(
            {
                "id": f"ENR-{len(enrolments) + 1:05d}",
                "employee_id": active_ids[30 + k],
                "course_id": "CRS-106",
                "status": "enrolled",
                "cost": 800.0,
                "created_at": _ts(_day(-10 - k)),
                "updated_at": _ts(_day(-10 - k)),
            }
        )
    claims: list[Row] = []
    for k in range(16):
        emp = active_ids[4 + k * 2]
        lim = _LIMITS[k % len(_LIMITS)]
        claims.append(
            {
                "id": f"EXP-{k + 1:05d}",
                "employee_id": emp,
                "engagement_id": active_eng[k % len(active_eng)]["id"],
                "category": lim[0],
                "amount": round(lim[1] * (0.3 + 0.04 * k), 2),
                "incurred_on": _day(-40 - k).isoformat(),
                "receipt": 1,
                "description": f"{lim[0].replace('_', ' ')} for client work",
                "status": "paid" if k % 2 else "approved",
                "decision_reason": "within_policy",
                "submitted_at": _ts(_day(-38 - k)),
                "decided_at": _ts(_day(-36 - k)),
            }
        )
    travel: list[Row] = []
    for k in range(6):
        travel.append(
            {
                "id": f"TRV-{k + 1:05d}",
                "employee_id": active_ids[6 + k * 3],
                "engagement_id": active_eng[k]["id"],
                "destination": ("Rotterdam", "Leeds", "Denver", "Lyon", "Austin", "Calgary")[k],
                "international": k % 2,
                "depart_on": _day(-60 + k).isoformat(),
                "return_on": _day(-57 + k).isoformat(),
                "estimated_cost": 900.0 + 150 * k,
                "status": "approved",
                "escalation_reason": None,
                "created_at": _ts(_day(-80 + k)),
                "decided_at": _ts(_day(-79 + k)),
            }
        )
    tickets: list[Row] = []
    notes: list[Row] = []
    cats = ("equipment", "software", "expenses", "training", "travel")
    for k in range(10):
        tid = f"TKT-{k + 1:05d}"
        tickets.append(
            {
                "id": tid,
                "employee_id": active_ids[k * 3],
                "category": cats[k % len(cats)],
                "subject": f"Past {cats[k % len(cats)]} question",
                "status": "resolved",
                "team": "service_desk",
                "hold_reason": None,
                "escalation_reason": None,
                "created_at": _ts(_day(-90 + k)),
                "updated_at": _ts(_day(-88 + k)),
            }
        )
        notes.append(
            {
                "id": f"TKN-{k + 1:05d}",
                "ticket_id": tid,
                "author": "service_desk",
                "body": "Answered and resolved.",
                "created_at": _ts(_day(-88 + k)),
            }
        )
    return {
        "employees": employees,
        "system_accounts": accounts,
        "clients": clients,
        "engagements": engagements,
        "assignments": assignments,
        "ndas": ndas,
        "site_access": access,
        "expense_limits": [
            {"category": c, "limit_amount": lim, "receipt_over": r} for c, lim, r in _LIMITS
        ],
        "expense_claims": claims,
        "courses": courses,
        "enrolments": enrolments,
        "software": software,
        "licence_allocations": licences,
        "equipment": equipment,
        "travel_requests": travel,
        "tickets": tickets,
        "ticket_notes": notes,
    }
