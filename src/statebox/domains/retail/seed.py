"""Seed rows of the retail domain: a small online store as of 2025-10-01.

Everything is synthetic and derived from one `random.Random(20251001)`, so the seed is
the same on every machine and run. Names are drawn from generic first/last name lists
(no real persons); every email is at example.com. Dates are placed relative to
`SEED_DATE` so that tasks frozen near that day see a plausible history: recent orders
are pending or processing, orders of last week are in transit, older ones delivered.
"""

from __future__ import annotations

import random
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

__all__ = ["SEED_DATE", "seed_rows"]

SEED_DATE = date(2025, 10, 1)
"""The day the seed describes; tasks use a clock on or near it."""

Row = dict[str, Any]

_FIRST = (
    "Sarah", "Daniel", "Priya", "Marcus", "Elena", "Tomas", "Grace", "Hiro", "Nadia", "Owen",
    "Lucia", "Samuel", "Amara", "Felix", "Ingrid", "Jonah", "Keira", "Luis", "Maya", "Noah",
    "Olivia", "Pavel", "Quinn", "Rosa", "Stefan", "Tara", "Umar", "Vera", "Wes", "Yara",
    "Zane", "Alma", "Bruno", "Clara", "Dev", "Esme", "Farah", "Gideon", "Hana", "Ivan",
)  # fmt: skip
_LAST = (
    "Martinez", "Okafor", "Lindqvist", "Brennan", "Castillo", "Nakamura", "Haddad", "Novak",
    "Ferreira", "Walsh", "Iyer", "Kowalski", "Mendes", "Dubois", "Larsen", "Achterberg",
    "Romano", "Sato", "Petrov", "Quispe",
)  # fmt: skip
_CITIES = (
    ("Portland", "OR", "97205"), ("Austin", "TX", "78701"), ("Denver", "CO", "80202"),
    ("Madison", "WI", "53703"), ("Raleigh", "NC", "27601"), ("Tucson", "AZ", "85701"),
    ("Albany", "NY", "12207"), ("Boise", "ID", "83702"), ("Dayton", "OH", "45402"),
    ("Fresno", "CA", "93721"),
)  # fmt: skip
_STREETS = ("Maple Ave", "Cedar St", "Harbor Rd", "Elm Ct", "Ridge Way", "Lakeview Dr", "Oak Ln")

