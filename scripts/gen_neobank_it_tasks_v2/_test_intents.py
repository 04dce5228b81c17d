"""The test split's intent blocks: each is a branch no train task uses.

Every block takes the task's `Ids`, the caller and a variant number ``k`` (which changes
the records, the facts and, where the policy says so, the calls) and returns an `Intent`.
"""

from __future__ import annotations

from scripts.gen_neobank_it_tasks._build import (
    DEVICE_OF,
    EMP,
    POOLS,
    SYSTEMS,
    Patch,
    approval,
    call,
    day,
    days_until,
    email,
    grant,
    grants,
    licences,
    manager,
    merge,
    name,
    notify,
    pool_allocations,
    request,
    says,
    ticket,
    ts,
)
from scripts.gen_neobank_it_tasks.access_grant import expiry

from ._blocks import Block
from ._compose import Ids, Intent
from ._people import free_pool, free_system, reports, rotated

__all__ = ["TEST_BLOCKS"]

_OPEN_POOLS = ["LIC-FIGMA", "LIC-JETBRAINS", "LIC-MIRO", "LIC-ZOOM"]
_MATTERS = (
    ("VPN client drops every hour", "VPN"),
    ("Outlook calendar will not sync", "calendar"),
    ("Printer driver fails to install", "printer"),
    ("Teams crashes when sharing my screen", "Teams"),
    ("Excel add-in for the ledger export is missing", "add-in"),
)
_NEEDS = (
    ("to prepare the quarterly audit pack", "quarterly audit"),
    ("to review onboarding cases for the regulator", "regulator"),
    ("to reconcile the month-end figures", "month-end"),
    ("to investigate customer complaints for the ombudsman", "ombudsman"),
)


def licence_reclaim(ids: Ids, emp: str, k: int) -> Intent:
    """A full pool: assigning is refused, the oldest idle seat (> 90 days) is reclaimed."""
    pool = free_pool(emp, _OPEN_POOLS[k % 4 :] + _OPEN_POOLS[: k % 4], ids.used)
    allocs = pool_allocations(pool)
    oldest, runner_up = allocs[-1], allocs[-2]
    assert oldest["employee_id"] != emp
    idle = 91 + (k * 23) % 120
    patch: Patch = {
        "licence_pools": [{"id": pool, "seats_total": len(allocs)}],
        "licence_allocations": [
            {"id": oldest["id"], "last_used_on": day(-idle)},
            {"id": runner_up["id"], "last_used_on": day(-(60 + k % 28))},
        ],
    }
    holder = str(oldest["employee_id"])
    new = ids.made("LA-")
    product = POOLS[pool]["product"]
    return Intent(
        branch="licence.reclaim-full",
        ask=f"Could I get a {product} licence, please?",
        goal=f"get a {product} seat",
        desc=f"{pool} full; {oldest['id']} idle {idle}d > 90 -> reclaim it, then assign",
        patch=patch,
        golden=[
            call("list_employee_licences", employee_id=emp),
            call("list_licence_pools"),
            {**call("assign_licence", pool_id=pool, employee_id=emp), "fails": "invalid_state"},
            call("list_pool_allocations", pool_id=pool),
            call("release_licence", allocation_id=oldest["id"]),
            call("get_employee", employee_id=holder),
            notify(holder, "licence_reclaimed", str(oldest["id"])),
            call("assign_licence", pool_id=pool, employee_id=emp),
            notify(emp, "licence_assigned", new),
        ],
        tags=("threshold",),
    )


