"""tau2-bench's own retail oracle trial, for the side-by-side row (only where tau2 imports).

tau2 is never a statebox dependency: `tau2_side_by_side` returns None when it cannot be
imported, and the suite prints a line saying the row was skipped. Where it can, one
trial is what tau2's environment check does for a task: a fresh environment, every
golden action of the task replayed through ``make_tool_call``, a fresh gold environment
with the same actions, and the two database hashes compared.
"""

from __future__ import annotations

import statistics
import time
from typing import Any


def tau2_side_by_side(trials: int) -> dict[str, float] | None:
    """Median ms of tau2's oracle trial over up to ``trials`` retail tasks; None without tau2."""
    try:
        from tau2.domains.retail.environment import get_environment, get_tasks
    except ImportError:
        return None

    def replay(actions: list[Any]) -> Any:
        env = get_environment()
        for a in actions:
            env.make_tool_call(a.name, requestor=a.requestor, **a.arguments)
        return env

    tasks = [
        t
        for t in get_tasks()
        if t.evaluation_criteria is not None and t.evaluation_criteria.actions
    ]
    out, passed = [], 0
    for i in range(trials):
        actions = list(tasks[i % len(tasks)].evaluation_criteria.actions)
        t0 = time.perf_counter()
        predicted, gold = replay(actions), replay(actions)
        passed += predicted.get_db_hash() == gold.get_db_hash()
        out.append(time.perf_counter() - t0)
    return {"trial_ms": statistics.median(out) * 1000, "trials": trials, "passed": passed}
