"""Shared pieces of the retail task generator: seed lookups, dates, patches, calls, the collector.

The seed lookups (``SEED``, ``BY_ID``, ``ITEMS``, ``WARRANTY_OF_ITEM``, ``PRODUCTS``) are built
once at import from the deterministic domain seed and typed read-only; nothing writes to them.
Tasks accumulate in a `TaskSet` the caller creates and passes to every family, never in a
module-level list. Helpers assert every assumption about the seed rows they re-date, so a seed
change that breaks a task fails here, loudly.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any, Final

from scripts._task_files import write_families
from scripts._user_specs import behaviour, fact, user_facts

from statebox.domains.retail.seed import SEED_DATE, seed_rows

NOW: Final = "2025-10-01T13:00:00+00:00"
TODAY: Final = SEED_DATE
Row = dict[str, Any]
Patch = dict[str, list[Row]]

SEED: Final[Mapping[str, Sequence[Row]]] = seed_rows()
BY_ID: Final[Mapping[str, Mapping[str, Row]]] = {
    table: {
        str(r.get("id", r.get("customer_id", r.get("product_id", r.get("code"))))): r for r in rows
    }
    for table, rows in SEED.items()
    if table != "return_items"
}


def _by_order(items: Sequence[Row]) -> dict[str, list[Row]]:
    """Order items grouped by order id, in seed order."""
    out: dict[str, list[Row]] = {}
    for item in items:
        out.setdefault(item["order_id"], []).append(item)
    return out


ITEMS: Final[Mapping[str, Sequence[Row]]] = _by_order(SEED["order_items"])
WARRANTY_OF_ITEM: Final[Mapping[str, Row]] = {w["order_item_id"]: w for w in SEED["warranties"]}
PRODUCTS: Final = BY_ID["products"]
TIER_NAME: Final = {"basic": "Basic", "plus": "Plus", "premium": "Premium"}

# ----------------------------------------------------------------------------- user facts

FACTS: Final[Mapping[str, Row]] = {
    "email": fact("email", "e-mail", "email address", label="email"),
    "order_id": fact("order number", "order id", "which order", label="order number"),
    "name": fact("name", "full name", label="name"),
    "address": fact(
        "address", "where should", "where would you like", say="Please send it to {value}."
    ),
    "new_address": fact("new address", "address", "where should", say="Please send it to {value}."),
    "place": fact(
        "whose address is it",
        "whose address",
        "what kind of address",
        "label",
        "home or",
        "is this address",
        "what is this address",
        say="{value}",
    ),
    "saved_address": fact(
        "which address", "address", "work address", say="{value}", label="address"
    ),
    "keep_order_id": fact(
        "which one to keep",
        "keep",
        "which one",
        "other order",
        label="order to keep",
        say="The one to keep is {value}.",
    ),
    "code": fact("code", "promo code", "coupon", label="code", say="The code is {value}."),
    "rma_id": fact(
        "return number",
        "rma",
        "return id",
        "return request",
        label="return number",
        say="The return is {value}.",
    ),
    "ticket_id": fact(
        "ticket number",
        "ticket id",
        "which ticket",
        label="ticket number",
        say="It's ticket {value}.",
    ),
    "item": fact("which item", "which product", "item", "product", say="It's the {value}."),
    "quantity": fact("how many", "quantity", "units", say="{value} unit(s)."),
    "reason": fact("why are you returning it", "reason", "why", say="{value}"),
    "problem": fact(
        "what is the problem", "problem", "what happened", "what's wrong", "issue", say="{value}"
    ),
    "choice": fact(
        "which would you prefer",
        "prefer",
        "would you like",
        "refund or",
        "replacement",
        "store credit",
        "points",
        say="{value}",
    ),
    "wants": fact("do you want", "would you like", "what would you like", say="{value}"),
    "owner": fact(
        "did you place this order",
        "whose order",
        "placed it",
        "place this order",
        "placed this order",
        say="{value}",
    ),
}
"""Every retail fact: the phrases an agent may ask for it with, and the user's words."""

CHANGED_FROM: Final[Mapping[str, str]] = {
    "address-change": "Hi, I think I want to cancel one of my orders.",
    "cancellation": "Hi, I'd like to change the delivery address on one of my orders.",
    "delivery-exception": "Hi, I'd like to change the delivery address on one of my orders.",
    "late-delivery": "Hi, I'd like to return something from one of my orders.",
    "loyalty": "Hi, can you tell me what discounts are running at the moment?",
    "promotions": "Hi, I'd like to know how many loyalty points I have.",
    "refunds": "Hi, I want to return an item I received.",
    "returns": "Hi, I'd like to exchange an item from my order for a different one.",
    "ticket-triage": "Hi, I'd like to open a new complaint about a product.",
    "warranty": "Hi, I'd like to return something I bought a while ago.",
}
"""The related request a changes-goal user opens with, per family."""

# ----------------------------------------------------------------------------- dates


