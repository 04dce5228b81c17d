"""Shared pieces of the neobank_it task generator: seed lookups, dates, calls, the collector.

The seed lookups are built once at import from the deterministic domain seed and typed
read-only; nothing writes to them. Tasks accumulate in a `TaskSet` the caller creates and
passes to every family. Helpers assert their assumptions about seed rows, so a seed change
that breaks a task fails here, loudly.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any, Final

from scripts._checks import says as says
from scripts._task_files import write_families
from scripts._user_specs import behaviour, fact, user_facts

from statebox.domains.neobank_it.seed import SEED_DATE, seed_rows

NOW: Final = "2026-03-02T14:00:00+00:00"
TODAY: Final = SEED_DATE
Row = dict[str, Any]
Patch = dict[str, list[Row]]

SEED: Final[Mapping[str, Sequence[Row]]] = seed_rows()
EMP: Final[Mapping[str, Row]] = {e["id"]: e for e in SEED["employees"]}
SYSTEMS: Final[Mapping[str, Row]] = {s["id"]: s for s in SEED["systems"]}
POOLS: Final[Mapping[str, Row]] = {p["id"]: p for p in SEED["licence_pools"]}
CATALOG: Final[Mapping[str, Row]] = {c["id"]: c for c in SEED["hardware_catalog"]}
DEVICE_OF: Final[Mapping[str, Row]] = {d["employee_id"]: d for d in SEED["devices"]}


def staff(department: str, employment: str = "employee") -> list[str]:
    """Active staff-level employee ids of a department, in seed order."""
    return [
        e["id"]
        for e in SEED["employees"]
        if e["department_id"] == department
        and e["level"] == "staff"
        and e["employment_type"] == employment
    ]


CONTRACTORS: Final = [e["id"] for e in SEED["employees"] if e["employment_type"] == "contractor"]


def grants(employee_id: str) -> list[Row]:
    """The employee's active seeded grants."""
    return [
        g
        for g in SEED["access_grants"]
        if g["employee_id"] == employee_id and g["status"] == "active"
    ]


def licences(employee_id: str) -> list[Row]:
    """The employee's active seeded licence allocations."""
    return [
        a
        for a in SEED["licence_allocations"]
        if a["employee_id"] == employee_id and a["status"] == "active"
    ]


def pool_allocations(pool_id: str) -> list[Row]:
    """A pool's active seeded allocations."""
    return [
        a
        for a in SEED["licence_allocations"]
        if a["pool_id"] == pool_id and a["status"] == "active"
    ]


def email(employee_id: str) -> str:
    """The employee's work email."""
    return str(EMP[employee_id]["email"])


def name(employee_id: str) -> str:
    """The employee's full name."""
    e = EMP[employee_id]
    return f"{e['first_name']} {e['last_name']}"


def manager(employee_id: str) -> str:
    """The employee's manager id."""
    m = EMP[employee_id]["manager_id"]
    assert m is not None, employee_id
    return str(m)


# ----------------------------------------------------------------------------- dates


def day(offset: int) -> str:
    """The ISO date ``offset`` days after the clock's date (negative: before)."""
    return (TODAY + timedelta(days=offset)).isoformat()


def ts(offset: int, hour: int = 10) -> str:
    """An ISO timestamp ``offset`` days after the clock's date at ``hour`` UTC."""
    return f"{day(offset)}T{hour:02d}:00:00+00:00"


def days_until(iso: str) -> int:
    """Days from the clock's date to ``iso``."""
    from datetime import date

    return (date.fromisoformat(iso) - TODAY).days


# ----------------------------------------------------------------------------- patches


def merge(*patches: Patch) -> Patch:
    """Concatenate patches table by table."""
    out: Patch = defaultdict(list)
    for p in patches:
        for table, rows in p.items():
            out[table].extend(rows)
    return dict(out)


def set_employee(employee_id: str, **values: Any) -> Patch:
    """Change columns of an employee row."""
    return {"employees": [{"id": employee_id, **values}]}


def request(rid: str, employee_id: str, system_id: str, role: str, days: int, note: str) -> Patch:
    """A pending access request filed two days ago."""
    return {
        "access_requests": [
            {
                "id": rid,
                "employee_id": employee_id,
                "system_id": system_id,
                "role": role,
                "requested_days": days,
                "justification": note,
                "status": "pending",
                "decision_reason": None,
                "created_at": ts(-2, 9),
                "decided_at": None,
            }
        ]
    }


def approval(aid: str, rid: str, approver: str, role: str, decision: str = "approved") -> Patch:
    """One approval decision recorded yesterday."""
    return {
        "approvals": [
            {
                "id": aid,
                "request_id": rid,
                "approver_id": approver,
                "approver_role": role,
                "decision": decision,
                "decided_at": ts(-1, 15),
            }
        ]
    }


