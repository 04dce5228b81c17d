"""Shared pieces of the auto insurance task generator: seed lookups, dates, patches, calls.

And the collector.

The seed lookups are built once at import from the deterministic domain seed and never written.
Tasks accumulate in a `TaskSet` the caller creates and passes to every family.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any, Final

from scripts._task_files import write_families
from scripts._user_specs import behaviour, fact, user_facts

from statebox.domains.auto_insurance.rating import age_on
from statebox.domains.auto_insurance.seed import SEED_DATE, add_months, seed_rows

__all__ = [
    "BY_ID",
    "NOW",
    "SEED",
    "TODAY",
    "Patch",
    "Row",
    "TaskSet",
    "add_months",
    "age_on",
    "call",
    "cancellation",
    "claims_of",
    "coverages_of",
    "customer_of",
    "day",
    "drivers_of",
    "fee",
    "fmt",
    "ident",
    "installments_of",
    "inv",
    "last_paid",
    "late_paid",
    "merge",
    "next_unpaid",
    "note",
    "open_claims",
    "past_due",
    "pick",
    "plan_of",
    "policies",
    "ts",
    "vehicles_of",
    "verify",
]

NOW: Final = "2025-11-03T14:00:00+00:00"
TODAY: Final = SEED_DATE
Row = dict[str, Any]
Patch = dict[str, list[Row]]

SEED: Final[Mapping[str, Sequence[Row]]] = seed_rows()
BY_ID: Final[Mapping[str, Mapping[str, Row]]] = {
    table: {str(r["id"]): r for r in rows}
    for table, rows in SEED.items()
    if table != "installment_plans"
}
OPEN_CLAIM: Final = ("open", "awaiting_documents", "under_review")

# ----------------------------------------------------------------------------- lookups


def policies() -> list[Row]:
    """Every seed policy, in id order."""
    return list(SEED["policies"])


def customer_of(policy_id: str) -> Row:
    """The policy's customer row."""
    return BY_ID["customers"][BY_ID["policies"][policy_id]["customer_id"]]


def _of(table: str, policy_id: str) -> list[Row]:
    return [r for r in SEED[table] if r["policy_id"] == policy_id]


def vehicles_of(policy_id: str) -> list[Row]:
    """The policy's seed vehicles."""
    return _of("vehicles", policy_id)


def drivers_of(policy_id: str) -> list[Row]:
    """The policy's seed drivers."""
    return _of("drivers", policy_id)


def coverages_of(
    policy_id: str, vehicle_id: str | None = None, kind: str | None = None
) -> list[Row]:
    """The policy's seed coverages, optionally of one vehicle and kind."""
    return [
        c
        for c in _of("coverages", policy_id)
        if (vehicle_id is None or c["vehicle_id"] == vehicle_id)
        and (kind is None or c["kind"] == kind)
    ]


def installments_of(policy_id: str) -> list[Row]:
    """The policy's seed installments, by sequence."""
    return sorted(_of("installments", policy_id), key=lambda r: r["seq"])


def claims_of(policy_id: str) -> list[Row]:
    """The policy's seed claims."""
    return _of("claims", policy_id)


def open_claims(policy_id: str) -> list[Row]:
    """The policy's seed claims that are still open."""
    return [c for c in claims_of(policy_id) if c["status"] in OPEN_CLAIM]


def plan_of(policy_id: str) -> Row:
    """The policy's installment plan row."""
    return next(p for p in SEED["installment_plans"] if p["policy_id"] == policy_id)


def pick(pred: Callable[[Row], bool], n: int, skip: int = 0) -> list[str]:
    """The ids of the first ``n`` policies (after ``skip``) satisfying ``pred``; asserts enough."""
    ids = [p["id"] for p in policies() if pred(p)][skip : skip + n]
    assert len(ids) == n, f"only {len(ids)} policies match"
    return ids


# ----------------------------------------------------------------------------- dates


def day(days: int) -> date:
    """The date ``days`` days after the clock (negative: before)."""
    return TODAY + timedelta(days=days)


def ts(d: date, hour: int = 10) -> str:
    """An ISO timestamp at ``hour`` UTC on ``d``."""
    return datetime.combine(d, time(hour), tzinfo=UTC).isoformat()