def day(days_ago: int) -> date:
    """The date ``days_ago`` days before the clock."""
    return TODAY - timedelta(days=days_ago)


def ts(d: date, hour: int = 10) -> str:
    """An ISO timestamp at ``hour`` UTC on ``d``."""
    return datetime.combine(d, time(hour), tzinfo=UTC).isoformat()


def add_months(d: date, months: int) -> date:
    """``d`` plus whole months (day clamped to 28, as the seed does)."""
    y, m = divmod(d.month - 1 + months, 12)
    return date(d.year + y, m + 1, min(d.day, 28))


# ----------------------------------------------------------------------------- patches


def merge(*patches: Patch) -> Patch:
    """Concatenate patches table by table."""
    out: Patch = defaultdict(list)
    for p in patches:
        for table, rows in p.items():
            out[table].extend(rows)
    return dict(out)


def order_number(order_id: str) -> int:
    """The seed index of an order id."""
    return int(order_id.removeprefix("ORD-")) - 10000000


def assert_no_open_ticket(order_id: str) -> None:
    """Fail when the seed holds an open ticket about the order (it would make tasks ambiguous)."""
    for t in SEED["tickets"]:
        if t["order_id"] == order_id and t["status"] in ("open", "pending", "hold"):
            raise AssertionError(f"seed ticket {t['id']} is open about {order_id}")


def delivered(order_id: str, days_ago: int, late_days: int = 0) -> Patch:
    """Re-date a delivered seed order: delivered ``days_ago`` days ago, ``late_days`` late."""
    order = BY_ID["orders"][order_id]
    assert order["status"] == "delivered", order_id
    n = order_number(order_id)
    got = day(days_ago)
    eta = got - timedelta(days=max(late_days, 0))
    shipped = eta - timedelta(days=4)
    placed = shipped - timedelta(days=1)
    patch: Patch = {
        "orders": [{"id": order_id, "placed_at": ts(placed, 9)}],
        "payments": [{"id": f"PAY-{10000000 + n}", "created_at": ts(placed, 9)}],
        "shipments": [
            {
                "id": f"SHP-{10000000 + n}",
                "status": "delivered",
                "shipped_at": ts(shipped, 16),
                "estimated_delivery": eta.isoformat(),
                "delivered_at": ts(got, 14),
            }
        ],
        "tracking_events": [
            {"id": f"EVT-{10000000 + n}-{k}", "occurred_at": ts(d, h)}
            for k, (d, h) in enumerate(
                [(shipped, 16), (shipped, 21), (shipped + timedelta(days=1), 6), (got, 14)], 1
            )
        ],
        "warranties": [],
    }
    for item in ITEMS[order_id]:
        w = WARRANTY_OF_ITEM.get(item["id"])
        if w is not None:
            months = PRODUCTS[item["product_id"]]["warranty_months"]
            extra = 12 if w["plan"] == "extended" else 0
            patch["warranties"].append(
                {
                    "id": w["id"],
                    "starts_on": got.isoformat(),
                    "expires_on": add_months(got, months + extra).isoformat(),
                }
            )
    return {k: v for k, v in patch.items() if v}


def ticket(
    ticket_id: str,
    customer_id: str,
    order_id: str | None,
    category: str,
    subject: str,
    status: str = "open",
    priority: str = "normal",
    hold_reason: str | None = None,
) -> Patch:
    """A full ticket row and its opening comment (inserted, or replacing seed rows)."""
    return {
        "tickets": [
            {
                "id": ticket_id,
                "customer_id": customer_id,
                "order_id": order_id,
                "subject": subject,
                "category": category,
                "status": status,
                "priority": priority,
                "team": "tier1",
                "hold_reason": hold_reason,
                "escalation_reason": None,
                "created_at": ts(day(3), 11),
                "updated_at": ts(day(3), 11),
            }
        ],
        "ticket_comments": [
            {
                "id": f"CMT-{int(ticket_id):05d}",
                "ticket_id": ticket_id,
                "author": "customer",
                "public": 1,
                "body": subject,
                "created_at": ts(day(3), 11),
            }
        ],
    }


def tier(customer_id: str, value: str) -> Patch:
    """Set a customer's membership tier."""
    return {"memberships": [{"customer_id": customer_id, "tier": value}]}


def stock(product_id: str, available: int) -> Patch:
    """Set a product's available units (on hand minus reserved)."""
    reserved = BY_ID["inventory"][product_id]["reserved"]
    return {"inventory": [{"product_id": product_id, "on_hand": reserved + available}]}


# ----------------------------------------------------------------------------- calls


def call(tool: str, **args: Any) -> Row:
    """One golden call."""
    return {"tool": tool, "args": args}


def ident(customer_id: str, order_id: str | None = None) -> list[Row]:
    """The identity reads every trajectory starts with."""
    calls = [call("find_customer_by_email", email=BY_ID["customers"][customer_id]["email"])]
    if order_id:
        calls.append(call("get_order", order_id=order_id))
    return calls


