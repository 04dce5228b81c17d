"""Travel request tasks: assignment check, then international, ceiling, notice, approve."""

from __future__ import annotations

from ._build import (
    ENG,
    TaskSet,
    active_assignments,
    call,
    count_new,
    day,
    find,
    inv,
)


def build(tasks: TaskSet) -> None:
    """Add approvals and escalations by the decision order, and refusals for invalid trips."""
    f = "travel"
    cases = [
        # employee, destination, international, depart offset, nights, cost
        ("EMP-0016", "Leeds", False, 14, 2, 1450.0),
        ("EMP-0019", "Glasgow", False, 7, 1, 980.0),
        ("EMP-0026", "Denver", False, 21, 4, 2500.0),
        ("EMP-0035", "Cardiff", False, 10, 2, 850.0),
        ("EMP-0012", "Rotterdam", True, 20, 3, 1800.0),
        ("EMP-0028", "Lyon", True, 4, 5, 3400.0),
        ("EMP-0020", "Austin", False, 15, 5, 3100.0),
        ("EMP-0023", "Calgary", False, 12, 2, 1200.0),
        ("EMP-0022", "Bristol", False, 3, 1, 600.0),
        ("EMP-0031", "York", False, 6, 2, 700.0),
    ]
    for emp, dest, abroad, offset, nights, cost in cases:
        (asg,) = active_assignments(emp)
        eng = ENG[asg["engagement_id"]]
        ceiling = 2500.0 if eng["billable"] else 1000.0
        if abroad:
            reason: str | None = "international"
        elif cost > ceiling:
            reason = "over_budget"
        elif offset < 7:
            reason = "short_notice"
        else:
            reason = None
        depart, back = day(offset), day(offset + nights)
        decision = (
            call("approve_travel_request", request_id="TRV-00501")
            if reason is None
            else call("escalate_travel_request", request_id="TRV-00501", reason=reason)
        )
        where = "It's abroad." if abroad else "It's a domestic trip."
        tasks.add(
            f,
            "approve" if reason is None else f"escalate-{reason.replace('_', '-')}",
            requester=emp,
            description=(
                f"{'billable' if eng['billable'] else 'non-billable'} {eng['id']} (ceiling "
                f"{ceiling:.0f}), {dest} abroad={abroad}, departs in {offset} days, cost "
                f"{cost:.2f}: {reason or 'approve'}."
            ),
            opening="I need to travel for my engagement. Can you raise a travel request?",
            goal="Get the trip approved",
            info={"abroad": where},
            reacts={"thanks": "Okay, thanks."},
            facts={
                "engagement_id": eng["id"],
                "destination": dest,
                "depart_on": depart,
                "return_on": back,
                "estimated_cost": f"{cost:.2f}",
            },
            golden=[
                find(emp),
                call("get_employee", employee_id=emp),
                call("get_engagement", engagement_id=eng["id"]),
                call(
                    "create_travel_request",
                    employee_id=emp,
                    engagement_id=eng["id"],
                    destination=dest,
                    international=abroad,
                    depart_on=depart,
                    return_on=back,
                    estimated_cost=cost,
                ),
                decision,
            ],
            invariants=[
                inv(
                    "select status || ':' || coalesce(escalation_reason, '-') "
                    "from travel_requests where id = 'TRV-00501'",
                    f"{'approved' if reason is None else 'escalated'}:{reason or '-'}",
                    "decided in policy order",
                )
            ],
            refusal=reason is not None,
        )
    for emp, eng_id, why in (
        ("EMP-0013", "ENG-107", "closed"),
        ("EMP-0015", "ENG-105", "not assigned"),
    ):
        eng = ENG[eng_id]
        assert (why == "closed") == (eng["status"] == "closed")
        assert all(a["engagement_id"] != eng_id for a in active_assignments(emp))
        tasks.add(
            f,
            "refuse",
            requester=emp,
            description=f"Engagement {eng_id} {why}: refuse, no request.",
            opening="Can you book a trip request for me? It's for client work.",
            goal="Get a trip approved",
            info={"destination": "Leeds", "return_on": day(17), "estimated_cost": "900.00"},
            reacts={"accept": "Oh. Okay then."},
            facts={"engagement_id": eng_id, "depart_on": day(15)},
            golden=[
                find(emp),
                call("get_employee", employee_id=emp),
                call("get_engagement", engagement_id=eng_id),
            ],
            invariants=[count_new("travel_requests", "no travel request")],
            read_only=True,
            reply={"must_contain": [["closed", "active engagement", "assigned", "assignment"]]},
            rubric=[
                "Does the reply say travel must serve an active engagement the traveller is "
                "assigned to? (yes/no)"
            ],
            reference=(
                f"I can't raise this request: travel must serve an active engagement you are "
                f"assigned to, and engagement {eng_id} is "
                + ("closed." if why == "closed" else "not one of your assignments.")
            ),
        )
