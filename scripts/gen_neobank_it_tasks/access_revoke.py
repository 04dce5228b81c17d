"""Revocation tasks: a manager or system owner removes a grant; anyone else is refused."""

from __future__ import annotations

from ._build import (
    SYSTEMS,
    TaskSet,
    call,
    email,
    grants,
    ident,
    inv,
    manager,
    name,
    notify,
    sent,
)

_RUBRIC = [
    "Does the reply say that only the employee's manager or the system owner can ask for the "
    "revocation? (yes/no)",
]


def build(tasks: TaskSet) -> None:
    """Add revocations by the manager or owner, and refusals for peers and skip-level managers.

    The reason code (role change / no longer needed) comes from what the caller says.
    """
    f = "access-revoke"
    # variant, caller kind, target employee, system, reason line, reason code
    cases = [
        (
            "manager",
            "manager",
            "EMP-0045",
            "SYS-CRM",
            "She moved to the Risk team last week.",
            "role_change",
        ),
        (
            "manager",
            "manager",
            "EMP-0026",
            "SYS-CORE",
            "He transferred to Finance on Monday.",
            "role_change",
        ),
        (
            "manager",
            "manager",
            "EMP-0010",
            "SYS-JIRA",
            "The project he needed it for has ended.",
            "no_longer_needed",
        ),
        (
            "manager",
            "manager",
            "EMP-0033",
            "SYS-KYC",
            "The KYC backlog project is over now.",
            "no_longer_needed",
        ),
        (
            "owner",
            "owner",
            "EMP-0053",
            "SYS-DWH",
            "The analysis project wrapped up.",
            "no_longer_needed",
        ),
        (
            "owner",
            "owner",
            "EMP-0046",
            "SYS-CRM",
            "They changed roles and don't work with customers any more.",
            "role_change",
        ),
        ("peer", "peer", "EMP-0047", "SYS-CRM", "He doesn't need it any more.", "refuse"),
        ("peer", "peer", "EMP-0017", "SYS-PAYINIT", "She moved teams.", "refuse"),
        ("skip-level", "head", "EMP-0027", "SYS-CRM", "He moved to data.", "refuse"),
        ("skip-level", "head", "EMP-0051", "SYS-JIRA", "She changed roles.", "refuse"),
    ]
    for variant, kind, target, sysid, line, reason in cases:
        system = SYSTEMS[sysid]
        held = [g for g in grants(target) if g["system_id"] == sysid]
        assert len(held) == 1, (target, sysid)
        gid = held[0]["id"]
        mgr = manager(target)
        caller = {
            "manager": mgr,
            "owner": str(system["owner_id"]),
            "head": manager(mgr),
            "peer": next(
                p for p in ("EMP-0043", "EMP-0018", "EMP-0005", "EMP-0052") if p != target
            ),
        }[kind]
        assert kind != "owner" or caller != mgr
        golden = [
            ident(caller),
            call("find_employee_by_email", email=email(target)),
            call("list_employee_access", employee_id=target),
        ]
        if kind != "manager":
            golden.append(call("list_systems"))
        assert kind in ("manager", "owner") or caller not in (mgr, system["owner_id"])
        rubric = None
        reference = ""
        reply = None
        if reason != "refuse":
            golden += [
                call("revoke_access", grant_id=gid, reason=reason),
                notify(target, "access_revoked", gid),
            ]
            invariants = [
                inv(
                    f"select status || ':' || revoke_reason from access_grants where id = '{gid}'",
                    f"revoked:{reason}",
                    "grant revoked with the right reason",
                ),
                sent(target, "access_revoked", gid),
            ]
            desc = f"{kind} asks to revoke {gid} ({sysid}) of {target}: {reason}"
            read_only = False
            tags = ["user-fact"]
        else:
            invariants = [
                inv(
                    f"select status from access_grants where id = '{gid}'",
                    "active",
                    "grant untouched",
                ),
            ]
            desc = f"{kind} {caller} may not revoke {target}'s {sysid} -> refuse"
            read_only = True
            tags = ["authority"]
            rubric = _RUBRIC
            reference = (
                f"I can't remove {name(target)}'s {system['name']} access at your request: only "
                "their manager or the system owner can ask for a revocation."
            )
            reply = {"must_contain": [["manager", "owner"]]}
        tasks.add(
            f,
            variant,
            employee=caller,
            description=desc,
            opening=f"Please remove {name(target)}'s access to the {system['name']}.",
            goal=f"Have {name(target)}'s {system['name']} access removed",
            reacts={"thanks": "Thanks."},
            facts={"target_email": email(target), "why": line},
            golden=golden,
            invariants=invariants,
            tags=tags,
            read_only=read_only,
            rubric=rubric,
            reference=reference,
            reply=reply,
        )
