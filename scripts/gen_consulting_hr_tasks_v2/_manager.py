"""Requests a manager makes about someone else: leavers, new hires, staffing.

The other person is looked up by the email the manager gives (a fact), never verified:
they are not in the conversation. Builders pick the person from the requester's reports
by the variant number and skip people another intent of the task already touches.
"""

from __future__ import annotations

from scripts.gen_consulting_hr_tasks._build import (
    EMP,
    ENG,
    LAPTOP_MODEL,
    SEED,
    Row,
    active_assignments,
    call,
    day,
    email,
    inv,
    reports,
    says,
)
from scripts.gen_consulting_hr_tasks.offboarding import removal_calls

from ._compose import Ctx, Intent, fails
from ._own import _laptop, _lowest


def _report(ctx: Ctx, k: int, avoid: tuple[str, ...], want: str = "active") -> str | None:
    pool = [
        e["id"]
        for e in SEED["employees"]
        if e["manager_id"] == ctx.requester and e["status"] == want and e["id"] not in avoid
    ]
    return pool[k % len(pool)] if pool else None


def _find(emp: str) -> Row:
    return call("find_employee_by_email", email=email(emp))


# ----------------------------------------------------------------------------- offboarding


def _offboard(ctx: Ctx, k: int, avoid: tuple[str, ...], early: bool) -> Intent | None:
    leaver = _report(ctx, k, avoid)
    if leaver is None or _laptop(leaver) is None:
        return None
    last = day(-(1 + k % 3))
    handed = k % 3 != 2
    laptop = _laptop(leaver)
    assert laptop is not None
    patch: dict[str, list[Row]] = {}
    golden = [
        _find(leaver),
        call("get_employee", employee_id=leaver),
        call("get_employee_access", employee_id=leaver),
        ctx.disclose(leaver),
    ]
    if early:
        patch["employees"] = [{"id": leaver, "status": "leaving", "end_date": day(12 + k % 9)}]
    else:
        golden.append(fails(call("disable_all_accounts", employee_id=leaver), "invalid_state"))
    golden += removal_calls(leaver, last)
    if handed:
        golden.append(call("return_equipment", asset_id=laptop["id"]))
    return Intent(
        family="offboarding",
        branch="left-early" if early else "left",
        subject=leaver,
        opening=(
            "Someone on my team left earlier than planned; please update their offboarding."
            if early
            else "Someone on my team has already left; please offboard them."
        ),
        goal="Complete the leaver's offboarding",
        description=f"{leaver} left on {last}"
        + (" (a later day was on file)" if early else "; accounts refused before the last day")
        + f": full offboarding, laptop {'returned' if handed else 'stays assigned'}.",
        golden=golden,
        patch=patch,
        facts={
            "leaver_email": email(leaver),
            "last_day": last,
            "laptop_handed_in": "Yes, they handed their laptop in."
            if handed
            else "No, they still have the laptop.",
        },
        invariants=[
            inv(
                f"select status || ':' || end_date from employees where id = '{leaver}'",
                f"left:{last}",
                "last day recorded",
            ),
            inv(
                f"select count(*) from system_accounts where employee_id = '{leaver}' "
                "and status = 'active'",
                0,
                "accounts disabled",
            ),
        ],
        people=(leaver,),
    )


def left(ctx: Ctx, k: int, avoid: tuple[str, ...] = ()) -> Intent | None:
    """A leaver already gone: disable refused before the last day is recorded, then all."""
    return _offboard(ctx, k, avoid, early=False)


def left_early(ctx: Ctx, k: int, avoid: tuple[str, ...] = ()) -> Intent | None:
    """A later last day on file, the person left yesterday: record it, then offboard fully."""
    return _offboard(ctx, k, avoid, early=True)


