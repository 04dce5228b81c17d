"""Conversation logic shared by every player of the user and the privileged agents.

Reading messages, behaviours, the rule user's replies, asking for facts, and the
grounding audit: deterministic string work over the task's user spec, below the
users, agents and LLM layers so that each of them (and the scripted "perfect model")
plays by the same rules.
"""

from statebox.dialogue._asker import FactGatherer, GatherStep, value_said
from statebox.dialogue._behaviour import (
    BEHAVIOUR_NOTES,
    BehaviourPlan,
    UserBehaviour,
    misremember,
    plan_for,
)
from statebox.dialogue._grounding import (
    GroundingAudit,
    UngroundedValue,
    VolunteeredFact,
    audit_user_turns,
)
from statebox.dialogue._rule import RuleEngine
from statebox.dialogue._text import ask_sentence, asked_facts, join_asks, mentions, sentences

__all__ = [
    "BEHAVIOUR_NOTES",
    "BehaviourPlan",
    "FactGatherer",
    "GatherStep",
    "GroundingAudit",
    "RuleEngine",
    "UngroundedValue",
    "UserBehaviour",
    "VolunteeredFact",
    "ask_sentence",
    "asked_facts",
    "audit_user_turns",
    "join_asks",
    "mentions",
    "misremember",
    "plan_for",
    "sentences",
    "value_said",
]