# ----------------------------------------------------------------------------- patches


def merge(*patches: Patch) -> Patch:
    """Concatenate patches table by table."""
    out: Patch = defaultdict(list)
    for p in patches:
        for table, rows in p.items():
            out[table].extend(rows)
    return dict(out)


def last_paid(policy_id: str) -> Row:
    """The policy's most recently due paid installment."""
    return [i for i in installments_of(policy_id) if i["status"] == "paid"][-1]


def next_unpaid(policy_id: str) -> Row:
    """The policy's first unpaid installment."""
    return next(i for i in installments_of(policy_id) if i["status"] == "unpaid")


def past_due(policy_id: str, days: int) -> tuple[Patch, Patch, str]:
    """Make the last paid installment unpaid and due ``days`` days ago (its payment removed).

    Returns:
        (patch, delete, installment id).
    """
    inst = last_paid(policy_id)
    payment = next(p for p in SEED["payments"] if p["installment_id"] == inst["id"])
    due = day(-days).isoformat()
    patch: Patch = {
        "installments": [
            {
                "id": inst["id"],
                "status": "unpaid",
                "paid_at": None,
                "due_date": due,
                "original_due_date": due,
            }
        ]
    }
    return patch, {"payments": [{"id": payment["id"]}]}, inst["id"]


def late_paid(policy_id: str, due_days_ago: int, paid_after_days: int) -> tuple[Patch, str]:
    """Re-date the last paid installment: due ``due_days_ago`` days ago, paid that many days later.

    ``paid_after_days`` is the delay between due date and payment.
    """
    inst = last_paid(policy_id)
    payment = next(p for p in SEED["payments"] if p["installment_id"] == inst["id"])
    due = day(-due_days_ago)
    paid = ts(due + timedelta(days=paid_after_days), 8)
    patch: Patch = {
        "installments": [
            {
                "id": inst["id"],
                "due_date": due.isoformat(),
                "original_due_date": due.isoformat(),
                "paid_at": paid,
            }
        ],
        "payments": [{"id": payment["id"], "created_at": paid}],
    }
    return patch, inst["id"]


def fee(
    policy_id: str,
    fee_id: str,
    installment_id: str | None,
    created: date,
    status: str = "charged",
    kind: str = "late_fee",
    waive_reason: str | None = None,
) -> Patch:
    """One fee row."""
    return {
        "fees": [
            {
                "id": fee_id,
                "policy_id": policy_id,
                "installment_id": installment_id,
                "kind": kind,
                "amount": 15.0 if kind == "late_fee" else 25.0,
                "status": status,
                "waive_reason": waive_reason,
                "created_at": ts(created, 6),
                "resolved_at": None if status == "charged" else ts(created, 12),
            }
        ]
    }


def cancellation(
    policy_id: str, cancellation_id: str, effective: date, reason: str, created: date
) -> Patch:
    """A scheduled cancellation and the policy's pending status."""
    return {
        "cancellations": [
            {
                "id": cancellation_id,
                "policy_id": policy_id,
                "reason": reason,
                "effective_date": effective.isoformat(),
                "status": "scheduled",
                "created_at": ts(created, 6),
                "rescinded_at": None,
            }
        ],
        "policies": [{"id": policy_id, "status": "pending_cancellation"}],
    }


def fmt(d: date) -> str:
    """A date as the user says it (ISO, so the agent can pass it on unchanged)."""
    return d.isoformat()


# ----------------------------------------------------------------------------- calls


def call(tool: str, **args: Any) -> Row:
    """One golden call."""
    return {"tool": tool, "args": args}


def verify(policy_id: str, dob: str | None = None, zip_code: str | None = None) -> Row:
    """The verification call, with the customer's true details unless overridden."""
    c = customer_of(policy_id)
    return call(
        "verify_identity",
        policy_id=policy_id,
        date_of_birth=dob or c["date_of_birth"],
        zip_code=zip_code or c["zip_code"],
    )


def ident(policy_id: str) -> list[Row]:
    """Verification then the policy read every trajectory starts with."""
    return [verify(policy_id), call("get_policy", policy_id=policy_id)]


