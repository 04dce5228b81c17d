"""Shared pieces of the travel task generator: seed lookups, patches, calls, the collector.

Seed lookups are built once at import from the deterministic domain seed and never written.
Tasks accumulate in a `TaskSet` the caller passes to every family.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any, Final

from scripts._checks import says as says
from scripts._task_files import write_families
from scripts._user_specs import behaviour, fact, user_facts

from statebox.domains.travel.seed import SEED_DATE, seed_rows
from statebox.domains.travel.tools._fees import cancellation_fee, change_fee

__all__ = ["cancellation_fee", "change_fee"]

NOW: Final = "2026-03-10T14:00:00+00:00"
TODAY: Final = SEED_DATE
Row = dict[str, Any]
Patch = dict[str, list[Row]]

SEED: Final[Mapping[str, Sequence[Row]]] = seed_rows()


def _index(table: str, key: str = "id") -> dict[str, Row]:
    return {str(r[key]): r for r in SEED[table]}


CUSTOMERS: Final = _index("customers")
BOOKINGS: Final = _index("bookings")
LOYALTY: Final = _index("loyalty_accounts", "customer_id")
STAYS: Final = _index("hotel_stays", "booking_id")
CORPS: Final = _index("corporate_accounts")
HOTELS: Final = _index("hotels")
SEGMENTS: Final = {str(r["booking_id"]): r for r in SEED["flight_segments"]}
CREDITED: Final = {str(r["booking_id"]) for r in SEED["loyalty_transactions"]}
TIER_NAME: Final = {"blue": "Blue", "silver": "Silver", "gold": "Gold", "platinum": "Platinum"}
MULTIPLIER: Final = {"blue": 1.0, "silver": 1.25, "gold": 1.5, "platinum": 2.0}


def day(days: int) -> date:
    """The date ``days`` after the clock (negative: before)."""
    return TODAY + timedelta(days=days)


def ts(d: date, hour: int = 10) -> str:
    """An ISO timestamp at ``hour`` UTC on ``d``."""
    return datetime.combine(d, time(hour), tzinfo=UTC).isoformat()


def merge(*patches: Patch) -> Patch:
    """Concatenate patches table by table."""
    out: Patch = defaultdict(list)
    for p in patches:
        for table, rows in p.items():
            out[table].extend(rows)
    return dict(out)


def of_kind(kind: str) -> list[str]:
    """Seed booking ids of one kind, excluding corporate and cancelled ones."""
    return [
        b["id"]
        for b in SEED["bookings"]
        if b["kind"] == kind and b["status"] != "cancelled" and b["corporate_account_id"] is None
    ]


class Picker:
    """Hands out distinct seed bookings of a kind, round robin, so tasks vary customers."""

    def __init__(self, kind: str, skip: int = 0) -> None:
        self._ids = of_kind(kind)
        self._next = skip

    def __call__(self) -> str:
        """The next booking id."""
        bk = self._ids[self._next % len(self._ids)]
        self._next += 1
        return bk


def owner(bk: str) -> str:
    """The customer id of a booking."""
    return str(BOOKINGS[bk]["customer_id"])


def trip(
    bk: str,
    days: int,
    *,
    status: str = "confirmed",
    plan: str | None = None,
    total: float | None = None,
    nightly: float | None = None,
) -> Patch:
    """Re-date a booking to start ``days`` after today, with optional plan and price."""
    b = BOOKINGS[bk]
    start = day(days)
    row: Row = {"id": bk, "status": status, "start_date": start.isoformat()}
    patch: Patch = {}
    if b["kind"] == "flight":
        row["end_date"] = start.isoformat()
        if plan:
            row["fare_class"] = plan
        if total is not None:
            row["total"] = total
            patch["payments"] = [{"id": f"PAY-{bk[3:]}", "amount": total}]
        seg = SEGMENTS[bk]
        patch["flight_segments"] = [{"id": seg["id"], "depart_at": ts(start, 9)}]
    else:
        stay = STAYS[bk]
        nights = int(stay["nights"])
        row["end_date"] = (start + timedelta(days=nights)).isoformat()
        if plan:
            row["rate_plan"] = plan
        if nightly is not None:
            row["total"] = round(nightly * nights, 2)
            patch["hotel_stays"] = [{"booking_id": bk, "nightly_rate": nightly}]
            patch["payments"] = [{"id": f"PAY-{bk[3:]}", "amount": row["total"]}]
    patch["bookings"] = [row]
    return patch


def tier(customer_id: str, value: str, nights: int | None = None) -> Patch:
    """Set a customer's loyalty tier (and qualifying nights)."""
    row: Row = {"customer_id": customer_id, "tier": value}
    if nights is not None:
        row["qualifying_nights"] = nights
    return {"loyalty_accounts": [row]}