# (category, [(name, base price, warranty months, returnable)])
_CATALOG: tuple[tuple[str, tuple[tuple[str, float, int, int], ...]], ...] = (
    ("electronics", (
        ("Aurora Wireless Headphones", 129.99, 12, 1), ("Pulse Bluetooth Speaker", 79.5, 12, 1),
        ("Vista 27in Monitor", 289.0, 24, 1), ("Nimbus Tablet 10", 349.0, 12, 1),
        ("Orbit Smartwatch", 199.0, 12, 1), ("Quanta USB-C Hub", 39.99, 12, 1),
        ("Echo Mechanical Keyboard", 109.0, 24, 1), ("Glide Wireless Mouse", 29.99, 12, 1),
        ("Lumen Webcam HD", 64.0, 12, 1), ("Volt Power Bank 20k", 45.5, 12, 1),
        ("Strata Noise-Cancelling Earbuds", 159.0, 12, 1), ("Prism Streaming Stick", 49.0, 12, 1),
    )),
    ("kitchen", (
        ("Brisk Espresso Machine", 449.0, 24, 1), ("Simmer Slow Cooker", 69.99, 12, 1),
        ("Crisp Air Fryer", 119.0, 12, 1), ("Keen Chef Knife 8in", 59.0, 0, 1),
        ("Pour-Over Coffee Set", 34.0, 0, 1), ("Whirl Blender Pro", 159.99, 24, 1),
        ("Cast Iron Skillet 12in", 42.0, 0, 1), ("Kettle Gooseneck Electric", 74.0, 12, 1),
        ("Bamboo Cutting Board Set", 27.5, 0, 1), ("Glass Storage Set 10pc", 38.0, 0, 1),
    )),
    ("home", (
        ("Drift Memory Foam Pillow", 54.0, 0, 0), ("Halo Smart Bulb 4-pack", 44.99, 12, 1),
        ("Woven Throw Blanket", 49.0, 0, 1), ("Arc Floor Lamp", 139.0, 12, 1),
        ("Linen Sheet Set Queen", 119.0, 0, 0), ("Quiet Air Purifier", 229.0, 24, 1),
        ("Cedar Shoe Rack", 64.5, 0, 1), ("Terra Planter Trio", 36.0, 0, 1),
        ("Robo Vacuum S2", 299.0, 12, 1), ("Blackout Curtains Pair", 58.0, 0, 1),
    )),
    ("apparel", (
        ("Trailhead Rain Jacket", 139.0, 0, 1), ("Merino Crew Socks 3-pack", 29.0, 0, 0),
        ("Summit Fleece Hoodie", 79.0, 0, 1), ("Stride Running Shoes", 119.0, 0, 1),
        ("Canvas Weekender Bag", 95.0, 0, 1), ("Everyday Chino Pants", 64.0, 0, 1),
        ("Final Sale Denim Jacket", 48.0, 0, 0), ("Alpine Beanie", 22.0, 0, 1),
        ("Cotton Tee 2-pack", 32.0, 0, 1), ("Leather Belt Classic", 45.0, 0, 1),
    )),
    ("outdoors", (
        ("Ridge 2-Person Tent", 219.0, 24, 1), ("Glow Camp Lantern", 34.99, 12, 1),
        ("Trek Hiking Poles", 69.0, 12, 1), ("Basecamp Sleeping Bag", 149.0, 12, 1),
        ("Hydra Water Filter", 39.0, 0, 1), ("Cascade Daypack 24L", 89.0, 12, 1),
        ("Fold Camp Chair", 49.5, 0, 1), ("Flame Backpacking Stove", 59.0, 12, 1),
    )),
    ("toys", (
        ("Builder Blocks 500pc", 44.0, 0, 1), ("Rocket Kite", 24.99, 0, 1),
        ("Puzzle Globe 540pc", 29.0, 0, 1), ("Coding Robot Kit", 129.0, 12, 1),
        ("Plush Fox Large", 26.0, 0, 1), ("Marble Run Deluxe", 54.0, 0, 1),
        ("Art Studio Easel", 79.0, 0, 1), ("Wooden Train Set", 64.0, 0, 1),
        ("Science Lab Kit", 39.5, 0, 0), ("Drone Mini Flyer", 89.0, 12, 1),
    )),
)  # fmt: skip

_PROMOTIONS: tuple[Row, ...] = (
    {"code": "FALL15", "description": "15% off orders of $75 or more", "kind": "percent",
     "value": 15.0, "min_subtotal": 75.0, "tier_required": None, "starts_on": "2025-09-15",
     "ends_on": "2025-10-31", "active": 1},
    {"code": "WELCOME10", "description": "$10 off orders of $50 or more", "kind": "fixed",
     "value": 10.0, "min_subtotal": 50.0, "tier_required": None, "starts_on": "2025-01-01",
     "ends_on": "2025-12-31", "active": 1},
    {"code": "PLUS20", "description": "20% off for Plus and Premium members", "kind": "percent",
     "value": 20.0, "min_subtotal": 0.0, "tier_required": "plus", "starts_on": "2025-09-01",
     "ends_on": "2025-10-15", "active": 1},
    {"code": "PREMIUM50", "description": "$50 off $250+ for Premium members", "kind": "fixed",
     "value": 50.0, "min_subtotal": 250.0, "tier_required": "premium",
     "starts_on": "2025-09-01", "ends_on": "2025-12-31", "active": 1},
    {"code": "SUMMER25", "description": "25% off summer sale", "kind": "percent",
     "value": 25.0, "min_subtotal": 0.0, "tier_required": None, "starts_on": "2025-06-01",
     "ends_on": "2025-08-31", "active": 1},
    {"code": "FREESHIP", "description": "$5.99 off (shipping) on any order", "kind": "fixed",
     "value": 5.99, "min_subtotal": 0.0, "tier_required": None, "starts_on": "2025-01-01",
     "ends_on": "2025-12-31", "active": 0},
    {"code": "GEAR30", "description": "$30 off outdoor orders of $150 or more", "kind": "fixed",
     "value": 30.0, "min_subtotal": 150.0, "tier_required": None, "starts_on": "2025-09-20",
     "ends_on": "2025-10-20", "active": 1},
)  # fmt: skip