def inv(sql: str, equals: Any, description: str) -> Row:
    """A SQL invariant."""
    return {"sql": sql, "equals": equals, "description": description}


# ----------------------------------------------------------------------------- user facts

FACTS: Final[Mapping[str, Row]] = {
    "policy_id": fact("policy number", "policy id", label="policy number"),
    "date_of_birth": fact(
        "date of birth", "birth date", "birthday", "dob", "born", label="date of birth"
    ),
    "zip_code": fact("zip code", "zip", "postal code", label="ZIP code"),
    "key_fact": fact(
        "why and from when",
        "reason",
        "why",
        "when",
        "which date",
        "what date",
        "effective date",
        say="{value}",
    ),
    "end_date": fact(
        "when should it end",
        "when",
        "which date",
        "what date",
        "effective date",
        "end on",
        label="end date",
        say="End it on {value}, please.",
    ),
    "new_phone": fact(
        "new phone",
        "new number",
        "phone number",
        label="new phone",
        say="The new phone is {value}.",
    ),
    "new_email": fact(
        "new email", "email address", "email", label="new email", say="The new email is {value}."
    ),
    "new_zip": fact(
        "new zip", "new zip code", "new address", label="new ZIP", say="The new ZIP is {value}."
    ),
    "deductible": fact(
        "new deductible",
        "deductible",
        "how much",
        "which amount",
        "new amount",
        say="Make it ${value}, please.",
    ),
    "coverage": fact(
        "which coverage", "which coverage", "which deductible", "which one", say="{value}"
    ),
    "limit": fact(
        "which limits", "limit", "limits", "how much", "which level", say="Let's go to {value}."
    ),
    "sent": fact(
        "which documents did you send",
        "which documents",
        "what did you send",
        "documents",
        "what you sent",
        say="I emailed {value} yesterday.",
    ),
    "claim": fact(
        "which claim", "which claim", "claim number", "claim id", "what claim", say="{value}"
    ),
    "driver_name": fact(
        "driver's name",
        "driver name",
        "their name",
        "name of the driver",
        "driver's full name",
        "who is the driver",
        "who would you like to add",
        "who do you want to add",
        label="driver's name",
        say="The driver is {value}.",
    ),
    "driver_dob": fact(
        "driver's date of birth",
        "their date of birth",
        "driver date of birth",
        "when was the driver born",
        "when were they born",
        "their birth date",
        label="driver's date of birth",
        say="They were born on {value}.",
    ),
    "driver_relationship": fact(
        "how are they related to you",
        "relationship",
        "related",
        "how do you know",
        "who is this driver",
        say="They're my {value}.",
    ),
    "license_number": fact(
        "licence number",
        "license number",
        "licence",
        "license",
        "driver's license",
        label="licence number",
        say="Their licence number is {value}.",
    ),
    "accidents_3y": fact(
        "how many at-fault accidents",
        "accidents",
        "at-fault",
        "accident",
        label="at-fault accidents in the last 3 years",
        say="{value} at-fault accidents in the last 3 years.",
    ),
    "violations_3y": fact(
        "how many moving violations",
        "violations",
        "tickets",
        "moving violations",
        label="moving violations in the last 3 years",
        say="{value} moving violations in the last 3 years.",
    ),
    "permit": fact("do they have a licence", "licence", "license", "permit", say="{value}"),
    "loss_date": fact(
        "when did it happen",
        "when did",
        "what date",
        "which date",
        "date of the",
        "when it happened",
        "when was",
        label="date it happened",
        say="It happened on {value}.",
    ),
    "what_happened": fact("what happened", "describe", "how did", "tell me about", say="{value}"),
    "estimate_usd": fact(
        "damage estimate",
        "estimate",
        "how much",
        "damage",
        "cost",
        "quote",
        label="damage estimate",
        say="The damage is about ${value}.",
    ),
    "injuries": fact(
        "was anyone hurt", "hurt", "injured", "anyone hurt", "injuries", say="{value}"
    ),
    "police_report_number": fact(
        "police report",
        "report number",
        label="police report number",
        say="The police report number is {value}.",
    ),
    "police_report": fact("did you report it to the police", "police", "report", say="{value}"),
    "relationship": fact(
        "who am I speaking with",
        "who are you",
        "are you the policyholder",
        "your relationship",
        "relationship",
        "calling for",
        "are you the named",
        say="{value}",
    ),
    "method": fact(
        "how would you like to pay",
        "payment method",
        "which card",
        "how do you want to pay",
        "pay with",
        say="{value}",
    ),
    "pays_fee": fact("will you pay the fee", "fee", "late fee", "pay the fee", say="{value}"),
    "vin": fact("vin", "vehicle identification number", label="VIN", say="The VIN is {value}."),
    "usage": fact(
        "how will you use it",
        "use",
        "usage",
        "how will you",
        "what will you",
        "drive it",
        say="{value}",
    ),
    "use": fact(
        "how will you use it",
        "use",
        "usage",
        "how will you",
        "what will you",
        "drive it",
        say="{value}",
    ),
    "ownership": fact(
        "do you own it",
        "own it",
        "financed",
        "lease",
        "loan",
        "lienholder",
        "ownership",
        say="{value}",
    ),
    "lienholder": fact(
        "lienholder", "lender", "financed", "loan", say="It's financed through {value}."
    ),
    "coverage_choice": fact(
        "which coverage would you like",
        "coverage",
        "which coverage",
        "what coverage",
        "full coverage",
        say="{value}",
    ),
    "vehicle": fact(
        "which car is it", "which car", "which vehicle", "year", "make", "model", say="{value}"
    ),
    "pay_date": fact(
        "when can you pay",
        "which date",
        "what date",
        "when would you",
        "new due date",
        "when could you",
        "pay on",
        label="date you can pay",
        say="I can pay on {value}.",
    ),
    "hardship": fact(
        "why do you need more time",
        "why",
        "reason",
        "what happened",
        "circumstances",
        say="Honestly {value}.",
    ),
    "wanted_plan": fact(
        "which payment plan",
        "which plan",
        "payment plan",
        "how would you like to pay",
        "how often",
        "plan",
        say="I'd like to {value}.",
    ),
    "date_wanted": fact(
        "which date", "what date", "until when", "new due date", "how long", "when", say="{value}"
    ),
    "loyalty": fact(
        "how long have you been with us", "how long", "years", "customer for", say="{value}"
    ),
    "which": fact(
        "is it this fee", "which one", "which fee", "this one", "is it the", say="{value}"
    ),
}
"""Every auto-insurance fact: the phrases an agent may ask for it with, and the user's words."""