def grant(gid: str, employee_id: str, system_id: str, role: str, expires: str) -> Patch:
    """An active grant made 60 days ago."""
    return {
        "access_grants": [
            {
                "id": gid,
                "employee_id": employee_id,
                "system_id": system_id,
                "role": role,
                "request_id": None,
                "granted_on": day(-60),
                "expires_on": expires,
                "status": "active",
                "revoke_reason": None,
                "revoked_at": None,
            }
        ]
    }


def ticket(tid: str, employee_id: str, category: str, subject: str, **values: Any) -> Patch:
    """An open service-desk ticket opened two days ago."""
    row: Row = {
        "id": tid,
        "employee_id": employee_id,
        "category": category,
        "subject": subject,
        "status": "open",
        "priority": "normal",
        "team": "service_desk",
        "hold_reason": None,
        "escalation_reason": None,
        "created_at": ts(-2, 11),
        "updated_at": ts(-2, 11),
    }
    row.update(values)
    return {"tickets": [row]}


# ----------------------------------------------------------------------------- calls


def call(tool: str, **args: Any) -> Row:
    """One golden call."""
    return {"tool": tool, "args": args}


def ident(employee_id: str) -> Row:
    """The identity read every trajectory starts with."""
    return call("find_employee_by_email", email=email(employee_id))


def notify(recipient: str, template: str, related: str) -> Row:
    """A templated email to an employee id's address."""
    return call(
        "send_notification", recipient=email(recipient), template=template, related_id=related
    )


def inv(sql: str, equals: Any, description: str) -> Row:
    """A SQL invariant."""
    return {"sql": sql, "equals": equals, "description": description}


def sent(recipient: str, template: str, related: str, count: int = 1) -> Row:
    """Invariant: how many emails of a template went to someone about an object."""
    return inv(
        f"select count(*) from notifications where recipient = '{email(recipient)}' "
        f"and template = '{template}' and related_id = '{related}'",
        count,
        f"{template} email to {recipient} about {related}: {count}",
    )


# ----------------------------------------------------------------------------- user facts

FACTS: Final[Mapping[str, Row]] = {
    "email": fact("work email", "email", label="work email"),
    "request_id": fact(
        "request id",
        "request number",
        "which request",
        "reference",
        label="request id",
        say="It's request {value}.",
    ),
    "need": fact(
        "what do you need to do in the system",
        "what do you need",
        "what you need",
        "read or write",
        "view or edit",
        "edit",
        "what will you",
        "what do you use",
        "level of access",
        "which role",
        say="{value}",
    ),
    "extend_until": fact(
        "until when do you need it",
        "until when",
        "how long",
        "which date",
        "what date",
        "new end date",
        "extend it to",
        label="date",
        say="I need it until {value}.",
    ),
    "days_needed": fact(
        "for how long",
        "how long",
        "how many days",
        "for how long",
        "duration",
        label="days",
        say="About {value} days should do it.",
    ),
    "department": fact("department", "which team", label="department", say="I'm in {value}."),
    "target_email": fact(
        "their email",
        "their work email",
        "email of",
        "whose access",
        label="their email",
        say="Their email is {value}.",
    ),
    "why": fact("why", "why", "reason", say="{value}"),
    "employee_id": fact(
        "employee id",
        "employee number",
        "staff id",
        label="employee id",
        say="My employee id is {value}.",
    ),
    "situation": fact(
        "why do you need it",
        "why",
        "reason",
        "what's wrong",
        "what is wrong",
        "what happened",
        "situation",
        "how many",
        "which",
        say="{value}",
    ),
    "hours_missing": fact(
        "when did you last see it",
        "when did you last",
        "how long ago",
        "last see",
        "last saw",
        "when",
        "how long",
        say="I last saw it about {value} hours ago, on the train.",
    ),
    "what_happened": fact(
        "what happened",
        "did you click",
        "did you enter",
        "did you type",
        "what did you",
        say="{value}",
    ),
    "leaver_email": fact(
        "their email",
        "their work email",
        "email of",
        "who left",
        "who is leaving",
        "leaver",
        label="their email",
        say="Their email is {value}.",
    ),
    "leaver_name": fact("their name", "who left", "who is leaving", "name", say="It's {value}."),
    "leaver_status": fact(
        "has their last day passed",
        "last day",
        "left already",
        "still working",
        "when",
        say="{value}",
    ),
    "order_id": fact(
        "order number",
        "order id",
        "which order",
        label="order number",
        say="The order number is {value}.",
    ),
    "impact_or_update": fact(
        "what's the impact",
        "impact",
        "how is it affecting",
        "what's the impact",
        "update",
        "any change",
        "what's happening",
        "what is happening",
        "anything new",
        "status",
        say="{value}",
    ),
    "purpose": fact(
        "what do you need it for",
        "why",
        "what for",
        "reason",
        "purpose",
        "what do you need it",
        say="{value}",
    ),
}
"""Every neobank IT fact: the phrases an agent may ask for it with, and the user's words."""

