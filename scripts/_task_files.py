"""Writing generated task files, shared by every ``scripts/gen_<domain>_tasks`` generator.

One YAML list per workflow family, keys in insertion order, so regenerating gives
byte-identical files; files of families no longer built are removed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from statebox.tasks import dump_tasks

__all__ = ["drop_train_templates", "write_families"]


def _dump(tasks: Sequence[Mapping[str, Any]]) -> str:
    # The package's serializer: tasks recorded by `statebox play --record` read alike.
    return dump_tasks(tasks)


def write_families(families: Mapping[str, Sequence[Mapping[str, Any]]], out: Path) -> None:
    """Write ``out/<family>.yaml`` for each family, removing files of families not built."""
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.yaml"):
        if old.stem not in families:
            old.unlink()
    for family in sorted(families):
        (out / f"{family}.yaml").write_text(_dump(families[family]), encoding="utf-8")


def drop_train_templates(root: Path) -> int:
    """Remove the train tasks of ``root/train`` that re-instance a task of ``root/test``.

    A train task whose signature (`statebox.judge.task_signature`: the golden calls with
    every value blanked, the behaviour and the check shape) equals a test task's is the
    test task's template with other ids and amounts, so RL on it would train on the test
    set. Files are rewritten in place, in order; returns how many tasks were removed.
    """
    from statebox.judge import task_signature
    from statebox.tasks import parse_tasks

    def loaded(path: Path) -> tuple[list[Any], list[str]]:
        rows = yaml.safe_load(path.read_text(encoding="utf-8")) or []
        return rows, [task_signature(t) for t in parse_tasks(rows, file=path)]

    test = {sig for f in sorted((root / "test").glob("*.yaml")) for sig in loaded(f)[1]}
    dropped = 0
    for path in sorted((root / "train").glob("*.yaml")):
        rows, sigs = loaded(path)
        keep = [row for row, sig in zip(rows, sigs, strict=True) if sig not in test]
        dropped += len(rows) - len(keep)
        if not keep:
            path.unlink()
        elif len(keep) < len(rows):
            path.write_text(_dump(keep), encoding="utf-8")
    return dropped
