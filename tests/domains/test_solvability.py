"""Every built-in task is solvable with both players of the user.

The solvability lint holds for the rule-based and the LLM user on every task, and the
oracle's information needs — every fact, asked for by each of its phrases — are met by
the rule-based user, whatever the order and however the questions are bundled.
"""

from __future__ import annotations

import pytest

from statebox.dialogue import RuleEngine, ask_sentence, join_asks, mentions, plan_for
from statebox.judge import Judge, lint_solvability
from statebox.registry import default_registry
from statebox.tasks import Fact, Task, WorldCache
from statebox.users import user_system_prompt

DOMAINS = ["retail", "travel", "auto_insurance", "neobank_it", "consulting_hr"]


def _gives(text: str, fact: Fact) -> bool:
    if fact.first is not None:  # a declared slip comes first
        return mentions(text, str(fact.first))
    return mentions(text, str(fact.value)) or fact.words().lower() in text.lower()


def _answer(task: Task, message: str, behaviour: str = "cooperative") -> str:
    return RuleEngine(task.user, plan_for(task, behaviour)).reply(message)[0]


@pytest.mark.slow
@pytest.mark.parametrize("name", DOMAINS)
def test_every_task_passes_the_solvability_lint_for_both_players(name: str) -> None:
    registry = default_registry()
    domain = registry.domain(name)
    judge = Judge(domain, WorldCache())
    problems = {
        t.id: [str(p) for p in found]
        for t in registry.suite(f"{name}@1.0")
        if (found := lint_solvability(domain, t, judge))
    }
    assert problems == {}


@pytest.mark.slow
@pytest.mark.parametrize("name", DOMAINS)
def test_the_rule_user_meets_the_oracles_information_needs(name: str) -> None:
    tasks = default_registry().suite(f"{name}@1.0")
    unmet: list[str] = []
    for t in tasks:
        facts = t.user.facts
        prompt = user_system_prompt(t)
        for fname, fact in facts.items():
            assert mentions(prompt, str(fact.value)), (t.id, fname)  # the LLM user has it
            for phrase in fact.ask:
                reply = _answer(t, ask_sentence(phrase))
                if not _gives(reply, fact):
                    unmet.append(f"{t.id}: {phrase!r} -> {reply!r}")
            if fact.first is not None:  # ... and is corrected when the agent checks it
                engine = RuleEngine(t.user, plan_for(t, "cooperative"))
                engine.reply(ask_sentence(fact.ask[0]))
                fixed = engine.reply(
                    f"That doesn't match. Could you double-check your {fact.ask[0]}?"
                )
                assert mentions(fixed[0], str(fact.value)), (t.id, fname, fixed)
        # All at once, in the task's order and reversed: every fact comes back.
        for order in (list(facts), list(reversed(facts))):
            reply = _answer(t, join_asks([facts[n].ask[0] for n in order]))
            unmet += [f"{t.id}: {n} not in {reply!r}" for n in order if not _gives(reply, facts[n])]
    assert unmet == []
