"""Agents: protocol, oracle, fault injection, noop and refuse baselines, LLM agent."""

from statebox.agents._baselines import NOOP_REPLY, REFUSE_REPLY, NoopFactory, RefuseFactory
from statebox.agents._llm import (
    AGENT_INSTRUCTIONS,
    ERROR_GUIDANCE,
    SEARCH_GUIDANCE,
    TAU_BENCH_THINK_DESCRIPTION,
    THINK_GUIDANCE,
    AgentLimitReached,
    LLMAgent,
    LLMAgentFactory,
    ThinkTool,
)
from statebox.agents._oracle import FaultInjectionFactory, FaultRates, OracleFactory
from statebox.agents._protocol import Agent, AgentError, AgentFactory, TrialContext
from statebox.agents._sleepy import SLEEPY_MODEL, SleepyFactory, SleepyOptions

__all__ = [
    "AGENT_INSTRUCTIONS",
    "ERROR_GUIDANCE",
    "NOOP_REPLY",
    "REFUSE_REPLY",
    "SEARCH_GUIDANCE",
    "SLEEPY_MODEL",
    "TAU_BENCH_THINK_DESCRIPTION",
    "THINK_GUIDANCE",
    "Agent",
    "AgentError",
    "AgentFactory",
    "AgentLimitReached",
    "FaultInjectionFactory",
    "FaultRates",
    "LLMAgent",
    "LLMAgentFactory",
    "NoopFactory",
    "OracleFactory",
    "RefuseFactory",
    "SleepyFactory",
    "SleepyOptions",
    "ThinkTool",
    "TrialContext",
]
