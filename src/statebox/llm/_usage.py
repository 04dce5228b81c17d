"""Token usage and cost: one `ModelCall` per model request, summed per role and trial.

The runner opens a `metering()` scope around each trial; every model client appends
its calls to the scope's `UsageMeter`. The scope is a context variable, so the calls
of concurrent trials (each in its own asyncio task) never mix, and a rubric judge
shared by the whole campaign still bills each trial for its own questions.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

from pydantic import Field

from statebox._model import Model
from statebox.llm._config import Role

__all__ = ["ModelCall", "Usage", "UsageMeter", "metering", "record_call"]


class ModelCall(Model):
    """One model request (after its retries)."""

    role: Role
    """Who made it."""
    model: str
    """``provider:model``."""
    input_tokens: int = 0
    """Input tokens, cached ones included."""
    cached_input_tokens: int = 0
    """Cached part of the input."""
    output_tokens: int = 0
    """Output tokens, reasoning included."""
    reasoning_tokens: int = 0
    """Reasoning part of the output (where reported)."""
    cost_usd: float = 0.0
    """Cost in US dollars (0 when the model has no price)."""
    priced: bool = False
    """Whether a price was known for the model."""
    attempts: int = 1
    """HTTP attempts, retries included."""
    latency_s: float = 0.0
    """Wall-clock seconds, retries and waits included."""


class Usage(Model):
    """Summed usage of one role in a trial (or a campaign)."""

    calls: int = 0
    """Model requests."""
    input_tokens: int = 0
    """Input tokens, cached included."""
    cached_input_tokens: int = 0
    """Cached input tokens."""
    output_tokens: int = 0
    """Output tokens, reasoning included."""
    reasoning_tokens: int = 0
    """Reasoning tokens."""
    cost_usd: float = 0.0
    """Cost in US dollars."""
    unpriced_calls: int = Field(0, ge=0)
    """Calls to models the pricing file does not list (their cost counts as 0)."""

    @classmethod
    def of(cls, calls: Sequence[ModelCall]) -> Usage:
        """The sum of some calls."""
        return cls(
            calls=len(calls),
            input_tokens=sum(c.input_tokens for c in calls),
            cached_input_tokens=sum(c.cached_input_tokens for c in calls),
            output_tokens=sum(c.output_tokens for c in calls),
            reasoning_tokens=sum(c.reasoning_tokens for c in calls),
            cost_usd=sum(c.cost_usd for c in calls),
            unpriced_calls=sum(1 for c in calls if not c.priced),
        )


class UsageMeter:
    """The model calls of one trial."""

    def __init__(self) -> None:
        self.calls: list[ModelCall] = []

    @property
    def cost_usd(self) -> float:
        """Total cost in US dollars."""
        return sum(c.cost_usd for c in self.calls)

    def by_role(self) -> dict[str, Usage]:
        """Usage per role that made at least one call."""
        roles = sorted({c.role for c in self.calls})
        return {r: Usage.of([c for c in self.calls if c.role == r]) for r in roles}


# A context variable, not a global meter: each trial's task sees only its own scope.
_METER: ContextVar[UsageMeter | None] = ContextVar("statebox_usage_meter", default=None)


@contextmanager
def metering() -> Iterator[UsageMeter]:
    """Collect the model calls made inside the block (in this task and its children)."""
    meter = UsageMeter()
    token = _METER.set(meter)
    try:
        yield meter
    finally:
        _METER.reset(token)


def record_call(call: ModelCall) -> None:
    """Add a call to the current `metering()` scope (no-op outside one)."""
    meter = _METER.get()
    if meter is not None:
        meter.calls.append(call)
