"""Shared pieces of the consulting_hr task generator: seed lookups, dates, calls, the collector.

The seed lookups are built once at import from the deterministic domain seed and only read.
Tasks accumulate in a `TaskSet` the caller creates and passes to every family.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any, Final

from scripts._checks import says as says
from scripts._task_files import write_families
from scripts._user_specs import behaviour, fact, user_facts

from statebox.domains.consulting_hr.seed import SEED_DATE, seed_rows

DOMAIN: Final = "consulting_hr"
NOW: Final = "2026-03-02T10:00:00+00:00"
TODAY: Final = SEED_DATE
Row = dict[str, Any]
Patch = dict[str, list[Row]]

SEED: Final[Mapping[str, Sequence[Row]]] = seed_rows()
EMP: Final[Mapping[str, Row]] = {r["id"]: r for r in SEED["employees"]}
ENG: Final[Mapping[str, Row]] = {r["id"]: r for r in SEED["engagements"]}
CLIENT: Final[Mapping[str, Row]] = {r["id"]: r for r in SEED["clients"]}
COURSE: Final[Mapping[str, Row]] = {r["id"]: r for r in SEED["courses"]}
SOFTWARE: Final[Mapping[str, Row]] = {r["id"]: r for r in SEED["software"]}
LIMIT: Final[Mapping[str, float]] = {
    r["category"]: r["limit_amount"] for r in SEED["expense_limits"]
}
RECEIPT_OVER: Final[Mapping[str, float]] = {
    r["category"]: r["receipt_over"] for r in SEED["expense_limits"]
}
GRADE_RANK: Final = {"analyst": 0, "consultant": 1, "senior": 2, "manager": 3, "partner": 4}
LAPTOP_MODEL: Final = {
    "analyst": "Standard 14",
    "consultant": "Standard 14",
    "senior": "Performance 16",
    "manager": "Performance 16",
    "partner": "Performance 16",
}
BUDGET: Final = {
    "analyst": 1500.0,
    "consultant": 2000.0,
    "senior": 2500.0,
    "manager": 3000.0,
    "partner": 4000.0,
}

# ----------------------------------------------------------------------------- dates


def day(offset: int) -> str:
    """The ISO date ``offset`` days after the clock (negative: before)."""
    return (TODAY + timedelta(days=offset)).isoformat()


def ts(offset: int, hour: int = 9) -> str:
    """An ISO timestamp at ``hour`` UTC, ``offset`` days after the clock."""
    return datetime.combine(TODAY + timedelta(days=offset), time(hour), tzinfo=UTC).isoformat()


def days_until(iso: str) -> int:
    """Days from the clock to an ISO date."""
    return (date.fromisoformat(iso) - TODAY).days


# ----------------------------------------------------------------------------- seed lookups


def active_assignments(emp: str) -> list[Row]:
    """The employee's active seed assignments."""
    return [a for a in SEED["assignments"] if a["employee_id"] == emp and a["status"] == "active"]


def rows_of(table: str, emp: str, status: str | None = "active") -> list[Row]:
    """An employee's seed rows of ``table`` (with ``status`` when given)."""
    return [
        r
        for r in SEED[table]
        if r["employee_id"] == emp and (status is None or r["status"] == status)
    ]


def reports(manager: str) -> list[str]:
    """Active direct reports of a manager, by id."""
    return [
        e["id"] for e in SEED["employees"] if e["manager_id"] == manager and e["status"] == "active"
    ]


def seats_used(software_id: str) -> int:
    """Active seed licences of a title."""
    return sum(
        1
        for r in SEED["licence_allocations"]
        if r["software_id"] == software_id and r["status"] == "active"
    )


def holds(emp: str, software_id: str) -> bool:
    """Whether the employee holds an active seed licence for the title."""
    return any(r["software_id"] == software_id for r in rows_of("licence_allocations", emp))


def merge(*patches: Patch) -> Patch:
    """Concatenate patches table by table."""
    out: Patch = defaultdict(list)
    for p in patches:
        for table, rows in p.items():
            out[table].extend(rows)
    return dict(out)


def set_emp(emp: str, **values: Any) -> Patch:
    """Patch columns of one employee."""
    return {"employees": [{"id": emp, **values}]}


def email(emp: str, extra: Mapping[str, Row] | None = None) -> str:
    """An employee's email (seed, or a row a task inserts)."""
    row = (extra or {}).get(emp) or EMP[emp]
    return str(row["email"])


def name(emp: str) -> str:
    """An employee's full name."""
    e = EMP[emp]
    return f"{e['first_name']} {e['last_name']}"


# ----------------------------------------------------------------------------- calls


def call(tool: str, **args: Any) -> Row:
    """One golden call."""
    return {"tool": tool, "args": args}


