"""New-access tasks: file a least-privilege request and ask the manager, or refuse to file."""

from __future__ import annotations

from ._build import (
    EMP,
    SYSTEMS,
    TaskSet,
    call,
    grants,
    ident,
    inv,
    manager,
    notify,
    says,
    sent,
    set_employee,
)

_RUBRIC = [
    "Does the reply tell the employee that no new request was filed and why? (yes/no)",
]


def build(tasks: TaskSet) -> None:
    """Add new-request tasks: the role follows the stated need.

    Duplicates and ineligible employees are refused without a request.
    """
    f = "access-new"
    # variant, employee, system, need line (user-fact), role, days, patch, outcome
    cases = [
        (
            "file-read",
            "EMP-0045",
            "SYS-DWH",
            "I need to look at the churn dashboards, only viewing.",
            "read",
            90,
            {},
            "file",
        ),
        (
            "file-read",
            "EMP-0031",
            "SYS-HRIS",
            "I just need to read headcount reports for an audit.",
            "read",
            60,
            {},
            "file",
        ),
        (
            "file-write",
            "EMP-0053",
            "SYS-CRM",
            "I'll be creating and editing customer records.",
            "write",
            120,
            {},
            "file",
        ),
        (
            "file-write",
            "EMP-0023",
            "SYS-KYC",
            "I have to update KYC cases and add documents.",
            "write",
            45,
            {},
            "file",
        ),
        (
            "file-read",
            "EMP-0006",
            "SYS-DWH",
            "Just running read-only queries on the events tables.",
            "read",
            30,
            {},
            "file",
        ),
        (
            "upgrade",
            "EMP-0030",
            "SYS-KYC",
            "I now need to edit cases, not only view them.",
            "write",
            90,
            {},
            "file",
        ),
        (
            "upgrade",
            "EMP-0052",
            "SYS-DWH",
            "I need to create tables in the warehouse now.",
            "write",
            60,
            {},
            "file",
        ),
        (
            "already-held",
            "EMP-0043",
            "SYS-CRM",
            "I need to edit customer records.",
            "write",
            90,
            {},
            "held",
        ),
        (
            "already-held",
            "EMP-0010",
            "SYS-GIT",
            "I need to push code to the repos.",
            "write",
            180,
            {},
            "held",
        ),
        (
            "contractor-restricted",
            "EMP-0019",
            "SYS-CORE",
            "I need to view ledger entries.",
            "read",
            30,
            {},
            "contractor",
        ),
        (
            "contractor-restricted",
            "EMP-0034",
            "SYS-AWS",
            "I need to read logs in production.",
            "read",
            14,
            {},
            "contractor",
        ),
        (
            "not-active",
            "EMP-0048",
            "SYS-KYC",
            "I need to look up KYC cases.",
            "read",
            60,
            set_employee("EMP-0048", status="on_leave"),
            "inactive",
        ),
    ]
    # The need each justification must pass on (policy §2.1: in the employee's words).
    needs = {
        "I just need to read headcount reports for an audit.": ["headcount"],
        "I need to look at the churn dashboards, only viewing.": [["churn", "dashboard"]],
        "I'll be creating and editing customer records.": [["customer records", "records"]],
        "I have to update KYC cases and add documents.": [["kyc", "cases"]],
        "Just running read-only queries on the events tables.": [["events", "queries"]],
        "I now need to edit cases, not only view them.": ["cases"],
        "I need to create tables in the warehouse now.": ["tables"],
    }
    rank = {"read": 0, "write": 1, "admin": 2}
    for _v, emp, sysid, _n, role, _d, _p, outcome in cases:
        held = any(g["system_id"] == sysid and rank[g["role"]] >= rank[role] for g in grants(emp))
        assert held == (outcome == "held"), (emp, sysid)
    for variant, emp, sysid, need, role, days, patch, outcome in cases:
        system = SYSTEMS[sysid]
        golden = [ident(emp), call("list_employee_access", employee_id=emp), call("list_systems")]
        rubric = None
        reference = ""
        reply = None
        if outcome == "file":
            golden += [
                call(
                    "create_access_request",
                    employee_id=emp,
                    system_id=sysid,
                    role=role,
                    requested_days=days,
                    justification=need,
                ),
                notify(manager(emp), "approval_needed", "AR-00501"),
            ]
            invariants = [
                inv(
                    "select employee_id || ' ' || system_id || ' ' || role || ' ' || "
                    "requested_days || ' ' || status from access_requests where id = 'AR-00501'",
                    f"{emp} {sysid} {role} {days} pending",
                    f"{role} request filed",
                ),
                inv(
                    "select count(*) from access_grants where granted_on = '2026-03-02'",
                    0,
                    "nothing granted at filing",
                ),
                sent(manager(emp), "approval_needed", "AR-00501"),
            ]
            desc = f"needs {role} on {sysid} for {days}d -> file {role} request, ask manager"
            read_only = False
        else:
            invariants = [
                inv(
                    f"select count(*) from access_requests where employee_id = '{emp}' and "
                    "status = 'pending'",
                    0,
                    "no request filed",
                ),
            ]
            desc = f"{sysid} for {emp}: {outcome} -> no request"
            read_only = True
            rubric = _RUBRIC
            why = {
                "held": f"you already hold {role} access to the {system['name']}",
                "contractor": "contractors cannot be given access to restricted systems",
                "inactive": "your employee record is not active (you are on leave)",
            }[outcome]
            reference = f"I haven't filed a new request: {why}."
            reply = {
                "must_contain": [
                    {
                        "held": ["already"],
                        "contractor": ["contractor"],
                        "inactive": ["not active", "on leave", "inactive"],
                    }[outcome]
                ]
            }
        e = EMP[emp]
        tasks.add(
            f,
            variant,
            employee=emp,
            description=desc,
            opening=f"Hello, I need access to the {system['name']}. Can you set that up?",
            goal=f"Get access to the {system['name']}",
            facts={"need": need, "days_needed": days, "department": str(e["department_id"])},
            reacts={"thanks": "Great, thanks."},
            patch=patch,
            golden=golden,
            invariants=invariants,
            tags=["user-fact", "least-privilege"] if outcome == "file" else ["least-privilege"],
            read_only=read_only,
            rubric=rubric,
            reference=reference,
            reply=reply,
            text=[says("access_requests", "justification", {"employee_id": emp}, *needs[need])]
            if outcome == "file"
            else None,
        )
