"""Agents: the protocol, the oracle, the fault-injection agent and the LLM agent."""

from statebox.agents._llm import (
    AGENT_INSTRUCTIONS,
    SEARCH_GUIDANCE,
    THINK_GUIDANCE,
    AgentLimitReached,
    LLMAgent,
    LLMAgentFactory,
)
from statebox.agents._oracle import FaultInjectionFactory, FaultRates, OracleFactory
from statebox.agents._protocol import Agent, AgentError, AgentFactory, TrialContext
from statebox.agents._sleepy import SLEEPY_MODEL, SleepyFactory, SleepyOptions

__all__ = [
    "AGENT_INSTRUCTIONS",
    "SEARCH_GUIDANCE",
    "SLEEPY_MODEL",
    "THINK_GUIDANCE",
    "Agent",
    "AgentError",
    "AgentFactory",
    "AgentLimitReached",
    "FaultInjectionFactory",
    "FaultRates",
    "LLMAgent",
    "LLMAgentFactory",
    "OracleFactory",
    "SleepyFactory",
    "SleepyOptions",
    "TrialContext",
]