_TICKET_SUBJECTS = {
    "shipping": "Where is my order?",
    "billing": "Question about a charge",
    "returns": "Return request",
    "product": "Product question",
    "account": "Account update",
}


def _ts(d: date, hour: int = 10, minute: int = 0) -> str:
    return datetime.combine(d, time(hour, minute), tzinfo=UTC).isoformat()


def _add_months(d: date, months: int) -> date:
    y, m = divmod(d.month - 1 + months, 12)
    return date(d.year + y, m + 1, min(d.day, 28))


def _customers(rng: random.Random, out: dict[str, list[Row]]) -> None:
    for i in range(40):
        first = _FIRST[i]
        last = _LAST[(i * 7) % len(_LAST)]
        cid = f"CUS-{i + 1:04d}"
        joined = SEED_DATE - timedelta(days=rng.randint(60, 1400))
        out["customers"].append(
            {
                "id": cid,
                "first_name": first,
                "last_name": last,
                "email": f"{first.lower()}.{last.lower()}@example.com",
                "phone": f"555-01{i:02d}",
                "created_at": _ts(joined),
                "status": "active",
            }
        )
        tier = ("basic", "basic", "plus", "basic", "premium", "plus")[i % 6]
        out["memberships"].append(
            {
                "customer_id": cid,
                "tier": tier,
                "points_balance": rng.randint(0, 40) * 100 + rng.choice((0, 50)),
                "member_since": joined.isoformat(),
                "tier_changed_at": None,
                "tier_change_reason": None,
            }
        )
        city, state, postal = _CITIES[i % len(_CITIES)]
        out["addresses"].append(
            {
                "id": f"ADR-{2 * i + 1:04d}",
                "customer_id": cid,
                "label": "home",
                "line1": f"{rng.randint(10, 9899)} {rng.choice(_STREETS)}",
                "line2": "",
                "city": city,
                "state": state,
                "postal_code": postal,
                "country": "US",
                "is_default": 1,
            }
        )
        if i % 3 == 0:
            city, state, postal = _CITIES[(i + 4) % len(_CITIES)]
            out["addresses"].append(
                {
                    "id": f"ADR-{2 * i + 2:04d}",
                    "customer_id": cid,
                    "label": "work",
                    "line1": f"{rng.randint(100, 999)} Commerce Blvd",
                    "line2": f"Suite {rng.randint(100, 900)}",
                    "city": city,
                    "state": state,
                    "postal_code": postal,
                    "country": "US",
                    "is_default": 0,
                }
            )


def _products(rng: random.Random, out: dict[str, list[Row]]) -> None:
    n = 0
    for category, items in _CATALOG:
        for name, price, months, returnable in items:
            n += 1
            pid = f"PRD-{n:04d}"
            out["products"].append(
                {
                    "id": pid,
                    "name": name,
                    "category": category,
                    "price": price,
                    "warranty_months": months,
                    "returnable": returnable,
                }
            )
            out["inventory"].append(
                {"product_id": pid, "on_hand": rng.choice((0, 4, 12, 25, 40, 80)), "reserved": 0}
            )


_PAYMENT_STATUS = {
    "pending": "authorized",
    "processing": "authorized",
    "shipped": "captured",
    "delivered": "captured",
    "cancelled": "voided",
}


def _order_status(rng: random.Random, days_ago: int) -> str:
    if days_ago <= 1:
        return "pending"
    if days_ago <= 3:
        return "processing"
    if days_ago <= 7:
        return "shipped"
    return "cancelled" if rng.random() < 0.08 else "delivered"