def ticket_reopen(ids: Ids, emp: str, k: int) -> Intent:
    """A closed ticket's problem is back: reopening is refused, a new ticket cites the old."""
    matter, word = _MATTERS[k % len(_MATTERS)]
    other, _ = _MATTERS[(k + 2) % len(_MATTERS)]
    old, decoy = ids.patched("TCK-"), ids.patched("TCK-")
    patch = merge(
        ticket(old, emp, "software", f"{emp}: {matter}", status="closed", updated_at=ts(-9)),
        ticket(decoy, emp, "software", f"{emp}: {other}", status="closed", updated_at=ts(-4)),
    )
    knows = k % 2 == 0
    urgent = k % 3 == 2
    new = ids.made("TCK-")
    golden = [] if knows else [call("list_employee_tickets", employee_id=emp)]
    golden += [
        call("get_ticket", ticket_id=old),
        {**call("update_ticket", ticket_id=old, status="open"), "fails": "invalid_state"},
        call(
            "create_ticket",
            employee_id=emp,
            category="software",
            subject=f"{emp}: {matter} again (was {old})",
            priority="high" if urgent else "normal",
        ),
    ]
    facts = {"ticket_id": old} if knows else {"matter": f"The {word} problem: {matter}."}
    return Intent(
        branch="ticket.reopen-closed",
        ask=f"My old ticket about the {word} problem was closed, but it's back. Please reopen "
        "it, or open a new one if that's how it works."
        + (" It stops me doing my own work at all." if urgent else ""),
        goal=f"get the {word} problem worked on again",
        desc=f"{old} closed (final) -> update refused; new ticket citing {old}"
        + (", priority high (stops own work)" if urgent else ""),
        patch=patch,
        facts=facts,
        golden=golden,
        text=[
            says("tickets", "subject", {"employee_id": emp, "category": "software"}, emp, old),
        ],
        reference=f"Closed tickets can't be reopened, so I opened {new} for it, citing {old}.",
        tags=("user-fact",) if knows else (),
    )


def extension_expired(ids: Ids, emp: str, k: int) -> Intent:
    """An expired grant: extending is refused; a new request is filed for the date asked."""
    system = free_system(emp, ["SYS-DWH", "SYS-KYC", "SYS-CRM", "SYS-GIT"], ids.used)
    gid = ids.patched("GR-")
    until = day(30 + (k * 11) % 50)
    need, word = _NEEDS[k % len(_NEEDS)]
    new = ids.made("AR-")
    sname = SYSTEMS[system]["name"]
    return Intent(
        branch="extension.expired-refile",
        ask=f"My {sname} access needs extending; if it can't be extended, please file "
        "whatever new request is needed.",
        goal=f"keep {sname} access until {until}",
        desc=f"{gid} expired -> extend refused; new read request for {days_until(until)} days",
        patch=grant(gid, emp, system, "read", day(-(2 + k % 9))),
        facts={"extend_until": until, "need": f"I only read it, {need}."},
        golden=[
            call("list_employee_access", employee_id=emp),
            {**call("extend_access", grant_id=gid, expires_on=until), "fails": "invalid_state"},
            call(
                "create_access_request",
                employee_id=emp,
                system_id=system,
                role="read",
                requested_days=days_until(until),
                justification=f"Read access {need}.",
            ),
            notify(manager(emp), "approval_needed", new),
        ],
        text=[
            says(
                "access_requests",
                "justification",
                {"employee_id": emp, "system_id": system},
                word,
            )
        ],
        tags=("user-fact",),
    )


