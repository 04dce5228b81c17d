"""Entry point: compose neobank_it's v2 tasks and write ``test/`` and ``train/`` YAML files.

Run from the repository root with ``.venv/bin/python -m scripts.gen_neobank_it_tasks_v2``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from itertools import combinations
from pathlib import Path

from scripts._task_files import drop_train_templates, write_families
from scripts.gen_neobank_it_tasks._build import EMP, Row

from ._blocks import Block, Who
from ._compose import Ids, Intent, compose
from ._people import CONTRACTORS, EMPLOYEES, MANAGERS
from ._test_intents import TEST_BLOCKS
from ._train_intents import TRAIN_BLOCKS

__all__ = ["main"]

OUT = (
    Path(__file__).resolve().parents[2] / "src" / "statebox" / "domains" / "neobank_it" / "tasks_v2"
)
_POOL: dict[Who, list[str]] = {
    "manager": MANAGERS,
    "employee": EMPLOYEES,
    "contractor": CONTRACTORS,
    "any": [x for pair in zip(EMPLOYEES, CONTRACTORS * 4, strict=False) for x in pair],
}


def _who(blocks: Sequence[Block]) -> Who:
    kinds = {b.who for b in blocks}
    for kind in ("manager", "contractor", "employee"):
        if kind in kinds:
            return kind  # type: ignore[return-value]
    return "any"


def _compatible(a: Block, b: Block) -> bool:
    if a.family == b.family:
        return False
    kinds = {a.who, b.who}
    if "contractor" in kinds and kinds & {"manager", "employee"}:
        return False
    # A locked account and a typed-in password are one compromise case, not two requests.
    return {a.make.__name__, b.make.__name__} != {"account_unlock", "incident_phishing"}


def _slip(employee: str) -> str:
    """An outdated alias the caller gives first (no employee has it)."""
    e = EMP[employee]
    alias = f"{e['first_name'][0]}{e['last_name']}@neobank.example.com".lower()
    assert all(x["email"] != alias for x in EMP.values())
    return alias


def _shape(task: Row) -> str:
    """What a re-instance keeps: tags, calls with argument names, facts and checks."""
    calls = [(c["tool"], sorted(c["args"]), c.get("fails")) for c in task["golden"]]
    checks = task.get("checks", {})
    counts = (len(checks.get("text", [])), "reply" in checks)
    return repr((task["tags"], calls, sorted(task["user"]["facts"]), counts))


class _Split:
    """Tasks of one split, numbered per first branch, callers rotated per kind."""

    def __init__(self, split: str) -> None:
        self.split = split
        self.families: dict[str, list[Row]] = defaultdict(list)
        self._numbers: dict[str, int] = defaultdict(int)
        self._turn: dict[str, int] = defaultdict(int)
        self._shapes: set[str] = set()

    def add(self, blocks: Sequence[Block], k: int, *, slip: bool = False) -> None:
        pool = _POOL[_who(blocks)]
        for attempt in range(len(pool)):
            caller = pool[(self._turn[_who(blocks)] + attempt) % len(pool)]
            ids = Ids()
            try:
                intents: list[Intent] = [b.make(ids, caller, k) for b in blocks]
            except (AssertionError, IndexError, ZeroDivisionError):
                continue
            break
        else:
            raise AssertionError(f"no caller for {[b.make.__name__ for b in blocks]}")
        self._turn[_who(blocks)] += 1 + attempt
        names = [f for i in intents for f in i.facts]
        if len(names) != len(set(names)):
            return  # two requests that ask the user the same question are one request
        number = self._numbers[intents[0].branch] + 1
        task = compose(
            self.split,
            number,
            caller,
            intents,
            slip=_slip(caller) if slip else "",
        )
        shape = _shape(task)
        if self.split == "test" and shape in self._shapes:
            return  # a re-instance of a test task already made (values differ only)
        self._shapes.add(shape)
        self._numbers[intents[0].branch] = number
        self.families[blocks[0].family].append(task)


_REFUSALS = {"contractor_restricted": "refusal", "contractor_laptop": "refusal"}
"""Test blocks that refuse the request (no write)."""


def build_test() -> _Split:
    """About 110 test tasks: single requests in three variants, then pairs of requests."""
    out = _Split("test")
    n = 0
    for block in TEST_BLOCKS:
        for k in range(1 if block.who == "contractor" else 3):
            out.add([block], k, slip=k == 2)
            n += 1
    for i, (a, b) in enumerate(combinations(TEST_BLOCKS, 2)):
        if not _compatible(a, b) or i % 5 in (1, 3):
            continue
        # A refused request goes second: the user ends the call once told "no".
        first_refuses = "refusal" in _REFUSALS.get(a.make.__name__, "")
        pair = [b, a] if first_refuses or (i % 2 and b.make.__name__ not in _REFUSALS) else [a, b]
        out.add(pair, i, slip=i % 7 == 0)
    return out


def build_train() -> _Split:
    """About 210 train tasks from the train blocks: singles in many variants, then pairs."""
    out = _Split("train")
    for block in TRAIN_BLOCKS:
        for k in range(8):
            out.add([block], k, slip=k % 4 == 3)
    for i, (a, b) in enumerate(combinations(TRAIN_BLOCKS, 2)):
        if _compatible(a, b):
            out.add([a, b] if i % 2 == 0 else [b, a], i, slip=i % 5 == 0)
    return out


def main(out: Path | None = None) -> None:
    """Write ``out/test/<family>.yaml`` and ``out/train/<family>.yaml``."""
    out = OUT if out is None else out
    for split in (build_test(), build_train()):
        write_families(split.families, out / split.split)
        print(f"{split.split}: {sum(len(t) for t in split.families.values())} tasks")
    print(f"train: {drop_train_templates(out)} tasks dropped (a test task's template)")


if __name__ == "__main__":
    main()
