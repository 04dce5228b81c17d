"""Training tasks: budget by grade, prerequisites, full courses, the cancellation deadline."""

from __future__ import annotations

from ._build import (
    BUDGET,
    COURSE,
    EMP,
    SEED,
    Patch,
    Row,
    TaskSet,
    call,
    count_new,
    days_until,
    find,
    inv,
    ts,
)


def _completed(emp: str) -> set[str]:
    return {
        e["course_id"]
        for e in SEED["enrolments"]
        if e["employee_id"] == emp and e["status"] == "completed"
    }


def _spend(emp: str, course: str, status: str = "enrolled", eid: str = "ENR-00100") -> Patch:
    """An enrolment of this year (counted in the spend)."""
    row: Row = {
        "id": eid,
        "employee_id": emp,
        "course_id": course,
        "status": status,
        "cost": COURSE[course]["cost"],
        "created_at": ts(-20),
        "updated_at": ts(-20),
    }
    return {"enrolments": [row]}


def _reads(emp: str) -> list[Row]:
    return [find(emp), call("get_training_record", employee_id=emp), call("list_courses")]


def build(tasks: TaskSet) -> None:
    """Add enrolments, waitlists, budget and prerequisite refusals, cancellations."""
    f = "training"
    enrol: list[tuple[str, str, Patch, str]] = [
        ("EMP-0012", "CRS-102", {}, "enrolled"),
        ("EMP-0016", "CRS-107", {}, "enrolled"),
        ("EMP-0026", "CRS-103", {}, "enrolled"),
        ("EMP-0004", "CRS-107", _spend("EMP-0004", "CRS-106"), "enrolled"),
        ("EMP-0033", "CRS-109", _spend("EMP-0033", "CRS-103"), "enrolled"),
        ("EMP-0027", "CRS-106", {}, "waitlisted"),
        ("EMP-0038", "CRS-106", {}, "waitlisted"),
    ]
    for emp, course_id, patch, status in enrol:
        course = COURSE[course_id]
        grade = EMP[emp]["grade"]
        spent = sum(r["cost"] for r in patch.get("enrolments", []))
        assert spent + course["cost"] <= BUDGET[grade], emp
        assert course["prerequisite_id"] in (None, *_completed(emp)), emp
        tasks.add(
            f,
            "enrol" if status == "enrolled" else "waitlist",
            requester=emp,
            description=(
                f"{grade}, spent {spent:.2f} of {BUDGET[grade]:.2f}; {course_id} costs "
                f"{course['cost']:.2f}, prerequisite {course['prerequisite_id']}: {status}."
            ),
            opening=f"I'd like to sign up for the {course['title']} course.",
            goal=f"Get a place on {course['title']}",
            reacts={"agree": "Yes please, go ahead."},
            patch=patch,
            golden=[*_reads(emp), call("enrol_in_course", employee_id=emp, course_id=course_id)],
            invariants=[
                inv(
                    f"select status from enrolments where employee_id = '{emp}' "
                    f"and course_id = '{course_id}'",
                    status,
                    status,
                )
            ],
        )
    refuse: list[tuple[str, str, Patch, str]] = [
        ("EMP-0013", "CRS-104", {}, "budget"),
        ("EMP-0039", "CRS-103", _spend("EMP-0039", "CRS-108"), "budget"),
        ("EMP-0027", "CRS-102", {}, "prerequisite"),
        ("EMP-0014", "CRS-104", {}, "prerequisite"),
    ]
    for emp, course_id, patch, why in refuse:
        course = COURSE[course_id]
        grade = EMP[emp]["grade"]
        spent = sum(r["cost"] for r in patch.get("enrolments", []))
        over = spent + course["cost"] > BUDGET[grade]
        missing = course["prerequisite_id"] not in (None, *_completed(emp))
        assert (why == "budget" and over and not missing) or (why == "prerequisite" and missing)
        if why == "budget":
            question = (
                "Does the reply say the course would exceed the annual training budget? (yes/no)"
            )
            reference = (
                f"I can't enrol you in {course['title']}: it costs ${course['cost']:,.2f} and "
                f"with ${spent:,.2f} already spent this year it would exceed your "
                f"${BUDGET[grade]:,.0f} annual training budget."
            )
        else:
            pre = COURSE[course["prerequisite_id"]]["title"]
            question = f"Does the reply say {pre} must be completed first? (yes/no)"
            reference = (
                f"I can't enrol you in {course['title']} yet: it requires {pre}, which you "
                "haven't completed."
            )
        tasks.add(
            f,
            f"refuse-{why}",
            requester=emp,
            description=f"{grade}, {course_id}: refuse ({why}), no change.",
            opening=f"Please enrol me in {course['title']}.",
            goal=f"Get a place on {course['title']}",
            reacts={"accept": "Oh. Okay, understood. Bye."},
            patch=patch,
            golden=_reads(emp),
            invariants=[count_new("enrolments", "no enrolment", f"employee_id = '{emp}'")],
            read_only=True,
            rubric=[question],
            reference=reference,
            reply={
                "must_contain": [
                    ["budget"]
                    if why == "budget"
                    else [COURSE[course["prerequisite_id"]]["title"], "prerequisite"]
                ]
            },
        )
    for emp, course_id in (
        ("EMP-0035", "CRS-103"),
        ("EMP-0040", "CRS-101"),
        ("EMP-0036", "CRS-108"),
    ):
        course = COURSE[course_id]
        allowed = days_until(course["starts_on"]) > 7
        tasks.add(
            f,
            "cancel" if allowed else "cancel-too-late",
            requester=emp,
            description=(
                f"{course_id} starts in {days_until(course['starts_on'])} days (must be > 7): "
                + ("cancel." if allowed else "refuse, no change.")
            ),
            opening=f"I can't make the {course['title']} course after all. Please cancel my place.",
            goal="Cancel the course place",
            reacts={"accept": "Okay. Thanks."},
            patch=_spend(emp, course_id),
            golden=[
                find(emp),
                call("get_training_record", employee_id=emp),
                *([call("cancel_enrolment", enrolment_id="ENR-00100")] if allowed else []),
            ],
            invariants=[
                inv(
                    "select status from enrolments where id = 'ENR-00100'",
                    "cancelled" if allowed else "enrolled",
                    "cancelled only more than 7 days ahead",
                )
            ],
            read_only=not allowed,
            rubric=(
                None
                if allowed
                else [
                    "Does the reply say a place cannot be cancelled within 7 days of the start? "
                    "(yes/no)"
                ]
            ),
            reference=(
                ""
                if allowed
                else f"{course['title']} starts on {course['starts_on']}, within 7 days, so the "
                "place can no longer be cancelled: it is charged anyway."
            ),
            reply=None if allowed else {"must_contain": [[7, "seven", "a week"]]},
        )