def offboard_leaver(ids: Ids, mgr: str, k: int) -> Intent:
    """A terminated report: disabling first is refused; revoke, release, close, disable."""
    team = [r for r in reports(mgr) if r not in ids.used]
    leaver = team[k % len(team)]
    ids.used.append(leaver)
    patches: list[Patch] = [
        {"employees": [{"id": leaver, "status": "terminated", "end_date": day(-(1 + k % 5))}]}
    ]
    held = [str(g["id"]) for g in grants(leaver)]
    if k % 3 == 1:
        extra = ids.patched("GR-")
        patches.append(grant(extra, leaver, "SYS-DWH", "read", day(40)))
        held.append(extra)
    seats = [str(a["id"]) for a in licences(leaver)]
    if k % 3 == 2:
        seat = ids.patched("LA-")
        patches.append(
            {
                "licence_allocations": [
                    {
                        "id": seat,
                        "pool_id": "LIC-TABLEAU",
                        "employee_id": leaver,
                        "allocated_on": day(-120),
                        "last_used_on": day(-6),
                        "status": "active",
                        "released_on": None,
                    }
                ]
            }
        )
        seats.append(seat)
    open_ticket = ids.patched("TCK-") if k % 2 == 0 else ""
    if open_ticket:
        patches.append(ticket(open_ticket, leaver, "hardware", f"{leaver}: dock flickers"))
    golden = [
        call("find_employee_by_email", email=email(leaver)),
        {**call("disable_account", employee_id=leaver), "fails": "invalid_state"},
        call("list_employee_access", employee_id=leaver),
        *(call("revoke_access", grant_id=g, reason="offboarding") for g in held),
        call("list_employee_licences", employee_id=leaver),
        *(call("release_licence", allocation_id=a) for a in seats),
    ]
    if open_ticket:
        golden += [
            call("list_employee_tickets", employee_id=leaver),
            call("update_ticket", ticket_id=open_ticket, status="closed"),
        ]
    golden += [
        call("disable_account", employee_id=leaver),
        notify(mgr, "offboarding_complete", leaver),
    ]
    return Intent(
        branch="offboard.disable-refused",
        ask=f"{name(leaver)} from my team has left; please shut their account off.",
        goal=f"offboard {name(leaver)}",
        desc=f"{leaver} terminated -> disable refused while grants active; revoke "
        f"{len(held)}, release {len(seats)}" + (", close open ticket" if open_ticket else ""),
        patch=merge(*patches),
        facts={"leaver_email": email(leaver)},
        golden=golden,
        tags=("user-fact",),
    )


def order_placed_return(ids: Ids, emp: str, k: int) -> Intent:
    """An order already placed cannot be cancelled: a hardware ticket held for procurement."""
    placed, pending = ids.patched("HO-"), ids.patched("HO-")
    both = k % 2 == 1

    def order(oid: str, item: str, total: float, status: str, age: int) -> Patch:
        return {
            "hardware_orders": [
                {
                    "id": oid,
                    "employee_id": emp,
                    "catalog_id": item,
                    "quantity": 1,
                    "total_usd": total,
                    "reason": "new_need",
                    "status": status,
                    "cancel_reason": None,
                    "created_at": ts(-age),
                    "updated_at": ts(-age + 1),
                }
            ]
        }

    new = ids.made("TCK-")
    golden = [
        call("list_hardware_orders", employee_id=emp),
        {
            **call("cancel_hardware_order", order_id=placed, reason="requester_withdrew"),
            "fails": "invalid_state",
        },
        call(
            "create_ticket",
            employee_id=emp,
            category="hardware",
            subject=f"{emp}: return {placed} (27in monitor), already ordered",
        ),
        call("hold_ticket", ticket_id=new, reason="procurement"),
    ]
    if both:
        golden += [
            call("cancel_hardware_order", order_id=pending, reason="requester_withdrew"),
            notify(emp, "order_cancelled", pending),
        ]
    return Intent(
        branch="hardware.cancel-placed",
        ask="Please cancel my monitor order; if it's too late to cancel, I want to send it back."
        + (" And cancel the docking station I asked for." if both else ""),
        goal="cancel the monitor order" + (" and the dock order" if both else ""),
        desc=f"{placed} ordered -> cancel refused; ticket held for procurement"
        + (f"; {pending} pending -> cancelled" if both else f"; {pending} left alone"),
        patch=merge(
            order(placed, "HW-MON-27", 289.0, "ordered", 6),
            order(pending, "HW-DOCK", 189.0, "pending_approval", 3),
        ),
        golden=golden,
        text=[
            says("tickets", "subject", {"employee_id": emp, "category": "hardware"}, emp, placed)
        ],
    )


