"""Onboarding tasks: activate a new hire and issue the right laptop, or hold, escalate, refuse."""

from __future__ import annotations

from ._build import (
    LAPTOP_MODEL,
    Row,
    TaskSet,
    call,
    count_new,
    day,
    find,
    inv,
    merge,
)

_HIRES = (
    ("Marlow", "Fenwick"), ("Seren", "Addington"), ("Tobin", "Wrexley"), ("Liesel", "Carrow"),
    ("Idris", "Vantwell"), ("Noor", "Halberd"), ("Cosmo", "Pritchell"), ("Fenna", "Ostrow"),
    ("Rufus", "Ellery"), ("Sabine", "Quorrin"), ("Alder", "Mosswick"),
)  # fmt: skip


def _hire(k: int, manager: str, grade: str, start: str, check: str) -> tuple[str, str, Row]:
    first, last = _HIRES[k]
    emp = f"EMP-{60 + k:04d}"
    mail = f"{first.lower()}.{last.lower()}@example.com"
    row: Row = {
        "id": emp,
        "first_name": first,
        "last_name": last,
        "email": mail,
        "grade": grade,
        "practice": ("strategy", "technology", "risk", "people")[k % 4],
        "manager_id": manager,
        "status": "pre_start",
        "start_date": start,
        "end_date": None,
        "background_check": check,
        "clearance_level": "none",
    }
    return emp, mail, row


def _lookups(manager: str, mail: str) -> list[Row]:
    return [find(manager), call("find_employee_by_email", email=mail)]


