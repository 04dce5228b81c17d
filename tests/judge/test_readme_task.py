"""The README's task example validates as it stands (issue 13)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import yaml

from statebox.judge import validate_task
from statebox.registry import default_registry
from statebox.tasks import parse_tasks

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_task_example_is_valid() -> None:
    section = README.read_text(encoding="utf-8").split("\n## Tasks\n", 1)[1]
    block = re.search(r"```yaml\n(.*?)```", section, re.S)
    assert block is not None
    (task,) = parse_tasks(yaml.safe_load(block[1]), file="README.md")
    assert task.checks.text and task.checks.reply  # it shows what is judged
    v = asyncio.run(validate_task(default_registry().domain(task.domain), task))
    assert v.problems == ()
    assert v.ok and v.check_strength == 1.0 and v.text_mutants >= 1
    assert v.baselines == {"noop": False, "refuse": False}