def total_of(bk: str, patch: Patch) -> float:
    """A booking's total after a patch."""
    for row in patch.get("bookings", []):
        if row["id"] == bk and "total" in row:
            return float(row["total"])
    return float(BOOKINGS[bk]["total"])


def nightly_of(bk: str, patch: Patch) -> float:
    """A hotel booking's nightly rate after a patch."""
    for row in patch.get("hotel_stays", []):
        if row["booking_id"] == bk and "nightly_rate" in row:
            return float(row["nightly_rate"])
    return float(STAYS[bk]["nightly_rate"])


def ticket(
    ticket_id: str,
    customer_id: str,
    booking_id: str | None,
    category: str,
    subject: str,
    status: str = "open",
) -> Patch:
    """A full ticket row and its opening note."""
    return {
        "tickets": [
            {
                "id": ticket_id,
                "customer_id": customer_id,
                "booking_id": booking_id,
                "subject": subject,
                "category": category,
                "status": status,
                "priority": "normal",
                "hold_reason": None,
                "escalation_reason": None,
                "created_at": ts(day(-2), 11),
                "updated_at": ts(day(-2), 11),
            }
        ],
        "ticket_notes": [
            {
                "id": f"TN-{int(ticket_id[4:]):04d}",
                "ticket_id": ticket_id,
                "public": 1,
                "body": subject,
                "created_at": ts(day(-2), 11),
            }
        ],
    }


# ----------------------------------------------------------------------------- calls


def call(tool: str, **args: Any) -> Row:
    """One golden call."""
    return {"tool": tool, "args": args}


def ident(customer_id: str, booking_id: str | None = None) -> list[Row]:
    """Identity by email, the profile (which lists booking ids), then the booking."""
    calls = [
        call("find_customer_by_email", email=CUSTOMERS[customer_id]["email"]),
        call("get_customer_profile", customer_id=customer_id),
    ]
    if booking_id:
        calls.append(call("get_booking", booking_id=booking_id))
    return calls


def inv(sql: str, equals: Any, description: str) -> Row:
    """A SQL invariant."""
    return {"sql": sql, "equals": equals, "description": description}


def status_is(bk: str, status: str) -> Row:
    """Invariant: the booking's status."""
    return inv(f"select status from bookings where id = '{bk}'", status, f"{bk} is {status}")


def refunds_on(bk: str, count: int) -> Row:
    """Invariant: number of refunds on a booking."""
    return inv(
        f"select count(*) from refunds where booking_id = '{bk}'",
        count,
        f"{count} refund(s) on {bk}",
    )


def email(customer_id: str) -> str:
    """The customer's email."""
    return str(CUSTOMERS[customer_id]["email"])


def name(customer_id: str) -> str:
    """The customer's full name."""
    c = CUSTOMERS[customer_id]
    return f"{c['first_name']} {c['last_name']}"


def where(bk: str) -> str:
    """How a customer names a booking (route or hotel city)."""
    b = BOOKINGS[bk]
    if b["kind"] == "flight":
        seg = SEGMENTS[bk]
        return f"flight from {seg['origin']} to {seg['destination']}"
    return f"hotel stay in {HOTELS[str(STAYS[bk]['hotel_id'])]['city']}"


def usd(amount: float) -> str:
    """Dollars as text."""
    return f"${amount:,.2f}"


# ----------------------------------------------------------------------------- user facts

FACTS: Final[Mapping[str, Row]] = {
    "email": fact("email", "e-mail", label="email"),
    "corporate_account_id": fact(
        "account id",
        "account number",
        "corporate account",
        "company account",
        label="corporate account",
        say="Our account is {value}.",
    ),
    "reference": fact(
        "booking reference", "reference", "confirmation code", label="booking reference"
    ),
    "last_name": fact("last name", "surname", label="last name", say="The last name is {value}."),
    "correct_name": fact(
        "correct name",
        "should it read",
        "name should",
        "right name",
        "correct spelling",
        label="correct name",
        say="It should read {value}.",
    ),
    "new_date": fact(
        "new date",
        "which date",
        "what date",
        "when would you like",
        label="new date",
        say="I'd like the new date to be {value}.",
    ),
    "new_phone": fact(
        "new phone",
        "new number",
        "phone number",
        label="new number",
        say="The new number is {value}.",
    ),
    "new_email": fact(
        "new email",
        "new address",
        "new email address",
        label="new email",
        say="The new address is {value}.",
    ),
    "charged_amount": fact(
        "how much was the second charge",
        "how much",
        "amount",
        "second charge",
        "charged",
        label="second charge",
        say="The second charge was {value}.",
    ),
    "requested_amount": fact(
        "how much would you like back",
        "how much",
        "amount",
        "what would you",
        label="amount",
        say="I think {value} back is fair.",
    ),
    "requested_credit": fact(
        "how much credit would you like",
        "how much",
        "amount",
        "credit of",
        label="credit",
        say="I'd like a credit of {value}.",
    ),
    "partner_name": fact(
        "whose account is it", "his name", "whose account", "name of", "who is", say="{value}"
    ),
    "booking_owner": fact(
        "whose booking is it",
        "whose booking",
        "is this your booking",
        "your own booking",
        "belong to you",
        say="{value}",
    ),
    "relationship": fact(
        "who are you", "are you the", "calling for", "relationship", say="{value}"
    ),
    "when": fact("when did it happen", "when", "how long ago", "date of", say="{value}"),
    "request": fact(
        "should I approve or decline it",
        "approve or decline",
        "approve it",
        "decline it",
        "what would you like",
        say="{value}",
    ),
}
"""Every travel fact: the phrases an agent may ask for it with, and the user's words."""

