"""Entry point: build every travel task family, write the YAML files, print the mix figures.

Run from the repository root with ``.venv/bin/python -m scripts.gen_travel_tasks``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import bookings, corporate, crm, hotel, loyalty, money, tickets
from ._build import TaskSet

OUT = Path(__file__).resolve().parents[2] / "src" / "statebox" / "domains" / "travel" / "tasks"

FAMILIES: tuple[Callable[[TaskSet], None], ...] = (
    bookings.build,
    corporate.build,
    money.build,
    hotel.build,
    loyalty.build,
    crm.build,
    tickets.build,
)


def main(out: Path = OUT) -> None:
    """Build every family into a fresh `TaskSet`, write one YAML file per family to ``out``."""
    tasks = TaskSet()
    for build in FAMILIES:
        build(tasks)
    tasks.write(out)
    counts = tasks.counts()
    every = tasks.all()
    n = len(every)

    def share(pred: Callable[[dict[str, Any]], bool]) -> str:
        k = sum(1 for t in every if pred(t))
        return f"{k} ({100 * k / n:.1f}%)"

    print(f"{n} tasks in {len(counts)} families: {counts}")
    print(f"user-fact: {share(lambda t: 'user-fact' in t['tags'])}")
    print(f"refusal: {share(lambda t: 'refusal' in t['tags'])}")
    print(f"read-only: {share(lambda t: bool(t['read_only']))}")
    print(f"rubric: {share(lambda t: 'response' in t.get('checks', {}))}")
    print(f"train: {share(lambda t: t['split'] == 'train')}")


if __name__ == "__main__":
    main()
