"""Entry point: build every consulting_hr task family and write the YAML files.

Run from the repository root with ``.venv/bin/python -m scripts.gen_consulting_hr_tasks``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from . import (
    equipment,
    expense_claims,
    expense_review,
    offboarding,
    onboarding,
    site_access,
    software,
    staffing,
    training,
    travel,
)
from ._build import TaskSet

OUT = (
    Path(__file__).resolve().parents[2] / "src" / "statebox" / "domains" / "consulting_hr" / "tasks"
)

FAMILIES: tuple[Callable[[TaskSet], None], ...] = (
    onboarding.build,
    offboarding.build,
    site_access.build,
    expense_claims.build,
    expense_review.build,
    training.build,
    software.build,
    equipment.build,
    travel.build,
    staffing.build,
)


def main(out: Path = OUT) -> None:
    """Build every family into a fresh `TaskSet` and write one YAML file per family to ``out``."""
    tasks = TaskSet()
    for build in FAMILIES:
        build(tasks)
    tasks.write(out)
    counts = tasks.counts()
    print(f"{sum(counts.values())} tasks: {counts}")
    print(f"tags: {tasks.tag_counts()}")


if __name__ == "__main__":
    main()
