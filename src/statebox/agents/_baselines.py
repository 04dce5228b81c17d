"""Baseline agents that do no work: ``noop`` ends at once, ``refuse`` declines politely.

They set the floor a task must stay above: a task either of them passes measures
nothing (`statebox tasks validate` calls it invalid), and their pass@1 is printed on
the suite card and in reports. Neither calls a tool.
"""

from __future__ import annotations

from typing import Any

from statebox.agents._protocol import Agent, TrialContext
from statebox.episode import Action, End, Observation

__all__ = ["NOOP_REPLY", "REFUSE_REPLY", "NoopFactory", "RefuseFactory"]

NOOP_REPLY = ""
"""What the noop agent says: nothing."""
REFUSE_REPLY = (
    "I'm sorry, but I can't help with that request. Is there anything else I can do for you?"
)
"""What the refuse agent says (it ends the conversation with it)."""


class _Say:
    """Ends the episode at the first observation with a fixed text."""

    def __init__(self, name: str, text: str) -> None:
        self.name = name
        self._text = text

    @property
    def config(self) -> dict[str, Any]:
        return {}

    async def act(self, obs: Observation) -> Action:
        return End(text=self._text)


class _Factory:
    name = ""
    text = ""

    @property
    def agent_id(self) -> str:
        """The agent's name: it has no settings."""
        return self.name

    @property
    def config(self) -> dict[str, Any]:
        """Empty: no settings."""
        return {}

    def __call__(self, ctx: TrialContext) -> Agent:
        """An agent for one trial."""
        return _Say(self.name, self.text)


class NoopFactory(_Factory):
    """Makes ``noop`` agents: end at once, say nothing, call nothing."""

    name = "noop"
    text = NOOP_REPLY


class RefuseFactory(_Factory):
    """Makes ``refuse`` agents: decline politely at once, call nothing."""

    name = "refuse"
    text = REFUSE_REPLY