CHANGED_FROM: Final[Mapping[str, str]] = {
    "cancellation": "Hi, I'd like to lower the premium on my car insurance.",
    "claim-followup": "Hi, I'd like to report a new claim.",
    "contact-update": "Hi, I need to change the address on my policy.",
    "coverage-change": "Hi, I'd like to know how much I still owe on my car insurance.",
    "driver-change": "Hi, I'd like to add a car to my policy.",
    "fnol": "Hi, I'd like to check on an existing claim.",
    "identity": "Hi, I'd like to know how much I owe on my policy.",
    "late-fee": "Hi, I'd like to change my payment date.",
    "payment-extension": "Hi, I'd like to switch to monthly payments.",
    "payment-plan": "Hi, I'd like a few more days to pay my bill.",
    "payments": "Hi, I'd like to have a late fee taken off my account.",
    "vehicle-change": "Hi, I'd like to add another driver to my policy.",
}
"""The related request a changes-goal user opens with, per family."""


# ----------------------------------------------------------------------------- tasks


def _subject_checks(golden: list[Row]) -> list[Row]:
    """Every created ticket's subject must name its policy (policy §7)."""
    out = []
    for c in golden:
        if c["tool"] == "create_ticket":
            a = c["args"]
            assert a["policy_id"] in a["subject"], f"subject {a['subject']!r} lacks the policy"
            out.append(
                {
                    "table": "tickets",
                    "column": "subject",
                    "where": {"customer_id": a["customer_id"]},
                    "must_contain": [a["policy_id"]],
                }
            )
    return out


def note(table: str, column: str, where: Row, *facts: Any) -> Row:
    """A text check: the rows the agent wrote in ``table`` matching ``where`` carry ``facts``."""
    return {"table": table, "column": column, "where": where, "must_contain": list(facts)}


