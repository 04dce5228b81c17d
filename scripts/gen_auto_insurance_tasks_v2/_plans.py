"""Which intents each split composes, and on which policies.

Test and train draw on disjoint intent lists (no branch in both), so training on the
train split never sees a test template. Each split takes every intent alone, then
ordered pairs of intents that touch different records (`compatible`), in a fixed order,
each on the first seed policy (from a rotating start) that fits both.
"""

from __future__ import annotations

from collections import defaultdict
from itertools import permutations

from scripts.gen_auto_insurance_tasks._build import policies

from . import _billing, _changes, _claims
from ._compose import Collector, Intent

__all__ = ["TEST", "TRAIN", "build", "compatible"]

TEST: tuple[Intent, ...] = (*_billing.TEST, *_changes.TEST, *_claims.TEST)
TRAIN: tuple[Intent, ...] = (*_billing.TRAIN, *_changes.TRAIN, *_claims.TRAIN)
assert not {i.key for i in TEST} & {i.key for i in TRAIN}, "a branch in both splits"


def compatible(a: Intent, b: Intent) -> bool:
    """Two intents can share a conversation: other records, neither blocks the other."""
    return a.group != b.group and a.group not in b.excludes and b.group not in a.excludes


def _policy(intents: list[Intent], start: int) -> str | None:
    pool = [str(p["id"]) for p in policies()]
    for k in range(len(pool)):
        pid = pool[(start + k) % len(pool)]
        if all(i.fits(pid) for i in intents):
            return pid
    return None


def build(split: str, intents: tuple[Intent, ...], pairs: int) -> Collector:
    """Every intent alone, then up to ``pairs`` compatible ordered pairs."""
    out = Collector(split)
    uses: dict[str, int] = defaultdict(int)
    combos: list[list[Intent]] = [[i] for i in intents]
    ordered = [[a, b] for a, b in permutations(intents, 2) if compatible(a, b)]
    # Spread the pairs over the list (not the first intent's pairs only).
    step = max(1, len(ordered) // pairs) if pairs else 1
    chosen = ordered[::step][:pairs] if pairs else []
    combos += chosen
    for k, combo in enumerate(combos):
        pid = _policy(combo, (k * 7) % 40)
        if pid is None:
            continue
        n = [uses[i.key] for i in combo]
        for i in combo:
            uses[i.key] += 1
        out.add(combo, n, pid)
    return out
