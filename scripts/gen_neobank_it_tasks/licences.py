"""Licence tasks: assign a free seat, reclaim an idle one, escalate a shortage, ask approval."""

from __future__ import annotations

from ._build import (
    POOLS,
    TaskSet,
    call,
    day,
    ident,
    inv,
    licences,
    manager,
    notify,
    pool_allocations,
    sent,
)

_RUBRIC = [
    "Does the reply say the employee already has a seat of this product? (yes/no)",
]


def build(tasks: TaskSet) -> None:
    """Add licence requests across free seats, the 90-day idle threshold, approval pools."""
    f = "licences"
    # variant, employee, pool, full?, idle days of the oldest allocation (when full)
    cases = [
        ("free-seat", "EMP-0047", "LIC-FIGMA", False, 0),
        ("free-seat", "EMP-0022", "LIC-ZOOM", False, 0),
        ("free-seat", "EMP-0052", "LIC-MIRO", False, 0),
        ("reclaim", "EMP-0045", "LIC-FIGMA", True, 120),
        ("reclaim", "EMP-0017", "LIC-JETBRAINS", True, 91),
        ("reclaim", "EMP-0032", "LIC-MIRO", True, 200),
        ("shortage", "EMP-0033", "LIC-FIGMA", True, 90),
        ("shortage", "EMP-0026", "LIC-JETBRAINS", True, 45),
        ("needs-approval", "EMP-0053", "LIC-TABLEAU", False, 0),
        ("needs-approval", "EMP-0018", "LIC-DOCUSIGN", False, 0),
        ("already-held", "EMP-0016", "LIC-MIRO", False, 0),
    ]
    for variant, emp, pool_id, full, idle in cases:
        pool = POOLS[pool_id]
        allocs = pool_allocations(pool_id)
        mine = [a for a in licences(emp) if a["pool_id"] == pool_id]
        assert bool(mine) == (variant == "already-held"), (emp, pool_id)
        patch: dict[str, list[dict[str, object]]] = {}
        oldest = None
        if full:
            oldest = max(allocs, key=lambda a: a["id"])
            patch = {
                "licence_pools": [{"id": pool_id, "seats_total": len(allocs)}],
                "licence_allocations": [{"id": oldest["id"], "last_used_on": day(-idle)}],
            }
            assert all(a["last_used_on"] > day(-idle) for a in allocs if a is not oldest)
        golden = [
            ident(emp),
            call("list_employee_licences", employee_id=emp),
            call("list_licence_pools"),
        ]
        read_only = False
        rubric = None
        reference = ""
        reply = None
        if variant == "already-held":
            invariants = [
                inv(
                    f"select count(*) from licence_allocations where employee_id = '{emp}' and "
                    f"pool_id = '{pool_id}'",
                    1,
                    "still one allocation",
                ),
            ]
            desc = f"{emp} already holds {pool_id} -> nothing"
            read_only = True
            rubric = _RUBRIC
            reference = f"You already have a {pool['product']} seat, so there is nothing to add."
            reply = {"must_contain": ["already"]}
        elif pool["requires_approval"]:
            golden.append(notify(manager(emp), "approval_needed", pool_id))
            invariants = [
                inv(
                    f"select count(*) from licence_allocations where employee_id = '{emp}' and "
                    f"pool_id = '{pool_id}'",
                    0,
                    "no seat before approval",
                ),
                sent(manager(emp), "approval_needed", pool_id),
            ]
            desc = f"{pool_id} needs manager approval -> approval_needed, no seat"
        elif not full:
            golden += [
                call("assign_licence", pool_id=pool_id, employee_id=emp),
                notify(emp, "licence_assigned", "LA-00501"),
            ]
            invariants = [
                inv(
                    "select pool_id || ' ' || employee_id from licence_allocations where id = "
                    "'LA-00501'",
                    f"{pool_id} {emp}",
                    "seat assigned",
                ),
                sent(emp, "licence_assigned", "LA-00501"),
            ]
            desc = f"{pool_id} has a free seat -> assign"
        elif idle > 90:
            assert oldest is not None
            golden += [
                call("list_pool_allocations", pool_id=pool_id),
                call("release_licence", allocation_id=oldest["id"]),
                call("get_employee", employee_id=oldest["employee_id"]),
                notify(str(oldest["employee_id"]), "licence_reclaimed", str(oldest["id"])),
                call("assign_licence", pool_id=pool_id, employee_id=emp),
                notify(emp, "licence_assigned", "LA-00501"),
            ]
            invariants = [
                inv(
                    f"select status from licence_allocations where id = '{oldest['id']}'",
                    "released",
                    "idle seat reclaimed",
                ),
                inv(
                    "select pool_id || ' ' || employee_id from licence_allocations where id = "
                    "'LA-00501'",
                    f"{pool_id} {emp}",
                    "seat assigned",
                ),
                sent(str(oldest["employee_id"]), "licence_reclaimed", str(oldest["id"])),
            ]
            desc = f"{pool_id} full, oldest seat idle {idle}d (> 90) -> reclaim and assign"
        else:
            assert oldest is not None
            golden += [
                call("list_pool_allocations", pool_id=pool_id),
                call(
                    "create_ticket",
                    employee_id=emp,
                    category="licence",
                    subject=f"{emp}: {pool['product']} seat needed; pool full",
                ),
                call(
                    "escalate_ticket",
                    ticket_id="TCK-00501",
                    team="procurement",
                    reason="licence_shortage",
                ),
            ]
            invariants = [
                inv(
                    f"select count(*) from licence_allocations where pool_id = '{pool_id}' and "
                    "status = 'released'",
                    0,
                    "no seat reclaimed",
                ),
                inv(
                    "select team || ':' || escalation_reason from tickets where id = 'TCK-00501'",
                    "procurement:licence_shortage",
                    "escalated to procurement",
                ),
            ]
            desc = f"{pool_id} full, oldest seat idle {idle}d (<= 90) -> procurement ticket"
        tasks.add(
            f,
            variant,
            employee=emp,
            description=desc,
            opening=f"Could I get a {pool['product']} licence, please?",
            goal=f"Get a {pool['product']} seat",
            facts={"purpose": "I need it for a project starting this week."},
            reacts={"thanks": "Thanks."},
            patch=patch or None,
            golden=golden,
            invariants=invariants,
            tags=["threshold"] if full else [],
            read_only=read_only,
            rubric=rubric,
            reference=reference,
            reply=reply,
        )