def access_chase(ids: Ids, emp: str, k: int) -> Intent:
    """A request for the system is already pending: filing is refused; chase its approvers."""
    variant = k % 3
    prefs = ["SYS-CRM", "SYS-GIT", "SYS-JIRA"] if variant == 0 else ["SYS-KYC", "SYS-DWH"]
    system = free_system(emp, prefs, ids.used)
    rid, old = ids.patched("AR-"), ids.patched("AR-")
    need, _ = _NEEDS[(k + 1) % len(_NEEDS)]
    patches = [
        request(rid, emp, system, "read", 60, f"Read access {need}."),
        {
            "access_requests": [
                {
                    **request(old, emp, system, "write", 90, "Edit records.")["access_requests"][0],
                    "status": "rejected",
                    "decision_reason": "approver_rejected",
                    "created_at": ts(-40),
                    "decided_at": ts(-38),
                }
            ]
        },
    ]
    owner = str(SYSTEMS[system]["owner_id"])
    missing = [manager(emp)]
    if variant == 1:
        patches.append(approval(ids.patched("APV-"), rid, manager(emp), "manager"))
        missing = [owner]
    elif variant == 2:
        missing = [manager(emp), owner]
    sname = SYSTEMS[system]["name"]
    return Intent(
        branch="access.pending-chase",
        ask=f"I need read access to the {sname}.",
        goal=f"get read access to the {sname}",
        desc=f"{rid} already pending -> filing refused; approval_needed to {missing}",
        patch=merge(*patches),
        facts={"need": f"Only to look things up, {need}.", "days_needed": 60},
        golden=[
            call("list_systems"),
            {
                **call(
                    "create_access_request",
                    employee_id=emp,
                    system_id=system,
                    role="read",
                    requested_days=60,
                    justification=f"Read access {need}.",
                ),
                "fails": "invalid_state",
            },
            call("get_access_request", request_id=rid),
            *(notify(m, "approval_needed", rid) for m in missing),
        ],
        reply=[rid],
        reference=f"You already have request {rid} pending; I've chased its approvers.",
        tags=("user-fact",),
    )


def access_decide(ids: Ids, emp: str, k: int) -> Intent:
    """A pending request with every approval: grant it, capped (contractors: 30 days)."""
    system = free_system(emp, ["SYS-DWH", "SYS-KYC", "SYS-CRM", "SYS-GIT"][k % 2 :], ids.used)
    rid, decoy = ids.patched("AR-"), ids.patched("AR-")
    days = (90, 200, 365)[k % 3]
    patches = [
        request(rid, emp, system, "read", days, "Reporting."),
        approval(ids.patched("APV-"), rid, manager(emp), "manager"),
        request(
            decoy, emp, "SYS-JIRA" if system != "SYS-JIRA" else "SYS-GIT", "write", 30, "Tickets."
        ),
    ]
    if SYSTEMS[system]["approval_policy"] == "manager_and_owner":
        patches.append(
            approval(ids.patched("APV-"), rid, str(SYSTEMS[system]["owner_id"]), "owner")
        )
    until = expiry(emp, system, days)
    return Intent(
        branch="access.decide-approved",
        ask="Can you check on my access request and finish it if it's ready?",
        goal=f"have request {rid} provisioned",
        desc=f"{rid} fully approved -> grant read until {until} (cap); {decoy} untouched",
        patch=merge(*patches),
        facts={"request_id": rid},
        golden=[
            call("get_access_request", request_id=rid),
            call("list_employee_access", employee_id=emp),
            call("list_systems"),
            call("grant_access", request_id=rid, role="read", expires_on=until),
            notify(emp, "access_granted", rid),
        ],
        tags=("user-fact", "threshold"),
    )