def inv(sql: str, equals: Any, description: str) -> Row:
    """A SQL invariant."""
    return {"sql": sql, "equals": equals, "description": description}


def no_refund(order_id: str) -> Row:
    """Invariant: no refund row for the order."""
    return inv(
        f"select count(*) from refunds where order_id = '{order_id}'",
        0,
        f"no refund issued on {order_id}",
    )


def no_compensation(customer_id: str, order_id: str) -> list[Row]:
    """Invariants: no refund, replacement or store credit for the order."""
    return [
        no_refund(order_id),
        inv(
            f"select count(*) from orders where replacement_for = '{order_id}'",
            0,
            f"no replacement order for {order_id}",
        ),
        inv(
            f"select count(*) from store_credits where customer_id = '{customer_id}' "
            f"and created_at >= '{NOW}'",
            0,
            "no store credit issued",
        ),
    ]


def pct(amount: float, percent: float) -> float:
    """``percent`` of ``amount``, rounded to cents."""
    return round(amount * percent / 100 + 0.0, 2)


# ----------------------------------------------------------------------------- tasks


def _order_named(golden: list[Row], order: str | None) -> list[Row]:
    """A new ticket's subject and every internal comment must name the order (policy §9)."""
    out = []
    for c in golden:
        a = c["args"]
        if c["tool"] == "create_ticket":
            assert a["order_id"] in a["subject"], f"subject {a['subject']!r} lacks the order"
            where = {"customer_id": a["customer_id"]}
            out.append(note("tickets", "subject", where, a["order_id"]))
        elif c["tool"] == "add_ticket_comment":
            assert order and order in a["body"], f"comment {a['body']!r} lacks the order"
            out.append(note("ticket_comments", "body", {"ticket_id": a["ticket_id"]}, order))
    return out


def note(table: str, column: str, where: Row, *facts: Any) -> Row:
    """A text check: the rows the agent wrote in ``table`` matching ``where`` carry ``facts``."""
    return {"table": table, "column": column, "where": where, "must_contain": list(facts)}


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
        order: str | None = None,
        facts: Row | None = None,
        reacts: Row | None = None,
        patch: Patch | None = None,
        delete: Patch | None = None,
        invariants: list[Row] | None = None,
        tags: list[str] | None = None,
        read_only: bool = False,
        text: list[Row] | None = None,
        reply: Row | None = None,
        reference: str = "",
    ) -> None:
        """Append one task to its family.

        ``facts`` are the user's facts beyond the email and order (values, or mappings
        with ``value`` and overrides); ``reacts`` the `behaviour` keys of the user.
        ``text`` are checks on the text the agent writes (a ticket's subject and every
        internal comment must name the order, added here); ``reply`` the facts the agent's
        replies must (not) carry, said by the ``reference`` reply.
        """
        self._counters[family, variant] += 1
        task_id = f"retail.{family}.{variant}.{self._counters[family, variant]:03d}"
        cust = BY_ID["customers"][customer]
        patch = patch or {}
        if order and not any(t["order_id"] == order for t in patch.get("tickets", [])):
            assert_no_open_ticket(order)
        level = BY_ID["memberships"][customer]["tier"]
        for row in patch.get("memberships", []):
            if row["customer_id"] == customer and "tier" in row:
                level = row["tier"]
        values: Row = {"email": cust["email"]}
        if order:
            values["order_id"] = order
        values.update(facts or {})
        initial: Row = dict(patch)
        if delete:
            initial["delete"] = delete
        task: Row = {
            "id": task_id,
            "domain": "retail",
            "split": "train" if len(self._families[family]) % 5 == 1 else "test",
            "now": NOW,
            "description": description,
        }
        if initial:
            task["initial_state"] = initial
        task["user"] = {
            "opening": opening,
            "persona": f"{cust['first_name']} {cust['last_name']}, {TIER_NAME[level]} member",
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
        text = [*_order_named(golden, order), *(text or [])]
        if text:
            checks["text"] = text
        if reply:
            assert reference, f"{task_id}: a reply check needs a reference reply"
            checks["reply"] = reply
        if checks:
            task["checks"] = checks
        if reference:
            task["reference_response"] = reference
        task["tags"] = sorted({*(tags or []), "refusal"} if read_only else set(tags or []))
        task["read_only"] = read_only
        self._families[family].append(task)

    def counts(self) -> dict[str, int]:
        """Tasks per family, by family name."""
        return {f: len(t) for f, t in sorted(self._families.items())}

    def write(self, out: Path) -> None:
        """Write one YAML list per family into ``out``, removing files of families not built."""
        write_families(self._families, out)


# ----------------------------------------------------------------------------- user lines


def name(customer_id: str) -> str:
    """The customer's full name."""
    c = BY_ID["customers"][customer_id]
    return f"{c['first_name']} {c['last_name']}"