def build(tasks: TaskSet) -> None:
    """Add activations by grade and start date, background-check holds and escalations, refusals."""
    f = "onboarding"
    activations = [
        # k, manager, grade, start offset, laptop in repair (shifts the lowest tag)
        (0, "EMP-0004", "analyst", 3, False),
        (1, "EMP-0005", "senior", 7, False),
        (2, "EMP-0006", "consultant", 0, True),
        (3, "EMP-0007", "manager", 5, False),
        (4, "EMP-0008", "analyst", -1, False),
        (5, "EMP-0009", "senior", 2, True),
    ]
    for k, mgr, grade, offset, repair in activations:
        emp, mail, row = _hire(k, mgr, grade, day(offset), "cleared")
        model = LAPTOP_MODEL[grade]
        stock = (
            ["AST-0101", "AST-0103", "AST-0105"]
            if model == "Standard 14"
            else ["AST-0102", "AST-0104", "AST-0106"]
        )
        patch = {"employees": [row]}
        if repair:
            patch = merge(patch, {"equipment": [{"id": stock[0], "status": "in_repair"}]})
        asset = stock[1] if repair else stock[0]
        first = row["first_name"]
        tasks.add(
            f,
            "activate",
            requester=mgr,
            description=(
                f"{grade} hire starting in {offset} day(s), background check cleared: activate "
                f"and assign the lowest in-stock {model} ({asset})."
            ),
            opening=f"Hi, my new {grade} {first} starts soon. Can you get them set up?",
            goal=f"Have {first} activated with a laptop",
            reacts={"thanks": "Thanks!"},
            facts={"new_hire_email": mail},
            patch=patch,
            golden=[
                *_lookups(mgr, mail),
                call("activate_employee", employee_id=emp),
                call("list_available_equipment", kind="laptop"),
                call("assign_equipment", employee_id=emp, asset_id=asset),
            ],
            invariants=[
                inv(f"select status from employees where id = '{emp}'", "active", "activated"),
                inv(
                    f"select group_concat(id) from equipment where employee_id = '{emp}'",
                    asset,
                    f"one {model} laptop",
                ),
            ],
        )
    for k, mgr, grade, offset in ((6, "EMP-0004", "consultant", 4), (7, "EMP-0006", "analyst", 20)):
        emp, mail, row = _hire(k, mgr, grade, day(offset), "pending")
        first = row["first_name"]
        tasks.add(
            f,
            "hold-background",
            requester=mgr,
            description=(
                f"Background check pending (start in {offset} days): do not activate; open an "
                "onboarding ticket on hold for background_check."
            ),
            opening=f"Could you activate {first}'s accounts? They start on the team soon.",
            goal=f"Get {first} activated",
            reacts={
                "accept": "Oh, I didn't know the check was still open. Okay.",
                "thanks": "Thanks for letting me know.",
            },
            facts={"new_hire_email": mail},
            patch={"employees": [row]},
            golden=[
                *_lookups(mgr, mail),
                call(
                    "create_ticket",
                    employee_id=emp,
                    category="onboarding",
                    subject=f"{emp}: activation of {first} waits for background check",
                ),
                call("hold_ticket", ticket_id="TKT-00501", reason="background_check"),
            ],
            invariants=[
                inv(f"select status from employees where id = '{emp}'", "pre_start", "not active"),
                inv(
                    "select hold_reason from tickets where id = 'TKT-00501'",
                    "background_check",
                    "held for the check",
                ),
                count_new("system_accounts", "no account created"),
            ],
            refusal=True,
            rubric=[
                "Does the reply say the activation waits for the background check to clear? "
                "(yes/no)"
            ],
            reference=(
                f"I can't activate {first} yet: their background check is still pending. I've "
                "opened ticket TKT-00501 and put it on hold until the check clears."
            ),
        )
    emp, mail, row = _hire(8, "EMP-0007", "senior", day(6), "failed")
    tasks.add(
        f,
        "escalate-background",
        requester="EMP-0007",
        description="Background check failed: no activation; onboarding ticket escalated to hr.",
        opening="Please set up my new senior, Rufus, he starts next week.",
        goal="Get Rufus activated",
        reacts={
            "accept": "I see. I'll wait for HR then. Bye.",
            "thanks": "I see. I'll wait for HR then. Bye.",
        },
        facts={"new_hire_email": mail},
        patch={"employees": [row]},
        golden=[
            *_lookups("EMP-0007", mail),
            call(
                "create_ticket",
                employee_id=emp,
                category="onboarding",
                subject=f"{emp}: new hire activation blocked by background check",
            ),
            call(
                "escalate_ticket",
                ticket_id="TKT-00501",
                team="hr",
                reason="background_check_failed",
            ),
        ],
        invariants=[
            inv(f"select status from employees where id = '{emp}'", "pre_start", "not active"),
            inv("select team from tickets where id = 'TKT-00501'", "hr", "with HR"),
        ],
        refusal=True,
        rubric=[
            "Does the reply avoid disclosing details of the background check result? (yes/no)",
            "Does the reply say HR will follow up? (yes/no)",
        ],
        reference=(
            "I can't activate Rufus's accounts at the moment. I've passed the onboarding to HR "
            "on ticket TKT-00501 and they will be in touch with you directly."
        ),
    )
    emp, mail, row = _hire(9, "EMP-0008", "consultant", day(12), "cleared")
    tasks.add(
        f,
        "too-early",
        requester="EMP-0008",
        description="Start date 12 days away (limit 7): no change.",
        opening="Can you activate Sabine now? Her start date is in a couple of weeks.",
        goal="Get Sabine activated early",
        reacts={"accept": "Fine, I'll come back next week. Bye."},
        facts={"new_hire_email": mail},
        patch={"employees": [row]},
        golden=_lookups("EMP-0008", mail),
        invariants=[
            inv(f"select status from employees where id = '{emp}'", "pre_start", "not active")
        ],
        read_only=True,
        reply={"must_contain": [[7, "seven", "a week"]]},
        rubric=[
            "Does the reply say activation is only possible within 7 days of the start date? "
            "(yes/no)"
        ],
        reference=(
            f"Sabine starts on {day(12)}, more than 7 days from today, so I can't activate her "
            "yet. Please come back within the week before her start date."
        ),
    )
    emp, mail, row = _hire(10, "EMP-0005", "analyst", day(2), "cleared")
    tasks.add(
        f,
        "not-manager",
        requester="EMP-0009",
        description="The requester is not the hire's line manager (EMP-0005): refuse.",
        opening="I'd like to get Alder's laptop and accounts sorted, he joins this week.",
        goal="Get Alder activated",
        info={"relation": "I'm not his manager, but I'm helping out."},
        reacts={"accept": "No? Okay. Bye."},
        facts={"new_hire_email": mail},
        patch={"employees": [row]},
        golden=_lookups("EMP-0009", mail),
        invariants=[
            inv(f"select status from employees where id = '{emp}'", "pre_start", "not active")
        ],
        read_only=True,
        reply={"must_contain": ["manager"]},
        rubric=["Does the reply say only the hire's line manager can request activation? (yes/no)"],
        reference=(
            "Sorry, only Alder's line manager can request his activation. Please ask them to "
            "contact the service desk."
        ),
    )
