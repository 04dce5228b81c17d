"""Who can call about what: managers with their reports, contractors, staff employees."""

from __future__ import annotations

from typing import Final

from scripts.gen_neobank_it_tasks._build import EMP, SEED, SYSTEMS, grants, licences

__all__ = [
    "CONTRACTORS",
    "EMPLOYEES",
    "MANAGERS",
    "free_pool",
    "free_system",
    "reports",
    "rotated",
]

MANAGERS: Final = [e["id"] for e in SEED["employees"] if e["level"] == "manager"]
CONTRACTORS: Final = [e["id"] for e in SEED["employees"] if e["employment_type"] == "contractor"]
EMPLOYEES: Final = [
    e["id"]
    for e in SEED["employees"]
    if e["level"] == "staff" and e["employment_type"] == "employee"
]


def reports(manager_id: str) -> list[str]:
    """The manager's direct reports, in seed order."""
    return [e["id"] for e in SEED["employees"] if e["manager_id"] == manager_id]


def free_system(employee: str, prefs: list[str], used: list[str]) -> str:
    """The first system of ``prefs`` the employee holds no grant on and the task uses not.

    Systems the employee or their manager owns are skipped: one person in two approver
    roles would make the approvals a task needs ambiguous.
    """
    held = {g["system_id"] for g in grants(employee)}
    contractor = EMP[employee]["employment_type"] == "contractor"
    for sid in prefs:
        restricted = SYSTEMS[sid]["data_class"] == "restricted"
        owner = SYSTEMS[sid]["owner_id"]
        own = owner in (employee, EMP[employee]["manager_id"])
        if sid not in held and sid not in used and not (contractor and restricted) and not own:
            used.append(sid)
            return sid
    raise AssertionError(f"no free system for {employee} in {prefs}")


def free_pool(employee: str, prefs: list[str], used: list[str]) -> str:
    """The first pool of ``prefs`` the employee holds no seat of and the task uses not."""
    held = {a["pool_id"] for a in licences(employee)}
    for pid in prefs:
        if pid not in held and pid not in used:
            used.append(pid)
            return pid
    raise AssertionError(f"no free pool for {employee} in {prefs}")


def rotated(items: list[str], k: int) -> list[str]:
    """``items`` starting at position ``k`` (wrapping), so variants prefer other records."""
    n = k % len(items)
    return items[n:] + items[:n]
