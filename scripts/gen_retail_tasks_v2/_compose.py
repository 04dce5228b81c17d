"""Tasks composed from intents: verification, one or two requests, distractors, recovery.

A task is one customer's conversation: find and verify them (by an order id they give
or, when they name no order number, by their full name, then find the order among
theirs), then each request's calls. Candidates are enumerated in a fixed order (each
intent alone under every way of naming the order, with and without an open ticket to
wrap up, then pairs of intents); a candidate whose signature another task of the split
already has is skipped, so the split holds no re-instances of its own tasks, and pairs
with a tool sequence no earlier task has are taken first.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import Any, Final

from scripts._user_specs import behaviour, user_facts
from scripts.gen_retail_tasks._build import CHANGED_FROM, NOW, SEED, TIER_NAME, Row, call

from statebox.judge import task_signature
from statebox.tasks import Task

from ._intents import Builder, ticket_text
from ._scenario import CUSTOMERS, VOCAB, Ctx, Incompatible, Mode

__all__ = ["build_split"]

MODES: Final[tuple[Mode, ...]] = ("fact", "say", "describe")
_TABLES: Final = tuple(SEED)  # the seed's table order satisfies foreign keys
OPENS_WITH: Final = {
    "delivery": CHANGED_FROM["late-delivery"],
    "loyalty": CHANGED_FROM["promotions"],
    "orders": CHANGED_FROM["loyalty"],
    "promotions": CHANGED_FROM["loyalty"],
    "refunds": CHANGED_FROM["refunds"],
    "returns": CHANGED_FROM["returns"],
    "tickets": CHANGED_FROM["ticket-triage"],
    "warranty": CHANGED_FROM["warranty"],
}
"""The related request a changes-goal user opens with, by the first intent's family."""


def _verification(ctx: Ctx, first_is_order: bool) -> tuple[list[Row], Row]:
    """The identity calls and facts the first request calls for (policy §2).

    About an order: the email with its id (the full name when the customer has no order
    number); about the account: the email with the full name.
    """
    email = ctx.row["email"]
    calls = [call("find_customer_by_email", email=email)]
    facts: Row = {"email": email}
    by_order = first_is_order and ctx.mode != "describe"
    order = ctx.mentioned[0] if by_order else None
    if order is not None:
        calls.append(call("verify_customer", customer_id=ctx.customer, email=email, order_id=order))
        if ctx.fact_order is not None:
            facts["order_id"] = ctx.fact_order
    else:
        calls.append(
            call("verify_customer", customer_id=ctx.customer, email=email, full_name=ctx.full_name)
        )
        facts["name"] = ctx.full_name
        if ctx.mentioned:
            calls.append(call("list_customer_orders", customer_id=ctx.customer))
    return calls, facts


def _patch(ctx: Ctx) -> Row:
    rows = {**ctx.patch, **ctx.membership_patch()}
    return {t: rows[t] for t in _TABLES if t in rows}


