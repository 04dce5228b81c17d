"""Privileged agents that read the golden trajectory: the oracle and fault injection.

The oracle asks the user for the task's facts with their ask phrases (one direct
question each, following up on any left unanswered), then replays the golden
trajectory, passing only values the user actually said: before a call that needs a
fact it has not heard, or heard wrong, it asks again or says the value does not match
(`statebox.dialogue.FactGatherer`). It is the upper bound, and a task's proof of
solvability with the simulated user. The fault-injection agent does the same with
seeded, configurable faults — skip a write, a wrong value in a write, an extra write,
stop early; and in the conversation: trust what the user said without checking it, ask
again for something already given, never follow up on an unanswered question — so
every metric, failure signature and user behaviour can be exercised offline and
reproducibly: its random streams are seeded by (campaign seed, task id, trial), never
by time or hash seed.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Mapping
from typing import Any

from pydantic import Field

from statebox._model import Model
from statebox.agents._protocol import Agent, TrialContext
from statebox.dialogue import FactGatherer
from statebox.episode import Action, CallTool, End, MessageUser, Observation, ToolInfo
from statebox.tasks import GoldenCall
from statebox.tools import ToolCall

__all__ = ["FaultInjectionFactory", "FaultRates", "OracleFactory"]

_FINAL = "All done: your request has been handled."


def _config_id(name: str, config: Mapping[str, Any]) -> str:
    if not config:
        return name
    digest = hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()[:8]
    return f"{name}-{digest}"


class _Replay:
    """Asks for the facts, then plays a fixed list of calls with the user's values, then ends."""

    def __init__(
        self,
        name: str,
        config: dict[str, Any],
        plan: list[GoldenCall | None],
        talk: FactGatherer,
        final: str = "",
    ) -> None:
        self.name = name
        self._config = config
        self._plan = plan  # None = end here
        self._talk = talk
        self._final = final or _FINAL
        self._asking = True
        self._i = 0
        self._calls = 0

    @property
    def config(self) -> dict[str, Any]:
        return self._config

    def _say(self, text: str) -> Action:
        self._talk.agent_said(text)
        return MessageUser(text=text)

    async def act(self, obs: Observation) -> Action:
        if obs.user_message is not None:
            self._talk.user_said(obs.user_message)
        if self._asking:
            message = self._talk.opening_message()
            if message is not None:
                return self._say(message)
            self._asking = False
        if self._i < len(self._plan) and self._plan[self._i] is None:
            # Stopped early: the work is not done, so it cannot have the task's reference
            # reply; it claims success all the same (what the weak evaluator would trust).
            return End(text=_FINAL)
        if self._i >= len(self._plan):
            return End(text=self._final)
        call = self._plan[self._i]
        assert call is not None  # narrowed above
        step = self._talk.for_call(call.args)
        if step.kind == "ask":
            return self._say(step.text)
        if step.kind == "end":
            return End(text=step.text)
        self._i += 1
        self._calls += 1
        return CallTool(
            call=ToolCall(tool=call.tool, args=step.args or {}, id=f"call_{self._calls}")
        )


class OracleFactory:
    """Makes oracle agents: replay the golden trajectory, then end."""

    name = "oracle"

    @property
    def agent_id(self) -> str:
        """``oracle``."""
        return "oracle"

    @property
    def config(self) -> dict[str, Any]:
        """Empty: the oracle has no settings."""
        return {}

    def __call__(self, ctx: TrialContext) -> Agent:
        """An oracle for one trial."""
        talk = FactGatherer(ctx.task)
        return _Replay(self.name, {}, list(ctx.task.golden), talk, ctx.task.reference_response)


class FaultRates(Model):
    """Fault probabilities of the fault-injection agent (each in [0, 1])."""

    skip_write: float = Field(0.08, ge=0, le=1)
    """Per golden write: leave it out."""
    wrong_value: float = Field(0.08, ge=0, le=1)
    """Per golden write: change one argument to another valid-looking value."""
    extra_write: float = Field(0.05, ge=0, le=1)
    """Per golden write: add a second, perturbed copy of it after it."""
    stop_early: float = Field(0.03, ge=0, le=1)
    """Per step (each golden call, and the final reply): end the episode here, claiming
    success without the task's reference reply."""
    trust_user: float = Field(0.2, ge=0, le=1)
    """Per trial: pass the values the user gave without checking them (a misremembered
    value goes into the calls)."""
    repeat_ask: float = Field(0.2, ge=0, le=1)
    """Per trial: ask once more for a fact the user already gave."""
    no_follow_up: float = Field(0.2, ge=0, le=1)
    """Per trial: never ask again for a fact the first questions left unanswered (give
    up when a call needs it)."""