def future_leaver(ctx: Ctx, k: int, avoid: tuple[str, ...] = ()) -> Intent | None:
    """A future last day (train): record it, nothing else."""
    leaver = _report(ctx, k, avoid)
    if leaver is None:
        return None
    last = day(5 + k % 20)
    return Intent(
        family="offboarding",
        branch="future",
        subject=leaver,
        opening="Someone on my team is leaving soon; please record their last day.",
        goal="Record the leaver's last day",
        description=f"{leaver} leaves {last}: record only, access stays.",
        golden=[
            _find(leaver),
            call("get_employee", employee_id=leaver),
            ctx.disclose(leaver),
            call("offboard_employee", employee_id=leaver, last_day=last),
        ],
        facts={"leaver_email": email(leaver), "last_day": last},
        invariants=[
            inv(
                f"select count(*) from system_accounts where employee_id = '{leaver}' "
                "and status = 'active'",
                len(
                    [
                        a
                        for a in SEED["system_accounts"]
                        if a["employee_id"] == leaver and a["status"] == "active"
                    ]
                ),
                "nothing removed early",
            )
        ],
        people=(leaver,),
    )


# ----------------------------------------------------------------------------- onboarding


def _hire(ctx: Ctx, avoid: tuple[str, ...]) -> str | None:
    return _report(ctx, 0, avoid, want="pre_start")


def reprovision(ctx: Ctx, k: int, avoid: tuple[str, ...] = ()) -> Intent | None:
    """A hire pre-provisioned with the wrong laptop: activate, assign refused, swap."""
    hire = _hire(ctx, avoid)
    if hire is None:
        return None
    right_model = LAPTOP_MODEL[EMP[hire]["grade"]]
    wrong_model = "Standard 14" if right_model == "Performance 16" else "Performance 16"
    wrong = _lowest(wrong_model)
    right = _lowest(right_model)
    start = day(1 + k % 6)
    return Intent(
        family="onboarding",
        branch="reprovision",
        subject=hire,
        opening="My new starter begins this week; please get them set up.",
        goal="Get the new starter activated and equipped",
        description=f"{hire} cleared, starts {start}; IT pre-assigned {wrong} ({wrong_model}): "
        f"activate, assign {right} refused, return {wrong}, assign {right}.",
        golden=[
            _find(hire),
            call("get_employee", employee_id=hire),
            ctx.disclose(hire),
            call("activate_employee", employee_id=hire),
            call("list_available_equipment", kind="laptop"),
            fails(call("assign_equipment", employee_id=hire, asset_id=right), "invalid_state"),
            call("return_equipment", asset_id=wrong),
            call("assign_equipment", employee_id=hire, asset_id=right),
        ],
        patch={
            "employees": [{"id": hire, "start_date": start, "background_check": "cleared"}],
            "equipment": [
                {"id": wrong, "status": "assigned", "employee_id": hire, "assigned_on": day(-2)}
            ],
        },
        facts={"new_hire_email": email(hire)},
        invariants=[
            inv(
                f"select group_concat(id) from equipment where employee_id = '{hire}'",
                right,
                "the model of the hire's grade, nothing else",
            )
        ],
        people=(hire,),
    )


def pending_hold(ctx: Ctx, k: int, avoid: tuple[str, ...] = ()) -> Intent | None:
    """A pending background check: onboarding ticket on hold, no activation."""
    hire = _hire(ctx, avoid)
    if hire is None:
        return None
    ticket = ctx.new_id("TKT-")
    return Intent(
        family="onboarding",
        branch="pending-hold",
        subject=hire,
        opening="Please activate my new starter's accounts.",
        goal="Get the new starter activated",
        description=f"{hire} background check pending: ticket on hold background_check.",
        golden=[
            _find(hire),
            call("get_employee", employee_id=hire),
            ctx.disclose(hire),
            call(
                "create_ticket",
                employee_id=hire,
                category="onboarding",
                subject=f"{hire}: activation waits for the background check",
            ),
            call("hold_ticket", ticket_id=ticket, reason="background_check"),
        ],
        patch={"employees": [{"id": hire, "background_check": "pending", "start_date": day(3)}]},
        facts={"new_hire_email": email(hire)},
        invariants=[
            inv(f"select status from employees where id = '{hire}'", "pre_start", "not activated")
        ],
        text=[says("tickets", "subject", {"id": ticket}, hire, "background")],
        people=(hire,),
    )


