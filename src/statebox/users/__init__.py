"""Simulated users: scripted, LLM and human."""

from statebox.users._human import HumanUser
from statebox.users._llm import LLMUser, LLMUserFactory, user_system_prompt
from statebox.users._scripted import ScriptedUser

__all__ = ["HumanUser", "LLMUser", "LLMUserFactory", "ScriptedUser", "user_system_prompt"]
