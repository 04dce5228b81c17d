"""The train split's intent blocks: branches no test task uses (RL never sees a test template)."""

from __future__ import annotations

from scripts.gen_neobank_it_tasks._build import (
    CATALOG,
    DEVICE_OF,
    EMP,
    POOLS,
    SYSTEMS,
    approval,
    call,
    day,
    email,
    grant,
    grants,
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

from ._blocks import Block
from ._compose import Ids, Intent
from ._people import free_pool, free_system, reports

__all__ = ["TRAIN_BLOCKS"]

_POOLS = ["LIC-MIRO", "LIC-ZOOM", "LIC-FIGMA", "LIC-JETBRAINS"]


def licence_give_back(ids: Ids, emp: str, k: int) -> Intent:
    """The employee gives back a seat they hold: release it, no email (policy §5.7)."""
    pool = free_pool(emp, _POOLS[k % 4 :] + _POOLS[: k % 4], ids.used)
    seat = ids.patched("LA-")
    product = POOLS[pool]["product"]
    return Intent(
        branch="licence.give-back",
        ask=f"I don't use {product} any more; please take my seat back.",
        goal=f"return the {product} seat",
        desc=f"release {seat}",
        patch={
            "licence_allocations": [
                {
                    "id": seat,
                    "pool_id": pool,
                    "employee_id": emp,
                    "allocated_on": day(-300),
                    "last_used_on": day(-20 - k),
                    "status": "active",
                    "released_on": None,
                }
            ]
        },
        golden=[
            call("list_employee_licences", employee_id=emp),
            call("release_licence", allocation_id=seat),
        ],
    )


def licence_approval(ids: Ids, emp: str, k: int) -> Intent:
    """An approval pool: ask the manager, assign nothing (policy §5.2)."""
    pool = free_pool(emp, ["LIC-TABLEAU", "LIC-DOCUSIGN"][k % 2 :], ids.used)
    return Intent(
        branch="licence.approval-pool",
        ask=f"Could I get a {POOLS[pool]['product']} licence?",
        goal=f"get a {POOLS[pool]['product']} seat",
        desc=f"{pool} requires approval -> approval_needed to the manager",
        golden=[call("list_licence_pools"), notify(manager(emp), "approval_needed", pool)],
    )


def licence_shortage(ids: Ids, emp: str, k: int) -> Intent:
    """A full pool with no seat idle > 90 days: procurement ticket (policy §5.5)."""
    pool = free_pool(emp, _POOLS[(k + 2) % 4 :] + _POOLS[: (k + 2) % 4], ids.used)
    allocs = pool_allocations(pool)
    new = ids.made("TCK-")
    product = POOLS[pool]["product"]
    return Intent(
        branch="licence.pool-shortage",
        ask=f"I need a {product} seat for a new project.",
        goal=f"get a {product} seat",
        desc=f"{pool} full, oldest use {60 + k % 30}d -> procurement ticket",
        patch={
            "licence_pools": [{"id": pool, "seats_total": len(allocs)}],
            "licence_allocations": [{"id": allocs[-1]["id"], "last_used_on": day(-(60 + k % 30))}],
        },
        golden=[
            call("list_licence_pools"),
            {**call("assign_licence", pool_id=pool, employee_id=emp), "fails": "invalid_state"},
            call("list_pool_allocations", pool_id=pool),
            call(
                "create_ticket",
                employee_id=emp,
                category="licence",
                subject=f"{emp}: {product} seat needed; pool full",
            ),
            call("escalate_ticket", ticket_id=new, team="procurement", reason="licence_shortage"),
        ],
        text=[says("tickets", "subject", {"employee_id": emp, "category": "licence"}, emp)],
    )


def ticket_vendor(ids: Ids, emp: str, k: int) -> Intent:
    """A ticket waiting on a vendor's fix: hold it with reason vendor (policy §9.5)."""
    tid = ids.patched("TCK-")
    return Intent(
        branch="ticket.vendor-wait",
        ask=f"The vendor says they need a week to patch the bug on ticket {tid}; park it.",
        goal=f"put {tid} on hold for the vendor",
        desc=f"{tid} waits for a vendor -> hold vendor",
        patch=ticket(tid, emp, "software", f"{emp}: export tool bug {k}"),
        golden=[
            call("get_ticket", ticket_id=tid),
            call("hold_ticket", ticket_id=tid, reason="vendor"),
        ],
    )


def ticket_fault(ids: Ids, emp: str, k: int) -> Intent:
    """A hardware fault: ticket to field services (policy §9.3), high when work stops."""
    new = ids.made("TCK-")
    stops = k % 2 == 0
    return Intent(
        branch="ticket.hardware-fault",
        ask="My laptop screen keeps going black." + (" I can't work at all." if stops else ""),
        goal="get the laptop screen fixed",
        desc="hardware fault -> field_services" + (", high" if stops else ""),
        golden=[
            call(
                "create_ticket",
                employee_id=emp,
                category="hardware",
                subject=f"{emp}: laptop screen goes black",
                priority="high" if stops else "normal",
            ),
            call("escalate_ticket", ticket_id=new, team="field_services", reason="hardware_fault"),
        ],
        text=[says("tickets", "subject", {"employee_id": emp, "category": "hardware"}, emp)],
    )


def extension_active(ids: Ids, emp: str, k: int) -> Intent:
    """An active grant extended to the date asked, capped at today + max_grant_days."""
    system = free_system(emp, ["SYS-CRM", "SYS-KYC", "SYS-DWH"][k % 3 :], ids.used)
    gid = ids.patched("GR-")
    cap = int(SYSTEMS[system]["max_grant_days"])
    asked = (cap - 20, cap + 40)[k % 2]
    return Intent(
        branch="extension.active-capped",
        ask=f"Please extend my {SYSTEMS[system]['name']} access.",
        goal="extend the access",
        desc=f"{gid} active; asked +{asked}d, cap {cap}",
        patch=grant(gid, emp, system, "read", day(5 + k % 7)),
        facts={"extend_until": day(asked)},
        golden=[
            call("list_employee_access", employee_id=emp),
            call("list_systems"),
            call("extend_access", grant_id=gid, expires_on=day(min(asked, cap))),
            notify(emp, "access_extended", gid),
        ],
        tags=("user-fact", "threshold"),
    )


def offboard_hr_pending(ids: Ids, mgr: str, k: int) -> Intent:
    """HR has not terminated the leaver yet: an account ticket on hold for HR (§4.2.2)."""
    team = [r for r in reports(mgr) if r not in ids.used]
    leaver = team[(k * 2) % len(team)]
    ids.used.append(leaver)
    new = ids.made("TCK-")
    return Intent(
        branch="offboard.hr-not-done",
        ask=f"{name(leaver)} is leaving us; please remove everything.",
        goal=f"offboard {name(leaver)}",
        desc=f"{leaver} still active in the directory -> ticket on hold for HR",
        facts={"leaver_email": email(leaver)},
        golden=[
            call("find_employee_by_email", email=email(leaver)),
            call(
                "create_ticket",
                employee_id=leaver,
                category="account",
                subject=f"{leaver}: offboarding waits for HR",
            ),
            call("hold_ticket", ticket_id=new, reason="hr"),
        ],
        text=[says("tickets", "subject", {"employee_id": leaver}, leaver)],
        tags=("user-fact",),
    )


def order_withdraw(ids: Ids, emp: str, k: int) -> Intent:
    """A pending order withdrawn by its requester: cancel, order_cancelled (§6.2.1)."""
    oid = ids.patched("HO-")
    item = ("HW-DOCK", "HW-HEADSET", "HW-KEYB")[k % 3]
    return Intent(
        branch="hardware.withdraw-pending",
        ask=f"Please cancel my {CATALOG[item]['name']} order.",
        goal="cancel the order",
        desc=f"{oid} pending -> cancelled",
        patch={
            "hardware_orders": [
                {
                    "id": oid,
                    "employee_id": emp,
                    "catalog_id": item,
                    "quantity": 1,
                    "total_usd": CATALOG[item]["price_usd"],
                    "reason": "new_need",
                    "status": ("pending_approval", "approved")[k % 2],
                    "cancel_reason": None,
                    "created_at": ts(-3),
                    "updated_at": ts(-3),
                }
            ]
        },
        golden=[
            call("list_hardware_orders", employee_id=emp),
            call("cancel_hardware_order", order_id=oid, reason="requester_withdrew"),
            notify(emp, "order_cancelled", oid),
        ],
    )


def laptop_refresh(ids: Ids, emp: str, k: int) -> Intent:
    """A laptop assigned 36 months or more ago: refresh order, auto under $2,000."""
    dev = str(DEVICE_OF[emp]["id"])
    item = "HW-LAP-PRO" if EMP[emp]["department_id"] == "DEP-ENG" else "HW-LAP-STD"
    auto = item == "HW-LAP-STD"
    order = ids.made("HO-")
    return Intent(
        branch="hardware.laptop-refresh",
        ask="My laptop is very old now; can I get a new one?",
        goal="get a new laptop",
        desc=f"{dev} 40 months old -> refresh {item}, " + ("auto" if auto else "manager"),
        patch={"devices": [{"id": dev, "assigned_on": day(-1200 - k)}]},
        golden=[
            call("list_employee_devices", employee_id=emp),
            call("list_hardware_catalog"),
            call(
                "create_hardware_order",
                employee_id=emp,
                catalog_id=item,
                quantity=1,
                reason="refresh",
                approval="auto" if auto else "manager",
            ),
            notify(emp, "order_placed", order)
            if auto
            else notify(manager(emp), "approval_needed", order),
        ],
        tags=("threshold",),
    )


def security_hold(ids: Ids, emp: str, k: int) -> Intent:
    """A security-hold lock is never unlocked: ticket escalated to security (§7.3)."""
    new = ids.made("TCK-")
    return Intent(
        branch="account.security-hold",
        ask="My account is locked and I can't sign in.",
        goal="get back into the account",
        desc="security_hold lock -> ticket escalated to security",
        patch={
            "accounts": [
                {"employee_id": emp, "sso_status": "locked", "lock_reason": "security_hold"}
            ]
        },
        facts={"employee_id": emp},
        stated_id=emp,
        golden=[
            call("get_account", employee_id=emp),
            call(
                "create_ticket",
                employee_id=emp,
                category="account",
                subject=f"{emp}: account under security hold",
            ),
            call("escalate_ticket", ticket_id=new, team="security", reason="security_hold"),
        ],
        text=[says("tickets", "subject", {"employee_id": emp, "category": "account"}, emp)],
        tags=("user-fact",),
    )


def phishing_opened(ids: Ids, emp: str, k: int) -> Intent:
    """A phishing email only opened: low phishing incident and acknowledgement."""
    inc = ids.made("INC-")
    line = ("I only opened it.", "I just read it, nothing clicked.")[k % 2]
    return Intent(
        branch="incident.phishing-opened",
        ask="I received an odd email asking me to log in.",
        goal="report the email",
        desc="phishing opened -> low",
        facts={"what_happened": line},
        golden=[
            call(
                "report_security_incident",
                reporter_id=emp,
                category="phishing",
                severity="low",
                description=f"Phishing email: {line}",
            ),
            notify(emp, "incident_ack", inc),
        ],
        text=[says("security_incidents", "description", {"reporter_id": emp}, ("opened", "read"))],
        tags=("user-fact",),
    )


def lost_phone(ids: Ids, emp: str, k: int) -> Intent:
    """A lost work phone, encrypted, missing under a day: high, mark lost only."""
    dev = ids.patched("DEV-")
    inc = ids.made("INC-")
    hours = 2 + k % 20
    return Intent(
        branch="incident.lost-phone",
        ask="I left my work phone in a taxi.",
        goal="report the phone",
        desc=f"phone {dev} encrypted, {hours}h -> mark lost",
        patch={
            "devices": [
                {
                    "id": dev,
                    "employee_id": emp,
                    "kind": "phone",
                    "model": "Work mobile phone",
                    "serial": f"NBP{4000 + int(emp[4:]) * 10 + k}",
                    "assigned_on": day(-200),
                    "encrypted": 1,
                    "status": "in_use",
                    "updated_at": None,
                }
            ]
        },
        facts={"hours_missing": hours},
        golden=[
            call("list_employee_devices", employee_id=emp),
            call(
                "report_security_incident",
                reporter_id=emp,
                category="lost_device",
                severity="high",
                description=f"Phone missing for about {hours} hours.",
                device_id=dev,
            ),
            call("mark_device_lost", device_id=dev),
            notify(emp, "incident_ack", inc),
        ],
        text=[says("security_incidents", "description", {"reporter_id": emp}, hours)],
        tags=("user-fact",),
    )


def file_request(ids: Ids, emp: str, k: int) -> Intent:
    """A new access request at the least role that covers the need, manager asked."""
    system = free_system(emp, ["SYS-KYC", "SYS-DWH", "SYS-CRM", "SYS-GIT"][k % 4 :], ids.used)
    new = ids.made("AR-")
    role = ("read", "write")[k % 2]
    line = ("I only need to view records.", "I need to edit records.")[k % 2]
    return Intent(
        branch="access.file-request",
        ask=f"I need access to the {SYSTEMS[system]['name']}.",
        goal="get the access",
        desc=f"file {role} on {system}",
        facts={"need": line, "days_needed": 30 + k},
        golden=[
            call("list_systems"),
            call("list_employee_access", employee_id=emp),
            call(
                "create_access_request",
                employee_id=emp,
                system_id=system,
                role=role,
                requested_days=30 + k,
                justification=line,
            ),
            notify(manager(emp), "approval_needed", new),
        ],
        text=[says("access_requests", "justification", {"employee_id": emp}, ("view", "edit"))],
        tags=("user-fact",),
    )


def decide_rejected(ids: Ids, emp: str, k: int) -> Intent:
    """A request whose owner rejected it: reject approver_rejected, tell the employee."""
    system = free_system(emp, ["SYS-DWH", "SYS-KYC", "SYS-DWH"][k % 2 :], ids.used)
    rid = ids.patched("AR-")
    return Intent(
        branch="access.decide-owner-rejected",
        ask="What happened with my access request?",
        goal="know the outcome",
        desc=f"{rid} owner rejected -> reject",
        facts={"request_id": rid},
        patch=merge(
            request(rid, emp, system, "read", 60, "Reporting."),
            approval(ids.patched("APV-"), rid, manager(emp), "manager"),
            approval(
                ids.patched("APV-"), rid, str(SYSTEMS[system]["owner_id"]), "owner", "rejected"
            ),
        ),
        golden=[
            call("get_access_request", request_id=rid),
            call("reject_access_request", request_id=rid, reason="approver_rejected"),
            notify(emp, "access_rejected", rid),
        ],
        tags=("user-fact",),
    )


def revoke_moved_one(ids: Ids, mgr: str, k: int) -> Intent:
    """A manager removes one grant of a report whose role changed (role_change)."""
    team = [r for r in reports(mgr) if r not in ids.used and grants(r)]
    who = team[(k * 5 + 1) % len(team)]
    ids.used.append(who)
    g = grants(who)[0]
    return Intent(
        branch="revoke.role-change-one",
        ask=f"{name(who)} changed roles; please take away their "
        f"{SYSTEMS[str(g['system_id'])]['name']} access.",
        goal="remove the access",
        desc=f"revoke {g['id']} role_change",
        facts={"target_email": email(who)},
        golden=[
            call("find_employee_by_email", email=email(who)),
            call("list_employee_access", employee_id=who),
            call("revoke_access", grant_id=g["id"], reason="role_change"),
            notify(who, "access_revoked", str(g["id"])),
        ],
        tags=("user-fact",),
    )


TRAIN_BLOCKS: tuple[Block, ...] = (
    Block(licence_give_back, "any", "licence"),
    Block(licence_approval, "any", "licence"),
    Block(licence_shortage, "any", "licence"),
    Block(ticket_vendor, "any", "ticket"),
    Block(ticket_fault, "any", "ticket"),
    Block(extension_active, "employee", "extension"),
    Block(offboard_hr_pending, "manager", "offboard"),
    Block(order_withdraw, "employee", "hardware"),
    Block(laptop_refresh, "employee", "hardware"),
    Block(security_hold, "any", "account"),
    Block(phishing_opened, "any", "incident"),
    Block(lost_phone, "any", "incident"),
    Block(file_request, "any", "access"),
    Block(decide_rejected, "any", "access"),
    Block(revoke_moved_one, "manager", "revoke"),
)