def _perturb(call: GoldenCall, schema: Mapping[str, Any], rng: random.Random) -> GoldenCall:
    """The call with one argument changed; prefers enums, numbers and booleans over ids."""
    props: Mapping[str, Any] = schema.get("properties", {})
    names = sorted(call.args)
    if not names:
        return call

    def rank(n: str) -> int:
        p = props.get(n, {})
        if "enum" in p or p.get("type") in ("integer", "number", "boolean"):
            return 0
        return 2 if n.endswith("id") else 1

    best = min(rank(n) for n in names)
    name = rng.choice([n for n in names if rank(n) == best])
    value, prop = call.args[name], props.get(name, {})
    new: Any
    if "enum" in prop and len(prop["enum"]) > 1:
        new = rng.choice([v for v in prop["enum"] if v != value])
    elif isinstance(value, bool):
        new = not value
    elif isinstance(value, int | float):
        new = round(value * rng.choice([0.5, 1.5, 2.0]) + 1, 2)
        new = int(new) if isinstance(value, int) else new
    elif isinstance(value, str):
        new = value + "X"
    else:
        new = None
    return GoldenCall(tool=call.tool, args={**call.args, name: new})


def is_write(ctx: TrialContext, index: int) -> bool:
    """Whether golden call ``index`` of the trial's task is a write (see `TrialContext`)."""
    if ctx.write_calls is not None:
        return index in ctx.write_calls
    call = ctx.task.golden[index]
    # A call the golden trajectory expects refused writes nothing: faulting it is no fault.
    return call.fails is None and call.tool in ctx.mutating_tools


def inapplicable_faults(ctx: TrialContext) -> list[str]:
    """Why some of the fault agent's faults cannot apply to the trial's task (may be empty).

    A task with no write has nothing for skip_write, wrong_value and extra_write to act
    on; a write with no arguments has nothing for wrong_value to change.
    """
    writes = [i for i in range(len(ctx.task.golden)) if is_write(ctx, i)]
    if not writes:
        return [
            "no golden call changes the state: skip_write, wrong_value and extra_write cannot apply"
        ]
    bare = [ctx.task.golden[i].tool for i in writes if not ctx.task.golden[i].args]
    if bare:
        return [f"write(s) {', '.join(bare)} take no arguments: wrong_value cannot apply to them"]
    return []


class _FaultAgent(_Replay):
    """Builds its perturbed plan at the start observation (it needs the tool schemas)."""

    def __init__(self, config: dict[str, Any], ctx: TrialContext, rates: FaultRates) -> None:
        # Conversation faults draw from a stream of their own: the write faults of a
        # trial are the same whatever the conversation rates.
        talk_rng = random.Random(f"{ctx.seed}|{ctx.task.id}|{ctx.trial}|talk")
        talk = FactGatherer(
            ctx.task,
            verify=not talk_rng.random() < rates.trust_user,
            repeat_ask=talk_rng.random() < rates.repeat_ask,
            follow_up=not talk_rng.random() < rates.no_follow_up,
        )
        super().__init__("fault", config, [], talk, ctx.task.reference_response)
        self._ctx = ctx
        self._rates = rates
        self._planned = False

    def _make_plan(self, tools: tuple[ToolInfo, ...]) -> list[GoldenCall | None]:
        schemas = {t.name: t.input_schema for t in tools}
        seed = f"{self._ctx.seed}|{self._ctx.task.id}|{self._ctx.trial}"
        rng = random.Random(seed)
        r = self._rates
        plan: list[GoldenCall | None] = []
        for i, call in enumerate(self._ctx.task.golden):
            if rng.random() < r.stop_early:
                plan.append(None)
                return plan
            if not is_write(self._ctx, i):
                plan.append(call)
                continue
            if rng.random() < r.skip_write:
                continue
            schema = schemas.get(call.tool, {})
            plan.append(_perturb(call, schema, rng) if rng.random() < r.wrong_value else call)
            if rng.random() < r.extra_write:
                plan.append(_perturb(call, schema, rng))
        # The final reply is a step too: stopping before it leaves the generic claim.
        if rng.random() < r.stop_early:
            plan.append(None)
        return plan

    async def act(self, obs: Observation) -> Action:
        if not self._planned:
            self._plan = self._make_plan(obs.tools)
            self._planned = True
        return await super().act(obs)


class FaultInjectionFactory:
    """Makes fault-injection agents with the given rates.

    Args:
        rates: Fault probabilities.
    """

    name = "fault"
    needs_golden_writes = True
    """The runner finds which golden calls write where tools do not say (`TrialContext`)."""

    def __init__(self, rates: FaultRates | None = None) -> None:
        self.rates = rates or FaultRates()

    @property
    def config(self) -> dict[str, Any]:
        """The rates."""
        return self.rates.model_dump()

    @property
    def agent_id(self) -> str:
        """``fault`` plus a hash of the rates, e.g. ``fault-1a2b3c4d``."""
        return _config_id(self.name, self.config)

    def __call__(self, ctx: TrialContext) -> Agent:
        """A fault-injection agent for one trial (its faults seeded by the trial)."""
        return _FaultAgent(self.config, ctx, self.rates)