_PHISH = (
    (
        "I typed my password into the page before I noticed.",
        "account_compromise",
        "high",
        ("password",),
    ),
    (
        "I clicked the link but closed it without typing anything.",
        "phishing",
        "medium",
        ("clicked", "link"),
    ),
    (
        "I entered my password and an MFA code on that page.",
        "account_compromise",
        "high",
        ("password", "MFA"),
    ),
    ("I opened the attachment but typed nothing.", "phishing", "medium", ("attachment",)),
)


def incident_phishing(ids: Ids, emp: str, k: int) -> Intent:
    """A phishing report: severity from what the employee did; a typed password resets."""
    line, category, severity, words = _PHISH[k % len(_PHISH)]
    inc = ids.made("INC-")
    golden = [
        call(
            "report_security_incident",
            reporter_id=emp,
            category=category,
            severity=severity,
            description=f"Phishing email: {line}",
        )
    ]
    if category == "account_compromise":
        golden.append(call("force_password_reset", employee_id=emp))
    golden.append(notify(emp, "incident_ack", inc))
    return Intent(
        branch="incident.phishing-acted",
        ask="I think I fell for a phishing email this morning.",
        goal="report the phishing email",
        desc=f"phishing: {line} -> {category}/{severity}",
        facts={"what_happened": line},
        golden=golden,
        text=[says("security_incidents", "description", {"reporter_id": emp}, words)],
        tags=("user-fact",),
    )


def incident_lost(ids: Ids, emp: str, k: int) -> Intent:
    """A lost laptop: wipe (after the employee's yes) when unencrypted or missing > 24 h."""
    dev = str(DEVICE_OF[emp]["id"])
    encrypted, hours = ((1, 30), (0, 6), (1, 10), (1, 50))[k % 4]
    patch: Patch = {} if encrypted else {"devices": [{"id": dev, "encrypted": 0}]}
    wipe = not encrypted or hours > 24
    inc = ids.made("INC-")
    golden = [
        call("list_employee_devices", employee_id=emp),
        call(
            "report_security_incident",
            reporter_id=emp,
            category="lost_device",
            severity="high" if encrypted else "critical",
            description=f"Laptop missing for about {hours} hours.",
            device_id=dev,
        ),
        call("mark_device_lost", device_id=dev),
    ]
    if wipe:
        golden += [
            call("record_confirmation", employee_id=emp, topic="remote_wipe", related_id=dev),
            call("remote_wipe_device", device_id=dev),
        ]
    golden.append(notify(emp, "incident_ack", inc))
    return Intent(
        branch="incident.lost-laptop",
        ask="I've lost my work laptop.",
        goal="report the lost laptop",
        desc=f"{dev} encrypted={encrypted}, {hours}h -> " + ("wipe" if wipe else "mark lost"),
        patch=patch,
        facts={"hours_missing": hours},
        golden=golden,
        text=[says("security_incidents", "description", {"reporter_id": emp}, hours)],
        tags=("user-fact", "threshold"),
    )


def account_unlock(ids: Ids, emp: str, k: int) -> Intent:
    """A failed-logins lock: verify by the employee id stated (a typo first), then unlock."""
    slip = f"EMP-{int(emp[4:]) * 10:04d}" if k % 2 == 1 else ""
    assert slip not in EMP
    facts: dict[str, object] = {"employee_id": {"value": emp, "first": slip} if slip else emp}
    return Intent(
        branch="account.unlock-stated-id",
        ask="I'm locked out of my account after too many password attempts.",
        goal="get the account unlocked",
        desc="failed_logins lock -> unlock" + (f" (after {slip} is not found)" if slip else ""),
        patch={
            "accounts": [
                {"employee_id": emp, "sso_status": "locked", "lock_reason": "failed_logins"}
            ]
        },
        facts=facts,
        pre_verify=[
            {**call("verify_employee", employee_id=slip, email=email(emp)), "fails": "not_found"}
        ]
        if slip
        else [],
        stated_id=emp,
        golden=[
            call("get_account", employee_id=emp),
            call("unlock_account", employee_id=emp),
            notify(emp, "account_unlocked", emp),
        ],
        tags=("user-fact",),
    )


