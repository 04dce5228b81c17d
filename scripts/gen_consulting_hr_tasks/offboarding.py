"""Offboarding tasks: record a last day; on or after it remove every access; never early."""

from __future__ import annotations

from ._build import (
    EMP,
    Row,
    TaskSet,
    active_assignments,
    call,
    day,
    email,
    find,
    inv,
    rows_of,
)


def _reads(mgr: str, emp: str) -> list[Row]:
    return [find(mgr), find(emp), call("get_employee", employee_id=emp)]


def removal_calls(emp: str, last_day: str) -> list[Row]:
    """Record a past last day, then take every access away in the order of policy §4."""
    removal = [
        call("offboard_employee", employee_id=emp, last_day=last_day),
        call("disable_all_accounts", employee_id=emp),
    ]
    removal += [call("revoke_site_access", access_id=s["id"]) for s in rows_of("site_access", emp)]
    removal += [
        call("release_licence", allocation_id=lic["id"])
        for lic in rows_of("licence_allocations", emp)
    ]
    removal += [call("end_assignment", assignment_id=a["id"]) for a in active_assignments(emp)]
    return removal


def build(tasks: TaskSet) -> None:
    """Add future last days (record only), past or today (full removal), a wrong requester."""
    f = "offboarding"
    for emp, offset in (("EMP-0019", 3), ("EMP-0027", 10), ("EMP-0033", 1), ("EMP-0040", 21)):
        mgr = EMP[emp]["manager_id"]
        first = EMP[emp]["first_name"]
        last_day = day(offset)
        tasks.add(
            f,
            "future-last-day",
            requester=mgr,
            description=(
                f"Last day in {offset} day(s): record it (status leaving) and remove nothing yet."
            ),
            opening=f"{first} on my team has resigned. Can you start the offboarding?",
            goal=f"Offboard {first}",
            reacts={"thanks": "Okay, thanks."},
            facts={"leaver_email": email(emp), "last_day": last_day},
            golden=[
                *_reads(mgr, emp),
                call("offboard_employee", employee_id=emp, last_day=last_day),
            ],
            invariants=[
                inv(f"select status from employees where id = '{emp}'", "leaving", "leaving"),
                inv(
                    f"select count(*) from system_accounts where employee_id = '{emp}' "
                    "and status = 'active'",
                    len(rows_of("system_accounts", emp)),
                    "accounts stay active until the last day",
                ),
            ],
        )
    past = [
        ("EMP-0018", 0, True),
        ("EMP-0024", -1, False),
        ("EMP-0025", -3, True),
        ("EMP-0030", 0, False),
        ("EMP-0036", -2, True),
        ("EMP-0013", -1, True),
    ]
    for emp, offset, handed_in in past:
        mgr = EMP[emp]["manager_id"]
        first = EMP[emp]["first_name"]
        last_day = day(offset)
        laptop = f"AST-{int(emp[4:]):04d}"
        removal = removal_calls(emp, last_day)
        if handed_in:
            removal.append(call("return_equipment", asset_id=laptop))
        when = "today" if offset == 0 else f"{-offset} day(s) ago"
        laptop_line = (
            f"Yes, the laptop {laptop} was handed in to me."
            if handed_in
            else "No, the laptop hasn't come back yet; I'm chasing it."
        )
        tasks.add(
            f,
            "full-removal",
            requester=mgr,
            description=(
                f"Last day {when}: record it (status left), disable accounts, revoke site access, "
                f"release licences, end assignments; laptop handed in: {handed_in}."
            ),
            opening=f"{first} has finished with us. Please close everything down.",
            goal=f"Complete {first}'s offboarding",
            facts={
                "leaver_email": email(emp),
                "last_day": {"value": last_day, "say": "The last working day was {value}."},
                "laptop_handed_in": {"value": "yes" if handed_in else "no", "say": laptop_line},
            },
            reacts={"thanks": "Great, thank you."},
            golden=[
                *_reads(mgr, emp),
                call("get_employee_access", employee_id=emp),
                *removal,
            ],
            invariants=[
                inv(f"select status from employees where id = '{emp}'", "left", "left"),
                inv(
                    f"select count(*) from system_accounts where employee_id = '{emp}' "
                    "and status = 'active'",
                    0,
                    "no active account",
                ),
                inv(
                    f"select count(*) from site_access where employee_id = '{emp}' "
                    "and status = 'active'",
                    0,
                    "no active site access",
                ),
                inv(
                    f"select status from equipment where id = '{laptop}'",
                    "in_stock" if handed_in else "assigned",
                    "laptop returned only when handed in",
                ),
            ],
        )
    emp, mgr = "EMP-0042", "EMP-0005"
    assert EMP[emp]["manager_id"] != mgr
    tasks.add(
        f,
        "not-manager",
        requester=mgr,
        description="The requester is not the leaver's line manager: refuse, no change.",
        opening="Edith is leaving today, can you shut off her access?",
        goal="Offboard Edith",
        info={"relation": "She's on my engagement, not my team."},
        reacts={"accept": "Fine, I'll tell her manager. Bye."},
        facts={"leaver_email": email(emp)},
        golden=[find(mgr), find(emp)],
        invariants=[
            inv(f"select status from employees where id = '{emp}'", "active", "still active")
        ],
        read_only=True,
        reply={"must_contain": ["manager"]},
        rubric=[
            "Does the reply say only the leaver's line manager can request offboarding? (yes/no)"
        ],
        reference=(
            "I'm sorry, only Edith's line manager can request her offboarding, so I haven't "
            "changed anything. Please ask her manager to contact the service desk."
        ),
    )
