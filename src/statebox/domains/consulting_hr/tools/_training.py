"""Training tools: course catalogue, an employee's training record, enrol, cancel.

The tool waitlists when a course is full (seats are a hard fact); budgets, prerequisites
and the cancellation deadline are policy.
"""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from typing import Any

from statebox.domains.consulting_hr.tools._records import ACTIVE_EMPLOYEE, TABLES, row_of
from statebox.kit import Transition, cents, integer, new_id, number, stamp
from statebox.tools import ToolError, tool
from statebox.world import WorldTx

__all__ = ["cancel_enrolment", "enrol_in_course", "get_training_record", "list_courses"]
_CANCEL = Transition(
    TABLES["enrolments"], allowed=("enrolled", "waitlisted"), to="cancelled", stamp="updated_at"
)


@tool(mutates=False)
def list_courses(tx: WorldTx) -> list[dict[str, Any]]:
    """List the course catalogue with cost (dollars), start date, seats and seats taken."""
    return tx.query(
        "SELECT c.*, (SELECT count(*) FROM enrolments e WHERE e.course_id = c.id "
        "AND e.status = 'enrolled') AS seats_taken FROM courses c ORDER BY c.id"
    )


@tool(mutates=False)
def get_training_record(tx: WorldTx, employee_id: str) -> dict[str, Any]:
    """Get an employee's enrolments and the training spend of the current calendar year.

    Spend counts enrolled, waitlisted and completed enrolments created this year (dollars).

    Args:
        employee_id: Employee id, such as 'EMP-0012'.
    """
    emp = row_of(tx, "employees", employee_id)
    rows = tx.query(
        "SELECT e.*, c.title, c.starts_on FROM enrolments e JOIN courses c ON c.id = e.course_id "
        "WHERE e.employee_id = ? ORDER BY e.id",
        [employee_id],
    )
    year = str(tx.today.year)
    spent = sum(
        number(r["cost"])
        for r in rows
        if r["status"] != "cancelled" and str(r["created_at"]).startswith(year)
    )
    return {
        "employee_id": employee_id,
        "grade": emp["grade"],
        "enrolments": rows,
        "spent_this_year": cents(spent),
    }


@tool(mutates=True)
def enrol_in_course(tx: WorldTx, employee_id: str, course_id: str) -> dict[str, Any]:
    """Enrol an employee in a course; when every seat is taken the enrolment is 'waitlisted'.

    Args:
        employee_id: Employee id, such as 'EMP-0012'.
        course_id: Course id, such as 'CRS-104'.
    """
    emp = row_of(tx, "employees", employee_id)
    course = row_of(tx, "courses", course_id)
    ACTIVE_EMPLOYEE.check(emp)
    if tx.one(
        "SELECT id FROM enrolments WHERE employee_id = ? AND course_id = ? "
        "AND status != 'cancelled'",
        [employee_id, course_id],
    ):
        raise ToolError("invalid_state", f"{employee_id} is already on {course_id}")
    taken = tx.one(
        "SELECT count(*) AS n FROM enrolments WHERE course_id = ? AND status = 'enrolled'",
        [course_id],
    )
    full = taken is not None and integer(taken["n"]) >= integer(course["seats"])
    now = stamp(tx)
    return tx.insert(
        "enrolments",
        {
            "id": new_id(tx, "enrolments", "ENR-"),
            "employee_id": employee_id,
            "course_id": course_id,
            "status": "waitlisted" if full else "enrolled",
            "cost": course["cost"],
            "created_at": now,
            "updated_at": now,
        },
    )


@tool(mutates=True)
def cancel_enrolment(tx: WorldTx, enrolment_id: str) -> dict[str, Any]:
    """Cancel an enrolled or waitlisted enrolment.

    Args:
        enrolment_id: Enrolment id, such as 'ENR-00021'.
    """
    return _CANCEL.apply(tx, enrolment_id)
