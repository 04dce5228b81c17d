"""Access-extension tasks: extend an unexpired grant up to the system's cap, or refuse."""

from __future__ import annotations

from ._build import (
    EMP,
    SYSTEMS,
    TaskSet,
    call,
    day,
    days_until,
    grant,
    ident,
    inv,
    merge,
    notify,
    sent,
    set_employee,
)

_RUBRIC = [
    "Does the reply say the access has already expired and a new access request is needed? "
    "(yes/no)",
]


def build(tasks: TaskSet) -> None:
    """Add extensions: within the cap, capped, contractor-capped, expired (refused)."""
    f = "access-extension"
    # variant, employee, system, role, current expiry offset, asked offset, patch
    cases = [
        ("within-cap", "EMP-0043", "SYS-KYC", "read", 5, 60, {}),
        ("within-cap", "EMP-0025", "SYS-DWH", "read", 2, 150, {}),
        ("within-cap", "EMP-0011", "SYS-AWS", "read", 0, 21, {}),
        ("capped", "EMP-0046", "SYS-KYC", "read", 3, 240, {}),
        ("capped", "EMP-0008", "SYS-AWS", "write", 1, 60, {}),
        ("capped", "EMP-0032", "SYS-CORE", "read", 7, 120, {}),
        ("contractor-capped", "EMP-0044", "SYS-DWH", "read", 4, 90, {}),
        (
            "contractor-capped",
            "EMP-0054",
            "SYS-CRM",
            "read",
            2,
            60,
            set_employee("EMP-0054", end_date=day(12)),
        ),
        ("expired", "EMP-0047", "SYS-DWH", "read", -1, 60, {}),
        ("expired", "EMP-0016", "SYS-KYC", "read", -10, 30, {}),
    ]
    for n, (variant, emp, sysid, role, now_off, ask_off, extra) in enumerate(cases, 1):
        gid = f"GR-{400 + n:05d}"
        system = SYSTEMS[sysid]
        asked = day(ask_off)
        cap = int(system["max_grant_days"])
        e = EMP[emp]
        if e["employment_type"] == "contractor":
            end = extra["employees"][0]["end_date"] if extra else str(e["end_date"])
            cap = min(cap, 30, days_until(end))
        new = day(min(ask_off, cap))
        patch = merge(grant(gid, emp, sysid, role, day(now_off)), extra)
        golden = [ident(emp), call("list_employee_access", employee_id=emp), call("list_systems")]
        rubric = None
        reference = ""
        reply = None
        if now_off >= 0:
            golden += [
                call("extend_access", grant_id=gid, expires_on=new),
                notify(emp, "access_extended", gid),
            ]
            invariants = [
                inv(
                    f"select expires_on from access_grants where id = '{gid}'",
                    new,
                    f"extended to {new}",
                ),
                sent(emp, "access_extended", gid),
            ]
            desc = f"{gid} expires {day(now_off)}, asks {asked}, cap {cap}d -> {new}"
            read_only = False
        else:
            invariants = [
                inv(
                    f"select expires_on from access_grants where id = '{gid}'",
                    day(now_off),
                    "expired grant unchanged",
                ),
            ]
            desc = f"{gid} expired {day(now_off)} -> refuse, new request needed"
            read_only = True
            rubric = _RUBRIC
            reference = (
                f"Your {system['name']} access already expired on {day(now_off)}, so it can't be "
                "extended; you'll need to file a new access request."
            )
            reply = {"must_contain": [["expired", day(now_off)]]}
        tasks.add(
            f,
            variant,
            employee=emp,
            description=desc,
            opening=f"My access to the {system['name']} is about to run out. Can you extend it?",
            goal=f"Keep {system['name']} access longer",
            reacts={"thanks": "Thanks!"},
            facts={"extend_until": asked},
            patch=patch,
            golden=golden,
            invariants=invariants,
            tags=["user-fact", "dates"],
            read_only=read_only,
            rubric=rubric,
            reference=reference,
            reply=reply,
        )
