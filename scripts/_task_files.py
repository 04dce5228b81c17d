"""Writing generated task files, shared by every ``scripts/gen_<domain>_tasks`` generator.

One YAML list per workflow family, keys in insertion order, so regenerating gives
byte-identical files; files of families no longer built are removed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

__all__ = ["write_families"]


def write_families(families: Mapping[str, Sequence[Mapping[str, Any]]], out: Path) -> None:
    """Write ``out/<family>.yaml`` for each family, removing files of families not built."""
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.yaml"):
        if old.stem not in families:
            old.unlink()
    for family in sorted(families):
        text = yaml.safe_dump(
            list(families[family]),
            sort_keys=False,
            allow_unicode=True,
            width=100,
            default_flow_style=False,
        )
        (out / f"{family}.yaml").write_text(text, encoding="utf-8")
