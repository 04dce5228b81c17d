"""Entry point: compose the travel v2 tasks, write ``tasks_v2/{test,train}``, print the mix.

Run from the repository root with ``.venv/bin/python -m scripts.gen_travel_tasks_v2``.
Each split composes its own intent branches (`_intents.TEST`, `_intents.TRAIN`): single
requests dressed in several shapes (how the caller is verified, a ticket to bring to its
status, distractor bookings and whether the golden trajectory checks one), then pairs of
requests in one conversation.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations
from pathlib import Path

from scripts._task_files import drop_train_templates
from scripts.gen_travel_tasks._build import SEED

from ._compose import Part, Shape, Suite, leaks
from ._intents import TEST, TRAIN, Builder
from ._world import Booking, Ctx

OUT = Path(__file__).resolve().parents[2] / "src" / "statebox" / "domains" / "travel" / "tasks_v2"

SHAPES: tuple[tuple[Shape, int], ...] = (
    (Shape(verify="email"), 1),
    (Shape(verify="reference", ticket=True), 1),
    (Shape(verify="email", ticket=True, peek=True), 2),
    (Shape(verify="reference", peek=True, listing=True), 1),
    (Shape(verify="email", listing=True), 0),
    (Shape(verify="email", ticket=True, listing=True), 1),
    (Shape(verify="reference"), 2),
)
"""Dress of a task (and how many distractor bookings each request gets), in turn."""

TIERS = ("silver", "gold", "blue", "platinum", "gold", "blue")
PEOPLE: tuple[str, ...] = tuple(
    str(c["id"]) for c in SEED["customers"] if c["corporate_account_id"] is None
)
NEEDS_REFERENCE = frozenset({"crm.email-change"})
"""Intents whose proof is the booking reference (policy §1.4): verified by it, and first."""


class Planner:
    """Builds the tasks of one split from its intent branches."""

    def __init__(self, suite: Suite, split: str, intents: Mapping[str, Builder]) -> None:
        self.suite, self.split, self.intents = suite, split, intents
        self.seq = 0

    def _ctx(self, names: tuple[str, ...]) -> Ctx:
        self.seq += 1
        tier = TIERS[self.seq % len(TIERS)]
        if "loyalty.tier-upgrade" in names and tier == "platinum":
            tier = "silver"
        return Ctx(PEOPLE[(self.seq * 11) % len(PEOPLE)], tier, self.seq)

    def task(self, names: tuple[str, ...], shape: Shape, dis: int, variant: int) -> None:
        """Compose one task of the requests ``names`` (the first leads)."""
        for v in range(variant, variant + 10):  # another variant when a fact leaks into the opening
            ctx = self._ctx(names)
            parts: list[Part] = []
            distractors: list[Booking] = []
            for k, n in enumerate(names):
                part, extra = self.intents[n](ctx, v + k, dis if k == 0 else min(dis, 1))
                parts.append(part)
                distractors.extend(extra)
            if not leaks(parts):
                break
        else:
            raise AssertionError(f"{names}: every variant says a fact in the opening")
        lead = parts[0]
        if NEEDS_REFERENCE & set(names):
            shape = Shape(verify="reference", ticket=shape.ticket, peek=shape.peek)
        if shape.verify == "reference" and lead.target is None:
            shape = Shape(verify="email", ticket=shape.ticket, peek=shape.peek, listing=True)
        if shape.ticket and not (lead.ticket_category and lead.target):
            shape = Shape(verify=shape.verify, peek=shape.peek, listing=shape.listing)
        if shape.peek and not distractors:
            shape = Shape(verify=shape.verify, ticket=shape.ticket, listing=shape.listing)
        if lead.refusal and len(parts) == 1 and v % len(SHAPES) and lead.ticket_category:
            # A refusal alone leaves no business write; most of them also solve the ticket.
            shape = Shape(verify=shape.verify, ticket=True, peek=shape.peek, listing=shape.listing)
        self.suite.add(self.split, ctx, parts, shape, distractors)

    def singles(self, per_intent: int) -> None:
        """Each request alone, dressed in ``per_intent`` shapes."""
        for n in self.intents:
            for v in range(per_intent):
                shape, dis = SHAPES[v % len(SHAPES)]
                self.task((n,), shape, dis, v)

    def pairs(self, every: int, limit: int) -> None:
        """Two requests in one conversation: every ``every``-th pair, at most ``limit``."""
        made = 0
        for k, (a, b) in enumerate(combinations(self.intents, 2)):
            if made >= limit or k % every:
                continue
            names = (b, a) if b in NEEDS_REFERENCE or k % 3 == 1 else (a, b)
            if names[1] in NEEDS_REFERENCE:
                names = (names[1], names[0])
            if not self._compatible(names):
                continue
            shape, dis = SHAPES[(made * 3) % len(SHAPES)]
            self.task(names, shape, dis, made)
            made += 1

    def _compatible(self, names: tuple[str, ...]) -> bool:
        """Two requests fit one conversation unless both are refusals or share a fact."""
        probe = Ctx(PEOPLE[0], "gold", 0)
        parts = [self.intents[n](probe, 0, 0)[0] for n in names]
        if all(p.refusal for p in parts):
            return False
        keys = [k for p in parts for k in p.facts]
        return len(keys) == len(set(keys))


def main(out: Path | None = None) -> None:
    """Compose both splits and write them under ``out`` (default: the domain's tasks_v2)."""
    suite = Suite()
    test = Planner(suite, "test", TEST)
    test.singles(4)
    test.pairs(2, 42)
    train = Planner(suite, "train", TRAIN)
    train.singles(7)
    train.pairs(1, 136)
    suite.write(out or OUT)
    for split in ("test", "train"):
        tasks = suite.tasks(split)
        multi = sum(1 for t in tasks if "multi-intent" in t["tags"])
        recovery = sum(1 for t in tasks if "recovery" in t["tags"])
        print(f"{split}: {len(tasks)} tasks, {multi} multi-intent, {recovery} recovery")
    print(f"train: {drop_train_templates(out or OUT)} tasks dropped (a test task's template)")


if __name__ == "__main__":
    main()
