"""Composing a v2 task from parts: verification, one or two intents, a ticket, distractors.

A `Part` is one customer request: what the customer says, the golden calls that serve it
after the caller is verified, the rows it needs, the facts the user holds, and what the
state and the reply must show. `Suite.add` joins a verification opening and the parts
into one task; `Suite.write` writes ``<split>/<family>.yaml`` files.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scripts._task_files import write_families
from scripts._user_specs import behaviour, fact, user_facts
from scripts.gen_travel_tasks._build import (
    FACTS,
    NOW,
    SEED,
    TIER_NAME,
    Row,
    call,
    email,
    name,
)

from ._world import Booking, Ctx

VOCAB: dict[str, Row] = {
    **FACTS,
    "companion_name": fact(
        "correct name",
        "should it read",
        "name should",
        "right name",
        "correct spelling",
        "how is it spelled",
        label="correct name",
        say="It should read {value}.",
    ),
    "new_traveller": fact(
        "who will travel",
        "new traveller",
        "new passenger",
        "whose name",
        "which name",
        label="new traveller",
        say="The new traveller is {value}.",
    ),
}
"""The v1 travel facts and the ones only v2 tasks ask for."""

SEED_REFERENCES = frozenset(str(b["reference"]) for b in SEED["bookings"])


@dataclass
class Part:
    """One customer request inside a task."""

    intent: str
    """``family.branch``; the task's ``intent:`` tag."""
    ask: str
    """What the customer says about it in the opening."""
    goal: str
    golden: list[Row]
    reference: str
    """What the agent tells the customer about it (part of the reference reply)."""
    target: Booking | None = None
    """The booking it acts on (a ticket option is about it)."""
    facts: Row = field(default_factory=dict)
    invariants: list[Row] = field(default_factory=list)
    text: list[Row] = field(default_factory=list)
    reply_contain: list[Any] = field(default_factory=list)
    reply_not: list[Any] = field(default_factory=list)
    refusal: bool = False
    tags: tuple[str, ...] = ()
    ticket_category: str | None = None
    """A ticket option opens a ticket of this category about ``target``; None: no option."""
    close: Callable[[str], list[Row]] | None = None
    """The calls that bring that ticket to its right status (default: solve it)."""
    description: str = ""


def _then(ask: str) -> str:
    """A request said after another one ('The hotel…' → 'the hotel…'; 'I…' stays)."""
    return ask if re.match(r"I\b", ask) else ask[0].lower() + ask[1:]


def opening_of(parts: Sequence[Part]) -> str:
    """The customer's first message: every request, in order."""
    return (
        "Hi! " + parts[0].ask + "".join(f" And one more thing: {_then(p.ask)}" for p in parts[1:])
    )


def leaks(parts: Sequence[Part]) -> bool:
    """Whether the opening already says a fact the user should give only when asked.

    Another request's date can equal a new date the user is asked for.
    """
    opening = opening_of(parts)
    return any(
        str(v["value"] if isinstance(v, dict) else v) in opening
        for p in parts
        for v in p.facts.values()
    )


def solve(ticket_id: str) -> list[Row]:
    """The request is done or correctly refused: solve its ticket."""
    return [call("update_ticket", ticket_id=ticket_id, status="solved")]


@dataclass(frozen=True)
class Shape:
    """How a task is dressed around its parts."""

    verify: str = "email"
    """``email`` or ``reference`` (the first part's booking and the last name)."""
    ticket: bool = False
    """The first part's request has an open ticket to bring to its status."""
    peek: bool = False
    """The golden trajectory also reads the first distractor (a careful agent's check)."""
    listing: bool = False
    """The golden trajectory lists the customer's bookings instead of reading the profile."""


