"""Agents: the protocol, the oracle, the fault-injection agent and the LLM agent."""

from statebox.agents._llm import (
    AGENT_INSTRUCTIONS,
    THINK_GUIDANCE,
    AgentLimitReached,
    LLMAgent,
    LLMAgentFactory,
)
from statebox.agents._oracle import FaultInjectionFactory, FaultRates, OracleFactory
from statebox.agents._protocol import Agent, AgentFactory, TrialContext

__all__ = [
    "AGENT_INSTRUCTIONS",
    "THINK_GUIDANCE",
    "Agent",
    "AgentFactory",
    "AgentLimitReached",
    "FaultInjectionFactory",
    "FaultRates",
    "LLMAgent",
    "LLMAgentFactory",
    "OracleFactory",
    "TrialContext",
]
