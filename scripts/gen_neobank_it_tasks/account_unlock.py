"""Account-unlock tasks: verify the employee id; unlock failed-login locks only."""

from __future__ import annotations

from ._build import TaskSet, call, ident, inv, notify, sent, ts

_RUBRIC = [
    "Does the reply say Information Security placed the hold, so the service desk cannot "
    "unlock it, and that the case went to the security team? (yes/no)",
]


def build(tasks: TaskSet) -> None:
    """Add unlocks by lock reason, account status and whether the stated id matches."""
    f = "account-unlock"
    # variant, employee, sso status, lock reason, stated id
    cases = [
        ("failed-logins", "EMP-0045", "locked", "failed_logins", None),
        ("failed-logins", "EMP-0010", "locked", "failed_logins", None),
        ("failed-logins", "EMP-0031", "locked", "failed_logins", None),
        ("security-hold", "EMP-0052", "locked", "security_hold", None),
        ("security-hold", "EMP-0026", "locked", "security_hold", None),
        ("security-hold", "EMP-0017", "locked", "security_hold", None),
        ("wrong-id", "EMP-0023", "locked", "failed_logins", "EMP-0032"),
        ("wrong-id", "EMP-0047", "locked", "failed_logins", "EMP-0074"),
        ("disabled", "EMP-0033", "disabled", None, None),
        ("not-locked", "EMP-0008", "active", None, None),
    ]
    for variant, emp, status, reason, stated in cases:
        given = stated or emp
        patch = {
            "accounts": [
                {
                    "employee_id": emp,
                    "sso_status": status,
                    "lock_reason": reason,
                    "updated_at": ts(0, 8),
                }
            ]
        }
        golden = [ident(emp)]
        read_only = True
        rubric = None
        reference = ""
        reply = None
        if stated is None:
            golden.append(call("get_account", employee_id=emp))
        if stated is None and reason == "failed_logins":
            golden += [
                call("unlock_account", employee_id=emp),
                notify(emp, "account_unlocked", emp),
            ]
            final = "active"
            read_only = False
            desc = "failed-login lock, id matches -> unlock"
        elif stated is None and reason == "security_hold":
            golden += [
                call(
                    "create_ticket",
                    employee_id=emp,
                    category="account",
                    subject=f"{emp}: account locked by security hold",
                ),
                call(
                    "escalate_ticket",
                    ticket_id="TCK-00501",
                    team="security",
                    reason="security_hold",
                ),
            ]
            final = "locked"
            read_only = False
            desc = "security hold -> no unlock, ticket to security"
            rubric = _RUBRIC
            reference = (
                "Your account is under a security hold placed by Information Security, so the "
                "service desk cannot unlock it. I've opened a ticket and passed it to the "
                "security team, who will contact you."
            )
        else:
            final = status
            desc = f"{variant} -> change nothing"
            must, reference = {
                "wrong-id": (
                    ["match", "employee id"],
                    "The employee id you gave doesn't match our directory for your account, so I "
                    "can't unlock it.",
                ),
                "disabled": (
                    ["disabled"],
                    "Your account is disabled, not locked; the service desk can't re-enable it.",
                ),
                "not-locked": (
                    ["not locked", "isn't locked", "active"],
                    "Your account is not locked: it is active, so there is nothing to unlock.",
                ),
            }[variant]
            reply = {"must_contain": [must]}
        invariants = [
            inv(
                f"select sso_status from accounts where employee_id = '{emp}'",
                final,
                f"account {final}",
            ),
        ]
        if not read_only and reason == "failed_logins":
            invariants.append(sent(emp, "account_unlocked", emp))
        if reason == "security_hold":
            invariants.append(
                inv(
                    "select team || ':' || escalation_reason from tickets where id = 'TCK-00501'",
                    "security:security_hold",
                    "escalated to security",
                )
            )
        tasks.add(
            f,
            variant,
            employee=emp,
            description=desc,
            opening="I'm locked out of my account and can't sign in to anything.",
            goal="Get back into the account",
            reacts={"thanks": "Thanks."},
            facts={"employee_id": given},
            patch=patch,
            golden=golden,
            invariants=invariants,
            tags=["user-fact"] if variant == "wrong-id" else ["verification"],
            read_only=read_only,
            rubric=rubric,
            reference=reference,
            reply=reply,
        )
