"""Ticket tasks: priority by impact, routing to specialist teams, solve, vendor hold."""

from __future__ import annotations

from ._build import TaskSet, call, ident, inv, ticket

_RUBRIC = [
    "Does the reply say a closed ticket cannot be reopened and a new one is needed? (yes/no)",
]


def build(tasks: TaskSet) -> None:
    """Add follow-ups on an open ticket whose right change depends on what the user says."""
    f = "ticket-followup"
    # variant, employee, category, subject, line, action
    cases = [
        (
            "blocks-self",
            "EMP-0045",
            "software",
            "VPN drops every few minutes",
            "It stops me from doing any of my work.",
            ("update", {"priority": "high"}),
        ),
        (
            "blocks-self",
            "EMP-0030",
            "software",
            "Cannot open the KYC client",
            "I can't work at all without it.",
            ("update", {"priority": "high"}),
        ),
        (
            "blocks-team",
            "EMP-0025",
            "software",
            "Shared drive is read-only",
            "The whole operations team is stuck because of this.",
            ("update", {"priority": "urgent"}),
        ),
        (
            "blocks-team",
            "EMP-0053",
            "software",
            "Dashboards fail to load",
            "None of my team can work this morning.",
            ("update", {"priority": "urgent"}),
        ),
        (
            "hardware-fault",
            "EMP-0046",
            "hardware",
            "Docking station dead",
            "The dock has no power at all, even with another cable.",
            ("escalate", {"team": "field_services", "reason": "hardware_fault"}),
        ),
        (
            "hardware-fault",
            "EMP-0018",
            "hardware",
            "Laptop fan grinding",
            "The fan grinds loudly and the laptop shuts down when hot.",
            ("escalate", {"team": "field_services", "reason": "hardware_fault"}),
        ),
        (
            "compromise",
            "EMP-0037",
            "account",
            "Strange sign-in alerts",
            "I'm getting MFA prompts I never asked for.",
            ("escalate", {"team": "security", "reason": "security_hold"}),
        ),
        (
            "fixed",
            "EMP-0055",
            "software",
            "Printer driver missing",
            "It works now after the restart, you can close it.",
            ("update", {"status": "solved"}),
        ),
        (
            "fixed",
            "EMP-0022",
            "software",
            "Outlook keeps crashing",
            "The update fixed it, all good now.",
            ("update", {"status": "solved"}),
        ),
        (
            "vendor",
            "EMP-0032",
            "software",
            "Screen reader licence error",
            "The vendor told me they're sending a patch next week.",
            ("hold", {"reason": "vendor"}),
        ),
        (
            "closed",
            "EMP-0047",
            "software",
            "Email signature wrong",
            "Can you reopen my old ticket? It's wrong again.",
            ("none", {}),
        ),
    ]
    for n, (variant, emp, cat, subject, line, (action, args)) in enumerate(cases, 1):
        tid = f"TCK-{400 + n:05d}"
        extra = {"status": "closed"} if action == "none" else {}
        patch = ticket(tid, emp, cat, subject, **extra)
        golden = [ident(emp), call("list_employee_tickets", employee_id=emp)]
        read_only = action == "none"
        rubric = None
        reference = ""
        reply = None
        if action == "update":
            golden.append(call("update_ticket", ticket_id=tid, **args))
            key, value = next(iter(args.items()))
            invariants = [
                inv(f"select {key} from tickets where id = '{tid}'", value, f"{key} {value}")
            ]
        elif action == "escalate":
            golden.append(call("escalate_ticket", ticket_id=tid, **args))
            invariants = [
                inv(
                    f"select team || ':' || escalation_reason from tickets where id = '{tid}'",
                    f"{args['team']}:{args['reason']}",
                    "routed",
                )
            ]
        elif action == "hold":
            golden.append(call("hold_ticket", ticket_id=tid, **args))
            invariants = [
                inv(
                    f"select status || ':' || hold_reason from tickets where id = '{tid}'",
                    "hold:vendor",
                    "on hold for the vendor",
                )
            ]
        else:
            invariants = [
                inv(
                    f"select status from tickets where id = '{tid}'",
                    "closed",
                    "closed ticket untouched",
                )
            ]
            rubric = _RUBRIC
            reference = (
                f"Ticket {tid} is closed and can't be reopened; I can open a new "
                "ticket for you instead."
            )
            reply = {"must_contain": ["closed"]}
        tasks.add(
            f,
            variant,
            employee=emp,
            description=f"{tid} ({cat}): {line} -> {action} {args}",
            opening=f"I'm following up on my ticket about: {subject.lower()}.",
            goal="Get the ticket moving",
            reacts={"thanks": "Thanks."},
            facts={"impact_or_update": line},
            patch=patch,
            golden=golden,
            invariants=invariants,
            tags=["user-fact"],
            read_only=read_only,
            rubric=rubric,
            reference=reference,
            reply=reply,
        )
