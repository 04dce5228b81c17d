"""Equipment tasks: damaged laptops swapped like for like, lost devices to security, monitors."""

from __future__ import annotations

from ._build import (
    EMP,
    LAPTOP_MODEL,
    Patch,
    TaskSet,
    call,
    find,
    inv,
    ts,
)

_STOCK = {
    "Standard 14": ["AST-0101", "AST-0103", "AST-0105"],
    "Performance 16": ["AST-0102", "AST-0104", "AST-0106"],
}


def build(tasks: TaskSet) -> None:
    """Add damaged-laptop swaps, lost-device escalations, monitor requests and a refusal."""
    f = "equipment"
    for emp, in_repair in (
        ("EMP-0012", False),
        ("EMP-0020", False),
        ("EMP-0011", True),
        ("EMP-0028", True),
    ):
        laptop = f"AST-{int(emp[4:]):04d}"
        model = LAPTOP_MODEL[EMP[emp]["grade"]]
        stock = _STOCK[model]
        patch: Patch = {"equipment": [{"id": stock[0], "status": "in_repair"}]} if in_repair else {}
        new = stock[1] if in_repair else stock[0]
        tasks.add(
            f,
            "damaged",
            requester=emp,
            description=f"Damaged {model} {laptop}: report, swap for the lowest in stock ({new}).",
            opening="My laptop screen cracked this morning and it won't boot. I need another.",
            goal="Get a working laptop",
            reacts={"thanks": "Great, I'll pick it up. Thanks!"},
            facts={"asset_id": laptop},
            patch=patch,
            golden=[
                find(emp),
                call("get_employee", employee_id=emp),
                call("report_equipment_issue", asset_id=laptop, issue="damaged"),
                call("list_available_equipment", kind="laptop"),
                call("assign_equipment", employee_id=emp, asset_id=new),
            ],
            invariants=[
                inv(f"select status from equipment where id = '{laptop}'", "in_repair", "repair"),
                inv(f"select employee_id from equipment where id = '{new}'", emp, "same model"),
            ],
        )
    for emp in ("EMP-0015", "EMP-0029", "EMP-0007"):
        laptop = f"AST-{int(emp[4:]):04d}"
        tasks.add(
            f,
            "lost",
            requester=emp,
            description=f"Lost laptop {laptop}: report lost, ticket to security, no replacement.",
            opening="I think my laptop was stolen from the train. Can I get a new one today?",
            goal="Report the lost laptop and get a new one",
            reacts={
                "accept": "So no new laptop today? Okay, I'll wait for security.",
                "thanks": "So no new laptop today? Okay, I'll wait for security.",
            },
            facts={"asset_id": laptop},
            golden=[
                find(emp),
                call("get_employee", employee_id=emp),
                call("report_equipment_issue", asset_id=laptop, issue="lost"),
                call(
                    "create_ticket",
                    employee_id=emp,
                    category="equipment",
                    subject=f"{emp}: lost laptop {laptop}",
                ),
                call(
                    "escalate_ticket", ticket_id="TKT-00501", team="security", reason="lost_device"
                ),
            ],
            invariants=[
                inv(f"select status from equipment where id = '{laptop}'", "lost", "reported"),
                inv(
                    f"select count(*) from equipment where employee_id = '{emp}' "
                    "and status = 'assigned'",
                    0,
                    "no replacement before security review",
                ),
            ],
            refusal=True,
            rubric=[
                "Does the reply say a replacement comes only after the security review? (yes/no)"
            ],
            reference=(
                f"I've reported {laptop} as lost and escalated ticket TKT-00501 to Security. "
                "I can't issue a replacement today: Security issues it after their review."
            ),
        )
    monitors: list[tuple[str, Patch, str]] = [
        ("EMP-0022", {}, "AST-0201"),
        (
            "EMP-0037",
            {"equipment": [{"id": "AST-0201", "status": "assigned", "employee_id": "EMP-0010",
                            "assigned_on": ts(-40)[:10]}]},
            "AST-0202",
        ),
    ]  # fmt: skip
    for emp, patch, asset in monitors:
        tasks.add(
            f,
            "monitor",
            requester=emp,
            description=f"No monitor yet: assign the lowest in-stock monitor ({asset}).",
            opening="Could I get an external monitor for my desk?",
            goal="Get a monitor",
            reacts={"thanks": "Perfect. Thanks."},
            patch=patch,
            golden=[
                find(emp),
                call("get_employee", employee_id=emp),
                call("list_available_equipment", kind="monitor"),
                call("assign_equipment", employee_id=emp, asset_id=asset),
            ],
            invariants=[
                inv(f"select employee_id from equipment where id = '{asset}'", emp, "mine")
            ],
        )
    emp = "EMP-0039"
    tasks.add(
        f,
        "monitor-refuse",
        requester=emp,
        description="Already has a monitor (AST-0203): one per employee, refuse.",
        opening="I'd like a second monitor please.",
        goal="Get another monitor",
        reacts={"accept": "Not even for a dual setup? Okay. Bye."},
        patch={
            "equipment": [
                {
                    "id": "AST-0203",
                    "status": "assigned",
                    "employee_id": emp,
                    "assigned_on": ts(-100)[:10],
                }
            ]
        },
        golden=[find(emp), call("get_employee", employee_id=emp)],
        invariants=[
            inv(
                f"select count(*) from equipment where employee_id = '{emp}' and kind = 'monitor'",
                1,
                "still one monitor",
            )
        ],
        read_only=True,
        reply={"must_contain": [["one monitor", "already"]]},
        rubric=["Does the reply say the policy allows one monitor per employee? (yes/no)"],
        reference=(
            "I'm sorry, the policy allows one monitor per employee and you already have AST-0203."
        ),
    )
