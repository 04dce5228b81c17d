"""Offboarding tasks: revoke everything, release licences, disable SSO.

Only once HR has terminated the leaver, and only at the manager's request.
"""

from __future__ import annotations

from ._build import (
    TaskSet,
    call,
    day,
    email,
    grants,
    ident,
    inv,
    licences,
    manager,
    name,
    notify,
    sent,
    set_employee,
)

_RUBRIC = [
    "Does the reply say nothing was removed yet because HR has not recorded the termination, "
    "and that a ticket is waiting on HR? (yes/no)",
]


def build(tasks: TaskSet) -> None:
    """Add offboardings: terminated (full), HR pending (ticket on hold), not the manager."""
    f = "offboarding"
    # variant, leaver, HR state (status, end offset) or None, caller kind
    cases = [
        ("complete", "EMP-0016", ("terminated", -1), "manager"),
        ("complete", "EMP-0030", ("terminated", 0), "manager"),
        ("complete", "EMP-0051", ("terminated", -3), "manager"),
        ("complete", "EMP-0005", ("terminated", -1), "manager"),
        ("complete", "EMP-0044", ("terminated", -2), "manager"),
        ("hr-pending", "EMP-0045", None, "manager"),
        ("hr-pending", "EMP-0022", ("terminated", 5), "manager"),
        ("hr-pending", "EMP-0038", None, "manager"),
        ("not-manager", "EMP-0026", ("terminated", -1), "peer"),
        ("not-manager", "EMP-0053", ("terminated", -1), "peer"),
    ]
    for variant, leaver, hr, kind in cases:
        mgr = manager(leaver)
        caller = (
            mgr if kind == "manager" else next(p for p in ("EMP-0023", "EMP-0055") if p != leaver)
        )
        patch = set_employee(leaver, status=hr[0], end_date=day(hr[1])) if hr else {}
        golden = [ident(caller), call("find_employee_by_email", email=email(leaver))]
        rubric = None
        reference = ""
        reply = None
        read_only = False
        done = hr is not None and hr[1] <= 0 and kind == "manager"
        if done:
            gr = grants(leaver)
            la = licences(leaver)
            golden += [call("list_employee_access", employee_id=leaver)]
            golden += [call("revoke_access", grant_id=g["id"], reason="offboarding") for g in gr]
            golden += [call("list_employee_licences", employee_id=leaver)]
            golden += [call("release_licence", allocation_id=a["id"]) for a in la]
            golden += [
                call("disable_account", employee_id=leaver),
                notify(mgr, "offboarding_complete", leaver),
            ]
            invariants = [
                inv(
                    f"select count(*) from access_grants where employee_id = '{leaver}' and "
                    "status = 'active'",
                    0,
                    "no active grant left",
                ),
                inv(
                    f"select count(*) from licence_allocations where employee_id = '{leaver}' "
                    "and status = 'active'",
                    0,
                    "no licence left",
                ),
                inv(
                    f"select sso_status from accounts where employee_id = '{leaver}'",
                    "disabled",
                    "account disabled",
                ),
                sent(mgr, "offboarding_complete", leaver),
            ]
            desc = f"{leaver} terminated -> revoke {len(gr)}, release {len(la)}, disable, email"
            said = {"leaver_status": "Their last day has passed."}
            reacts = {"thanks": "Thank you."}
        elif kind == "manager":
            golden += [
                call(
                    "create_ticket",
                    employee_id=leaver,
                    category="account",
                    subject=f"{leaver}: offboarding {name(leaver)} waits for HR termination",
                ),
                call("hold_ticket", ticket_id="TCK-00501", reason="hr"),
            ]
            invariants = [
                inv(
                    f"select count(*) from access_grants where employee_id = '{leaver}' and "
                    "status = 'revoked'",
                    0,
                    "nothing revoked",
                ),
                inv(
                    f"select sso_status from accounts where employee_id = '{leaver}'",
                    "active",
                    "account still active",
                ),
                inv(
                    "select status || ':' || hold_reason || ':' || category from tickets where "
                    "id = 'TCK-00501'",
                    "hold:hr:account",
                    "ticket on hold for HR",
                ),
            ]
            desc = f"{leaver} not terminated in HR yet -> ticket on hold (hr), nothing removed"
            said = {"leaver_status": "They're leaving us."}
            reacts = {"thanks": "Okay.", "accept": "Okay."}
            rubric = _RUBRIC
            reference = (
                f"HR hasn't recorded {name(leaver)}'s termination yet, so I haven't removed any "
                "access. I've opened a ticket that is on hold waiting for HR; we'll finish the "
                "offboarding once the termination is in the directory."
            )
        else:
            invariants = [
                inv(
                    f"select sso_status from accounts where employee_id = '{leaver}'",
                    "active",
                    "account still active",
                ),
            ]
            desc = f"{caller} is not {leaver}'s manager -> refuse"
            said = {}
            reacts = {"accept": "Fine."}
            read_only = True
            reference = (
                f"Only {name(leaver)}'s manager can request the offboarding, so I haven't "
                "changed anything."
            )
            reply = {"must_contain": ["manager"]}
        tasks.add(
            f,
            variant,
            employee=caller,
            description=desc,
            opening="Someone in my team has left the company. Please remove all their access.",
            goal="Have the leaver's access removed",
            facts={"leaver_email": email(leaver), "leaver_name": name(leaver), **said},
            reacts=reacts,
            patch=patch,
            golden=golden,
            invariants=invariants,
            tags=["multi-write"] if done else ["authority"],
            read_only=read_only,
            rubric=rubric,
            reference=reference,
            reply=reply,
        )
