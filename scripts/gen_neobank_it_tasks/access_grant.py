"""Access-grant tasks: decide a pending request from its approvals, SoD and contractor rules."""

from __future__ import annotations

from typing import Any

from ._build import (
    EMP,
    SYSTEMS,
    Patch,
    TaskSet,
    approval,
    call,
    day,
    days_until,
    grants,
    ident,
    inv,
    manager,
    merge,
    notify,
    request,
    sent,
    set_employee,
)

_SOD_RUBRIC = [
    "Does the reply tell the employee the request was rejected because of segregation of "
    "duties (the same person may not hold both payment systems)? (yes/no)",
]
_CONTRACTOR_RUBRIC = [
    "Does the reply say that contractors cannot be given access to restricted systems? (yes/no)",
]


def expiry(employee: str, system: str, requested: int) -> str:
    """The grant's last day under policy 2.2.6."""
    days = min(requested, int(SYSTEMS[system]["max_grant_days"]))
    e = EMP[employee]
    if e["employment_type"] == "contractor":
        days = min(days, 30, days_until(str(e["end_date"])))
    return day(days)


def build(tasks: TaskSet) -> None:
    """Add pending-request decisions: grant, cap, least privilege, missing or bad approvals."""
    f = "access-grant"
    # variant, employee, system, role, days, approvals [(approver or role key, role, decision)],
    # extra patch, fact (key, value, script line) or None, outcome
    cases: list[tuple[str, str, str, str, int, list[tuple[str, str, str]], Patch, Any, str]] = [
        (
            "grant",
            "EMP-0043",
            "SYS-KYC",
            "read",
            90,
            [("mgr", "manager", "approved"), ("own", "owner", "approved")],
            {},
            None,
            "grant",
        ),
        (
            "grant",
            "EMP-0051",
            "SYS-CRM",
            "read",
            120,
            [("mgr", "manager", "approved")],
            {},
            None,
            "grant",
        ),
        (
            "grant-capped",
            "EMP-0030",
            "SYS-DWH",
            "read",
            365,
            [("mgr", "manager", "approved"), ("own", "owner", "approved")],
            {},
            None,
            "grant",
        ),
        (
            "grant-capped",
            "EMP-0005",
            "SYS-AWS",
            "write",
            90,
            [("mgr", "manager", "approved"), ("own", "owner", "approved")],
            {},
            None,
            "grant",
        ),
        (
            "least-privilege",
            "EMP-0022",
            "SYS-KYC",
            "write",
            60,
            [("mgr", "manager", "approved"), ("own", "owner", "approved")],
            {},
            (
                "need",
                "only needs to view KYC cases, never edit",
                "Honestly I only need to look cases up, I never edit anything in there.",
            ),
            "read",
        ),
        (
            "least-privilege",
            "EMP-0052",
            "SYS-CRM",
            "write",
            90,
            [("mgr", "manager", "approved")],
            {},
            (
                "need",
                "only reads customer history for reports",
                "I just read customer history for my reports, nothing more.",
            ),
            "read",
        ),
        (
            "contractor-capped",
            "EMP-0044",
            "SYS-KYC",
            "read",
            90,
            [("mgr", "manager", "approved"), ("own", "owner", "approved")],
            {},
            None,
            "grant",
        ),
        (
            "contractor-capped",
            "EMP-0009",
            "SYS-DWH",
            "read",
            60,
            [("mgr", "manager", "approved"), ("own", "owner", "approved")],
            set_employee("EMP-0009", end_date=day(20)),
            None,
            "grant",
        ),
        (
            "missing-owner",
            "EMP-0045",
            "SYS-DWH",
            "read",
            90,
            [("mgr", "manager", "approved")],
            {},
            None,
            "wait",
        ),
        (
            "missing-owner",
            "EMP-0031",
            "SYS-CORE",
            "read",
            30,
            [("mgr", "manager", "approved")],
            {},
            None,
            "wait",
        ),
        (
            "self-approved",
            "EMP-0003",
            "SYS-DWH",
            "read",
            90,
            [("self", "manager", "approved"), ("own", "owner", "approved")],
            {},
            None,
            "wait",
        ),
        (
            "self-approved",
            "EMP-0029",
            "SYS-CRM",
            "write",
            90,
            [("self", "manager", "approved")],
            {},
            None,
            "wait",
        ),
        (
            "sod-conflict",
            "EMP-0015",
            "SYS-PAYAPPR",
            "read",
            90,
            [("mgr", "manager", "approved"), ("own", "owner", "approved")],
            {},
            None,
            "sod_conflict",
        ),
        (
            "sod-conflict",
            "EMP-0017",
            "SYS-PAYAPPR",
            "write",
            60,
            [("mgr", "manager", "approved"), ("own", "owner", "approved")],
            {},
            None,
            "sod_conflict",
        ),
        (
            "sod-cleared",
            "EMP-0016",
            "SYS-PAYAPPR",
            "read",
            90,
            [("mgr", "manager", "approved"), ("own", "owner", "approved")],
            {
                "access_grants": [
                    {
                        "id": "GR-00031",
                        "status": "revoked",
                        "revoke_reason": "role_change",
                        "revoked_at": "2026-02-20T10:00:00+00:00",
                    }
                ]
            },
            None,
            "grant",
        ),
        (
            "contractor-restricted",
            "EMP-0024",
            "SYS-CORE",
            "read",
            30,
            [("mgr", "manager", "approved"), ("own", "owner", "approved")],
            {},
            None,
            "contractor_restricted",
        ),
        (
            "contractor-restricted",
            "EMP-0054",
            "SYS-HRIS",
            "read",
            30,
            [("mgr", "manager", "approved"), ("own", "owner", "approved")],
            {},
            None,
            "contractor_restricted",
        ),
        (
            "approver-rejected",
            "EMP-0046",
            "SYS-KYC",
            "read",
            90,
            [("mgr", "manager", "approved"), ("own", "owner", "rejected")],
            {},
            None,
            "approver_rejected",
        ),
        (
            "not-eligible",
            "EMP-0047",
            "SYS-DWH",
            "read",
            90,
            [("mgr", "manager", "approved"), ("own", "owner", "approved")],
            set_employee("EMP-0047", status="on_leave"),
            None,
            "not_eligible",
        ),
    ]
    for n, (variant, emp, sysid, role, days, apv, extra, fact, outcome) in enumerate(cases, 1):
        rid = f"AR-{400 + n:05d}"
        system = SYSTEMS[sysid]
        who = {"mgr": manager(emp), "own": str(system["owner_id"]), "self": emp}
        patch = merge(
            request(rid, emp, sysid, role, days, f"Need {system['name']} for my work."),
            *(
                approval(f"APV-{400 + 3 * n + k:05d}", rid, who[a], r, d)
                for k, (a, r, d) in enumerate(apv)
            ),
            extra,
        )
        golden = [
            ident(emp),
            call("list_employee_access", employee_id=emp),
            call("get_access_request", request_id=rid),
            call("list_systems"),
        ]
        invariants = []
        facts: dict[str, Any] = {}
        tags = []
        rubric: list[str] | None = None
        reference = ""
        said = ""
        if fact:
            # The need decides the role (policy §2.2.6), and no policy step makes the
            # agent ask for it before deciding: the employee says it in the opening, so
            # the right moment is not a matter of which reply carries it.
            facts[fact[0]] = {"value": fact[1], "say": fact[2]}
            said = f" {fact[2]}"
            tags.append("user-fact")
        if outcome in ("grant", "read"):
            granted = role if outcome == "grant" else "read"
            until = expiry(emp, sysid, days)
            golden += [
                call("grant_access", request_id=rid, role=granted, expires_on=until),
                notify(emp, "access_granted", rid),
            ]
            invariants += [
                inv(
                    f"select role || ' ' || expires_on from access_grants where request_id = "
                    f"'{rid}'",
                    f"{granted} {until}",
                    f"{granted} access until {until}",
                ),
                sent(emp, "access_granted", rid),
            ]
            desc = (
                f"{role} on {sysid} for {days}d, approvals complete -> grant {granted} to {until}"
            )
            if sysid == "SYS-PAYAPPR":
                tags.append("sod")
        elif outcome == "wait":
            needed = [manager(emp)]
            if system["approval_policy"] == "manager_and_owner":
                needed.append(str(system["owner_id"]))
            have = {
                who[a]
                for a, r, d in apv
                if d == "approved"
                and who[a] != emp
                and (
                    (r == "manager" and who[a] == manager(emp))
                    or (r == "owner" and who[a] == system["owner_id"])
                )
            }
            missing = [m for m in needed if m not in have]
            assert missing, rid
            golden += [notify(m, "approval_needed", rid) for m in missing]
            invariants += [
                inv(
                    f"select status from access_requests where id = '{rid}'",
                    "pending",
                    "request stays pending",
                ),
                inv(
                    f"select count(*) from access_grants where request_id = '{rid}'", 0, "no grant"
                ),
                *(sent(m, "approval_needed", rid) for m in missing),
            ]
            desc = f"{rid} lacks approval(s) from {missing} -> approval_needed, no grant"
            tags.append("sod" if variant == "self-approved" else "approvals")
        else:
            golden += [
                call("reject_access_request", request_id=rid, reason=outcome),
                notify(emp, "access_rejected", rid),
            ]
            invariants += [
                inv(
                    f"select status || ':' || decision_reason from access_requests where id = "
                    f"'{rid}'",
                    f"rejected:{outcome}",
                    f"rejected for {outcome}",
                ),
                sent(emp, "access_rejected", rid),
            ]
            desc = f"{rid}: {outcome} -> reject and email"
            tags.append("refusal")
            if outcome == "sod_conflict":
                tags.append("sod")
                rubric = _SOD_RUBRIC
                reference = (
                    f"I've rejected request {rid}: under segregation of duties the same person "
                    "may not hold both payment initiation and payment approval access, and you "
                    "already hold payment initiation. You'll get an email confirming it."
                )
            elif outcome == "contractor_restricted":
                rubric = _CONTRACTOR_RUBRIC
                reference = (
                    f"I've rejected request {rid}: contractors cannot be given access to "
                    f"restricted systems such as the {system['name']}. An email confirms it."
                )
        tasks.add(
            f,
            variant,
            employee=emp,
            description=desc,
            opening=f"Hi, I asked for access to the {system['name']} a couple of days ago.{said} "
            "Can you check it and sort it out?",
            goal=f"Get the pending {system['name']} access request handled",
            reacts={"thanks": "Thanks, that's all."},
            facts={"request_id": rid, **facts},
            patch=patch,
            golden=golden,
            invariants=invariants,
            tags=tags,
            rubric=rubric,
            reference=reference,
        )
    assert all(g["system_id"] != "SYS-PAYAPPR" for g in grants("EMP-0015"))