def licence_free(ids: Ids, emp: str, k: int) -> Intent:
    """A pool with a free seat and no approval: assign it (an old released seat is no bar)."""
    pool = free_pool(emp, _OPEN_POOLS[(k + 1) % 4 :] + _OPEN_POOLS[: (k + 1) % 4], ids.used)
    patch: Patch = {}
    if k % 2:
        patch = {
            "licence_allocations": [
                {
                    "id": ids.patched("LA-"),
                    "pool_id": pool,
                    "employee_id": emp,
                    "allocated_on": day(-400),
                    "last_used_on": day(-200),
                    "status": "released",
                    "released_on": day(-150),
                }
            ]
        }
    new = ids.made("LA-")
    product = POOLS[pool]["product"]
    return Intent(
        branch="licence.assign-free",
        ask=f"I also need a {product} seat.",
        goal=f"get a {product} seat",
        desc=f"{pool} has a free seat -> assign",
        patch=patch,
        golden=[
            call("list_employee_licences", employee_id=emp),
            call("list_licence_pools"),
            call("assign_licence", pool_id=pool, employee_id=emp),
            notify(emp, "licence_assigned", new),
        ],
    )


_ITEMS = (
    ("HW-MON-27", 1, "a 27-inch monitor"),
    ("HW-MON-27", 2, "two 27-inch monitors"),
    ("HW-DOCK", 1, "a USB-C docking station"),
    ("HW-HEADSET", 3, "three noise-cancelling headsets for my desk team"),
    ("HW-KEYB", 2, "two wireless keyboard and mouse sets"),
)
_PRICE = {"HW-MON-27": 289.0, "HW-DOCK": 189.0, "HW-HEADSET": 129.0, "HW-KEYB": 79.0}


def hardware_accessory(ids: Ids, emp: str, k: int) -> Intent:
    """An accessory order: auto-approved up to $300 in total, else the manager approves."""
    item, qty, words = _ITEMS[k % len(_ITEMS)]
    total = _PRICE[item] * qty
    auto = total <= 300
    order = ids.made("HO-")
    return Intent(
        branch="hardware.accessory-order",
        ask=f"Could you order {words} for me?",
        goal=f"order {words}",
        desc=f"{qty} x {item} = ${total:.2f} -> " + ("auto" if auto else "manager approval"),
        golden=[
            call("list_hardware_catalog"),
            call("list_hardware_orders", employee_id=emp),
            call(
                "create_hardware_order",
                employee_id=emp,
                catalog_id=item,
                quantity=qty,
                reason="new_need",
                approval="auto" if auto else "manager",
            ),
            notify(emp, "order_placed", order)
            if auto
            else notify(manager(emp), "approval_needed", order),
        ],
        tags=("threshold",),
    )


def revoke_report(ids: Ids, mgr: str, k: int) -> Intent:
    """A manager removes a report's access: one system (no longer needed) or all (moved)."""
    team = [r for r in reports(mgr) if r not in ids.used and grants(r)]
    who = team[(k * 3) % len(team)]
    ids.used.append(who)
    held = grants(who)
    moved = k % 2 == 1
    targets = held if moved else held[-1:]
    patch: Patch = {}
    if not moved:
        patch = {
            "access_grants": [
                {
                    **grant(
                        ids.patched("GR-"), who, str(held[-1]["system_id"]), "write", day(-100)
                    )["access_grants"][0],
                    "status": "revoked",
                    "revoke_reason": "no_longer_needed",
                    "revoked_at": ts(-120),
                }
            ]
        }
    sname = SYSTEMS[str(held[-1]["system_id"])]["name"]
    reason = "role_change" if moved else "no_longer_needed"
    golden = [
        call("find_employee_by_email", email=email(who)),
        call("list_employee_access", employee_id=who),
    ]
    for g in targets:
        golden.append(call("revoke_access", grant_id=g["id"], reason=reason))
    for g in targets:
        golden.append(notify(who, "access_revoked", str(g["id"])))
    return Intent(
        branch="revoke.report-access",
        ask=f"{name(who)} has moved to another team; please remove all their system access."
        if moved
        else f"{name(who)} no longer needs {sname} access; please remove it.",
        goal=f"remove {name(who)}'s access",
        desc=f"{who}: revoke {[g['id'] for g in targets]} ({reason})",
        patch=patch,
        facts={"target_email": email(who)},
        golden=golden,
        tags=("user-fact",),
    )