CHANGED_FROM: Final[Mapping[str, str]] = {
    "cancel-flight": "Hi, I'd like to move my flight to another date.",
    "cancel-hotel": "Hi, I'd like to move my hotel stay to other dates.",
    "change-dates": "Hi, I think I need to cancel one of my bookings.",
    "corporate-approval": "Hi, I'd like to make a new business booking for an employee.",
    "crm-profile": "Hi, I'd like to close my account with you.",
    "hotel-escalations": "Hi, I'd like to cancel my hotel stay.",
    "hotel-requests": "Hi, I'd like to change the dates of my hotel stay.",
    "loyalty": "Hi, I'd like to use my loyalty points for a booking.",
    "name-correction": "Hi, I'd like to add a second traveller to my booking.",
    "refunds": "Hi, I'd like to cancel one of my bookings.",
    "ticket-triage": "Hi, I'd like to open a new complaint.",
}
"""The related request a changes-goal user opens with, per family."""


# ----------------------------------------------------------------------------- tasks


def _subject_amounts(golden: list[Row]) -> list[Row]:
    """A billing ticket's subject states the amount at stake (policy §10.4)."""
    out = []
    for c in golden:
        a = c["args"]
        if c["tool"] == "create_ticket" and a.get("category") == "billing":
            amounts = [
                float(m.replace(",", "")) for m in re.findall(r"\$([\d,]+(?:\.\d+)?)", a["subject"])
            ]
            assert amounts, f"billing subject {a['subject']!r} states no amount"
            out.append(says("tickets", "subject", {"customer_id": a["customer_id"]}, *amounts))
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
        customer: str,
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
        persona: str | None = None,
        user_email: str | None = None,
        text: list[Row] | None = None,
        reply: Row | None = None,
    ) -> None:
        """Append one task to its family.

        ``facts`` beyond the email make the task a ``user-fact`` task (none may be in the
        opening); ``info`` are facts the user holds that do not decide the outcome;
        ``reacts`` the `behaviour` keys. ``read_only`` or ``refusal`` tag it ``refusal``.
        ``text`` are checks on the text the agent writes (`says`); ``reply`` the facts the
        agent's replies must (not) carry, said by the ``reference`` reply.
        """
        self._counters[family, variant] += 1
        task_id = f"travel.{family}.{variant}.{self._counters[family, variant]:03d}"
        patch = patch or {}
        level = str(LOYALTY[customer]["tier"])
        for row in patch.get("loyalty_accounts", []):
            if row["customer_id"] == customer and "tier" in row:
                level = row["tier"]
        values: Row = {"email": user_email or email(customer)}
        tag_set = set(tags or [])
        if facts:
            for key, value in facts.items():
                v = value["value"] if isinstance(value, dict) else value
                assert str(v) not in opening, f"{task_id}: fact {key} in the opening"
            values.update(facts)
            tag_set.add("user-fact")
        values.update(info or {})
        if read_only or refusal:
            tag_set.add("refusal")
        initial: Row = dict(patch)
        if delete:
            initial["delete"] = delete
        task: Row = {
            "id": task_id,
            "domain": "travel",
            "split": "train" if len(self._families[family]) % 5 == 1 else "test",
            "now": NOW,
            "description": description,
        }
        if initial:
            task["initial_state"] = initial
        task["user"] = {
            "opening": opening,
            "persona": persona or f"{name(customer)}, {TIER_NAME[level]} member",
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
        text = [*_subject_amounts(golden), *(text or [])]
        if text:
            checks["text"] = text
        if reply:
            assert reference, f"{task_id}: a reply check needs a reference reply"
            checks["reply"] = reply
        if rubric:
            assert reference, f"{task_id}: a rubric needs a reference_response"
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

    def all(self) -> list[Row]:
        """Every task, family by family."""
        return [t for f in sorted(self._families) for t in self._families[f]]

    def write(self, out: Path) -> None:
        """Write one YAML list per family into ``out``, removing files of families not built."""
        write_families(self._families, out)
