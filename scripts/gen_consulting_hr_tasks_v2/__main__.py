"""Entry point: compose the consulting_hr v2 tasks and write ``test/`` and ``train/``.

Run from the repository root with ``.venv/bin/python -m scripts.gen_consulting_hr_tasks_v2``.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scripts._task_files import drop_train_templates, write_families
from scripts.gen_consulting_hr_tasks._build import Row

from . import _manager as m
from . import _own as o
from ._compose import Ctx, Intent, compatible, compose, signature_key

OUT = (
    Path(__file__).resolve().parents[2]
    / "src"
    / "statebox"
    / "domains"
    / "consulting_hr"
    / "tasks_v2"
)

OWN = tuple(f"EMP-{n:04d}" for n in range(10, 43))
"""Requesters of their own requests: the firm's staff below manager."""
MANAGERS = tuple(f"EMP-{n:04d}" for n in range(4, 10))
"""Requesters of requests about their reports (and of their own requests)."""


@dataclass(frozen=True)
class Block:
    """A builder of intents and who may bring it."""

    build: Callable[..., Intent | None]
    manager: bool = False
    alone: bool = True
    """Whether it makes a task on its own (a refusal only ever comes beside a change)."""


TEST: tuple[Block, ...] = (
    Block(o.receipt_arrived),
    Block(o.receipt_over_limit),
    Block(o.duplicate_pending),
    Block(o.late_claim, alone=False),
    Block(o.over_limit_wait, alone=False),
    Block(o.renew),
    Block(o.renew_nda),
    Block(o.nda_envelope),
    Block(o.clearance_gap),
    Block(o.renew_clearance),
    Block(o.not_due, alone=False),
    Block(o.rebook),
    Block(o.cancel_one),
    Block(o.cancel_started, alone=False),
    Block(o.upgrade),
    Block(o.lost),
    Block(o.pool_full),
    Block(o.swap_licence),
    Block(o.swap_course),
    Block(o.cancel_late, alone=False),
    Block(o.swap_late, alone=False),
    Block(o.follow_up),
    Block(m.left, manager=True),
    Block(m.left_early, manager=True),
    Block(m.reprovision, manager=True),
    Block(m.pending_hold, manager=True),
    Block(m.role_change, manager=True),
    Block(m.conflict, manager=True),
)
TRAIN: tuple[Block, ...] = (
    Block(o.new_claim),
    Block(o.plain_grant),
    Block(o.no_assignment, alone=False),
    Block(o.new_trip),
    Block(o.damaged),
    Block(o.monitor),
    Block(o.assign_title),
    Block(o.enrol),
    Block(o.note_open),
    Block(m.future_leaver, manager=True),
    Block(m.activate, manager=True),
    Block(m.staff, manager=True),
    Block(m.release, manager=True),
)


def _intent(block: Block, ctx: Ctx, k: int, avoid: tuple[str, ...]) -> Intent | None:
    if block.manager:
        return block.build(ctx, k, avoid)
    return block.build(ctx, k)


def _attempt(requester: str, blocks: Sequence[Block], k: int) -> list[Intent] | None:
    """The intents of ``blocks`` for one requester, or None when they do not fit together."""
    ctx = Ctx(requester)
    intents: list[Intent] = []
    for block in blocks:
        avoid = tuple(p for i in intents for p in i.people)
        intent = _intent(block, ctx, k, avoid)
        if intent is None or any(not compatible(i, intent) for i in intents):
            return None
        intents.append(intent)
    if all(not any(c["tool"] != "record_disclosure" for c in i.golden) for i in intents):
        return None
    return intents


def _requesters(blocks: Sequence[Block], k: int) -> list[str]:
    pool = MANAGERS if any(b.manager for b in blocks) else OWN
    start = (k * 7) % len(pool)
    return [pool[(start + i) % len(pool)] for i in range(len(pool))]


class _Split:
    """Tasks of one split, numbered per family and branch, one per signature where asked."""

    def __init__(self, name: str, unique: bool) -> None:
        self.name = name
        self.unique = unique
        self.families: dict[str, list[Row]] = defaultdict(list)
        self.keys: set[str] = set()
        self.counters: dict[tuple[str, str], int] = defaultdict(int)

    def size(self) -> int:
        return sum(len(t) for t in self.families.values())

    def offer(self, blocks: Sequence[Block], k: int) -> bool:
        for requester in _requesters(blocks, k):
            intents = _attempt(requester, blocks, k)
            if intents is None:
                continue
            first = intents[0]
            number = self.counters[first.family, first.branch] + 1
            task = compose(self.name, number, requester, intents)
            key = signature_key(task)
            if self.unique and key in self.keys:
                continue
            self.keys.add(key)
            self.counters[first.family, first.branch] = number
            self.families[first.family].append(task)
            return True
        return False


def _build(name: str, blocks: Sequence[Block], singles: int, target: int, seed: int) -> _Split:
    split = _Split(name, unique=name == "test")
    for block in blocks:
        if not block.alone:
            continue
        made = 0
        for k in range(singles * 4):
            if made == singles:
                break
            made += split.offer([block], k)
    rng = random.Random(seed)
    pairs = [(a, b) for a in blocks for b in blocks if a is not b and (a.alone or b.alone)]
    rng.shuffle(pairs)
    k = 0
    while split.size() < target and k < 40:
        for pair in pairs:
            if split.size() >= target:
                break
            split.offer(pair, k + rng.randrange(6))
        k += 1
    return split


def main(out: Path | None = None) -> None:
    """Compose both splits and write ``out/test/<family>.yaml`` and ``out/train/...``."""
    root = out or OUT
    test = _build("test", TEST, singles=3, target=112, seed=15)
    train = _build("train", TRAIN, singles=8, target=212, seed=16)
    for split in (test, train):
        write_families(split.families, root / split.name)
        counts: dict[str, Any] = {f: len(t) for f, t in sorted(split.families.items())}
        print(f"{split.name}: {split.size()} tasks {counts}")
    print(f"train: {drop_train_templates(root)} tasks dropped (a test task's template)")


if __name__ == "__main__":
    main()
