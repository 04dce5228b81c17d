"""Every built-in task is solvable with the scripted user: each id the golden trajectory
needs is said in the opening or the script, or returned by an earlier call."""

from __future__ import annotations

import pytest

from statebox.judge import Judge, lint_identifiers
from statebox.registry import default_registry
from statebox.tasks import WorldCache

DOMAINS = ["retail", "travel", "auto_insurance", "neobank_it", "consulting_hr"]


@pytest.mark.slow
@pytest.mark.parametrize("name", DOMAINS)
def test_every_needed_id_is_spoken_or_looked_up(name: str) -> None:
    registry = default_registry()
    domain = registry.domain(name)
    judge = Judge(domain, WorldCache())
    unsaid = {
        t.id: [str(p) for p in problems]
        for t in registry.suite(name)
        if (problems := lint_identifiers(domain, t, judge, spoken_only=True))
    }
    assert unsaid == {}


def test_an_id_kept_only_in_the_facts_is_not_spoken() -> None:
    registry = default_registry()
    domain = registry.domain("neobank_it")
    task = registry.suite("neobank_it")[0]
    email = str(task.user.facts["email"])
    silent = task.model_copy(
        update={
            "user": task.user.model_copy(
                update={"script": tuple(s for s in task.user.script if email not in s)}
            )
        }
    )
    assert lint_identifiers(domain, silent) == []  # facts count for an LLM user...
    assert [p.value for p in lint_identifiers(domain, silent, spoken_only=True)] == [email]
