"""Simulated users: the rule-based user (the offline default), the LLM user, a human."""

from statebox.users._human import HumanUser
from statebox.users._llm import (
    DEFAULT_USER_TEMPERATURE,
    LLMUser,
    LLMUserFactory,
    user_system_prompt,
)
from statebox.users._rule import RuleUser, RuleUserFactory

__all__ = [
    "DEFAULT_USER_TEMPERATURE",
    "HumanUser",
    "LLMUser",
    "LLMUserFactory",
    "RuleUser",
    "RuleUserFactory",
    "user_system_prompt",
]