def find(emp: str) -> Row:
    """The identity lookup of a seed employee."""
    return call("find_employee_by_email", email=email(emp))


def inv(sql: str, equals: Any, description: str) -> Row:
    """A SQL invariant."""
    return {"sql": sql, "equals": equals, "description": description}


def count_new(table: str, description: str, where: str = "1 = 1") -> Row:
    """Invariant: no row of ``table`` created at the clock (matching ``where``)."""
    column = {
        "expense_claims": "submitted_at",
        "licence_allocations": "assigned_at",
        "site_access": "granted_on",
        "ndas": "signed_on",
    }.get(table, "created_at")
    stamp = TODAY.isoformat() if column in ("granted_on", "signed_on") else NOW
    return inv(
        f"select count(*) from {table} where {column} >= '{stamp}' and {where}", 0, description
    )


# ----------------------------------------------------------------------------- user facts

FACTS: Final[Mapping[str, Row]] = {
    "email": fact("email", "work email", label="email"),
    "asset_id": fact(
        "asset tag",
        "asset id",
        "asset number",
        "tag",
        label="asset tag",
        say="The asset tag on the sticker is {value}.",
    ),
    "amount": fact(
        "how much was it", "how much", "amount", "total", "cost", say="It was ${value}."
    ),
    "incurred_on": fact(
        "when was the expense",
        "when",
        "which date",
        "what date",
        "date of the expense",
        "incurred",
        label="date",
        say="It was on {value}.",
    ),
    "engagement_id": fact(
        "engagement id",
        "engagement number",
        "which engagement",
        "engagement",
        "billed to",
        "project code",
        label="engagement",
        say="It's engagement {value}.",
    ),
    "receipt": fact("do you have a receipt", "receipt", say="{value}"),
    "claim_id": fact(
        "claim id",
        "claim number",
        "which claim",
        "claim reference",
        label="claim id",
        say="The claim is {value}.",
    ),
    "leaver_email": fact(
        "their email",
        "their work email",
        "email of",
        "who is leaving",
        "who has left",
        label="their email",
        say="Their email is {value}.",
    ),
    "last_day": fact(
        "last day",
        "last working day",
        "when",
        "leaving date",
        label="last working day",
        say="Their last working day is {value}.",
    ),
    "laptop_handed_in": fact(
        "was the laptop handed in",
        "laptop",
        "handed in",
        "returned",
        "equipment",
        label="laptop",
        say="{value}",
    ),
    "new_hire_email": fact(
        "their email",
        "new starter's email",
        "new hire's email",
        "email of",
        "new hire",
        label="new starter's email",
        say="The new starter's email is {value}.",
    ),
    "envelope_id": fact(
        "envelope",
        "nda",
        "signed",
        "e-signature",
        "signature",
        label="envelope",
        say="I signed the new NDA this morning through e-signature, envelope {value}.",
    ),
    "nda_signed": fact(
        "have you signed the nda", "nda", "signed", "signature", "agreement", say="{value}"
    ),
    "on_engagement": fact(
        "are you on that engagement",
        "engagement",
        "assignment",
        "staffed",
        "assigned",
        "working on",
        say="{value}",
    ),
    "staff_email": fact(
        "their email",
        "person's email",
        "email of the person",
        "who would you like",
        "the person",
        "who is it",
        label="their email",
        say="The person is {value}.",
    ),
    "start_date": fact(
        "start date",
        "when should",
        "starting",
        "from when",
        "when",
        label="start date",
        say="Starting {value}.",
    ),
    "role": fact(
        "which role", "role", "as what", "which role", "position", "capacity", say="As {value}."
    ),
    "destination": fact(
        "where are you going",
        "destination",
        "where",
        "going to",
        "which city",
        say="Going to {value}.",
    ),
    "depart_on": fact(
        "departure date",
        "depart",
        "leaving",
        "departure",
        "when",
        "outbound",
        label="departure date",
        say="Leaving {value}.",
    ),
    "return_on": fact(
        "return date",
        "return",
        "back",
        "coming back",
        "return date",
        label="return date",
        say="Back {value}.",
    ),
    "estimated_cost": fact(
        "estimated cost",
        "cost",
        "estimate",
        "how much",
        "budget",
        label="estimated cost",
        say="Estimated cost ${value} all in.",
    ),
    "abroad": fact(
        "is it international",
        "abroad",
        "international",
        "domestic",
        "country",
        "overseas",
        say="{value}",
    ),
    "trip": fact("trip details", "where", "when", "how much", "details", say="{value}"),
    "why": fact("why", "reason", "what happened", say="{value}"),
    "relation": fact(
        "are you their manager",
        "their manager",
        "your team",
        "report to you",
        "manager",
        say="{value}",
    ),
}
"""Every consulting HR fact: the phrases an agent may ask for it with, and the user's words."""

