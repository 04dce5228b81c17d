"""The simulated-latency agent: an oracle that waits a fixed time before each action.

It stands for an LLM agent when measuring the harness at scale: every action costs one
"model call" of ``latency_s`` seconds (an `asyncio.sleep`, no network), taken through the
same per-endpoint limit a real model call takes (`statebox.llm.endpoint_slot`, key
``sleepy||sleepy``), so ``max_connections`` caps calls in flight across a whole Ray
cluster just as a models file does for a real endpoint. Each call is metered as a
zero-token, unpriced ``sleepy:sleepy`` call, so records show the time spent "in the model".
Its verdicts are the oracle's: it replays the golden trajectory.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from pydantic import Field

from statebox._model import Model
from statebox.agents._oracle import _config_id, _Replay
from statebox.agents._protocol import Agent, TrialContext
from statebox.dialogue import FactGatherer
from statebox.episode import Action, Observation
from statebox.llm import ModelCall, endpoint_key, endpoint_slot, record_call

__all__ = ["SLEEPY_MODEL", "SleepyFactory", "SleepyOptions"]

SLEEPY_MODEL = "sleepy"
"""The pretend model's name (its limit key is ``endpoint_key("sleepy", None, "sleepy")``)."""


class SleepyOptions(Model):
    """Options of the ``sleepy`` agent (``sleepy:latency_s=2,max_connections=16``)."""

    latency_s: float = Field(0.1, ge=0)
    """Seconds each pretend model call takes (one per action)."""
    max_connections: int | None = Field(None, ge=1)
    """Pretend calls in flight at once across the campaign (None: no limit)."""


class _Sleepy:
    def __init__(
        self, replay: _Replay, options: SleepyOptions, local: asyncio.Semaphore | None
    ) -> None:
        self.name = "sleepy"
        self._replay = replay
        self._options = options
        self._local = local

    @property
    def config(self) -> dict[str, Any]:
        return self._options.model_dump(exclude_none=True)

    async def act(self, obs: Observation) -> Action:
        o = self._options
        t0 = time.perf_counter()
        if o.max_connections is None:
            await asyncio.sleep(o.latency_s)
        else:
            key = endpoint_key(SLEEPY_MODEL, None, SLEEPY_MODEL)
            async with endpoint_slot(key, o.max_connections, self._local):
                await asyncio.sleep(o.latency_s)
        record_call(
            ModelCall(
                role="agent",
                model=f"{SLEEPY_MODEL}:{SLEEPY_MODEL}",
                latency_s=time.perf_counter() - t0,
            )
        )
        return await self._replay.act(obs)


class SleepyFactory:
    """Makes simulated-latency agents.

    Args:
        options: Latency per action and the campaign-wide limit on calls in flight.
    """

    name = "sleepy"

    def __init__(self, options: SleepyOptions | None = None) -> None:
        self.options = options or SleepyOptions()
        self._local: asyncio.Semaphore | None = None

    @property
    def agent_id(self) -> str:
        """``sleepy-<config hash>``."""
        return _config_id(self.name, self.config)

    @property
    def config(self) -> dict[str, Any]:
        """The options (latency, limit)."""
        return self.options.model_dump(exclude_none=True)

    def __call__(self, ctx: TrialContext) -> Agent:
        """A simulated-latency agent for one trial."""
        n = self.options.max_connections
        if n is not None and self._local is None:
            # One semaphore for the factory's campaign: trials share the pretend endpoint.
            self._local = asyncio.Semaphore(n)
        talk = FactGatherer(ctx.task)
        replay = _Replay(
            self.name, self.config, list(ctx.task.golden), talk, ctx.task.reference_response
        )
        return _Sleepy(replay, self.options, self._local)
