"""Entry point: build the v2 auto insurance tasks into ``tasks_v2/{test,train}``.

Run from the repository root with ``.venv/bin/python -m scripts.gen_auto_insurance_tasks_v2``.
"""

from __future__ import annotations

from pathlib import Path

from scripts._task_files import drop_train_templates
from scripts.gen_auto_insurance_tasks.__main__ import OUT as V1

from ._plans import TEST, TRAIN, build

OUT = V1.parent / "tasks_v2"


def main(out: Path | None = None) -> None:
    """Write ``out/test/<family>.yaml`` and ``out/train/<family>.yaml``; print the counts."""
    root = OUT if out is None else out
    for split, intents, pairs in (("test", TEST, 95), ("train", TRAIN, 195)):
        tasks = build(split, intents, pairs)
        tasks.write(root / split)
        print(f"{split}: {tasks.count()} tasks from {len(intents)} intents")
    print(f"train: {drop_train_templates(root)} tasks dropped (a test task's template)")


if __name__ == "__main__":
    main()
