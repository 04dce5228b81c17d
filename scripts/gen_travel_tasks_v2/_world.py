"""Rows a v2 task adds to the travel seed: its own bookings, distractors, tickets, escalations.

Every task is its own world, so ids only need to be unique inside a task; they start
above every seeded id (bookings ``BK-100501``…, tickets ``TKT-0401``…), and the ids the
tools hand out next come from the seed's sequences, never from these.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from scripts.gen_travel_tasks._build import (
    CUSTOMERS,
    HOTELS,
    SEGMENTS,
    Patch,
    Row,
    day,
    merge,
    ticket,
    tier,
    ts,
)

_LOCATOR = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
ROUTES: tuple[tuple[str, str], ...] = tuple(
    dict.fromkeys((str(s["origin"]), str(s["destination"])) for s in SEGMENTS.values())
)
"""Distinct seeded routes, in seed order."""
HOTEL_IDS: tuple[str, ...] = tuple(sorted(HOTELS))
VALID_CARD = "2028-09"
BAND = {"blue": 4, "silver": 14, "gold": 31, "platinum": 58}
"""Qualifying nights well inside each tier (policy §9.1: Silver 10, Gold 25, Platinum 50)."""
EXPIRED_CARD = "2026-01"


@dataclass
class Booking:
    """A booking a task adds, with what the generator needs to say and check about it."""

    id: str
    reference: str
    kind: str
    plan: str
    start: int
    """Days after today it starts (negative: before)."""
    total: float
    nightly: float = 0.0
    nights: int = 0
    place: str = ""
    """How the customer names it: 'flight from BOS to ORD' or 'hotel stay in Lisbon'."""
    hotel_id: str = ""
    payment: str = ""

    @property
    def start_date(self) -> str:
        """Its departure / check-in date."""
        return day(self.start).isoformat()

    @property
    def named(self) -> str:
        """The booking as the customer names it, with its date."""
        return f"{self.place} on {self.start_date}"


@dataclass
class Ctx:
    """One task under construction: its customer, tier, patch and id counters."""

    customer: str
    tier: str
    seq: int
    """A number unique to the task in its split, for deterministic variety."""
    patch: Patch = field(default_factory=dict)
    _bookings: int = 0
    _tickets: int = 0
    _escalations: int = 0

    def __post_init__(self) -> None:
        # Qualifying nights inside the tier's band: no task owes an upgrade it did not ask for.
        self.add(tier(self.customer, self.tier, BAND[self.tier]))

    def add(self, *patches: Patch) -> None:
        """Merge rows into the task's initial state."""
        self.patch = merge(self.patch, *patches)

    @property
    def first(self) -> str:
        """The customer's first name."""
        return str(CUSTOMERS[self.customer]["first_name"])

    @property
    def last(self) -> str:
        """The customer's last name."""
        return str(CUSTOMERS[self.customer]["last_name"])

    def pick(self, k: int, n: int) -> int:
        """A deterministic choice among ``n`` for the task's ``k``-th pick."""
        return (self.seq * 7 + k * 3 + self._bookings) % n

    def booking(
        self,
        kind: str,
        plan: str,
        start: int,
        *,
        status: str = "confirmed",
        nights: int = 0,
        card: str | None = VALID_CARD,
        place_of: Booking | None = None,
        cabin: str = "economy",
        traveller: tuple[str, str] | None = None,
        companion: tuple[str, str] | None = None,
        created: str | None = None,
        nightly: float | None = None,
    ) -> Booking:
        """Add a booking of the customer (a flight or a hotel stay with one payment).

        ``place_of`` gives it another booking's route or hotel (a distractor the customer
        could confuse with it); ``card`` is the paying card's last valid month; ``created``
        its creation time (default: a month ago, earlier for each later booking).
        """
        self._bookings += 1
        n = 500 + self._bookings
        bk = f"BK-100{n}"
        k = self.seq * 5 + self._bookings
        digest = hashlib.sha256(f"{self.seq}:{bk}:{self.customer}".encode()).digest()
        ref = "".join(_LOCATOR[x % len(_LOCATOR)] for x in digest[:6])
        created = created or ts(day(-30 - self._bookings), 9)
        if kind == "flight":
            origin, dest = _route(place_of) if place_of else ROUTES[self.pick(1, len(ROUTES))]
            total = round(240.0 + 23.5 * (k % 13), 2)
            end = day(start)
            b = Booking(bk, ref, kind, plan, start, total, place=f"flight from {origin} to {dest}")
            rows: Patch = {
                "flight_segments": [
                    {
                        "id": f"SEG-{bk[3:]}-1",
                        "booking_id": bk,
                        "flight_number": f"SB{100 + k % 800}",
                        "origin": origin,
                        "destination": dest,
                        "depart_at": ts(day(start), 9),
                        "cabin": cabin,
                        "schedule_change_minutes": 0,
                    }
                ]
            }
        else:
            hotel = place_of.hotel_id if place_of else HOTEL_IDS[self.pick(2, len(HOTEL_IDS))]
            nights = nights or 2 + k % 3
            nightly = nightly or round(110.0 + 15.0 * (k % 9), 2)
            total = round(nightly * nights, 2)
            end = day(start + nights)
            b = Booking(
                bk,
                ref,
                kind,
                plan,
                start,
                total,
                nightly=nightly,
                nights=nights,
                place=f"hotel stay in {HOTELS[hotel]['city']}",
                hotel_id=hotel,
            )
            rows = {
                "hotel_stays": [
                    {
                        "booking_id": bk,
                        "hotel_id": hotel,
                        "room_type": "standard",
                        "nights": nights,
                        "nightly_rate": nightly,
                        "guests": 1,
                    }
                ]
            }
        b.payment = f"PAY-{bk[3:]}"
        first, last = traveller or (self.first, self.last)
        self.add(
            {
                "bookings": [
                    {
                        "id": bk,
                        "reference": ref,
                        "customer_id": self.customer,
                        "kind": kind,
                        "status": status,
                        "fare_class": plan if kind == "flight" else None,
                        "rate_plan": plan if kind == "hotel" else None,
                        "start_date": day(start).isoformat(),
                        "end_date": end.isoformat(),
                        "total": b.total,
                        "corporate_account_id": None,
                        "cancel_reason": None,
                        "cancel_fee": None,
                        "cancelled_at": None,
                        "created_at": created,
                    }
                ]
            },
            rows,
            {
                "passengers": [
                    {
                        "id": f"PAX-{bk[3:]}-{i}",
                        "booking_id": bk,
                        "first_name": f,
                        "last_name": la,
                        "name_corrections": 0,
                    }
                    for i, (f, la) in enumerate(
                        ((first, last), *((companion,) if companion else ())), 1
                    )
                ],
                "payments": [payment(b.payment, bk, b.total, card, created)],
            },
        )
        return b

    def distractor(self, of: Booking, shift: int, status: str = "confirmed") -> Booking:
        """A booking of the same kind and place as ``of``, ``shift`` days later."""
        return self.booking(of.kind, of.plan, of.start + shift, status=status, place_of=of)

    def ticket(self, b: Booking | None, category: str, subject: str, status: str = "open") -> str:
        """Add a ticket of the customer about ``b``, opened two days ago; its id."""
        self._tickets += 1
        tid = f"TKT-{400 + self._tickets:04d}"
        self.add(ticket(tid, self.customer, b.id if b else None, category, subject, status))
        return tid

    def escalation(self, b: Booking, reason: str, detail: str) -> str:
        """Add an open hotel escalation about ``b``, opened three days ago; its id."""
        self._escalations += 1
        eid = f"ESC-{400 + self._escalations:04d}"
        self.add(
            {
                "hotel_escalations": [
                    {
                        "id": eid,
                        "booking_id": b.id,
                        "hotel_id": b.hotel_id,
                        "reason": reason,
                        "priority": "normal",
                        "status": "open",
                        "detail": detail,
                        "created_at": ts(day(-3), 15),
                        "resolution": None,
                    }
                ]
            }
        )
        return eid


def _route(b: Booking) -> tuple[str, str]:
    origin, dest = b.place.removeprefix("flight from ").split(" to ")
    return origin, dest


def payment(pid: str, bk: str, amount: float, card: str | None, created: str) -> Row:
    """A captured card payment row (``card``: its last valid month, None: no card on file)."""
    return {
        "id": pid,
        "booking_id": bk,
        "amount": amount,
        "method": "card",
        "status": "captured",
        "refunded_amount": 0.0,
        "created_at": created,
        "card_expires": card,
    }


def later(b: Booking, days: int) -> str:
    """The date ``days`` after ``b`` starts."""
    return (day(b.start) + timedelta(days=days)).isoformat()


def plain(value: Any) -> str:
    """A plan or reason code as words ('semi_flex' → 'semi flex')."""
    return str(value).replace("_", " ")
