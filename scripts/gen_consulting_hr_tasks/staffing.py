"""Engagement staffing tasks: who may staff, the two-engagement cap, roles by grade, releases."""

from __future__ import annotations

from ._build import (
    EMP,
    ENG,
    Patch,
    Row,
    TaskSet,
    active_assignments,
    call,
    day,
    email,
    find,
    inv,
)

_ROLE_WORD = {"analyst": "an analyst", "consultant": "a consultant", "lead": "the lead"}


def _second(emp: str, eng_id: str) -> Patch:
    row: Row = {
        "id": "ASG-00100",
        "employee_id": emp,
        "engagement_id": eng_id,
        "role": "consultant" if EMP[emp]["grade"] != "analyst" else "analyst",
        "status": "active",
        "start_date": day(-30),
        "end_date": None,
    }
    return {"assignments": [row]}


def _active(emp: str, n: int) -> Row:
    return inv(
        f"select count(*) from assignments where employee_id = '{emp}' and status = 'active'",
        n,
        "no new assignment",
    )


def build(tasks: TaskSet) -> None:
    """Add staffings, cap escalations, role, engagement and requester refusals, a release."""
    f = "staffing"
    cases: list[tuple[str, str, str, str, int, Patch]] = [
        # requester, employee, engagement, role, start offset, patch
        ("EMP-0004", "EMP-0015", "ENG-109", "analyst", 7, {}),
        ("EMP-0001", "EMP-0026", "ENG-113", "consultant", 14, {}),
        ("EMP-0005", "EMP-0043", "ENG-108", "consultant", 3, {}),
        ("EMP-0002", "EMP-0009", "ENG-102", "lead", 10, {}),
        ("EMP-0007", "EMP-0021", "ENG-104", "analyst", 5, _second("EMP-0021", "ENG-101")),
        ("EMP-0003", "EMP-0034", "ENG-110", "consultant", 9, _second("EMP-0034", "ENG-106")),
    ]
    for req, emp, eng_id, role, offset, patch in cases:
        assert EMP[req]["grade"] in ("manager", "partner")
        start = day(offset)
        current = len(active_assignments(emp)) + len(patch.get("assignments", []))
        lookups = [
            find(req),
            find(emp),
            call("get_employee", employee_id=emp),
            call("get_engagement", engagement_id=eng_id),
        ]
        said = {"role": _ROLE_WORD[role]}
        facts = {"staff_email": email(emp), "engagement_id": eng_id, "start_date": start}
        opening = f"I'd like to add {EMP[emp]['first_name']} to one of my engagements."
        if current >= 2:
            tasks.add(
                f,
                "cap-escalate",
                requester=req,
                description=f"{emp} already on {current} engagements (cap 2): escalate to hr.",
                opening=opening,
                goal="Staff the person on the engagement",
                facts=facts,
                info=said,
                patch=patch,
                golden=[
                    *lookups,
                    call(
                        "create_ticket",
                        employee_id=emp,
                        category="staffing",
                        subject=f"{emp}: staffing request for {eng_id} over the cap",
                    ),
                    call(
                        "escalate_ticket",
                        ticket_id="TKT-00501",
                        team="hr",
                        reason="staffing_conflict",
                    ),
                ],
                invariants=[
                    _active(emp, current),
                    inv("select team from tickets where id = 'TKT-00501'", "hr", "with HR"),
                ],
                refusal=True,
                rubric=["Does the reply say the person is already on two engagements? (yes/no)"],
                reference=(
                    f"{EMP[emp]['first_name']} is already on two active engagements, the "
                    "maximum, so I haven't added them. I've raised ticket TKT-00501 with HR "
                    "to resolve the staffing conflict."
                ),
            )
            continue
        tasks.add(
            f,
            "assign",
            requester=req,
            description=f"{EMP[req]['grade']} staffs {EMP[emp]['grade']} {emp} as {role}.",
            opening=opening,
            goal="Staff the person on the engagement",
            facts=facts,
            info=said,
            patch=patch,
            golden=[
                *lookups,
                call(
                    "assign_to_engagement",
                    employee_id=emp,
                    engagement_id=eng_id,
                    role=role,
                    start_date=start,
                ),
            ],
            invariants=[
                inv(
                    f"select role || ':' || start_date from assignments where employee_id = "
                    f"'{emp}' and engagement_id = '{eng_id}' and status = 'active'",
                    f"{role}:{start}",
                    "staffed",
                )
            ],
        )
    refusals = [
        ("EMP-0006", "EMP-0017", "ENG-112", "consultant", "closed",
         "Does the reply say the engagement is closed? (yes/no)",
         "I can't add anyone to ENG-112: that engagement is closed."),
        ("EMP-0008", "EMP-0020", "ENG-105", "lead", "role",
         "Does the reply say the lead role is only for managers and partners? (yes/no)",
         "I can't staff a senior as the lead: the lead role is only for managers and partners. "
         "I can add them as a consultant instead."),
        ("EMP-0019", "EMP-0012", "ENG-109", "analyst", "requester",
         "Does the reply say only managers or partners can make staffing requests? (yes/no)",
         "Sorry, only managers or partners can make staffing requests, so I haven't changed "
         "anything."),
    ]  # fmt: skip
    for req, emp, eng_id, role, why, question, reference in refusals:
        start = day(8)
        assert (why == "closed") == (ENG[eng_id]["status"] == "closed")
        golden = [find(req)]
        if why != "requester":
            golden += [
                find(emp),
                call("get_employee", employee_id=emp),
                call("get_engagement", engagement_id=eng_id),
            ]
        tasks.add(
            f,
            f"refuse-{why}",
            requester=req,
            description=f"Staffing {emp} on {eng_id} as {role}: refuse ({why}), no change.",
            opening=f"Please put {EMP[emp]['first_name']} on an engagement for me.",
            goal="Staff the person",
            info={
                "role": _ROLE_WORD[role],
                "start_date": {"value": start, "say": "From {value}."},
            },
            reacts={"accept": "Okay, understood."},
            facts={"staff_email": email(emp), "engagement_id": eng_id},
            golden=golden,
            invariants=[_active(emp, len(active_assignments(emp)))],
            read_only=True,
            rubric=[question],
            reference=reference,
            reply={
                "must_contain": [
                    {
                        "closed": ["closed"],
                        "role": ["lead", "manager", "partner"],
                        "requester": ["manager", "partner"],
                    }[why]
                ]
            },
        )
    (asg,) = active_assignments("EMP-0014")
    tasks.add(
        f,
        "release",
        requester="EMP-0006",
        description=f"Manager releases EMP-0014 from {asg['engagement_id']}: end {asg['id']}.",
        opening="One of my team is rolling off their engagement today. Please release them.",
        goal="End the assignment",
        reacts={"agree": "Yes, effective today."},
        facts={"staff_email": email("EMP-0014"), "engagement_id": asg["engagement_id"]},
        golden=[
            find("EMP-0006"),
            find("EMP-0014"),
            call("get_employee", employee_id="EMP-0014"),
            call("end_assignment", assignment_id=asg["id"]),
        ],
        invariants=[
            inv(f"select status from assignments where id = '{asg['id']}'", "ended", "ended")
        ],
    )