def activate(ctx: Ctx, k: int, avoid: tuple[str, ...] = ()) -> Intent | None:
    """A cleared hire starting within the week (train): activate and assign a laptop."""
    hire = _hire(ctx, avoid)
    if hire is None:
        return None
    laptop = _lowest(LAPTOP_MODEL[EMP[hire]["grade"]])
    return Intent(
        family="onboarding",
        branch="activate",
        subject=hire,
        opening="Please get my new starter activated.",
        goal="Get the new starter activated",
        description=f"{hire} cleared, starts soon: activate, assign {laptop}.",
        golden=[
            _find(hire),
            call("get_employee", employee_id=hire),
            ctx.disclose(hire),
            call("activate_employee", employee_id=hire),
            call("list_available_equipment", kind="laptop"),
            call("assign_equipment", employee_id=hire, asset_id=laptop),
        ],
        patch={
            "employees": [{"id": hire, "background_check": "cleared", "start_date": day(k % 7)}]
        },
        facts={"new_hire_email": email(hire)},
        invariants=[inv(f"select status from employees where id = '{hire}'", "active", "active")],
        people=(hire,),
    )


# ----------------------------------------------------------------------------- staffing


def role_change(ctx: Ctx, k: int, avoid: tuple[str, ...] = ()) -> Intent | None:
    """An analyst promoted to consultant: assign refused (already on it), end, re-staff."""
    pool = [
        e
        for e in reports(ctx.requester)
        if EMP[e]["grade"] == "analyst" and e not in avoid and len(active_assignments(e)) == 1
    ]
    if not pool:
        return None
    emp = pool[k % len(pool)]
    (asg,) = active_assignments(emp)
    eng = asg["engagement_id"]
    start = day(7 + k % 7)
    args = {"employee_id": emp, "engagement_id": eng, "role": "consultant", "start_date": start}
    return Intent(
        family="staffing",
        branch="role-change",
        subject=emp,
        opening="One of my analysts was promoted to consultant; please change their role on "
        "their engagement to consultant.",
        goal="Change the engagement role to consultant",
        description=f"{emp} now consultant on {eng}: assign refused (already on it), end "
        f"{asg['id']}, re-staff as consultant from {start}.",
        golden=[
            _find(emp),
            call("get_employee", employee_id=emp),
            ctx.disclose(emp),
            fails(call("assign_to_engagement", **args), "invalid_state"),
            call("end_assignment", assignment_id=asg["id"]),
            call("assign_to_engagement", **args),
        ],
        patch={"employees": [{"id": emp, "grade": "consultant"}]},
        facts={"staff_email": email(emp), "start_date": start},
        invariants=[
            inv(
                f"select group_concat(role) from assignments where employee_id = '{emp}' "
                f"and engagement_id = '{eng}' and status = 'active'",
                "consultant",
                "one active assignment, the new role",
            )
        ],
        people=(emp,),
    )


def _third(emp: str, k: int) -> list[str]:
    mine = {a["engagement_id"] for a in active_assignments(emp)}
    return [e for e in sorted(ENG) if ENG[e]["status"] == "active" and e not in mine]