def _orders(rng: random.Random, out: dict[str, list[Row]]) -> None:
    products = out["products"]
    default_address = {a["customer_id"]: a["id"] for a in out["addresses"] if a["is_default"]}
    reserved: dict[str, int] = {}
    for n in range(1, 121):
        oid = f"ORD-{10000000 + n}"
        cid = f"CUS-{(n * 13) % 40 + 1:04d}"
        days_ago = 9 + (n * 37) % 140 if n > 24 else n % 8 + 1
        placed = SEED_DATE - timedelta(days=days_ago)
        status = _order_status(rng, days_ago)
        subtotal = 0.0
        picks = rng.sample(range(len(products)), rng.choice((1, 1, 2, 2, 3)))
        for line, idx in enumerate(picks, start=1):
            prod = products[idx]
            qty = rng.choice((1, 1, 1, 2))
            subtotal += qty * prod["price"]
            out["order_items"].append(
                {
                    "id": f"OI-{10000000 + n}-{line}",
                    "order_id": oid,
                    "product_id": prod["id"],
                    "quantity": qty,
                    "unit_price": prod["price"],
                    "returned_qty": 0,
                }
            )
            if status in ("pending", "processing"):
                reserved[prod["id"]] = reserved.get(prod["id"], 0) + qty
        subtotal = round(subtotal, 2)
        shipping = 0.0 if subtotal >= 50 else 5.99
        total = round(subtotal + shipping, 2)
        out["orders"].append(
            {
                "id": oid,
                "customer_id": cid,
                "status": status,
                "placed_at": _ts(placed, 9 + n % 10, (n * 7) % 60),
                "shipping_address_id": default_address[cid],
                "subtotal": subtotal,
                "discount": 0.0,
                "shipping_fee": shipping,
                "total": total,
                "coupon_code": None,
                "replacement_for": None,
                "replacement_reason": None,
                "cancel_reason": "customer_request" if status == "cancelled" else None,
                "cancelled_at": _ts(placed, 20) if status == "cancelled" else None,
            }
        )
        pay_id = f"PAY-{10000000 + n}"
        out["payments"].append(
            {
                "id": pay_id,
                "order_id": oid,
                "method": ("card", "card", "paypal", "card", "gift_card")[n % 5],
                "amount": total,
                "status": _PAYMENT_STATUS[status],
                "created_at": _ts(placed, 9 + n % 10, (n * 7) % 60),
            }
        )
        if status in ("shipped", "delivered"):
            _shipment(rng, out, n, placed, status)
    for inv in out["inventory"]:
        inv["reserved"] = reserved.get(inv["product_id"], 0)
        inv["on_hand"] = max(inv["on_hand"], inv["reserved"])


def _shipment(
    rng: random.Random, out: dict[str, list[Row]], n: int, placed: date, status: str
) -> None:
    sid = f"SHP-{10000000 + n}"
    carrier = ("UPS", "FedEx", "USPS")[n % 3]
    shipped = placed + timedelta(days=1)
    eta = shipped + timedelta(days=4)
    delivered = shipped + timedelta(days=rng.randint(2, 5)) if status == "delivered" else None
    out["shipments"].append(
        {
            "id": sid,
            "order_id": f"ORD-{10000000 + n}",
            "carrier": carrier,
            "tracking_number": f"{carrier[:2].upper()}{rng.randint(10**9, 10**10 - 1)}",
            "status": "delivered" if delivered else ("exception" if n % 3 == 0 else "in_transit"),
            "shipped_at": _ts(shipped, 16),
            "estimated_delivery": eta.isoformat(),
            "delivered_at": _ts(delivered, 14) if delivered else None,
        }
    )
    events = [
        (shipped, 16, "label_created", "Shipping label created"),
        (shipped, 21, "picked_up", "Picked up by carrier"),
        (shipped + timedelta(days=1), 6, "in_transit", "Departed regional facility"),
    ]
    if delivered:
        events.append((delivered, 14, "delivered", "Delivered to front door"))
    elif n % 3 == 0:
        opened = shipped + timedelta(days=2)
        events.append((opened, 9, "exception", "Delayed: weather at regional hub"))
        out["carrier_exceptions"].append(
            {
                "id": f"EXC-{len(out['carrier_exceptions']) + 1:04d}",
                "shipment_id": sid,
                "kind": "delay",
                "status": "open",
                "resolution": None,
                "opened_at": _ts(opened, 9),
                "resolved_at": None,
            }
        )
    for k, (d, hour, code, desc) in enumerate(events, start=1):
        out["tracking_events"].append(
            {
                "id": f"EVT-{10000000 + n}-{k}",
                "shipment_id": sid,
                "occurred_at": _ts(d, hour),
                "code": code,
                "location": "Regional hub" if code == "in_transit" else "Origin warehouse",
                "description": desc,
            }
        )