def ticket_solved(ids: Ids, emp: str, k: int) -> Intent:
    """The employee confirms one of two open tickets fixed: confirmation, then solved."""
    matter, word = _MATTERS[(k + 1) % len(_MATTERS)]
    fixed, other = ids.patched("TCK-"), ids.patched("TCK-")
    knows = k % 2 == 1
    patch = merge(
        ticket(fixed, emp, "software", f"{emp}: {matter}"),
        ticket(other, emp, "hardware", f"{emp}: laptop fan noise", status="pending"),
    )
    golden = [] if knows else [call("list_employee_tickets", employee_id=emp)]
    golden += [
        call("get_ticket", ticket_id=fixed),
        call("record_confirmation", employee_id=emp, topic="problem_fixed", related_id=fixed),
        call("update_ticket", ticket_id=fixed, status="solved"),
    ]
    facts = {"ticket_id": fixed} if knows else {"matter": f"The {word} one: {matter}."}
    return Intent(
        branch="ticket.confirm-solved",
        ask=f"The {word} problem on my ticket is fixed now, you can close it off.",
        goal=f"have the {word} ticket marked solved",
        desc=f"{fixed} fixed (confirmed) -> solved; {other} untouched",
        patch=patch,
        facts=facts,
        golden=golden,
        tags=("user-fact",) if knows else (),
    )


_LOOKALIKE = {"SYS-KYC": ("EMP-0020", "EMP-0043", "EMP-0055"), "SYS-DWH": ("EMP-0031", "EMP-0047")}
"""Employees who share the system owner's surname (Redfern, Marlowe) but own nothing."""


def access_lookalike(ids: Ids, emp: str, k: int) -> Intent:
    """An 'owner' approval by the owner's namesake does not count: chase the real owner."""
    system = free_system(emp, rotated(["SYS-KYC", "SYS-DWH"], k), ids.used)
    owner = str(SYSTEMS[system]["owner_id"])
    namesake = next(
        x for x in _LOOKALIKE[system][k % 2 :] + _LOOKALIKE[system] if x not in (emp, manager(emp))
    )
    assert EMP[namesake]["last_name"] == EMP[owner]["last_name"]
    rid = ids.patched("AR-")
    return Intent(
        branch="access.decide-namesake-owner",
        ask="My access request has both approvals now, I think. Can you provision it?",
        goal=f"have request {rid} provisioned",
        desc=f"{rid}: owner approval by {namesake} (namesake of {owner}) -> chase {owner}",
        patch=merge(
            request(rid, emp, system, "read", 60, "Reporting."),
            approval(ids.patched("APV-"), rid, manager(emp), "manager"),
            approval(ids.patched("APV-"), rid, namesake, "owner"),
        ),
        facts={"request_id": rid},
        golden=[
            call("get_access_request", request_id=rid),
            call("list_systems"),
            notify(owner, "approval_needed", rid),
        ],
        reference=f"Request {rid} still needs the system owner's approval: the one recorded is "
        f"not from {name(owner)}, so I've asked {name(owner)} to approve.",
        tags=("user-fact", "distractor"),
    )


_SECURITY_HEAD = "EMP-0035"


