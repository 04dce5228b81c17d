"""Agents: the protocol, the oracle and the fault-injection agent."""

from statebox.agents._oracle import FaultInjectionFactory, FaultRates, OracleFactory
from statebox.agents._protocol import Agent, AgentFactory, TrialContext

__all__ = [
    "Agent",
    "AgentFactory",
    "FaultInjectionFactory",
    "FaultRates",
    "OracleFactory",
    "TrialContext",
]
