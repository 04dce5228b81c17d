"""One task's world under construction: its customer, new orders, tickets and step calls.

Every v2 task builds its own records in ``initial_state`` (new rows with ids no seed row
uses: orders ``ORD-10003xxx``, tickets ``2xx``), so a task never depends on how the seed
happens to date an order, and distractors (other open orders, a closed ticket, a second
warranty) are rows like any other. Choices come from a `random.Random` seeded with the
task's serial number: regeneration is byte-identical.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any, Final, Literal

from scripts._user_specs import fact
from scripts.gen_retail_tasks._build import (
    BY_ID,
    FACTS,
    PRODUCTS,
    SEED,
    Patch,
    Row,
    add_months,
    call,
    day,
    ts,
)

__all__ = ["VOCAB", "Ctx", "Incompatible", "Mode", "Part", "pick_products"]

Mode = Literal["fact", "say", "describe"]
"""How the customer names an order: its id asked for (``fact``), its id in their own
words (``say``), or only what was in it (``describe``: the agent must find it)."""

VOCAB: Final[dict[str, Row]] = {
    **FACTS,
    "serial_number": fact(
        "serial number", "serial", label="serial number", say="The serial number is {value}."
    ),
}
"""The v1 fact vocabulary plus what only v2 tasks ask for."""

CUSTOMERS: Final = tuple(c["id"] for c in SEED["customers"])
DEFAULT_ADDRESS: Final = {a["customer_id"]: a["id"] for a in SEED["addresses"] if a["is_default"]}
TIERS: Final = ("basic", "plus", "premium")
WINDOW: Final = {"basic": 30, "plus": 45, "premium": 60}
"""Return window in days by tier (policy §5)."""
LIMIT: Final = {"basic": 50.0, "plus": 150.0, "premium": 400.0}
"""Agent refund limit per order by tier (policy §6)."""


class Incompatible(Exception):
    """Two intents cannot share one task (tier, facts); the composer skips the pair."""


def pick_products(
    rng: random.Random,
    n: int = 1,
    *,
    category: str | None = None,
    min_price: float = 0.0,
    max_price: float = 10_000.0,
    warranty: bool | None = None,
    returnable: int | None = None,
) -> list[Row]:
    """``n`` distinct seed products matching the filters, drawn with ``rng``."""
    pool = [
        p
        for p in PRODUCTS.values()
        if (category is None or p["category"] == category)
        and min_price <= p["price"] <= max_price
        and (warranty is None or bool(p["warranty_months"]) == warranty)
        and (returnable is None or p["returnable"] == returnable)
    ]
    assert len(pool) >= n, (category, min_price, max_price, warranty, returnable)
    return rng.sample(sorted(pool, key=lambda p: p["id"]), n)


@dataclass
class Part:
    """One user request of a task: what the user says and what the golden trajectory does."""

    intent: str
    """``family.branch`` (the task's ``intent:`` tag)."""
    opening: str
    goal: str
    calls: list[Row]
    description: str
    facts: Row = field(default_factory=dict)
    text: list[Row] = field(default_factory=list)
    invariants: list[Row] = field(default_factory=list)
    reply: list[Any] = field(default_factory=list)
    """Facts the agent's replies must carry (a refused request the state cannot show)."""
    reference: str = ""
    behaviour: Row = field(default_factory=dict)
    tags: list[str] = field(default_factory=list)
    refusal: bool = False


@dataclass
class Ctx:
    """The task under construction: the customer, the rows added, ids handed out."""

    serial: int
    customer: str
    mode: Mode = "fact"
    rng: random.Random = field(init=False)
    tier: str = field(init=False)
    tier_fixed: bool = False
    points: int | None = None
    patch: Patch = field(default_factory=dict)
    fact_order: str | None = None
    mentioned: list[str] = field(default_factory=list)
    done: set[str] = field(default_factory=set)
    """Reads already made and records already disclosed (each once per conversation)."""
    _orders: int = 0
    _tickets: int = 0
    _next: dict[str, int] = field(default_factory=lambda: {"returns": 501, "tickets": 501})

    def __post_init__(self) -> None:
        self.rng = random.Random(f"retail-v2-{self.serial}")
        self.tier = BY_ID["memberships"][self.customer]["tier"]

    # ------------------------------------------------------------------ customer
    @property
    def row(self) -> Row:
        """The customer's seed row."""
        return BY_ID["customers"][self.customer]

    @property
    def full_name(self) -> str:
        """First and last name."""
        return f"{self.row['first_name']} {self.row['last_name']}"

    def need_tier(self, *allowed: str) -> str:
        """Fix the customer's tier to one of ``allowed`` (refuse if another intent fixed it)."""
        if "tier-changed" in self.done:
            raise Incompatible("the tier changed earlier in the conversation")
        if self.tier_fixed:
            if self.tier not in allowed:
                raise Incompatible(f"tier {self.tier} not in {allowed}")
            return self.tier
        self.tier = self.rng.choice(sorted(allowed, key=TIERS.index))
        self.tier_fixed = True
        return self.tier

    def set_points(self, balance: int) -> int:
        """Set the points balance (refuse if another intent of the task set it)."""
        if self.points is not None:
            raise Incompatible("the points balance is set by another intent")
        self.points = balance
        return balance

    def membership_patch(self) -> Patch:
        """The membership row as the task sets it."""
        row: Row = {"customer_id": self.customer, "tier": self.tier}
        if self.points is not None:
            row["points_balance"] = self.points
        return {"memberships": [row]}

    # ------------------------------------------------------------------ rows
    def add(self, table: str, *rows: Row) -> None:
        """Insert rows into the task's initial state."""
        self.patch.setdefault(table, []).extend(rows)

    def order(
        self,
        status: str,
        products: list[Row],
        *,
        days_ago: int = 20,
        quantities: list[int] | None = None,
        late: int = 0,
        shipment: str | None = None,
        method: str = "card",
        card_expires: str | None = None,
        serials: dict[int, str] | None = None,
        warranty: dict[int, tuple[str, int, str]] | None = None,
    ) -> tuple[str, list[Row]]:
        """Add an order of this customer; returns its id and its item rows.

        ``days_ago`` dates delivery (delivered), shipment (shipped) or placement (open
        orders); ``late`` days after the estimate it was delivered; ``warranty`` maps an
        item index to (plan, days since it started, status).
        """
        self._orders += 1
        number = 10003000 + 20 * self.serial + self._orders
        oid = f"ORD-{number}"
        quantities = quantities or [1] * len(products)
        items = [
            {
                "id": f"OI-{number}-{k}",
                "order_id": oid,
                "product_id": p["id"],
                "quantity": q,
                "unit_price": p["price"],
                "returned_qty": 0,
                "serial_number": (serials or {}).get(k - 1),
            }
            for k, (p, q) in enumerate(zip(products, quantities, strict=True), 1)
        ]
        subtotal = round(sum(i["quantity"] * i["unit_price"] for i in items), 2)
        fee = 0.0 if subtotal >= 50 else 5.99
        total = round(subtotal + fee, 2)
        if status == "delivered":
            got = day(days_ago)
            eta = got - timedelta(days=late)
            shipped = eta - timedelta(days=4)
            placed = shipped - timedelta(days=1)
        elif status == "shipped":
            shipped = day(days_ago)
            placed, eta, got = shipped - timedelta(days=1), shipped + timedelta(days=4), None
        else:
            placed, shipped, eta, got = day(days_ago), None, None, None
        self.add(
            "orders",
            {
                "id": oid,
                "customer_id": self.customer,
                "status": status,
                "placed_at": ts(placed, 9),
                "shipping_address_id": DEFAULT_ADDRESS[self.customer],
                "subtotal": subtotal,
                "discount": 0.0,
                "shipping_fee": fee,
                "total": total,
                "coupon_code": None,
                "replacement_for": None,
                "replacement_reason": None,
                "cancel_reason": None,
                "cancelled_at": None,
            },
        )
        self.add("order_items", *items)
        captured = status in ("shipped", "delivered")
        self.add(
            "payments",
            {
                "id": f"PAY-{number}",
                "order_id": oid,
                "method": method,
                "amount": total,
                "status": "captured" if captured else "authorized",
                "created_at": ts(placed, 9),
                "card_expires": card_expires if method == "card" else None,
            },
        )
        if shipped is not None:
            carrier = ("UPS", "FedEx", "USPS")[number % 3]
            tracking = f"{carrier[:2].upper()}{self.rng.randint(10**9, 10**10 - 1)}"
            self.add(
                "shipments",
                {
                    "id": f"SHP-{number}",
                    "order_id": oid,
                    "carrier": carrier,
                    "tracking_number": tracking,
                    "status": shipment or ("delivered" if got else "in_transit"),
                    "shipped_at": ts(shipped, 16),
                    "estimated_delivery": eta.isoformat() if eta else None,
                    "delivered_at": ts(got, 14) if got else None,
                },
            )
            events = [(shipped, 16, "label_created", "Shipping label created")]
            if got:
                events.append((got, 14, "delivered", "Delivered to front door"))
            self.add(
                "tracking_events",
                *(
                    {
                        "id": f"EVT-{number}-{k}",
                        "shipment_id": f"SHP-{number}",
                        "occurred_at": ts(d, h),
                        "code": code,
                        "location": "Origin warehouse",
                        "description": what,
                    }
                    for k, (d, h, code, what) in enumerate(events, 1)
                ),
            )
        for k, (plan, started, wstatus) in (warranty or {}).items():
            product = products[k]
            start = day(started)
            months = product["warranty_months"] + (12 if plan == "extended" else 0)
            self.add(
                "warranties",
                {
                    "id": f"WAR-{number - 10000000}{k}",
                    "customer_id": self.customer,
                    "order_item_id": items[k]["id"],
                    "plan": plan,
                    "starts_on": start.isoformat(),
                    "expires_on": add_months(start, months).isoformat(),
                    "status": wstatus,
                },
            )
        return oid, items

    def distractor(self, product: Row, status: str = "delivered", days_ago: int = 75) -> str:
        """Another order of this customer, with the same product when the id is given.

        Acting on the wrong one is the trap; when the customer only describes the order,
        the distractor holds another product, so the description still picks one.
        """
        if self.mode == "describe":
            pool = pick_products(self.rng, 2, category=product["category"])
            product = next(p for p in pool if p["id"] != product["id"])
        return self.order(status, [product], days_ago=days_ago)[0]

    def exception(self, order_id: str, kind: str, status: str, resolution: str | None) -> None:
        """A carrier exception on the order's shipment."""
        n = order_id.removeprefix("ORD-")
        self.add(
            "carrier_exceptions",
            {
                "id": f"EXC-{int(n) - 10000000}",
                "shipment_id": f"SHP-{n}",
                "kind": kind,
                "status": status,
                "resolution": resolution,
                "opened_at": ts(day(6), 9),
                "resolved_at": ts(day(2), 12) if status == "resolved" else None,
            },
        )

    def ticket(
        self, order_id: str | None, category: str, subject: str, status: str = "open"
    ) -> str:
        """An existing ticket of this customer (ids 2xx: above the seed's, below new ones)."""
        self._tickets += 1
        tid = str(200 + (self.serial * 7 + self._tickets) % 290)
        when = ts(day(9 if status == "closed" else 3), 11)
        self.add(
            "tickets",
            {
                "id": tid,
                "customer_id": self.customer,
                "order_id": order_id,
                "subject": subject,
                "category": category,
                "status": status,
                "priority": "normal",
                "team": "tier1",
                "hold_reason": None,
                "escalation_reason": None,
                "created_at": when,
                "updated_at": when,
            },
        )
        self.add(
            "ticket_comments",
            {
                "id": f"CMT-{900 + int(tid)}",
                "ticket_id": tid,
                "author": "customer",
                "public": 1,
                "body": subject,
                "created_at": when,
            },
        )
        return tid

    def next_id(self, what: str) -> str:
        """The id the next created return or ticket gets on replay."""
        n = self._next[what]
        self._next[what] += 1
        return f"RMA-{n:05d}" if what == "returns" else str(n)

    # ------------------------------------------------------------------ calls
    def once(self, key: str, *calls: Row) -> list[Row]:
        """``calls`` the first time ``key`` comes up in the conversation, else none."""
        if key in self.done:
            return []
        self.done.add(key)
        return list(calls)

    def disclose(self, related_id: str) -> list[Row]:
        """The disclosure before the first change of a record (policy §1)."""
        return self.once(
            f"disclose:{related_id}",
            call(
                "record_disclosure",
                customer_id=self.customer,
                topic="planned_change",
                related_id=related_id,
            ),
        )

    def profile(self) -> list[Row]:
        """Read the profile (tier, addresses, spend) once."""
        return self.once("profile", call("get_customer_profile", customer_id=self.customer))

    def tickets(self) -> list[Row]:
        """List the customer's tickets once."""
        return self.once("tickets", call("list_customer_tickets", customer_id=self.customer))

    def open_order(self, order_id: str) -> list[Row]:
        """Read the order (how every order request starts)."""
        return self.once(f"order:{order_id}", call("get_order", order_id=order_id))

    def mention(self, order_id: str, described: str = "") -> str:
        """How the customer refers to the order in their request.

        ``described``: what identifies the order when its id is not given (empty when the
        request already names the item).
        """
        self.mentioned.append(order_id)
        if self.mode == "fact" and self.fact_order is None:
            self.fact_order = order_id
            return "my order"
        if self.mode == "describe":
            return f"my order with the {described}" if described else "my order"
        return f"my order {order_id}"


def past_month(d: date, months: int) -> str:
    """``YYYY-MM`` of ``months`` months before ``d``."""
    y, m = divmod(d.year * 12 + d.month - 1 - months, 12)
    return f"{y:04d}-{m + 1:02d}"
