"""The rule-based user's replies: answer what the agent's message asks for, nothing more.

`RuleEngine` is deterministic: the same spec, plan and agent messages give the same
replies. Each reply is built from the message, in this order:

1. the switch to the task's own request (changes-goal, first reply only);
2. corrections: a slipped fact the agent says does not match (or asks to double-check)
   is corrected;
3. the facts the message asks for, by their ask phrases, in the order asked (only
   direct questions, one at a time, for an uncooperative user); a fact asked again is
   given again (an impatient user leaves instead);
4. a read-back of a value the user gave ("…, is that correct?") is confirmed;
5. an offered alternative is accepted or declined (``behaviour.alternative``, with the
   ``agree`` or ``decline`` line), else a
   proposed change (a question) is agreed to or declined (``behaviour.confirm``);
6. otherwise a refusal is pushed back on ``behaviour.pushback`` times, then accepted; a
   report that the request is done is thanked for; either closes one request, and the
   user ends after the last (``behaviour.requests``), else asks about the next one;
7. a question asking for nothing the user knows gets ``behaviour.unknown``; an open
   question ("how can I help?") gets the request again; small talk a short answer.

Nothing is said that the message did not ask for.
"""

from __future__ import annotations

from statebox.dialogue._behaviour import BehaviourPlan
from statebox.dialogue._text import (
    ALTERNATIVE_CUES,
    CHECK_CUES,
    COMPLETION_CUES,
    OPEN_QUESTION_CUES,
    PROPOSAL_CUES,
    REFUSAL_CUES,
    SMALL_TALK_CUES,
    asked_facts,
    has_cue,
    is_question,
    mentions,
    sentences,
)
from statebox.tasks import UserSpec
from statebox.world import Scalar

__all__ = ["LEAVE_IMPATIENT", "RuleEngine"]

LEAVE_IMPATIENT = "I've spent long enough on this. I'll try another time. Goodbye."
_REPEATED = "I already told you that. I don't have time for this. Goodbye."
_READ_BACK = "Yes, that's right."
_SMALL_TALK = "Fine, thanks."
_WAIT = "Okay."


class RuleEngine:
    """One trial's rule-based user.

    Args:
        spec: The task's user spec.
        plan: The trial's behaviour plan.
    """

    def __init__(self, spec: UserSpec, plan: BehaviourPlan) -> None:
        self.spec = spec
        self.plan = plan
        self.said: dict[str, Scalar] = {}
        """Fact name → the value last said for it."""
        self._pending = dict(plan.slips)  # slips not yet corrected
        self._pushes = 0
        self._closed = 0  # requests refused or done so far
        self._turns = 0
        self._switched = False
        self.done = False
        """Whether the user has ended the conversation."""

    def opening(self) -> str:
        """The first message."""
        return self.plan.opening

    def reply(self, message: str) -> tuple[str, bool]:
        """The answer to one agent message, and whether the user ends the conversation."""
        if self.done:
            return "", True
        self._turns += 1
        parts: list[str] = []
        if self.plan.switch and not self._switched:
            self._switched = True
            parts.append(self.plan.switch)
        if self.plan.patience is not None and self._turns > self.plan.patience:
            return self._end(parts, LEAVE_IMPATIENT)
        facts = self.spec.facts
        checking = has_cue(message, CHECK_CUES)
        corrected = self._corrections(message) if checking else []
        for name in corrected:
            parts.append("Sorry, my mistake. " + facts[name].words())
        asked = [
            n
            for n in asked_facts(message, facts, direct_only=self.plan.direct_only)
            if n not in corrected
        ]
        if self.plan.one_at_a_time:
            asked = asked[:1]
        if self.plan.leaves_on_repeat and any(n in self.said for n in asked):
            return self._end(parts, _REPEATED)
        for name in asked:
            value = self._pending.get(name, facts[name].value)
            parts.append(facts[name].words(value))
            self.said[name] = value
        answered = bool(asked or corrected)
        b = self.spec.behaviour
        if not answered and self._reads_back(message):
            parts.append(_READ_BACK)
            return " ".join(parts), False
        if has_cue(message, ALTERNATIVE_CUES) and not answered:
            parts.append(b.agree if b.alternative else b.decline)
            return " ".join(parts), False
        if has_cue(message, PROPOSAL_CUES) and any(is_question(s) for s in sentences(message)):
            parts.append(b.agree if b.confirm else b.decline)
            return " ".join(parts), False
        refused = has_cue(message, REFUSAL_CUES) or (checking and not answered)
        if refused and not answered:
            if self._pushes < b.pushback:
                self._pushes += 1
                parts.append(b.push)
                return " ".join(parts), False
            return self._close(parts, b.accept)
        if answered:
            return " ".join(parts), False
        if has_cue(message, COMPLETION_CUES):
            return self._close(parts, b.thanks)
        if has_cue(message, OPEN_QUESTION_CUES):
            parts.append(self.spec.goal or self.spec.opening)
        elif has_cue(message, SMALL_TALK_CUES):
            parts.append(_SMALL_TALK)
        elif any(is_question(s) for s in sentences(message)):
            parts.append(b.unknown)
        else:
            parts.append(_WAIT)
        return " ".join(parts), False

    def _close(self, parts: list[str], text: str) -> tuple[str, bool]:
        """One request is closed (refused or done): end after the last one."""
        self._closed += 1
        if self._closed < self.plan.requests:
            self._pushes = 0  # each request is pushed back on afresh
            parts.append(self.spec.behaviour.more)
            return " ".join(parts), False
        return self._end(parts, text)

    def _end(self, parts: list[str], text: str) -> tuple[str, bool]:
        self.done = True
        return " ".join([*parts, text]), True

    def _corrections(self, message: str) -> list[str]:
        """Slipped facts the message checks (corrected from now on).

        Those named by a phrase or by the wrong value, or the only slip said so far when
        the message names none.
        """
        said_slips = [n for n, v in self._pending.items() if self.said.get(n) == v]
        named = [
            n
            for n in said_slips
            if mentions(message, str(self._pending[n]))
            or any(mentions(message, p) for p in self.spec.facts[n].ask)
        ]
        chosen = named or (said_slips if len(said_slips) == 1 else [])
        for n in chosen:
            del self._pending[n]
            self.said[n] = self.spec.facts[n].value
        return chosen

    def _reads_back(self, message: str) -> bool:
        """The agent repeats a value the user gave and asks whether it is right."""
        for s in sentences(message):
            if not (is_question(s) or has_cue(s, ("confirm",))):
                continue
            if any(v is not None and mentions(s, str(v)) for v in self.said.values()):
                return True
        return False
