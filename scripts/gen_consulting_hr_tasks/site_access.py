"""Client-site access tasks: prerequisites (assignment, NDA, clearance) and the expiry cap."""

from __future__ import annotations

from ._build import (
    CLIENT,
    EMP,
    ENG,
    SEED,
    Patch,
    Row,
    TaskSet,
    active_assignments,
    call,
    count_new,
    day,
    find,
    inv,
)

_RANK = {"none": 0, "baseline": 1, "secret": 2}


def _nda(emp: str, client: str) -> Row | None:
    return next(
        (n for n in SEED["ndas"] if n["employee_id"] == emp and n["client_id"] == client), None
    )


def _engagement(emp: str) -> Row:
    (a,) = active_assignments(emp)
    return ENG[a["engagement_id"]]


def _reads(emp: str, client: str) -> list[Row]:
    return [
        find(emp),
        call("get_employee", employee_id=emp),
        call("get_client", client_id=client),
        call("get_employee_access", employee_id=emp),
    ]


def _no_grant(emp: str) -> Row:
    return count_new("site_access", "no access granted", f"employee_id = '{emp}'")


def build(tasks: TaskSet) -> None:
    """Add grants with the expiry cap, NDA by envelope, refusals and clearance escalations."""
    f = "site-access"
    grants: list[tuple[str, Patch, str]] = [
        ("EMP-0016", {}, "valid NDA, baseline clearance"),
        ("EMP-0019", {}, "valid NDA, no clearance needed"),
        ("EMP-0015", {}, "client needs no NDA"),
        ("EMP-0008", {}, "manager, secret clearance"),
        ("EMP-0031", {"engagements": [{"id": "ENG-109", "end_date": day(30)}]}, "engagement ends"),
    ]
    for emp, patch, why in grants:
        eng = _engagement(emp)
        end = next((r["end_date"] for r in patch.get("engagements", [])), eng["end_date"])
        client = CLIENT[eng["client_id"]]
        nda = _nda(emp, client["id"])
        assert not client["requires_nda"] or (nda and nda["expires_on"] > day(0)), emp
        assert _RANK[EMP[emp]["clearance_level"]] >= _RANK[client["required_clearance"]], emp
        expires = min(end, day(90))
        tasks.add(
            f,
            "grant",
            requester=emp,
            description=f"{why}; expiry = min(engagement end {end}, today+90) = {expires}.",
            opening=f"I need badge access to the {client['name']} site for my engagement.",
            goal=f"Get site access at {client['name']}",
            reacts={"agree": "Yes, please."},
            patch=patch,
            golden=[
                *_reads(emp, client["id"]),
                call(
                    "grant_site_access",
                    employee_id=emp,
                    client_id=client["id"],
                    expires_on=expires,
                ),
            ],
            invariants=[
                inv(
                    f"select expires_on from site_access where employee_id = '{emp}' "
                    f"and client_id = '{client['id']}' and status = 'active'",
                    expires,
                    "access capped at the earlier date",
                )
            ],
        )
    envelopes = [
        ("EMP-0013", "ENV-5521-QX", "no NDA on file"),
        ("EMP-0033", "ENV-7310-LM", "no NDA on file"),
        ("EMP-0028", "ENV-2088-TC", "NDA expired last week"),
    ]
    for emp, envelope, why in envelopes:
        eng = _engagement(emp)
        client = CLIENT[eng["client_id"]]
        nda = _nda(emp, client["id"])
        expired: Patch = {}
        if nda is not None:
            expired = {"ndas": [{"id": nda["id"], "expires_on": day(-6)}]}
        assert _RANK[EMP[emp]["clearance_level"]] >= _RANK[client["required_clearance"]], emp
        expires = min(eng["end_date"], day(90))
        tasks.add(
            f,
            "nda-envelope",
            requester=emp,
            description=f"{why}; the employee signed today (envelope {envelope}): record, grant.",
            opening=f"Can you set up my access to the {client['name']} site?",
            goal=f"Get site access at {client['name']}",
            reacts={"thanks": "Great, thanks."},
            facts={"envelope_id": envelope},
            patch=expired,
            golden=[
                *_reads(emp, client["id"]),
                call("record_nda", employee_id=emp, client_id=client["id"], envelope_id=envelope),
                call(
                    "grant_site_access",
                    employee_id=emp,
                    client_id=client["id"],
                    expires_on=expires,
                ),
            ],
            invariants=[
                inv(
                    f"select envelope_id from ndas where employee_id = '{emp}' "
                    f"and client_id = '{client['id']}' and expires_on > '{day(0)}'",
                    envelope,
                    "NDA recorded",
                ),
                inv(
                    f"select expires_on from site_access where employee_id = '{emp}' "
                    "and status = 'active'",
                    expires,
                    "access granted",
                ),
            ],
        )
    for emp, expiry in (("EMP-0004", 0), ("EMP-0034", None)):
        eng = _engagement(emp)
        client = CLIENT[eng["client_id"]]
        nda = _nda(emp, client["id"])
        assert nda is not None
        state = "expires today" if expiry is not None else "is missing"
        tasks.add(
            f,
            "nda-refuse",
            requester=emp,
            description=f"NDA {state} and no new envelope: refuse, no change.",
            opening=f"Please give me access to the {client['name']} site, I'm there tomorrow.",
            goal=f"Get site access at {client['name']}",
            info={"nda_signed": "I haven't signed anything new, no."},
            reacts={
                "pushback": 1,
                "push": "Can't you just grant it?",
                "accept": "Okay, I'll sign it first.",
            },
            patch={"ndas": [{"id": nda["id"], "expires_on": day(0)}]} if expiry is not None else {},
            delete={"ndas": [{"id": nda["id"]}]} if expiry is None else None,
            golden=_reads(emp, client["id"]),
            invariants=[_no_grant(emp)],
            read_only=True,
            reply={"must_contain": [["nda", "non-disclosure"]]},
            rubric=[
                "Does the reply say a valid NDA for the client is needed before access? (yes/no)",
                "Does the reply avoid saying that access was granted? (yes/no)",
            ],
            reference=(
                f"I can't grant access to the {client['name']} site yet: you need a valid NDA "
                "for this client and there is none on file that is still valid. Please sign "
                "the NDA through e-signature and come back with the envelope reference."
            ),
        )
    for emp in ("EMP-0032", "EMP-0014"):
        eng = _engagement(emp)
        client = CLIENT[eng["client_id"]]
        need = client["required_clearance"]
        assert _RANK[EMP[emp]["clearance_level"]] < _RANK[need]
        nda = _nda(emp, client["id"])
        assert nda is not None and nda["expires_on"] > day(0)
        tasks.add(
            f,
            "clearance",
            requester=emp,
            description=f"Clearance {EMP[emp]['clearance_level']} < {need}: escalate to security.",
            opening=f"I've been staffed at {client['name']}; can I get a site badge?",
            goal=f"Get site access at {client['name']}",
            reacts={
                "accept": "Understood, thanks for raising it. Bye.",
                "thanks": "Understood, thanks for raising it. Bye.",
            },
            golden=[
                *_reads(emp, client["id"]),
                call(
                    "create_ticket",
                    employee_id=emp,
                    category="site_access",
                    subject=f"{emp}: site access at {client['name']} needs {need} clearance",
                ),
                call(
                    "escalate_ticket",
                    ticket_id="TKT-00501",
                    team="security",
                    reason="clearance_required",
                ),
            ],
            invariants=[
                _no_grant(emp),
                inv(
                    "select escalation_reason from tickets where id = 'TKT-00501'",
                    "clearance_required",
                    "with security",
                ),
            ],
            refusal=True,
            rubric=[
                f"Does the reply say {need} clearance is required for this client? (yes/no)",
                "Does the reply say the request went to the security team? (yes/no)",
            ],
            reference=(
                f"The {client['name']} site requires {need} clearance, which you don't hold yet, "
                "so I can't grant access. I've opened ticket TKT-00501 and escalated it to "
                "Security, who sponsor clearance upgrades."
            ),
        )
    emp, client = "EMP-0015", CLIENT["CLI-03"]
    tasks.add(
        f,
        "no-assignment",
        requester=emp,
        description="No assignment with the client: refuse, no change.",
        opening=f"Can I get access to the {client['name']} site? I want to visit a colleague.",
        goal="Get site access",
        info={"on_engagement": "I'm not on that engagement, no."},
        reacts={"accept": "Okay."},
        golden=[find(emp), call("get_employee", employee_id=emp)],
        invariants=[_no_grant(emp)],
        read_only=True,
        reply={"must_contain": [["assignment", "assigned", "engagement"]]},
        rubric=["Does the reply say access needs an active assignment with that client? (yes/no)"],
        reference=(
            f"I'm sorry, site access to {client['name']} is only for people with an active "
            "assignment on one of its engagements, and you have none, so I can't grant it."
        ),
    )
    emp = "EMP-0012"
    tasks.add(
        f,
        "already-granted",
        requester=emp,
        description="Active access already exists (SAC-00002): no change.",
        opening="I need a badge for the Harbor Freight Logistics site.",
        goal="Have site access at Harbor Freight Logistics",
        reacts={"thanks": "Oh, I already have it? Great. Thanks."},
        golden=[find(emp), call("get_employee_access", employee_id=emp)],
        invariants=[_no_grant(emp)],
        read_only=True,
        reply={"must_contain": ["already"]},
        reference="You already have active access to the Harbor Freight Logistics site, so "
        "there is nothing to add.",
    )