def _warranties(out: dict[str, list[Row]]) -> None:
    products = {p["id"]: p for p in out["products"]}
    orders = {o["id"]: o for o in out["orders"]}
    delivered = {
        s["order_id"]: s["delivered_at"][:10] for s in out["shipments"] if s["delivered_at"]
    }
    n = 0
    for item in out["order_items"]:
        months = products[item["product_id"]]["warranty_months"]
        if not months or item["order_id"] not in delivered:
            continue
        n += 1
        extended = n % 4 == 0
        start = date.fromisoformat(delivered[item["order_id"]])
        out["warranties"].append(
            {
                "id": f"WAR-{n:04d}",
                "customer_id": orders[item["order_id"]]["customer_id"],
                "order_item_id": item["id"],
                "plan": "extended" if extended else "standard",
                "starts_on": start.isoformat(),
                "expires_on": _add_months(start, months + (12 if extended else 0)).isoformat(),
                "status": "active",
            }
        )


def _tickets(rng: random.Random, out: dict[str, list[Row]]) -> None:
    orders = out["orders"]
    categories = tuple(_TICKET_SUBJECTS)
    for n in range(1, 41):
        order = orders[(n * 11) % len(orders)]
        category = categories[n % len(categories)]
        created = SEED_DATE - timedelta(days=rng.randint(1, 60))
        status = ("solved", "closed", "open", "pending", "solved")[n % 5]
        tid = str(n)
        out["tickets"].append(
            {
                "id": tid,
                "customer_id": order["customer_id"],
                "order_id": order["id"] if category != "account" else None,
                "subject": _TICKET_SUBJECTS[category],
                "category": category,
                "status": status,
                "priority": ("normal", "low", "normal", "high")[n % 4],
                "team": "tier1",
                "hold_reason": None,
                "escalation_reason": None,
                "created_at": _ts(created, 11),
                "updated_at": _ts(created, 15),
            }
        )
        out["ticket_comments"].append(
            {
                "id": f"CMT-{n:05d}",
                "ticket_id": tid,
                "author": "customer",
                "public": 1,
                "body": f"Hello, I need help with {_TICKET_SUBJECTS[category].lower()}",
                "created_at": _ts(created, 11),
            }
        )


def _points_history(out: dict[str, list[Row]]) -> None:
    n = 0
    for m in out["memberships"]:
        if m["points_balance"]:
            n += 1
            out["points_ledger"].append(
                {
                    "id": f"PTS-{n:05d}",
                    "customer_id": m["customer_id"],
                    "delta": m["points_balance"],
                    "reason": "purchase",
                    "order_id": None,
                    "created_at": _ts(SEED_DATE - timedelta(days=30)),
                }
            )


def seed_rows() -> dict[str, list[Row]]:
    """Build the retail seed.

    Returns:
        table → rows, in an order that satisfies foreign keys.
    """
    rng = random.Random(20251001)
    tables = (
        "customers", "memberships", "points_ledger", "addresses", "products", "inventory",
        "orders", "order_items", "shipments", "tracking_events", "carrier_exceptions",
        "payments", "refunds", "store_credits", "returns", "return_items", "warranties",
        "warranty_claims", "promotions", "tickets", "ticket_comments",
    )  # fmt: skip
    out: dict[str, list[Row]] = {t: [] for t in tables}
    _customers(rng, out)
    _points_history(out)
    _products(rng, out)
    _orders(rng, out)
    _warranties(out)
    _tickets(rng, out)
    out["promotions"] = [dict(p) for p in _PROMOTIONS]
    return out
