"""The clinic's tasks validate: ``pip install -e .`` in this project, then ``pytest``.

The same proof as ``statebox tasks validate --domain vetclinic``, task by task: golden
replay, the oracle passes, noop and refuse fail, every mutant is caught and every
plausible alternative passes.
"""

from __future__ import annotations

import asyncio

import pytest
from vetclinic import DOMAIN

from statebox.judge import Judge, validate_task
from statebox.tasks import Task, load_tasks

assert DOMAIN.tasks_dir is not None
TASKS = load_tasks(DOMAIN.tasks_dir)


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_the_task_validates(task: Task) -> None:
    """One task: no problem, no surviving mutant, no rejected alternative, floors fail."""
    result = asyncio.run(validate_task(DOMAIN, task, Judge(DOMAIN)))
    survivors = [m.description for m in result.mutants if m.outcome == "survived"]
    assert result.ok, [*result.problems, *survivors]
    assert result.baselines == {"noop": False, "refuse": False}
