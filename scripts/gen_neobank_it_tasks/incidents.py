"""Security-incident tasks: lost devices (encryption, hours missing) and phishing levels."""

from __future__ import annotations

from typing import Any

from ._build import DEVICE_OF, TaskSet, call, ident, inv, notify, says, sent

_RUBRIC = [
    "Does the reply tell the employee they must set a new password at next sign-in? (yes/no)",
]


def build(tasks: TaskSet) -> None:
    """Add lost-device and phishing reports whose severity and actions depend on user facts."""
    f = "security-incident"
    # lost devices: variant, employee, encrypted, hours missing
    lost = [
        ("lost-recent", "EMP-0045", 1, 5),
        ("lost-recent", "EMP-0018", 1, 24),
        ("lost-wipe", "EMP-0032", 1, 30),
        ("lost-wipe", "EMP-0006", 1, 72),
        ("lost-unencrypted", "EMP-0053", 0, 3),
        ("lost-unencrypted", "EMP-0026", 0, 48),
    ]
    for variant, emp, encrypted, hours in lost:
        dev = DEVICE_OF[emp]
        patch: dict[str, list[dict[str, Any]]] = {}
        if not encrypted:
            patch = {"devices": [{"id": dev["id"], "encrypted": 0}]}
        severity = "high" if encrypted else "critical"
        wipe = (not encrypted) or hours > 24
        golden = [
            ident(emp),
            call("list_employee_devices", employee_id=emp),
            call(
                "report_security_incident",
                reporter_id=emp,
                category="lost_device",
                severity=severity,
                description=f"Laptop missing for about {hours} hours.",
                device_id=dev["id"],
            ),
            call("mark_device_lost", device_id=dev["id"]),
        ]
        if wipe:
            golden.append(call("remote_wipe_device", device_id=dev["id"]))
        golden.append(notify(emp, "incident_ack", "INC-00501"))
        tasks.add(
            f,
            variant,
            employee=emp,
            description=f"laptop lost {hours}h ago, encrypted={encrypted} -> {severity}, "
            + ("wipe" if wipe else "mark lost only"),
            opening="I can't find my work laptop anywhere. I think I lost it.",
            goal="Report the lost laptop",
            reacts={"thanks": "Thanks."},
            facts={"hours_missing": hours},
            patch=patch or None,
            golden=golden,
            invariants=[
                inv(
                    "select category || ':' || severity || ':' || device_id from "
                    "security_incidents where id = 'INC-00501'",
                    f"lost_device:{severity}:{dev['id']}",
                    "incident recorded",
                ),
                inv(
                    f"select status from devices where id = '{dev['id']}'",
                    "wiped" if wipe else "lost",
                    "device handled",
                ),
                sent(emp, "incident_ack", "INC-00501"),
            ],
            tags=["user-fact", "threshold"],
            text=[says("security_incidents", "description", {"reporter_id": emp}, hours)],
        )
    # phishing: variant, employee, line, category, severity, reset
    phish = [
        (
            "phish-received",
            "EMP-0046",
            "I didn't click anything, I just opened the email.",
            "phishing",
            "low",
            False,
        ),
        (
            "phish-received",
            "EMP-0038",
            "I only read it; no links, no attachments.",
            "phishing",
            "low",
            False,
        ),
        (
            "phish-clicked",
            "EMP-0027",
            "I clicked the link but closed the page without typing.",
            "phishing",
            "medium",
            False,
        ),
        (
            "phish-clicked",
            "EMP-0055",
            "I opened the attachment, nothing else.",
            "phishing",
            "medium",
            False,
        ),
        (
            "phish-credentials",
            "EMP-0033",
            "I clicked and typed my password before I noticed.",
            "account_compromise",
            "high",
            True,
        ),
        (
            "phish-credentials",
            "EMP-0011",
            "I entered my password and an MFA code on the page.",
            "account_compromise",
            "high",
            True,
        ),
    ]
    did = {
        "phish-received": ["opened", "read", "not click", "didn't click", "no links"],
        "phish-clicked": ["clicked", "attachment"],
        "phish-credentials": ["password", "credentials"],
    }
    for variant, emp, line, category, severity, reset in phish:
        golden = [
            ident(emp),
            call(
                "report_security_incident",
                reporter_id=emp,
                category=category,
                severity=severity,
                description=line,
            ),
        ]
        if reset:
            golden.append(call("force_password_reset", employee_id=emp))
        golden.append(notify(emp, "incident_ack", "INC-00501"))
        tasks.add(
            f,
            variant,
            employee=emp,
            description=f"phishing, {line} -> {category}/{severity}"
            + (", force password reset" if reset else ""),
            opening="I got a weird email asking me to log in to the payroll portal. Phishing?",
            goal="Report the suspicious email",
            reacts={"thanks": "Okay, thank you."},
            facts={"what_happened": line},
            golden=golden,
            invariants=[
                inv(
                    "select category || ':' || severity from security_incidents where id = "
                    "'INC-00501'",
                    f"{category}:{severity}",
                    "incident classified",
                ),
                inv(
                    f"select must_reset_password from accounts where employee_id = '{emp}'",
                    int(reset),
                    "password reset only after credentials were entered",
                ),
                sent(emp, "incident_ack", "INC-00501"),
            ],
            tags=["user-fact"],
            text=[says("security_incidents", "description", {"reporter_id": emp}, did[variant])],
            rubric=_RUBRIC if reset else None,
            reference=(
                "I've logged a high-severity account compromise incident and expired your "
                "password: you must set a new password at next sign-in."
            )
            if reset
            else "",
        )
