"""Intent building blocks shared by both splits: reads, ticket wrap-ups, refund shapes.

An intent builder takes the task under construction (`Ctx`) and whether the customer
has an open ticket about the matter, adds its records, and returns a `Part`. The test
split's builders are in `_test_intents`, the train split's in `_train_intents`: no
branch is in both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from scripts._checks import says
from scripts.gen_retail_tasks._build import Row, call

from ._scenario import Ctx, Part

__all__ = [
    "Builder",
    "escalation",
    "failing",
    "lost_order",
    "order_total",
    "solve",
    "ticket_text",
]

Builder = Callable[[Ctx, bool], Part]
"""An intent: (task under construction, customer has an open ticket about it) → part."""

SUBJECTS: Final = {
    "shipping": "Where is my package?",
    "returns": "Problem with an item I received",
    "billing": "Question about my refund",
    "product": "Item not working",
}


def failing(tool: str, **args: object) -> Row:
    """A golden call the task expects refused as ``invalid_state`` (the natural first try)."""
    return {**call(tool, **args), "fails": "invalid_state"}


def solve(ctx: Ctx, order_id: str, category: str, ticket: bool) -> list[Row]:
    """With an open ticket about the order: list tickets, set it solved (policy §10)."""
    if not ticket:
        return []
    tid = ctx.ticket(order_id, category, SUBJECTS[category])
    return [*ctx.tickets(), call("update_ticket", ticket_id=tid, status="solved")]


def ticket_text(golden: list[Row]) -> list[Row]:
    """Text checks: a new ticket's subject and every comment name the order (policy §10)."""
    out: list[Row] = []
    for c in golden:
        a = c["args"]
        if c["tool"] == "create_ticket":
            assert a["order_id"] in a["subject"], a
            out.append(says("tickets", "subject", {"customer_id": a["customer_id"]}, a["order_id"]))
    return out


def escalation(
    ctx: Ctx,
    order_id: str,
    existing: str | None,
    category: str,
    team: str,
    reason: str,
    subject: str,
    body: str,
    facts: tuple[object, ...],
    *,
    priority: str | None = None,
) -> tuple[list[Row], list[Row]]:
    """Escalate the open ticket about the order, or open one first; then one internal note.

    Returns the calls and the text checks (the note must carry ``facts``).
    """
    calls = list(ctx.tickets())
    if existing is None:
        existing = ctx.next_id("tickets")
        calls.append(
            call(
                "create_ticket",
                customer_id=ctx.customer,
                subject=f"{order_id}: {subject}",
                category=category,
                order_id=order_id,
            )
        )
    if priority:
        calls.append(call("update_ticket", ticket_id=existing, priority=priority))
    calls += [
        call("escalate_ticket", ticket_id=existing, team=team, reason=reason),
        call("add_ticket_comment", ticket_id=existing, body=body, public=False),
    ]
    text = [says("ticket_comments", "body", {"ticket_id": existing}, order_id, *facts)]
    return calls, text


def lost_order(ctx: Ctx, products: list[Row], **kw: object) -> tuple[str, list[Row]]:
    """A shipped order the carrier declared lost (exception resolved as lost)."""
    oid, items = ctx.order("shipped", products, days_ago=9, shipment="lost", **kw)  # type: ignore[arg-type]
    ctx.exception(oid, "lost", "resolved", "lost")
    return oid, items


def order_total(items: list[Row]) -> float:
    """What the order charged (items plus the shipping fee, as `Ctx.order` sets it)."""
    sub = round(sum(i["quantity"] * i["unit_price"] for i in items), 2)
    return round(sub + (0.0 if sub >= 50 else 5.99), 2)
