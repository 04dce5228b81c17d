"""Deterministic synthetic seed of the travel domain (made-up people, example.com emails).

Every value is a pure function of row indexes (no random numbers), so the seed, and
with it every world hash, is the same on any machine. The clock the tasks use is
`SEED_NOW`; seed dates are placed around it. Task generators re-date the rows they
use through task patches, so seed dates only need to be plausible.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import Any, Final

__all__ = ["BOOKINGS", "CUSTOMERS", "SEED_DATE", "SEED_NOW", "reference_of", "seed_rows"]

SEED_NOW: Final = datetime(2026, 3, 10, 14, 0, tzinfo=UTC)
SEED_DATE: Final = SEED_NOW.date()
CUSTOMERS: Final = 40
BOOKINGS: Final = 90

_FIRST = [
    "Amara",
    "Bastian",
    "Celine",
    "Dorian",
    "Elodie",
    "Farid",
    "Greta",
    "Hugo",
    "Ines",
    "Jonas",
    "Kaia",
    "Lionel",
    "Mirela",
    "Nico",
    "Odette",
    "Pavel",
    "Quinn",
    "Rosalind",
    "Soren",
    "Talia",
    "Ulric",
    "Vera",
    "Wendell",
    "Xenia",
    "Yusuf",
    "Zelda",
    "Anouk",
    "Bram",
    "Cosima",
    "Dario",
    "Eshe",
    "Florin",
    "Gisela",
    "Hamish",
    "Ilse",
    "Jarek",
    "Katya",
    "Leandro",
    "Maelle",
    "Osric",
]
_LAST = [
    "Abernathy",
    "Brightwater",
    "Castellan",
    "Dunmore",
    "Eskildsen",
    "Farrowby",
    "Galloway",
    "Hartigan",
    "Iverholt",
    "Jessop",
    "Kettleby",
    "Lindqvist",
    "Marchetti",
    "Northcote",
    "Oyelaran",
    "Pembrook",
    "Quarrington",
    "Rutherby",
    "Stavros",
    "Thistlewood",
    "Umbridge",
    "Valcourt",
    "Whitlock",
    "Yardley",
    "Zephyrine",
    "Ashgrove",
    "Blackmere",
    "Corvell",
    "Delacroix",
    "Embleton",
    "Fenwright",
    "Gorsuch",
    "Holloway",
    "Illingsworth",
    "Jaramillo",
    "Kincaid",
    "Larchmont",
    "Merriweather",
    "Nettlefold",
    "Ormsby",
]
_HOTELS = (
    ("HTL-01", "Harborlight Suites", "Lisbon", 4),
    ("HTL-02", "The Copper Finch", "Edinburgh", 3),
    ("HTL-03", "Marisol Grand", "Valencia", 5),
    ("HTL-04", "Northgate Inn", "Toronto", 3),
    ("HTL-05", "Azure Quay Hotel", "Sydney", 4),
    ("HTL-06", "Pinecrest Lodge", "Denver", 3),
    ("HTL-07", "Le Jardin Oblique", "Lyon", 4),
    ("HTL-08", "Sakura Terrace", "Osaka", 5),
)
_CORPS = (
    (
        "CORP-01",
        "Northwind Analytics",
        "active",
        "travel@northwind.example.com",
        220.0,
        "economy",
        500.0,
    ),
    (
        "CORP-02",
        "Bluefin Logistics",
        "active",
        "trips@bluefin.example.com",
        300.0,
        "premium_economy",
        800.0,
    ),
    ("CORP-03", "Kestrel Labs", "suspended", "admin@kestrel.example.com", 180.0, "economy", 400.0),
)
_ROUTES = (
    ("LIS", "FRA"),
    ("EDI", "AMS"),
    ("VLC", "CDG"),
    ("YYZ", "JFK"),
    ("SYD", "AKL"),
    ("DEN", "SEA"),
    ("LYS", "BCN"),
    ("KIX", "ICN"),
    ("BOS", "ORD"),
    ("MAD", "ROM"),
)
_TIERS = ("blue", "silver", "gold", "platinum")
_FARES = ("basic", "standard", "flex")
_PLANS = ("flexible", "semi_flex", "non_refundable")
_ROOMS = ("standard", "deluxe", "suite")
_LOCATOR = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"


def reference_of(n: int) -> str:
    """The six-character record locator of booking number ``n`` (1-based)."""
    x = (n * 7919 + 104729) * 2654435761 % (32**6)
    out = []
    for _ in range(6):
        x, r = divmod(x, 32)
        out.append(_LOCATOR[r])
    return "".join(out)


def _ts(d: date, hour: int = 10) -> str:
    return datetime.combine(d, time(hour), tzinfo=UTC).isoformat()


def _customer(i: int) -> dict[str, Any]:
    first, last = _FIRST[i - 1], _LAST[i - 1]
    corp = (None, "CORP-01", None, "CORP-02", None, None, "CORP-03", None)[i % 8]
    return {
        "id": f"CUS-{i:04d}",
        "first_name": first,
        "last_name": last,
        "email": f"{first.lower()}.{last.lower()}@example.com",
        "phone": f"+1-555-01{i:02d}",
        "corporate_account_id": corp,
        "created_at": _ts(SEED_DATE - timedelta(days=400 + 7 * i)),
    }


def _booking(n: int) -> dict[str, Any]:
    """Booking ``n``: even numbers are flights, odd numbers hotel stays."""
    cust = (n - 1) % CUSTOMERS + 1
    flight = n % 2 == 0
    offset = (n * 11) % 70 - 20  # start date from 20 days ago to 49 days ahead
    start = SEED_DATE + timedelta(days=offset)
    nights = 1 + n % 4
    status = "completed" if offset < 0 else "confirmed"
    if n % 17 == 0:
        status = "cancelled"
    if flight:
        total = round(180 + (n * 37) % 620 + 0.5 * (n % 2 + 1), 2)
        end = start
    else:
        rate = float(110 + (n * 23) % 260)
        total = round(rate * nights, 2)
        end = start + timedelta(days=nights)
    corp = _customer(cust)["corporate_account_id"]
    return {
        "id": f"BK-{100000 + n}",
        "reference": reference_of(n),
        "customer_id": f"CUS-{cust:04d}",
        "kind": "flight" if flight else "hotel",
        "status": status,
        "fare_class": _FARES[n % 3] if flight else None,
        "rate_plan": None if flight else _PLANS[n % 3],
        "start_date": start.isoformat(),
        "end_date": end.isoformat(),
        "total": total,
        "corporate_account_id": corp if n % 3 == 0 else None,
        "cancel_reason": "customer_request" if status == "cancelled" else None,
        "cancel_fee": 0.0 if status == "cancelled" else None,
        "cancelled_at": _ts(SEED_DATE - timedelta(days=5)) if status == "cancelled" else None,
        "created_at": _ts(SEED_DATE - timedelta(days=30 + n % 20), 9),
    }


def seed_rows() -> dict[str, list[dict[str, Any]]]:
    """Every seed row, table by table, in insertion order.

    Returns:
        table name → rows (column → value).
    """
    customers = [_customer(i) for i in range(1, CUSTOMERS + 1)]
    bookings = [_booking(n) for n in range(1, BOOKINGS + 1)]
    segments, stays, passengers, payments, ltx = [], [], [], [], []
    for n, b in enumerate(bookings, start=1):
        cust = customers[(n - 1) % CUSTOMERS]
        if b["kind"] == "flight":
            origin, dest = _ROUTES[n % len(_ROUTES)]
            segments.append(
                {
                    "id": f"SEG-{100000 + n}-1",
                    "booking_id": b["id"],
                    "flight_number": f"SB{200 + n * 3}",
                    "origin": origin,
                    "destination": dest,
                    "depart_at": _ts(date.fromisoformat(b["start_date"]), 7 + n % 12),
                    "cabin": ("economy", "economy", "premium_economy", "business")[n % 4],
                    "schedule_change_minutes": 0,
                }
            )
        else:
            nights = 1 + n % 4
            stays.append(
                {
                    "booking_id": b["id"],
                    "hotel_id": _HOTELS[n % len(_HOTELS)][0],
                    "room_type": _ROOMS[n % 3],
                    "nights": nights,
                    "nightly_rate": round(b["total"] / nights, 2),
                    "guests": 1 + n % 2,
                }
            )
        passengers.append(
            {
                "id": f"PAX-{100000 + n}-1",
                "booking_id": b["id"],
                "first_name": cust["first_name"],
                "last_name": cust["last_name"],
                "name_corrections": 0,
            }
        )
        payments.append(
            {
                "id": f"PAY-{100000 + n}",
                "booking_id": b["id"],
                "amount": b["total"],
                "method": "corporate_card" if b["corporate_account_id"] else "card",
                "status": "captured",
                "refunded_amount": 0.0,
                "created_at": b["created_at"],
            }
        )
        if b["status"] == "completed" and n % 5 != 0:
            ltx.append(
                {
                    "id": f"LTX-{n:04d}",
                    "customer_id": b["customer_id"],
                    "booking_id": b["id"],
                    "points": int(b["total"]),
                    "kind": "earned",
                    "created_at": _ts(date.fromisoformat(b["end_date"]) + timedelta(days=1)),
                }
            )
    loyalty = [
        {
            "customer_id": c["id"],
            "tier": _TIERS[i % 4],
            "points": 1500 + (i * 733) % 9000,
            "qualifying_nights": (0, 12, 27, 55)[i % 4] + i % 5,
        }
        for i, c in enumerate(customers, start=1)
    ]
    tickets = [
        {
            "id": f"TKT-{i:04d}",
            "customer_id": customers[(i * 3) % CUSTOMERS]["id"],
            "booking_id": None,
            "subject": "Question about my account",
            "category": "other",
            "status": "solved",
            "priority": "normal",
            "hold_reason": None,
            "escalation_reason": None,
            "created_at": _ts(SEED_DATE - timedelta(days=40 + i)),
            "updated_at": _ts(SEED_DATE - timedelta(days=38 + i)),
        }
        for i in range(1, 11)
    ]
    return {
        "hotels": [
            {
                "id": h,
                "name": name,
                "city": city,
                "partner_email": f"frontdesk@{h.lower()}.example.com",
                "stars": stars,
            }
            for h, name, city, stars in _HOTELS
        ],
        "corporate_accounts": [
            {
                "id": cid,
                "name": name,
                "status": status,
                "travel_manager_email": mgr,
                "max_nightly_rate": cap,
                "allowed_cabin": cabin,
                "approval_threshold": threshold,
            }
            for cid, name, status, mgr, cap, cabin, threshold in _CORPS
        ],
        "customers": customers,
        "customer_notes": [],
        "loyalty_accounts": loyalty,
        "bookings": bookings,
        "loyalty_transactions": ltx,
        "flight_segments": segments,
        "hotel_stays": stays,
        "passengers": passengers,
        "payments": payments,
        "refunds": [],
        "travel_credits": [],
        "booking_changes": [],
        "special_requests": [],
        "hotel_escalations": [],
        "tickets": tickets,
        "ticket_notes": [
            {
                "id": f"TN-{i:04d}",
                "ticket_id": t["id"],
                "public": 1,
                "body": "Customer asked a general account question; answered.",
                "created_at": t["created_at"],
            }
            for i, t in enumerate(tickets, start=1)
        ],
    }
