"""Software licence tasks: standard and restricted titles, grades, full pools, releases."""

from __future__ import annotations

from ._build import (
    EMP,
    GRADE_RANK,
    SOFTWARE,
    Patch,
    Row,
    TaskSet,
    call,
    count_new,
    find,
    holds,
    inv,
    rows_of,
    seats_used,
)


def _reads(emp: str) -> list[Row]:
    return [find(emp), call("list_software"), call("get_employee_access", employee_id=emp)]


def _ticket(emp: str, sw: Row, second: Row) -> list[Row]:
    return [
        call(
            "create_ticket",
            employee_id=emp,
            category="software",
            subject=f"{emp}: licence request for {sw['name']}",
        ),
        second,
    ]


def build(tasks: TaskSet) -> None:
    """Add assignments, pool-full holds, restricted escalations, a duplicate and a release."""
    f = "software"
    cases: list[tuple[str, str, Patch]] = [
        ("EMP-0012", "SW-101", {}),
        ("EMP-0015", "SW-104", {}),
        ("EMP-0040", "SW-105", {}),
        ("EMP-0026", "SW-103", {}),
        ("EMP-0004", "SW-108", {}),
        ("EMP-0013", "SW-106", {}),
        ("EMP-0035", "SW-102", {"software": [{"id": "SW-102", "seats_total": 5}]}),
        ("EMP-0014", "SW-107", {}),
        ("EMP-0016", "SW-103", {}),
        ("EMP-0021", "SW-108", {}),
    ]
    for emp, sw_id, patch in cases:
        sw = SOFTWARE[sw_id]
        assert not holds(emp, sw_id), emp
        seats = next((r["seats_total"] for r in patch.get("software", [])), sw["seats_total"])
        full = seats_used(sw_id) >= seats
        grade = EMP[emp]["grade"]
        junior = GRADE_RANK[grade] < GRADE_RANK["senior"]
        no_licence = count_new(
            "licence_allocations", "no licence assigned", f"employee_id = '{emp}'"
        )
        if sw["tier"] == "restricted" and junior:
            variant = "restricted-escalate"
            action = _ticket(
                emp,
                sw,
                call(
                    "escalate_ticket",
                    ticket_id="TKT-00501",
                    team="it_approvals",
                    reason="restricted_software",
                ),
            )
            checks = [
                no_licence,
                inv("select team from tickets where id = 'TKT-00501'", "it_approvals", "approval"),
            ]
            question = "Does the reply say the request went to IT approvals? (yes/no)"
            reference = (
                f"{sw['name']} is a restricted title that analysts and consultants can't be "
                "assigned directly. I've opened ticket TKT-00501 and escalated it to IT approvals."
            )
        elif full:
            variant = "pool-full"
            action = _ticket(
                emp, sw, call("hold_ticket", ticket_id="TKT-00501", reason="licence_pool")
            )
            checks = [
                no_licence,
                inv(
                    "select hold_reason from tickets where id = 'TKT-00501'",
                    "licence_pool",
                    "waits for a seat",
                ),
            ]
            question = "Does the reply say there is no free seat in the licence pool? (yes/no)"
            reference = (
                f"Every {sw['name']} seat is in use right now, so I've opened ticket TKT-00501 "
                "and put it on hold until a seat frees up in the pool."
            )
        else:
            variant = "assign"
            action = [call("assign_licence", employee_id=emp, software_id=sw_id)]
            checks = [
                inv(
                    f"select count(*) from licence_allocations where employee_id = '{emp}' "
                    f"and software_id = '{sw_id}' and status = 'active'",
                    1,
                    "licence assigned",
                )
            ]
            question, reference = "", ""
        tasks.add(
            f,
            variant,
            requester=emp,
            description=(
                f"{grade} asks for {sw['tier']} {sw_id} ({seats_used(sw_id)}/{seats} seats used): "
                f"{variant}."
            ),
            opening=f"Could I get a licence for {sw['name']}?",
            goal=f"Get {sw['name']}",
            reacts={"thanks": "Okay, thank you. Bye.", "accept": "Okay, thank you. Bye."},
            patch=patch,
            golden=[*_reads(emp), *action],
            invariants=checks,
            refusal=variant != "assign",
            rubric=[question] if question else None,
            reference=reference,
        )
    emp, sw_id = "EMP-0025", "SW-108"
    assert holds(emp, sw_id)
    tasks.add(
        f,
        "already-held",
        requester=emp,
        description="The employee already holds an active SW-108 licence: no change.",
        opening=f"I need {SOFTWARE[sw_id]['name']} for a new project.",
        goal=f"Have {SOFTWARE[sw_id]['name']}",
        reacts={"thanks": "Ah, I have it already? I'll look again. Thanks."},
        golden=_reads(emp),
        invariants=[count_new("licence_allocations", "no licence assigned")],
        read_only=True,
        reply={"must_contain": ["already"]},
        reference=f"You already have an active {SOFTWARE[sw_id]['name']} licence, so there is "
        "nothing to add.",
    )
    emp = "EMP-0032"
    (lic,) = [r for r in rows_of("licence_allocations", emp) if r["software_id"] == "SW-108"]
    tasks.add(
        f,
        "release",
        requester=emp,
        description="The employee no longer needs SW-108: release the licence.",
        opening=f"I don't need {SOFTWARE['SW-108']['name']} anymore, please free up my seat.",
        goal="Give back the licence",
        reacts={"agree": "Yes, just that one."},
        golden=[
            find(emp),
            call("get_employee_access", employee_id=emp),
            call("release_licence", allocation_id=lic["id"]),
        ],
        invariants=[
            inv(
                f"select status from licence_allocations where id = '{lic['id']}'",
                "released",
                "released",
            )
        ],
    )
