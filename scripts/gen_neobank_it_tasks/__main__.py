"""Entry point: build every neobank_it task family and write the YAML files.

Run from the repository root with ``.venv/bin/python -m scripts.gen_neobank_it_tasks``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from . import (
    access_extension,
    access_grant,
    access_new,
    access_revoke,
    account_unlock,
    hardware,
    incidents,
    licences,
    offboarding,
    order_cancel,
    tickets,
)
from ._build import TaskSet

OUT = Path(__file__).resolve().parents[2] / "src" / "statebox" / "domains" / "neobank_it" / "tasks"

FAMILIES: tuple[Callable[[TaskSet], None], ...] = (
    access_grant.build,
    access_new.build,
    access_extension.build,
    access_revoke.build,
    offboarding.build,
    licences.build,
    hardware.build,
    order_cancel.build,
    incidents.build,
    account_unlock.build,
    tickets.build,
)


def main(out: Path = OUT) -> None:
    """Build every family into a fresh `TaskSet` and write one YAML file per family to ``out``."""
    tasks = TaskSet()
    for build in FAMILIES:
        build(tasks)
    tasks.write(out)
    counts = tasks.counts()
    print(f"{sum(counts.values())} tasks: {counts}")
    print(f"mix: {tasks.mix()}")


if __name__ == "__main__":
    main()