def conflict(ctx: Ctx, k: int, avoid: tuple[str, ...] = ()) -> Intent | None:
    """Two active assignments already: staffing ticket escalated to HR, no assignment."""
    emp = _report(ctx, k, avoid)
    if emp is None or len(active_assignments(emp)) != 1:
        return None
    free = _third(emp, k)
    second, target = free[k % len(free)], free[(k + 3) % len(free)]
    role = "consultant" if EMP[emp]["grade"] in ("consultant", "senior") else "analyst"
    if EMP[emp]["grade"] in ("manager", "partner"):
        role = "lead"
    ticket = ctx.new_id("TKT-")
    return Intent(
        family="staffing",
        branch="conflict",
        subject=emp,
        opening=f"Please staff one of my team on engagement {target} as {role}.",
        goal=f"Staff the person on {target}",
        description=f"{emp} already on two engagements (ASG-00130 on {second} added): "
        "ticket escalated to hr staffing_conflict.",
        golden=[
            _find(emp),
            call("get_employee", employee_id=emp),
            call("get_engagement", engagement_id=target),
            ctx.disclose(emp),
            call(
                "create_ticket",
                employee_id=emp,
                category="staffing",
                subject=f"{emp}: staffing on {target} exceeds two engagements",
            ),
            call("escalate_ticket", ticket_id=ticket, team="hr", reason="staffing_conflict"),
        ],
        patch={
            "assignments": [
                {
                    "id": "ASG-00130",
                    "employee_id": emp,
                    "engagement_id": second,
                    "role": role,
                    "status": "active",
                    "start_date": day(-30),
                    "end_date": None,
                }
            ]
        },
        facts={"staff_email": email(emp), "start_date": day(10 + k % 5)},
        invariants=[
            inv(
                f"select count(*) from assignments where employee_id = '{emp}' "
                f"and engagement_id = '{target}'",
                0,
                "no third assignment",
            )
        ],
        text=[says("tickets", "subject", {"id": ticket}, emp, target)],
        people=(emp,),
    )


def staff(ctx: Ctx, k: int, avoid: tuple[str, ...] = ()) -> Intent | None:
    """Staff a report with one assignment on another engagement (train)."""
    emp = _report(ctx, k, avoid)
    if emp is None or len(active_assignments(emp)) != 1:
        return None
    free = _third(emp, k)
    target = free[(k + 1) % len(free)]
    grade = EMP[emp]["grade"]
    role = {"analyst": "analyst", "consultant": "consultant", "senior": "consultant"}.get(
        grade, "lead"
    )
    start = day(8 + k % 6)
    return Intent(
        family="staffing",
        branch="assign",
        subject=emp,
        opening=f"Please put one of my team on engagement {target} as {role}.",
        goal=f"Staff the person on {target}",
        description=f"{emp} ({grade}) has one assignment: staff on {target} as {role}.",
        golden=[
            _find(emp),
            call("get_employee", employee_id=emp),
            call("get_engagement", engagement_id=target),
            ctx.disclose(emp),
            call(
                "assign_to_engagement",
                employee_id=emp,
                engagement_id=target,
                role=role,
                start_date=start,
            ),
        ],
        facts={"staff_email": email(emp), "start_date": start},
        invariants=[
            inv(
                f"select count(*) from assignments where employee_id = '{emp}' "
                "and status = 'active'",
                2,
                "second assignment added",
            )
        ],
        people=(emp,),
    )


def release(ctx: Ctx, k: int, avoid: tuple[str, ...] = ()) -> Intent | None:
    """Release a report from their engagement (train)."""
    emp = _report(ctx, k, avoid)
    if emp is None or len(active_assignments(emp)) != 1:
        return None
    (asg,) = active_assignments(emp)
    return Intent(
        family="staffing",
        branch="release",
        subject=emp,
        opening="Please release one of my team from their engagement.",
        goal="Release the person from the engagement",
        description=f"End {asg['id']}.",
        golden=[
            _find(emp),
            call("get_employee", employee_id=emp),
            ctx.disclose(emp),
            call("end_assignment", assignment_id=asg["id"]),
        ],
        facts={"staff_email": email(emp)},
        invariants=[
            inv(f"select status from assignments where id = '{asg['id']}'", "ended", "released")
        ],
        people=(emp,),
    )
