"""Entry point: build every auto insurance task family, write the YAML files, print the mix.

Run from the repository root with ``.venv/bin/python -m scripts.gen_auto_insurance_tasks``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from . import (
    cancellation,
    claim_followup,
    contact_update,
    coverage_change,
    driver_change,
    fnol,
    identity,
    late_fee,
    payment_extension,
    payment_plan,
    payments,
    vehicle_change,
)
from ._build import TaskSet

OUT = (
    Path(__file__).resolve().parents[2]
    / "src"
    / "statebox"
    / "domains"
    / "auto_insurance"
    / "tasks"
)

FAMILIES: tuple[Callable[[TaskSet], None], ...] = (
    identity.build,
    contact_update.build,
    payment_extension.build,
    late_fee.build,
    payments.build,
    payment_plan.build,
    vehicle_change.build,
    driver_change.build,
    coverage_change.build,
    cancellation.build,
    fnol.build,
    claim_followup.build,
)


def main(out: Path = OUT) -> None:
    """Build every family into a fresh `TaskSet`, write one YAML file per family, print the mix."""
    tasks = TaskSet()
    for build in FAMILIES:
        build(tasks)
    tasks.write(out)
    every = tasks.all()
    n = len(every)

    def share(pred: Callable[[dict[str, object]], bool]) -> str:
        k = sum(1 for t in every if pred(t))
        return f"{k} ({100 * k / n:.0f}%)"

    print(f"{n} tasks in {len(tasks.counts())} families: {tasks.counts()}")
    print(f"user-fact: {share(lambda t: 'user-fact' in t['tags'])}")  # type: ignore[operator]
    print(f"refusal: {share(lambda t: 'refusal' in t['tags'])}")  # type: ignore[operator]
    print(f"read-only: {share(lambda t: bool(t['read_only']))}")
    print(f"with rubric: {share(lambda t: 'response' in t.get('checks', {}))}")  # type: ignore[operator]
    print(f"train: {share(lambda t: t['split'] == 'train')}")


if __name__ == "__main__":
    main()
