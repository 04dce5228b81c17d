"""Entry point: build every retail task family and write the YAML files.

Run from the repository root with ``.venv/bin/python -m scripts.gen_retail_tasks``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from . import (
    address_change,
    cancellation,
    delivery_exception,
    late_delivery,
    loyalty,
    promotions,
    refunds,
    returns,
    ticket_triage,
    warranty,
)
from ._build import TaskSet

OUT = Path(__file__).resolve().parents[2] / "src" / "statebox" / "domains" / "retail" / "tasks"

FAMILIES: tuple[Callable[[TaskSet], None], ...] = (
    delivery_exception.build,
    late_delivery.build,
    cancellation.build,
    address_change.build,
    returns.build,
    refunds.build,
    warranty.build,
    promotions.build,
    loyalty.build,
    ticket_triage.build,
)


def main(out: Path = OUT) -> None:
    """Build every family into a fresh `TaskSet` and write one YAML file per family to ``out``."""
    tasks = TaskSet()
    for build in FAMILIES:
        build(tasks)
    tasks.write(out)
    counts = tasks.counts()
    print(f"{sum(counts.values())} tasks: {counts}")


if __name__ == "__main__":
    main()
