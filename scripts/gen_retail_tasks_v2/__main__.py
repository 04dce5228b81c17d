"""Entry point: build retail's v2 test and train splits and write one YAML file per family.

Run from the repository root with ``.venv/bin/python -m scripts.gen_retail_tasks_v2``.
"""

from __future__ import annotations

from pathlib import Path

from scripts._task_files import drop_train_templates, write_families

from . import _test_intents, _train_intents
from ._compose import build_split

OUT = Path(__file__).resolve().parents[2] / "src" / "statebox" / "domains" / "retail" / "tasks_v2"
TEST_TASKS = 112
TRAIN_TASKS = 212


def main(out: Path | None = None) -> None:
    """Write ``out/test/<family>.yaml`` and ``out/train/<family>.yaml`` (default: tasks_v2)."""
    out = out or OUT
    splits = {
        "test": build_split(
            "test",
            _test_intents.WRITES,
            _test_intents.REFUSALS,
            count=TEST_TASKS,
            lone_refusals=4,
            first_serial=0,
        ),
        "train": build_split(
            "train",
            _train_intents.WRITES,
            _train_intents.REFUSALS,
            count=TRAIN_TASKS,
            lone_refusals=6,
            first_serial=600,
        ),
    }
    for split, families in splits.items():
        write_families(families, out / split)
        print(f"{split}: {sum(len(t) for t in families.values())} tasks in {len(families)} files")
    print(f"train: {drop_train_templates(out)} tasks dropped (a test task's template)")


if __name__ == "__main__":
    main()