def assemble(serial: int, split: str, builders: Sequence[Builder], mode: Mode, ticket: bool) -> Row:
    """One task, or `Incompatible` when its intents cannot share a conversation."""
    ctx = Ctx(serial, CUSTOMERS[(serial * 11 + 3) % len(CUSTOMERS)], mode)
    parts = [builders[0](ctx, ticket)]
    first_is_order = bool(ctx.mentioned)
    parts += [b(ctx, ticket) for b in builders[1:]]
    verify, facts = _verification(ctx, first_is_order)
    for p in parts:
        clash = set(p.facts) & set(facts)
        if clash:
            raise Incompatible(f"facts {sorted(clash)} asked twice")
        facts.update(p.facts)
    golden = [*verify, *(c for p in parts for c in p.calls)]
    first = parts[0].intent.split(".")
    task_id = f"retail.{first[0]}.{first[1]}"
    said = [p.opening + ("" if p.opening.endswith("?") else ".") for p in parts]
    if len(parts) == 1:
        opening = f"Hi, {said[0]}"
    else:
        opening = "Hi, I have two things. " + " ".join(
            f"{n}, {line}" for n, line in zip(("First", "Second"), said, strict=True)
        )
    conduct: Row = {"changed_from": OPENS_WITH[first[0]]}
    for p in parts:
        conduct.update(p.behaviour)
    refusals = [p for p in parts if p.refusal]
    if refusals and len(parts) == 1:
        conduct.setdefault("pushback", 1)
    failing = any("fails" in c for c in golden)
    tags = sorted(
        {
            *(f"intent:{p.intent}" for p in parts),
            *(t for p in parts for t in p.tags),
            *(["multi-intent"] if len(parts) > 1 else []),
            *(["recovery"] if failing else []),
            *(["refusal"] if refusals else []),
            *(["order-by-description"] if mode == "describe" and ctx.mentioned else []),
            *(["wrap-up-ticket"] if ticket else []),
        }
    )
    task: Row = {
        "id": task_id,
        "domain": "retail",
        "split": split,
        "now": NOW,
        "description": " Then: ".join(p.description for p in parts),
        "initial_state": _patch(ctx),
        "user": {
            "opening": opening,
            "persona": f"{ctx.full_name}, {TIER_NAME[ctx.tier]} member",
            "facts": user_facts(VOCAB, facts, task_id),
            "goal": ". Also: ".join(p.goal for p in parts),
        },
    }
    conduct_row = behaviour(**conduct)
    if conduct_row:
        task["user"]["behaviour"] = conduct_row
    task["record_steps"] = True
    task["golden"] = golden
    checks: Row = {}
    invariants = [i for p in parts for i in p.invariants]
    if invariants:
        checks["invariants"] = invariants
    text = [*ticket_text(golden), *(t for p in parts for t in p.text)]
    if text:
        checks["text"] = text
    reply = [f for p in parts for f in p.reply]
    if reply:
        checks["reply"] = {"must_contain": [list(f) if isinstance(f, tuple) else f for f in reply]}
        task["reference_response"] = " ".join(p.reference for p in refusals)
    if checks:
        task["checks"] = checks
    task["tags"] = tags
    task["read_only"] = False  # verification is always recorded
    return task


def _candidates(
    writes: Sequence[Builder], refusals: Sequence[Builder], lone_refusals: int
) -> Iterator[tuple[list[Builder], Mode, bool]]:
    """Singles (each way to name the order, ± a ticket), a few lone refusals, then pairs."""
    for b in writes:
        for mode, ticket in itertools.product(MODES, (False, True)):
            if mode != "say" or ticket:  # said ids and asked ids: the same calls
                yield [b], mode, ticket
    for r in list(refusals) * 2:
        if lone_refusals <= 0:
            break
        lone_refusals -= 1
        yield [r], MODES[lone_refusals % len(MODES)], False
    pool = [*writes, *refusals]
    pairs = [(a, b) for a, b in itertools.permutations(pool, 2) if a in writes or b in writes]
    # Interleave pair orders so early pairs spread over every intent.
    pairs.sort(
        key=lambda ab: ((pool.index(ab[1]) - pool.index(ab[0])) % len(pool), pool.index(ab[0]))
    )
    for k, (a, b) in enumerate(pairs):
        yield [a, b], MODES[k % len(MODES)], False


def build_split(
    split: str,
    writes: Sequence[Builder],
    refusals: Sequence[Builder],
    *,
    count: int,
    lone_refusals: int,
    first_serial: int,
) -> dict[str, list[Row]]:
    """``count`` tasks of one split, by family, with distinct signatures and numbered ids."""
    families: dict[str, list[Row]] = {}
    seen: set[str] = set()
    sequences: set[tuple[str, ...]] = set()
    numbers: dict[str, int] = {}
    serial = first_serial
    made = 0
    # Every single-request task, then pairs with a tool sequence of their own, then any.
    for fresh in (True, False):
        for builders, mode, ticket in _candidates(writes, refusals, lone_refusals):
            if made >= count:
                break
            try:
                task = assemble(serial, split, builders, mode, ticket)
            except Incompatible:
                continue
            signature = task_signature(Task.model_validate(_as_loaded(task)))
            sequence = tuple(c["tool"] for c in task["golden"])
            if signature in seen or (fresh and len(builders) > 1 and sequence in sequences):
                continue
            seen.add(signature)
            sequences.add(sequence)
            serial += 1
            made += 1
            base = task["id"]
            numbers[base] = numbers.get(base, 0) + 1
            task["id"] = f"{base}.{numbers[base]:03d}"
            families.setdefault(base.split(".")[1], []).append(task)
    assert made == count, f"{split}: only {made} distinct tasks of {count}"
    return families


def _as_loaded(task: Row) -> dict[str, Any]:
    """The task as the loader reads it (a placeholder id; ``initial_state`` as upserts)."""
    return {**task, "id": f"{task['id']}.000"}
