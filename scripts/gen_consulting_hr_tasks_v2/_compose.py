"""Intents and their composition into v2 tasks: verification, one or two requests, checks.

An `Intent` is one user request worked out on one world: the golden calls after the
requester is identified (its disclosure included), the rows it adds to the world, the
facts only the user holds, and what the end state must show. `compose` joins one or two
intents of the same requester into a task with the mandatory steps recorded.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from scripts._user_specs import behaviour, fact, user_facts
from scripts.gen_consulting_hr_tasks._build import (
    DOMAIN,
    EMP,
    FACTS,
    NOW,
    Patch,
    Row,
    call,
    find,
)

FACTS_V2: Final[dict[str, Row]] = {
    **FACTS,
    "ticket_id": fact(
        "ticket id",
        "ticket number",
        "which ticket",
        "ticket reference",
        label="ticket id",
        say="It was ticket {value}.",
    ),
    "problem": fact(
        "what is the problem",
        "what happened",
        "what's wrong",
        "what is wrong",
        "describe",
        "details",
        say="{value}",
    ),
    "new_depart_on": fact(
        "new departure date",
        "new departure",
        "leave on",
        "departure date",
        "depart",
        label="new departure date",
        say="I'd now leave on {value}.",
    ),
    "new_return_on": fact(
        "new return date",
        "return date",
        "coming back",
        "return",
        label="new return date",
        say="And come back on {value}.",
    ),
    "new_cost": fact(
        "estimated cost",
        "new cost",
        "how much",
        "cost",
        "estimate",
        label="estimated cost",
        say="The new estimate is ${value} all in.",
    ),
    "trip_depart_on": fact(
        "which trip",
        "departure date",
        "when does it leave",
        "depart",
        label="departure date of the trip",
        say="The one leaving on {value}.",
    ),
    "claim_amount": fact(
        "how much was it",
        "how much",
        "amount",
        "claim amount",
        "total",
        label="amount",
        say="It was ${value}.",
    ),
    "claim_date": fact(
        "when was the expense",
        "date of the expense",
        "which date",
        "what date",
        "incurred",
        label="date of the expense",
        say="The expense was on {value}.",
    ),
}
"""The v1 vocabulary plus the facts v2 requests need (each phrase names one fact)."""

Builder = Callable[["Ctx", int], "Intent | None"]


@dataclass
class Intent:
    """One request of a conversation, worked out for one requester."""

    family: str
    branch: str
    subject: str
    """The employee the request is about (the disclosure's related id)."""
    opening: str
    goal: str
    description: str
    golden: list[Row]
    patch: Patch = field(default_factory=dict)
    facts: Row = field(default_factory=dict)
    invariants: list[Row] = field(default_factory=list)
    text: list[Row] = field(default_factory=list)
    refusal: bool = False
    reply: tuple[str, tuple[Any, ...]] | None = None
    """For a refusal: the reference sentence and the facts every reply must carry (each a
    spelling or a list of spellings), what the state cannot show of the explanation."""
    grade_sensitive: bool = False
    """The outcome depends on the requester's grade (limits, budgets)."""
    sets_grade: bool = False
    """The intent patches the requester's grade."""
    people: tuple[str, ...] = ()
    """Other employees the request touches (a leaver, a report): no two intents share one."""


class Ctx:
    """What a task being composed has used so far: the requester and new-record counters."""

    def __init__(self, requester: str) -> None:
        self.requester = requester
        self._next: dict[str, int] = {}

    def new_id(self, prefix: str, width: int = 5) -> str:
        """The id the next record with ``prefix`` gets (sequences start at 501)."""
        n = self._next.get(prefix, 501)
        self._next[prefix] = n + 1
        return f"{prefix}{n:0{width}d}"

    def disclose(self, subject: str) -> Row:
        """The disclosure before a request's first change."""
        return call(
            "record_disclosure",
            employee_id=self.requester,
            topic="planned_change",
            related_id=subject,
        )


def fails(c: Row, kind: str) -> Row:
    """A golden call the task expects to be refused with ``kind``."""
    return {**c, "fails": kind}


def _merge(patches: Sequence[Patch]) -> Patch:
    """Upserts table by table; two patches of one row become one row."""
    out: dict[str, dict[Any, Row]] = {}
    for p in patches:
        for table, rows in p.items():
            keyed = out.setdefault(table, {})
            for r in rows:
                key = r.get("id", r.get("category"))
                keyed[key] = {**keyed.get(key, {}), **r}
    return {t: list(rows.values()) for t, rows in out.items()}


def _persona(emp: str) -> str:
    e = EMP[emp]
    return f"{e['first_name']} {e['last_name']}, {e['grade']}, {e['practice']} practice"


def _phrases(intent: Intent) -> set[str]:
    return {p for key in intent.facts for p in FACTS_V2[key]["ask"]}


def _also(opening: str) -> str:
    """A second request's opening after "Also," (a sentence-initial "I" stays capital)."""
    first = opening.split()[0]
    if first == "I" or first.startswith("I'"):
        return f"Also, {opening}"
    return f"Also, {opening[0].lower()}{opening[1:]}"


def compatible(a: Intent, b: Intent) -> bool:
    """Two intents can share a conversation: no shared fact, person or grade conflict."""
    if set(a.facts) & set(b.facts) or a.family == b.family:
        return False
    if _phrases(a) & _phrases(b):  # one question would be answered with both facts
        return False
    if set(a.people) & set(b.people):
        return False
    if (a.sets_grade and b.grade_sensitive) or (b.sets_grade and a.grade_sensitive):
        return False
    return not (a.sets_grade and b.sets_grade)


def signature_key(task: Row) -> str:
    """What `statebox.judge.suite_shape` compares for re-instances, values blanked."""
    calls = [(c["tool"], sorted(c["args"]), c.get("fails")) for c in task["golden"]]
    checks = task.get("checks", {})
    return repr(
        (
            calls,
            sorted(task["user"]["facts"]),
            sorted(task["tags"]),
            len(checks.get("invariants", ())),
            len(checks.get("text", ())),
            "reply" in checks,
        )
    )


def compose(split: str, number: int, requester: str, intents: Sequence[Intent]) -> Row:
    """One task: identify and verify the requester, then work through each intent in order."""
    first = intents[0]
    task_id = f"{DOMAIN}.{first.family}.{first.branch}.{number:03d}"
    opening = " ".join([f"Hi. {first.opening}"] + [_also(i.opening) for i in intents[1:]])
    values: Row = {"email": EMP[requester]["email"]}
    for intent in intents:
        for key, value in intent.facts.items():
            v = value["value"] if isinstance(value, dict) else value
            assert str(v) not in opening, f"{task_id}: fact {key} is in the opening"
            values[key] = value
    tags = {f"intent:{i.family}.{i.branch}" for i in intents}
    if len(values) > 1:
        tags.add("user-fact")
    if any(i.refusal for i in intents):
        tags.add("refusal")
    if any(c.get("fails") for i in intents for c in i.golden):
        tags.add("recovery")
    if len(intents) > 1:
        tags.add("multi-intent")
    golden = [
        find(requester),
        call("verify_employee", employee_id=requester, email=EMP[requester]["email"]),
    ]
    for intent in intents:
        golden.extend(intent.golden)
    task: Row = {
        "id": task_id,
        "domain": DOMAIN,
        "split": split,
        "now": NOW,
        "description": " Then: ".join(i.description for i in intents),
    }
    patch = _merge([i.patch for i in intents])
    if patch:
        task["initial_state"] = patch
    task["user"] = {
        "opening": opening,
        "persona": _persona(requester),
        "facts": user_facts(FACTS_V2, values, task_id),
        "goal": "; and ".join(i.goal for i in intents),
    }
    conduct = behaviour(thanks="Great, thanks for sorting all of that. Bye.")
    if conduct:
        task["user"]["behaviour"] = conduct
    task["record_steps"] = True
    task["golden"] = golden
    checks: Row = {}
    invariants = [inv for i in intents for inv in i.invariants]
    if invariants:
        checks["invariants"] = invariants
    text = [t for i in intents for t in i.text]
    if text:
        checks["text"] = text
    replies = [i.reply for i in intents if i.reply]
    if replies:
        checks["reply"] = {"must_contain": [f for _, facts in replies for f in facts]}
    if checks:
        task["checks"] = checks
    if replies:
        task["reference_response"] = " ".join(
            i.reply[0] if i.reply else f"{i.goal}: handled as the policy says." for i in intents
        )
    task["tags"] = sorted(tags)
    task["read_only"] = False
    return task