class Suite:
    """Collects composed tasks by split and family; ids numbered per family and branch."""

    def __init__(self) -> None:
        self._files: dict[str, dict[str, list[Row]]] = defaultdict(lambda: defaultdict(list))
        self._counters: dict[tuple[str, str], int] = defaultdict(int)

    def add(
        self,
        split: str,
        ctx: Ctx,
        parts: Sequence[Part],
        shape: Shape,
        distractors: Sequence[Booking] = (),
    ) -> None:
        """Join ``parts`` into one task of ``split``."""
        lead = parts[0]
        family, branch = lead.intent.split(".")
        self._counters[family, branch] += 1
        task_id = f"travel.{family}.{branch}.{self._counters[family, branch]:03d}"
        c = ctx.customer
        values: Row = {}
        if shape.verify == "email":
            golden = [
                call("find_customer_by_email", email=email(c)),
                call("verify_customer", customer_id=c, email=email(c)),
            ]
            values["email"] = email(c)
        else:
            b = lead.target
            assert b is not None, f"{task_id}: reference verification needs a target booking"
            golden = [
                call("validate_booking_reference", reference=b.reference, last_name=ctx.last),
                call(
                    "verify_customer",
                    customer_id=c,
                    booking_reference=b.reference,
                    last_name=ctx.last,
                ),
            ]
            values["reference"] = b.reference
            values["last_name"] = ctx.last
        golden.append(
            call("list_customer_bookings", customer_id=c)
            if shape.listing
            else call("get_customer_profile", customer_id=c)
        )
        ticket_id = None
        if shape.ticket:
            assert lead.ticket_category and lead.target, f"{task_id}: {lead.intent} has no ticket"
            ticket_id = ctx.ticket(lead.target, lead.ticket_category, lead.ask)
            golden.append(call("list_customer_tickets", customer_id=c))
        if shape.peek:
            assert distractors, f"{task_id}: nothing to peek at"
            golden.append(call("get_booking", booking_id=distractors[0].id))
        invariants: list[Row] = []
        text: list[Row] = []
        contain: list[Any] = []
        avoid: list[Any] = []
        tags = {f"intent:{p.intent}" for p in parts}
        for i, p in enumerate(parts):
            golden.extend(p.golden)
            if i == 0 and ticket_id:
                golden.extend((p.close or solve)(ticket_id))
            for key, value in p.facts.items():
                assert key not in values, f"{task_id}: fact {key} given twice"
                values[key] = value
            invariants.extend(p.invariants)
            text.extend(p.text)
            contain.extend(p.reply_contain)
            avoid.extend(p.reply_not)
            tags.update(p.tags)
            if p.refusal:
                tags.add("refusal")
        if set(values) - {"email", "reference", "last_name"}:
            tags.add("user-fact")
        if distractors:
            tags.add("distractor")
        if len(parts) > 1:
            tags.add("multi-intent")
        if any(g.get("fails") for g in golden):
            tags.add("recovery")
        opening = opening_of(parts)
        for key, value in values.items():
            if key not in ("email", "reference", "last_name"):
                v = value["value"] if isinstance(value, dict) else value
                assert str(v) not in opening, f"{task_id}: fact {key} in the opening"
        refs = {str(r["reference"]) for r in ctx.patch.get("bookings", []) if "reference" in r}
        assert not refs & SEED_REFERENCES, f"{task_id}: a new reference collides with the seed"
        task: Row = {
            "id": task_id,
            "domain": "travel",
            "split": split,
            "now": NOW,
            "record_steps": True,
            "description": " ".join(p.description for p in parts)
            + (f" Distractors: {', '.join(d.id for d in distractors)}." if distractors else ""),
            "initial_state": ctx.patch,
            "user": {
                "opening": opening,
                "persona": f"{name(c)}, {TIER_NAME[ctx.tier]} member",
                "facts": user_facts(VOCAB, values, task_id),
                "goal": "; ".join(p.goal for p in parts),
            },
            "golden": golden,
        }
        conduct = behaviour(thanks="Thanks, that's everything.")
        if conduct:
            task["user"]["behaviour"] = conduct
        checks: Row = {}
        if invariants:
            checks["invariants"] = invariants
        if text:
            checks["text"] = text
        if contain or avoid:
            reply: Row = {}
            if contain:
                reply["must_contain"] = contain
            if avoid:
                reply["must_not_contain"] = avoid
            checks["reply"] = reply
        if checks:
            task["checks"] = checks
        task["reference_response"] = " ".join(p.reference for p in parts)
        task["tags"] = sorted(tags)
        task["read_only"] = False
        self._files[split][family].append(task)

    def tasks(self, split: str) -> list[Row]:
        """Every task of a split, family by family."""
        files = self._files[split]
        return [t for f in sorted(files) for t in files[f]]

    def write(self, out: Path) -> None:
        """Write ``out/<split>/<family>.yaml`` for every split built."""
        for split in sorted(self._files):
            write_families(self._files[split], out / split)