def _mentioned(value: Any, text: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9]){re.escape(str(value))}(?![A-Za-z0-9])", text) is not None


class TaskSet:
    """Collects tasks by family; ids are numbered per family and variant in insertion order."""

    def __init__(self) -> None:
        self._families: dict[str, list[Row]] = defaultdict(list)
        self._counters: dict[tuple[str, str], int] = defaultdict(int)

    def add(
        self,
        family: str,
        variant: str,
        *,
        policy: str,
        description: str,
        opening: str,
        goal: str,
        golden: list[Row],
        facts: Row | None = None,
        info: Row | None = None,
        reacts: Row | None = None,
        persona: str | None = None,
        patch: Patch | None = None,
        delete: Patch | None = None,
        invariants: list[Row] | None = None,
        tags: list[str] | None = None,
        read_only: bool = False,
        refusal: bool = False,
        rubric: list[str] | None = None,
        reference_response: str = "",
        identity: Row | None = None,
        text: list[Row] | None = None,
        reply: Row | None = None,
    ) -> None:
        """Append one task to its family.

        ``facts`` are the outcome-deciding facts only the user holds (none may be in the
        opening), and the task is tagged ``user-fact``; ``info`` are facts the user holds
        that do not decide the outcome; ``reacts`` the `behaviour` keys. ``identity``
        overrides the verification facts (a caller who misremembers them); ``persona``
        the policyholder persona (a caller who is someone else).
        ``text`` are checks on the text the agent writes (every ticket's subject must name
        its policy, added here); ``reply`` the facts the agent's replies must (not) carry,
        said by the ``reference_response``.
        """
        self._counters[family, variant] += 1
        task_id = f"auto_insurance.{family}.{variant}.{self._counters[family, variant]:03d}"
        cust = customer_of(policy)
        for key, value in (facts or {}).items():
            v = value["value"] if isinstance(value, dict) else value
            assert not _mentioned(v, opening), f"{task_id}: fact {key} is in the opening"
        if rubric:
            assert reference_response, f"{task_id}: a rubric needs a reference_response"
        values: Row = (
            identity
            if identity is not None
            else {
                "policy_id": policy,
                "date_of_birth": cust["date_of_birth"],
                "zip_code": cust["zip_code"],
            }
        )
        values = {**values, **(facts or {}), **(info or {})}
        initial: Row = dict(patch or {})
        if delete:
            initial["delete"] = delete
        task: Row = {
            "id": task_id,
            "domain": "auto_insurance",
            "split": "train" if len(self._families[family]) % 5 == 1 else "test",
            "now": NOW,
            "description": description,
        }
        if initial:
            task["initial_state"] = initial
        task["user"] = {
            "opening": opening,
            "persona": persona
            or f"{cust['first_name']} {cust['last_name']}, policyholder of {policy}",
            "facts": user_facts(FACTS, values, task_id),
            "goal": goal,
        }
        conduct = behaviour(**{"changed_from": CHANGED_FROM[family], **(reacts or {})})
        if conduct:
            task["user"]["behaviour"] = conduct
        task["golden"] = golden
        checks: Row = {}
        if invariants:
            checks["invariants"] = invariants
        text = [*(text or []), *_subject_checks(golden)]
        if text:
            checks["text"] = text
        if reply:
            assert reference_response, f"{task_id}: a reply check needs a reference_response"
            checks["reply"] = reply
        if rubric:
            checks["response"] = {"rubric": rubric}
        if checks:
            task["checks"] = checks
        if reference_response:
            task["reference_response"] = reference_response
        labels = set(tags or [])
        if facts:
            labels.add("user-fact")
        if refusal or read_only:
            labels.add("refusal")
        task["tags"] = sorted(labels)
        task["read_only"] = read_only
        self._families[family].append(task)

    def all(self) -> list[Row]:
        """Every task, by family then insertion order."""
        return [t for f in sorted(self._families) for t in self._families[f]]

    def counts(self) -> dict[str, int]:
        """Tasks per family, by family name."""
        return {f: len(t) for f, t in sorted(self._families.items())}

    def write(self, out: Path) -> None:
        """Write one YAML list per family into ``out``, removing files of families not built."""
        write_families(self._families, out)