def access_admin(ids: Ids, emp: str, k: int) -> Intent:
    """An admin request approved by the manager still needs security: ask DEP-SEC's head."""
    system = free_system(emp, rotated(["SYS-JIRA", "SYS-GIT", "SYS-CRM"], k), ids.used)
    rid = ids.patched("AR-")
    patches = [
        request(rid, emp, system, "admin", 30, "Configure the workflows."),
        approval(ids.patched("APV-"), rid, manager(emp), "manager"),
    ]
    if k % 2:
        # A 'security' approval by someone outside Information Security does not count.
        patches.append(approval(ids.patched("APV-"), rid, "EMP-0006", "security"))
    return Intent(
        branch="access.admin-needs-security",
        ask="Can you finish my admin access request? My manager approved it; a colleague "
        "said admin requests also go past DEP-SEC.",
        goal=f"have request {rid} provisioned",
        desc=f"{rid} admin: security approval missing"
        + (" (one by EMP-0006, not DEP-SEC)" if k % 2 else "")
        + " -> approval_needed to the head of DEP-SEC",
        patch=merge(*patches),
        facts={"request_id": rid},
        golden=[
            call("get_access_request", request_id=rid),
            call("get_department", department_id="DEP-SEC"),
            notify(_SECURITY_HEAD, "approval_needed", rid),
        ],
        reference=f"Request {rid} is for admin, so it also needs Information Security's "
        "approval; I've asked the head of Information Security.",
        tags=("user-fact",),
    )


_RESTRICTED = ("SYS-CORE", "SYS-HRIS", "SYS-PAYINIT", "SYS-AWS")


def contractor_restricted(ids: Ids, emp: str, k: int) -> Intent:
    """A contractor asks for a restricted system: no request is filed (policy §2.1.4)."""
    system = _RESTRICTED[k % len(_RESTRICTED)]
    sname = SYSTEMS[system]["name"]
    return Intent(
        branch="access.contractor-restricted",
        ask=f"Can you set me up with read access to the {sname}?",
        goal=f"get {sname} access",
        desc=f"contractor asks {system} (restricted) -> nothing filed",
        golden=[call("get_employee", employee_id=emp), call("list_systems")],
        reply=[("contractor", "contractors")],
        reference=f"Contractors cannot be given access to restricted systems such as the {sname}.",
        tags=("refusal",),
    )


def contractor_laptop(ids: Ids, emp: str, k: int) -> Intent:
    """A contractor asks for a new laptop: their agency supplies it (policy §6.1.1)."""
    return Intent(
        branch="hardware.contractor-laptop",
        ask="My laptop is getting slow; can I get a new one?",
        goal="get a new laptop",
        desc="contractor asks for a laptop -> agency supplies it, nothing ordered",
        golden=[call("get_employee", employee_id=emp)],
        reply=["agency"],
        reference="Contractors get their equipment from their agency, so I can't order one.",
        tags=("refusal",),
    )


TEST_BLOCKS: tuple[Block, ...] = (
    Block(licence_reclaim, "any", "licence"),
    Block(ticket_reopen, "any", "ticket"),
    Block(extension_expired, "any", "extension"),
    Block(offboard_leaver, "manager", "offboard"),
    Block(order_placed_return, "employee", "hardware"),
    Block(access_chase, "employee", "access"),
    Block(access_decide, "any", "access"),
    Block(access_lookalike, "any", "access"),
    Block(access_admin, "any", "access"),
    Block(incident_phishing, "any", "incident"),
    Block(incident_lost, "any", "incident"),
    Block(account_unlock, "any", "account"),
    Block(licence_free, "any", "licence"),
    Block(hardware_accessory, "employee", "hardware"),
    Block(revoke_report, "manager", "revoke"),
    Block(ticket_solved, "any", "ticket"),
    Block(contractor_restricted, "contractor", "access"),
    Block(contractor_laptop, "contractor", "hardware"),
)