CHANGED_FROM: Final[Mapping[str, str]] = {
    "access-extension": "Hi, I'd like access to a new system.",
    "access-grant": "Hi, I'd like to request access to another system.",
    "access-new": "Hi, can you check on an access request I filed?",
    "access-revoke": "Hi, I'd like to offboard someone from my team.",
    "account-unlock": "Hi, I need to reset my password.",
    "hardware-order": "Hi, I'd like to cancel a hardware order.",
    "licences": "Hi, I'd like to return a software licence.",
    "offboarding": "Hi, I'd like to remove one system access for someone in my team.",
    "order-cancel": "Hi, I'd like to order a new laptop.",
    "security-incident": "Hi, I'd like to follow up on an IT ticket.",
    "ticket-followup": "Hi, I'd like to open a new IT ticket.",
}
"""The related request a changes-goal user opens with, per family."""


# ----------------------------------------------------------------------------- tasks


def _subject_names_employee(golden: list[Row]) -> list[Row]:
    """A ticket's subject names the employee it is about (policy §9.1)."""
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
        employee: str,
        description: str,
        opening: str,
        goal: str,
        golden: list[Row],
        facts: Row | None = None,
        reacts: Row | None = None,
        patch: Patch | None = None,
        invariants: list[Row] | None = None,
        tags: list[str] | None = None,
        read_only: bool = False,
        rubric: list[str] | None = None,
        reference: str = "",
        text: list[Row] | None = None,
        reply: Row | None = None,
    ) -> None:
        """Append one task to its family (``reacts``: the user's `behaviour` keys).

        ``text`` are checks on the text the agent writes (`says`; a ticket's subject must
        name its employee, added here); ``reply`` the facts the agent's replies must (not)
        carry, said by the ``reference`` reply. An email's optional free-text addition is
        declared ``dont_care`` (policy §10 leaves it to the agent).
        """
        self._counters[family, variant] += 1
        task_id = f"neobank_it.{family}.{variant}.{self._counters[family, variant]:03d}"
        e = EMP[employee]
        # Policy §1.1 identifies the caller by work email: always one of the facts.
        values: Row = {"email": e["email"]}
        values.update(facts or {})
        task: Row = {
            "id": task_id,
            "domain": "neobank_it",
            "split": "train" if len(self._families[family]) % 5 == 1 else "test",
            "now": NOW,
            "description": description,
        }
        if patch:
            task["initial_state"] = patch
        task["user"] = {
            "opening": opening,
            "persona": f"{e['first_name']} {e['last_name']}, {e['title']}",
            "facts": user_facts(FACTS, values, task_id),
            "goal": goal,
        }
        conduct = behaviour(**{"changed_from": CHANGED_FROM[family], **(reacts or {})})
        if conduct:
            task["user"]["behaviour"] = conduct
        task["golden"] = golden
        checks: Row = {}
        if any(c["tool"] == "send_notification" for c in golden):
            checks["dont_care"] = [
                {
                    "table": "notifications",
                    "column": "body",
                    "reason": "policy §10: the template carries the message; the optional "
                    "free-text addition is the agent's to word",
                }
            ]
        if invariants:
            checks["invariants"] = invariants
        text = [*_subject_names_employee(golden), *(text or [])]
        if text:
            checks["text"] = text
        if reply:
            assert reference, f"{task_id}: a reply check needs a reference reply"
            checks["reply"] = reply
        if rubric:
            assert reference, task_id
            checks["response"] = {"rubric": rubric}
        if checks:
            task["checks"] = checks
        if reference:
            task["reference_response"] = reference
        all_tags = set(tags or [])
        if read_only:
            all_tags.add("refusal")
        task["tags"] = sorted(all_tags)
        task["read_only"] = read_only
        self._families[family].append(task)

    def counts(self) -> dict[str, int]:
        """Tasks per family, by family name."""
        return {f: len(t) for f, t in sorted(self._families.items())}

    def mix(self) -> dict[str, int]:
        """The mix-rule counts over every family."""
        every = [t for ts_ in self._families.values() for t in ts_]
        return {
            "tasks": len(every),
            "families": len(self._families),
            "user-fact": sum("user-fact" in t["tags"] for t in every),
            "refusal": sum("refusal" in t["tags"] for t in every),
            "rubric": sum("response" in t.get("checks", {}) for t in every),
            "train": sum(t["split"] == "train" for t in every),
            "read_only": sum(t["read_only"] for t in every),
        }

    def write(self, out: Path) -> None:
        """Write one YAML list per family into ``out``, removing files of families not built."""
        write_families(self._families, out)