CHANGED_FROM: Final[Mapping[str, str]] = {
    "equipment": "Hi, I'd like to return a laptop I no longer need.",
    "expense-claims": "Hi, can you check on an expense claim I filed?",
    "expense-review": "Hi, I'd like to file a new expense claim.",
    "offboarding": "Hi, I'd like to onboard a new person on my team.",
    "onboarding": "Hi, I'd like to staff someone on one of my engagements.",
    "site-access": "Hi, I'd like to raise a travel request for my engagement.",
    "software": "Hi, I'd like to order some equipment.",
    "staffing": "Hi, I'd like to offboard someone from my team.",
    "training": "Hi, I'd like a licence for some software.",
    "travel": "Hi, I'd like to file an expense claim for a past trip.",
}
"""The related request a changes-goal user opens with, per family."""


# ----------------------------------------------------------------------------- tasks


def _subject_names_employee(golden: list[Row]) -> list[Row]:
    """A ticket's subject names the employee it is about (policy §12)."""
    out = []
    for c in golden:
        a = c["args"]
        if c["tool"] == "create_ticket":
            assert a["employee_id"] in a["subject"], f"subject {a['subject']!r} lacks the employee"
            where = {"employee_id": a["employee_id"]}
            out.append(says("tickets", "subject", where, a["employee_id"]))
    return out


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
        requester: str,
        description: str,
        opening: str,
        goal: str,
        golden: list[Row],
        facts: Row | None = None,
        info: Row | None = None,
        reacts: Row | None = None,
        patch: Patch | None = None,
        delete: Patch | None = None,
        invariants: list[Row] | None = None,
        tags: list[str] | None = None,
        read_only: bool = False,
        refusal: bool = False,
        rubric: list[str] | None = None,
        reference: str = "",
        text: list[Row] | None = None,
        reply: Row | None = None,
    ) -> None:
        """Append one task to its family.

        ``facts`` beyond the requester's email (never in the opening) tag the task
        ``user-fact``; ``info`` are facts the user holds that do not decide the outcome;
        ``reacts`` the `behaviour` keys. Read-only tasks and tasks whose requested change
        is refused (``refusal``) are tagged ``refusal``.
        ``text`` are checks on the text the agent writes (`says`; a ticket's subject must
        name its employee, added here); ``reply`` the facts the agent's replies must (not)
        carry, said by the ``reference`` reply.
        """
        self._counters[family, variant] += 1
        task_id = f"{DOMAIN}.{family}.{variant}.{self._counters[family, variant]:03d}"
        person = EMP[requester]
        values: Row = {"email": person["email"]}
        for key, value in (facts or {}).items():
            v = value["value"] if isinstance(value, dict) else value
            assert str(v) not in opening, f"{task_id}: fact {key} is in the opening"
            values[key] = value
        values.update(info or {})
        tag_set = set(tags or [])
        if facts:
            tag_set.add("user-fact")
        if read_only or refusal:
            tag_set.add("refusal")
        if rubric:
            assert reference, f"{task_id}: rubric without a reference response"
            tag_set.add("rubric")
        initial: Row = dict(patch or {})
        if delete:
            initial["delete"] = delete
        task: Row = {
            "id": task_id,
            "domain": DOMAIN,
            "split": "train" if len(self._families[family]) % 5 == 1 else "test",
            "now": NOW,
            "description": description,
        }
        if initial:
            task["initial_state"] = initial
        task["user"] = {
            "opening": opening,
            "persona": f"{person['first_name']} {person['last_name']}, {person['grade']}, "
            f"{person['practice']} practice",
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
        text = [*_subject_names_employee(golden), *(text or [])]
        if text:
            checks["text"] = text
        if reply:
            assert reference, f"{task_id}: a reply check needs a reference reply"
            checks["reply"] = reply
        if rubric:
            checks["response"] = {"rubric": rubric}
        if checks:
            task["checks"] = checks
        if reference:
            task["reference_response"] = reference
        task["tags"] = sorted(tag_set)
        task["read_only"] = read_only
        self._families[family].append(task)

    def counts(self) -> dict[str, int]:
        """Tasks per family, by family name."""
        return {f: len(t) for f, t in sorted(self._families.items())}

    def tag_counts(self) -> dict[str, int]:
        """Tasks per tag (and per split), over all families."""
        out: dict[str, int] = defaultdict(int)
        for tasks in self._families.values():
            for t in tasks:
                out[f"split:{t['split']}"] += 1
                out["read_only"] += int(t["read_only"])
                for tag in t["tags"]:
                    out[tag] += 1
        return dict(sorted(out.items()))

    def write(self, out: Path) -> None:
        """Write one YAML list per family into ``out``, removing files of families not built."""
        write_families(self._families, out)
