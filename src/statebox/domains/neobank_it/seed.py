"""Seed rows of the neobank_it domain: a digital bank's IT estate as of 2026-03-02.

Everything is synthetic and derived from one `random.Random(20260302)`, so the seed is the
same on every machine and run. Names come from generic first/last name lists (no real
persons); every email is at neobank.example.com. Dates are placed relative to `SEED_DATE`.

Shape: seven departments, each with a head (a director reporting to the CEO, EMP-0001),
one manager reporting to the head and staff reporting to the manager; some staff are
contractors with a contract end date. Every employee has an SSO account and a laptop.
Ids below 400 are seeded; tasks patch rows with ids 400-499; tools hand out 501 onwards.
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
    "Avery", "Bram", "Celine", "Dario", "Elif", "Femi", "Greta", "Hamid", "Ines", "Jasper",
    "Kaia", "Leon", "Mira", "Nikolai", "Odile", "Pedro", "Rania", "Soren", "Talia", "Ugo",
    "Vanya", "Wren", "Xavi", "Yusuf", "Zora", "Anouk", "Basil", "Cosima", "Dmitri", "Eira",
)  # fmt: skip
_LAST = (
    "Abernethy", "Brightwater", "Calloway", "Dunmore", "Everly", "Fairbank", "Galloway",
    "Hollis", "Ingram", "Jessop", "Kettering", "Lockhart", "Marlowe", "Northcott", "Oakes",
    "Pendleton", "Quarry", "Redfern", "Stanway", "Thorne",
)  # fmt: skip

# (id, name, cost centre, staff count)
_DEPARTMENTS = (
    ("DEP-ENG", "Engineering", "CC-110", 8),
    ("DEP-FIN", "Finance", "CC-120", 6),
    ("DEP-OPS", "Banking Operations", "CC-130", 6),
    ("DEP-RSK", "Risk and Compliance", "CC-140", 5),
    ("DEP-SEC", "Information Security", "CC-150", 4),
    ("DEP-CS", "Customer Support", "CC-160", 6),
    ("DEP-DAT", "Data and Analytics", "CC-170", 5),
)  # fmt: skip

# (id, name, owner department, data class, approval policy, max grant days, conflicts with)
_SYSTEMS = (
    ("SYS-CORE", "Core banking ledger", "DEP-OPS", "restricted", "manager_and_owner", 90, None),
    ("SYS-PAYINIT", "Payment initiation", "DEP-FIN", "restricted", "manager_and_owner", 90,
     "SYS-PAYAPPR"),
    ("SYS-PAYAPPR", "Payment approval", "DEP-FIN", "restricted", "manager_and_owner", 90,
     "SYS-PAYINIT"),
    ("SYS-KYC", "KYC case manager", "DEP-RSK", "confidential", "manager_and_owner", 180, None),
    ("SYS-CRM", "Customer CRM", "DEP-CS", "confidential", "manager", 180, None),
    ("SYS-DWH", "Data warehouse", "DEP-DAT", "confidential", "manager_and_owner", 180, None),
    ("SYS-AWS", "Cloud production console", "DEP-ENG", "restricted", "manager_and_owner", 30,
     None),
    ("SYS-GIT", "Source code hosting", "DEP-ENG", "internal", "manager", 365, None),
    ("SYS-JIRA", "Issue tracker", "DEP-ENG", "internal", "manager", 365, None),
    ("SYS-HRIS", "HR information system", "DEP-FIN", "restricted", "manager_and_owner", 90,
     None),
)  # fmt: skip

_POOLS = (
    ("LIC-FIGMA", "Figma Professional", 12, 15.0, 0),
    ("LIC-JETBRAINS", "JetBrains All Products", 10, 24.9, 0),
    ("LIC-TABLEAU", "Tableau Creator", 6, 75.0, 1),
    ("LIC-ZOOM", "Zoom Business", 30, 18.32, 0),
    ("LIC-DOCUSIGN", "DocuSign Business Pro", 5, 40.0, 1),
    ("LIC-MIRO", "Miro Business", 15, 16.0, 0),
)  # fmt: skip

_CATALOG = (
    ("HW-LAP-STD", "Standard laptop 14in", "laptop", 1450.0),
    ("HW-LAP-PRO", "Engineering laptop 16in", "laptop", 2650.0),
    ("HW-MON-27", "27in monitor", "monitor", 289.0),
    ("HW-DOCK", "USB-C docking station", "peripheral", 189.0),
    ("HW-KEYB", "Wireless keyboard and mouse", "peripheral", 79.0),
    ("HW-HEADSET", "Noise-cancelling headset", "peripheral", 129.0),
    ("HW-PHONE", "Work mobile phone", "phone", 899.0),
)  # fmt: skip


def _ts(d: date, hour: int = 10) -> str:
    return datetime.combine(d, time(hour), tzinfo=UTC).isoformat()


def _ago(days: int) -> date:
    return SEED_DATE - timedelta(days=days)


def _people(rng: random.Random) -> tuple[list[Row], list[Row]]:
    """Departments and employees (CEO first, then each department top-down)."""
    names = [(f, ln) for ln in _LAST for f in _FIRST]
    rng.shuffle(names)
    used: set[str] = set()
    employees: list[Row] = []
    departments: list[Row] = []

    def person(dept: str, manager: str | None, title: str, level: str) -> str:
        n = len(employees) + 1
        first, last = names[n]
        email = f"{first}.{last}@neobank.example.com".lower()
        assert email not in used
        used.add(email)
        contractor = n % 5 == 4 and level == "staff"
        employees.append(
            {
                "id": f"EMP-{n:04d}",
                "first_name": first,
                "last_name": last,
                "email": email,
                "department_id": dept,
                "manager_id": manager,
                "title": ("Contract " + title.lower()) if contractor else title,
                "level": level,
                "employment_type": "contractor" if contractor else "employee",
                "status": "active",
                "start_date": _ago(60 + (n * 53) % 1400).isoformat(),
                "end_date": (SEED_DATE + timedelta(days=30 + (n * 11) % 120)).isoformat()
                if contractor
                else None,
            }
        )
        return f"EMP-{n:04d}"

    ceo = person("DEP-OPS", None, "Chief Executive Officer", "executive")
    for dept, dname, cc, staff in _DEPARTMENTS:
        head = person(dept, ceo, f"Head of {dname}", "director")
        mgr = person(dept, head, f"{dname} Manager", "manager")
        for _ in range(staff):
            person(dept, mgr, f"{dname} Specialist", "staff")
        departments.append({"id": dept, "name": dname, "head_id": head, "cost_center": cc})
    return departments, employees


def seed_rows() -> dict[str, list[Row]]:
    """Every table's seed rows (deterministic)."""
    rng = random.Random(20260302)
    departments, employees = _people(rng)
    heads = {d["id"]: d["head_id"] for d in departments}
    accounts = [
        {
            "employee_id": e["id"],
            "username": e["email"].split("@")[0],
            "sso_status": "active",
            "lock_reason": None,
            "mfa_enrolled": 1,
            "must_reset_password": 0,
            "updated_at": _ts(_ago(30 + i % 40)),
        }
        for i, e in enumerate(employees)
    ]
    devices: list[Row] = []
    for i, e in enumerate(employees, 1):
        months = (i * 7) % 48 + 1
        devices.append(
            {
                "id": f"DEV-{i:04d}",
                "employee_id": e["id"],
                "kind": "laptop",
                "model": "Engineering laptop 16in"
                if e["department_id"] == "DEP-ENG"
                else "Standard laptop 14in",
                "serial": f"NBL{rng.randrange(10**7, 10**8)}",
                "assigned_on": _ago(months * 30).isoformat(),
                "encrypted": 1,
                "status": "in_use",
                "updated_at": None,
            }
        )
    systems = [
        {
            "id": sid,
            "name": name,
            "owner_id": heads[dept],
            "data_class": dclass,
            "approval_policy": policy,
            "max_grant_days": days,
            "conflicts_with": conflict,
        }
        for sid, name, dept, dclass, policy, days, conflict in _SYSTEMS
    ]
    requests: list[Row] = []
    approvals: list[Row] = []
    grants: list[Row] = []
    by_id = {e["id"]: e for e in employees}
    home = {
        "DEP-ENG": ("SYS-GIT", "SYS-JIRA"),
        "DEP-FIN": ("SYS-PAYINIT", "SYS-JIRA"),
        "DEP-OPS": ("SYS-CORE", "SYS-CRM"),
        "DEP-RSK": ("SYS-KYC", "SYS-CRM"),
        "DEP-SEC": ("SYS-AWS", "SYS-JIRA"),
        "DEP-CS": ("SYS-CRM", "SYS-JIRA"),
        "DEP-DAT": ("SYS-DWH", "SYS-JIRA"),
    }
    max_days = {s["id"]: s["max_grant_days"] for s in systems}
    classes = {s["id"]: s["data_class"] for s in systems}
    for e in employees:
        for sid in home[e["department_id"]]:
            if e["employment_type"] == "contractor" and classes[sid] == "restricted":
                continue
            n = len(requests) + 1
            granted = _ago(5 + (n * 13) % 25)
            role = "write" if sid in ("SYS-GIT", "SYS-JIRA", "SYS-CRM") else "read"
            requests.append(
                {
                    "id": f"AR-{n:05d}",
                    "employee_id": e["id"],
                    "system_id": sid,
                    "role": role,
                    "requested_days": max_days[sid],
                    "justification": "Needed for day-to-day work in my team.",
                    "status": "provisioned",
                    "decision_reason": None,
                    "created_at": _ts(granted - timedelta(days=2)),
                    "decided_at": _ts(granted),
                }
            )
            if e["manager_id"]:
                approvals.append(
                    {
                        "id": f"APV-{len(approvals) + 1:05d}",
                        "request_id": f"AR-{n:05d}",
                        "approver_id": e["manager_id"],
                        "approver_role": "manager",
                        "decision": "approved",
                        "decided_at": _ts(granted - timedelta(days=1)),
                    }
                )
            grants.append(
                {
                    "id": f"GR-{n:05d}",
                    "employee_id": e["id"],
                    "system_id": sid,
                    "role": role,
                    "request_id": f"AR-{n:05d}",
                    "granted_on": granted.isoformat(),
                    "expires_on": (granted + timedelta(days=max_days[sid])).isoformat(),
                    "status": "active",
                    "revoke_reason": None,
                    "revoked_at": None,
                }
            )
    pools = [
        {
            "id": pid,
            "product": product,
            "seats_total": seats,
            "cost_per_seat_usd": cost,
            "requires_approval": approval,
        }
        for pid, product, seats, cost, approval in _POOLS
    ]
    allocations: list[Row] = []
    for k, (pid, _p, seats, _c, _a) in enumerate(_POOLS):
        holders = [e for i, e in enumerate(employees) if (i + k) % 5 == 0][: seats - 2]
        for j, e in enumerate(holders):
            allocations.append(
                {
                    "id": f"LA-{len(allocations) + 1:05d}",
                    "pool_id": pid,
                    "employee_id": e["id"],
                    "allocated_on": _ago(200 + j * 9).isoformat(),
                    "last_used_on": _ago(1 + (j * 5) % 40).isoformat(),
                    "status": "active",
                    "released_on": None,
                }
            )
    catalog = [
        {"id": cid, "name": name, "category": cat, "price_usd": price}
        for cid, name, cat, price in _CATALOG
    ]
    orders = [
        {
            "id": f"HO-{i:05d}",
            "employee_id": employees[i * 6]["id"],
            "catalog_id": ("HW-MON-27", "HW-DOCK", "HW-HEADSET", "HW-KEYB")[i % 4],
            "quantity": 1,
            "total_usd": (289.0, 189.0, 129.0, 79.0)[i % 4],
            "reason": "new_need",
            "status": "delivered",
            "cancel_reason": None,
            "created_at": _ts(_ago(40 + i * 3)),
            "updated_at": _ts(_ago(30 + i * 3)),
        }
        for i in range(1, 8)
    ]
    incidents = [
        {
            "id": f"INC-{i:05d}",
            "reporter_id": employees[i * 5]["id"],
            "category": ("phishing", "malware", "phishing")[i % 3],
            "severity": "low",
            "device_id": None,
            "status": "closed",
            "description": "Suspicious email reported and quarantined.",
            "created_at": _ts(_ago(20 + i * 4)),
        }
        for i in range(1, 5)
    ]
    notifications = [
        {
            "id": f"NTF-{i:05d}",
            "recipient": by_id[g["employee_id"]]["email"],
            "template": "access_granted",
            "related_id": g["request_id"],
            "body": "Your access has been provisioned.",
            "sent_at": _ts(date.fromisoformat(g["granted_on"]), 11),
        }
        for i, g in enumerate(grants[:6], 1)
    ]
    tickets = [
        {
            "id": f"TCK-{i:05d}",
            "employee_id": employees[i * 4]["id"],
            "category": ("software", "hardware", "account")[i % 3],
            "subject": ("VPN client crashes", "Dock not charging", "Password expired")[i % 3],
            "status": "closed",
            "priority": "normal",
            "team": "service_desk",
            "hold_reason": None,
            "escalation_reason": None,
            "created_at": _ts(_ago(25 + i)),
            "updated_at": _ts(_ago(20 + i)),
        }
        for i in range(1, 7)
    ]
    return {
        "departments": departments,
        "employees": employees,
        "accounts": accounts,
        "devices": devices,
        "systems": systems,
        "access_requests": requests,
        "approvals": approvals,
        "access_grants": grants,
        "licence_pools": pools,
        "licence_allocations": allocations,
        "hardware_catalog": catalog,
        "hardware_orders": orders,
        "security_incidents": incidents,
        "notifications": notifications,
        "tickets": tickets,
    }
