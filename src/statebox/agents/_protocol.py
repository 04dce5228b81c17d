"""The `Agent` protocol and the factory the runner calls once per trial."""

from __future__ import annotations

from typing import Any, NamedTuple, Protocol, runtime_checkable

from statebox.episode import Action, Episode, Observation
from statebox.tasks import Task

__all__ = ["Agent", "AgentError", "AgentFactory", "TrialContext"]


class AgentError(Exception):
    """The agent under evaluation answered outside its protocol (malformed, oversized).

    Whatever an agent sends is the agent's doing: the runner ends the episode with
    ``agent_error`` and judges it (the trial fails), never a system error that
    ``--retry-errors`` would re-run.
    """


class TrialContext(NamedTuple):
    """Which trial an agent is made for."""

    task: Task
    """The task (evaluator side: only privileged agents such as the oracle read ``golden``)."""
    trial: int
    """Zero-based trial index."""
    seed: int
    """The campaign seed."""
    mutating_tools: frozenset[str] = frozenset()
    """Names of the domain's mutating tools (for privileged agents that perturb writes)."""
    episode: Episode | None = None
    """The trial's episode, before reset (for drivers that expose it elsewhere, such as
    an outside agent reaching tools through a gateway); ordinary agents ignore it."""
    write_calls: frozenset[int] | None = None
    """Indices of the task's golden calls that change the backend's state, where the
    backend's tools declare no writes (an external environment: found by a golden
    replay); None: a golden call is a write when its tool is in ``mutating_tools``."""


@runtime_checkable
class Agent(Protocol):
    """An agent: one `act` per observation until the episode ends."""

    name: str
    """Agent kind, e.g. ``oracle``."""

    @property
    def config(self) -> dict[str, Any]:
        """The agent's configuration (written to the manifest; never a secret)."""
        ...

    async def act(self, obs: Observation) -> Action:
        """The next action given the latest observation."""
        ...


class AgentFactory(Protocol):
    """Makes a fresh agent for each trial."""

    name: str
    """Agent kind."""

    @property
    def agent_id(self) -> str:
        """Stable id of this configuration (name plus a short config hash)."""
        ...

    @property
    def config(self) -> dict[str, Any]:
        """The configuration every agent it makes shares."""
        ...

    def __call__(self, ctx: TrialContext) -> Agent:
        """A fresh agent for one trial."""
        ...
