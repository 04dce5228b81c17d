"""Composing v2 tasks: an id allocator per task, intent blocks and the task they make.

An `Intent` is one user request: its golden calls (after the caller's verification), the
rows it adds or changes, the facts it needs from the user and the checks on what only
text can show. `compose` joins the caller's verification and one or more intents into one
task, in the order the user asks them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from scripts._user_specs import behaviour, fact, user_facts
from scripts.gen_neobank_it_tasks._build import EMP, FACTS, NOW, Patch, Row, call, email, merge

__all__ = ["V2_FACTS", "Ids", "Intent", "compose"]

V2_FACTS: dict[str, Row] = {
    **FACTS,
    "ticket_id": fact(
        "ticket number",
        "ticket id",
        "which ticket",
        label="ticket number",
        say="It's ticket {value}.",
    ),
    "matter": fact(
        "what is the problem",
        "what's the problem",
        "what problem",
        "which problem",
        "what is it about",
        "what was it about",
        say="{value}",
    ),
}
"""The v1 vocabulary plus what v2 requests ask for (a ticket by number or by its matter)."""


_BODY: Row = dict(
    table="notifications",
    column="body",
    reason="policy §10: an email's optional free-text addition is the agent's to word",
)
"""Every email's body is free text (the template, recipient and related id are compared)."""


class Ids:
    """Ids one task hands out: patched rows 401-499, tool-made rows from 501, per prefix."""

    def __init__(self) -> None:
        self._patched: dict[str, int] = defaultdict(lambda: 400)
        self._made: dict[str, int] = defaultdict(lambda: 500)
        self.used: list[str] = []
        """Systems, pools and people one intent took, so the other picks others."""

    @staticmethod
    def _fmt(prefix: str, n: int) -> str:
        width = 4 if prefix in ("EMP-", "DEV-") else 5
        return f"{prefix}{n:0{width}d}"

    def patched(self, prefix: str) -> str:
        """The next id for a row the task's initial state adds."""
        self._patched[prefix] += 1
        return self._fmt(prefix, self._patched[prefix])

    def made(self, prefix: str) -> str:
        """The id the next row a tool inserts with this prefix will get."""
        self._made[prefix] += 1
        return self._fmt(prefix, self._made[prefix])


@dataclass
class Intent:
    """One request of the caller, as the golden trajectory serves it."""

    branch: str
    """``family.branch``: the intent tag and, for the first intent, the task id's middle."""
    ask: str
    """How the user puts the request in their opening."""
    goal: str
    """The request in the user's goal."""
    golden: list[Row]
    """The calls after the caller's verification."""
    desc: str
    """What the right outcome is and why (for authors)."""
    patch: Patch = field(default_factory=dict)
    facts: Row = field(default_factory=dict)
    text: list[Row] = field(default_factory=list)
    reply: list[Any] = field(default_factory=list)
    """Facts the replies must carry (what the state cannot show)."""
    reply_not: list[Any] = field(default_factory=list)
    """Values no reply may carry (a promise the records do not back)."""
    reference: str = ""
    tags: tuple[str, ...] = ()
    stated_id: str = ""
    """The employee id the caller states (an unlock verifies by it)."""
    pre_verify: list[Row] = field(default_factory=list)
    """Verification attempts before the one that passes (a misremembered id)."""


def _fails(c: Row, kind: str) -> Row:
    return {**c, "fails": kind}


def verification(employee: str, intents: Sequence[Intent], slip: str) -> tuple[list[Row], Row]:
    """The caller's identification calls and facts (policy §1): look up, then verify.

    ``slip``: an outdated email the user gives first, refused by the lookup, or ''.
    """
    calls: list[Row] = []
    facts: Row = {"email": {"value": email(employee)}}
    if slip:
        facts["email"]["first"] = slip
        calls.append(_fails(call("find_employee_by_email", email=slip), "not_found"))
    calls.append(call("find_employee_by_email", email=email(employee)))
    stated = next((i.stated_id for i in intents if i.stated_id), "")
    for i in intents:
        calls += i.pre_verify
    if stated:
        calls.append(call("verify_employee", employee_id=stated, email=email(employee)))
    else:
        calls.append(call("verify_employee", employee_id=employee, email=email(employee)))
    return calls, facts


def compose(
    split: str,
    number: int,
    employee: str,
    intents: Sequence[Intent],
    *,
    slip: str = "",
    extra_tags: Sequence[str] = (),
) -> Row:
    """One task: the caller verified, then each intent in the order the user asks."""
    first = intents[0]
    task_id = f"neobank_it.{first.branch}.{number:03d}"
    calls, values = verification(employee, intents, slip)
    patches: list[Patch] = []
    text: list[Row] = []
    must: list[Any] = []
    must_not: list[Any] = []
    tags: list[str] = [f"intent:{i.branch}" for i in intents]
    for i in intents:
        calls += i.golden
        patches.append(i.patch)
        for k, v in i.facts.items():
            assert k not in values, f"{task_id}: fact {k} given twice"
            values[k] = v
        text += i.text
        must += i.reply
        must_not += i.reply_not
        tags += i.tags
    if slip:
        tags.append("recovery")
    tags += extra_tags
    if any("fails" in c for c in calls[1:]):
        tags.append("recovery")
    e = EMP[employee]
    opening = " ".join(["Hi."] + [i.ask for i in intents])
    task: Row = {
        "id": task_id,
        "domain": "neobank_it",
        "split": split,
        "now": NOW,
        "description": " | ".join(i.desc for i in intents),
        "record_steps": True,
    }
    patch = merge(*patches)
    if patch:
        task["initial_state"] = patch
    task["user"] = {
        "opening": opening,
        "persona": f"{e['first_name']} {e['last_name']}, {e['title']}",
        "facts": user_facts(V2_FACTS, values, task_id),
        "goal": "; ".join(i.goal for i in intents),
    }
    task["user"]["behaviour"] = behaviour(thanks="Thanks, that's everything.")
    task["golden"] = calls
    checks: Row = {}
    if any(c["tool"] == "send_notification" for c in calls):
        checks["dont_care"] = [_BODY]
    if text:
        checks["text"] = text
    if must or must_not:
        reply: Row = {}
        if must:
            reply["must_contain"] = must
        if must_not:
            reply["must_not_contain"] = must_not
        checks["reply"] = reply
    if checks:
        task["checks"] = checks
    reference = " ".join(i.reference for i in intents if i.reference)
    if "reply" in checks:
        assert reference, f"{task_id}: a reply check needs a reference reply"
    if reference:
        task["reference_response"] = reference
    writes = [c for c in calls if c["tool"] not in _READS]
    task["tags"] = sorted(set(tags))
    task["read_only"] = False
    assert writes, task_id
    return task


_READS = frozenset(
    {
        "find_employee_by_email",
        "get_employee",
        "get_department",
        "get_account",
        "list_systems",
        "list_employee_access",
        "get_access_request",
        "list_licence_pools",
        "list_pool_allocations",
        "list_employee_licences",
        "list_hardware_catalog",
        "list_employee_devices",
        "list_hardware_orders",
        "get_incident",
        "get_ticket",
        "list_employee_tickets",
    }
)
"""Read tools (for the assertion that every task writes at least its verification)."""
