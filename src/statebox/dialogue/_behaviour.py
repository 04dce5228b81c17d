"""User behaviours (a campaign axis) and the per-trial plan both players follow.

A behaviour changes how the same user spec is played: which fact is misremembered and
how, whether the user opens with another request and switches, how patient they are,
whether they answer more than one direct question at a time. `plan_for` turns (task,
behaviour, seed, trial) into a `BehaviourPlan`; the rule-based user follows it, the LLM
user's prompt spells it out, and the grounding audit reads the values it declares — so
the same seed gives the same plan everywhere.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Mapping
from datetime import date, timedelta
from enum import StrEnum
from typing import Any, NamedTuple

from statebox.tasks import Task
from statebox.world import Scalar

__all__ = [
    "BEHAVIOUR_NOTES",
    "BehaviourPlan",
    "UserBehaviour",
    "misremember",
    "plan_for",
]

_EMAIL = re.compile(r"^([^@\s]+)@([^@\s]+\.[A-Za-z]{2,})$")
_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class UserBehaviour(StrEnum):
    """How the simulated user plays its spec (``--user-behaviour``)."""

    COOPERATIVE = "cooperative"
    """Answers every question with exactly the facts asked for."""
    MISREMEMBERS = "misremembers"
    """Gives one fact wrong at first and corrects it when the agent checks it."""
    CHANGES_GOAL = "changes-goal"
    """Opens with a related request and switches to the task's own in the first reply."""
    IMPATIENT = "impatient"
    """Leaves when asked again for something already given, or after five agent messages."""
    UNCOOPERATIVE = "uncooperative"
    """Answers only direct questions, one fact per message."""


BEHAVIOUR_NOTES: Mapping[UserBehaviour, str] = {
    UserBehaviour.COOPERATIVE: "answers every question with exactly the facts asked for",
    UserBehaviour.MISREMEMBERS: "gives one fact wrong at first; corrects it when the agent "
    "says it does not match or asks to double-check it",
    UserBehaviour.CHANGES_GOAL: "opens with a related request, then switches to the task's "
    "own request in the first reply",
    UserBehaviour.IMPATIENT: "leaves when asked again for something already given, or "
    "after five agent messages",
    UserBehaviour.UNCOOPERATIVE: "answers only direct questions (ending in '?'), one fact "
    "per message",
}
"""One line per behaviour, for help texts, prompts and reports."""

PATIENCE = 5
"""Agent messages an impatient user answers; at the next one they leave."""


class BehaviourPlan(NamedTuple):
    """What one trial's user does, beyond answering what is asked.

    Attributes:
        behaviour: The campaign's behaviour.
        opening: The first message (the task's, or the related request of changes-goal).
        switch: Said at the start of the first reply to switch to the task's own
            request ('' when there is no switch).
        slips: Fact name → the wrong value said first (the task's own slips and the
            misremembered fact).
        misremembered: The fact the misremembers behaviour got wrong (None: none).
        direct_only: Answer only direct questions (uncooperative).
        one_at_a_time: Give at most one fact per reply (uncooperative).
        patience: Agent messages answered before leaving (None: no limit).
        leaves_on_repeat: Leave when asked again for a fact already given.
        requests: Requests the user came with; each refusal accepted or request done
            closes one, and the user ends after the last.
    """

    behaviour: UserBehaviour
    opening: str
    switch: str
    slips: Mapping[str, Scalar]
    misremembered: str | None
    direct_only: bool
    one_at_a_time: bool
    patience: int | None
    leaves_on_repeat: bool
    requests: int = 1

    def declared_values(self) -> tuple[str, ...]:
        """Values the plan has the user say that are not facts (the slips)."""
        return tuple(str(v) for v in self.slips.values() if v is not None)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v)
    elif isinstance(value, str):
        yield value


def misremember(value: Scalar, rng: random.Random) -> str | None:
    """A plausible wrong version of an id, email or ISO date (None: not misrememberable).

    Emails get two adjacent letters of the local part swapped, dates a day or two off,
    ids one digit changed. Free text, names and numbers are never misremembered.
    """
    if not isinstance(value, str):
        return None
    m = _EMAIL.match(value)
    if m:
        local = m.group(1)
        spots = [i for i in range(len(local) - 1) if local[i].isalpha() and local[i + 1].isalpha()]
        spots = [i for i in spots if local[i] != local[i + 1]]
        if not spots:
            return None
        i = rng.choice(spots)
        return local[:i] + local[i + 1] + local[i] + local[i + 2 :] + "@" + m.group(2)
    if _ISO.match(value):
        try:
            d = date.fromisoformat(value)
        except ValueError:
            return None
        return (d + timedelta(days=rng.choice([-2, -1, 1, 2]))).isoformat()
    if " " in value or not any(c.isdigit() for c in value):
        return None
    digits = [i for i, c in enumerate(value) if c.isdigit()]
    i = rng.choice(digits)
    new = str((int(value[i]) + rng.randint(1, 9)) % 10)
    return value[:i] + new + value[i + 1 :]


def plan_for(
    task: Task, behaviour: UserBehaviour | str, seed: int = 0, trial: int = 0
) -> BehaviourPlan:
    """The behaviour plan of one trial's user (same inputs, same plan).

    Args:
        task: The task whose user spec is played.
        behaviour: The campaign's user behaviour.
        seed: The campaign seed.
        trial: The trial index.
    """
    b = UserBehaviour(behaviour)
    spec = task.user
    slips: dict[str, Scalar] = {n: f.first for n, f in spec.facts.items() if f.first is not None}
    misremembered: str | None = None
    if b is UserBehaviour.MISREMEMBERS:
        # Only this behaviour draws (seeding from a string hashes it: not for nothing).
        rng = random.Random(f"{seed}|{task.id}|{trial}|user")
        used: set[str] = set()
        for call in task.golden:
            used.update(_strings(call.args))
        taken = {str(f.value) for f in spec.facts.values()}
        candidates = []
        for n, f in sorted(spec.facts.items()):
            if n in slips:
                continue
            sub = random.Random(f"{rng.random()}")
            # A wrong value that is another fact's value would read as that fact.
            tries = (misremember(f.value, sub) for _ in range(8))
            w = next((t for t in tries if t is not None and t not in taken), None)
            if w is not None:
                candidates.append((n, w))
        needed = [(n, w) for n, w in candidates if str(spec.facts[n].value) in used]
        pool = needed or candidates
        if pool:
            misremembered, wrong = pool[rng.randrange(len(pool))]
            slips[misremembered] = wrong
    opening, switch = spec.opening, ""
    if b is UserBehaviour.CHANGES_GOAL and spec.behaviour.changed_from:
        opening = spec.behaviour.changed_from
        switch = f"Actually, sorry, change of plan. {spec.opening}"
    return BehaviourPlan(
        behaviour=b,
        opening=opening,
        switch=switch,
        slips=slips,
        misremembered=misremembered,
        direct_only=b is UserBehaviour.UNCOOPERATIVE,
        one_at_a_time=b is UserBehaviour.UNCOOPERATIVE,
        patience=PATIENCE if b is UserBehaviour.IMPATIENT else None,
        leaves_on_repeat=b is UserBehaviour.IMPATIENT,
        requests=spec.behaviour.requests or max(1, sum(t.startswith("intent:") for t in task.tags)),
    )
