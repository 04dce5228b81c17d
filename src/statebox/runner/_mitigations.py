"""The recommended mitigations as agent configurations (docs/mitigations.md).

A `Mitigations` value says how a trial runs beyond the agent itself: whether the
agent's instructions explain the error classes (``retry_classified``: only a model
that reads instructions can act on it), which tools are offered (``tool_surface``) and
whether irreversible calls are held for an approver (``approval_gate``). A campaign has
one for every agent; `MitigatedFactory` gives one agent configuration its own, so one
campaign (`statebox ablate`) compares several on the same tasks, trials and seed. The
configuration is part of the agent's id and its manifest entry.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field

from statebox._model import Model
from statebox.agents import Agent, AgentFactory, TrialContext
from statebox.episode import (
    APPROVER_KINDS,
    DEFAULT_DISTRACTORS,
    ApproverFactory,
    HumanApprover,
    SimulatedApprover,
    ToolSurface,
)
from statebox.errors import ConfigError
from statebox.records import Manifest

__all__ = [
    "BUILTIN_APPROVERS",
    "MitigatedFactory",
    "Mitigations",
    "check_approval_gate",
    "trial_mitigations",
]


class Mitigations(Model):
    """How trials run beyond the agent: error guidance, tool surface, approval gate."""

    retry_classified: bool = False
    """The agent's instructions explain the error classes and which to retry (an LLM
    agent reads them; an offline agent cannot)."""
    tool_surface: ToolSurface = "task"
    """Which tools are offered: ``full``, ``task`` or ``minimal``."""
    distractors: int = Field(DEFAULT_DISTRACTORS, ge=0)
    """Tools beyond the golden ones on the ``minimal`` surface."""
    approval_gate: str | None = None
    """Who approves irreversible calls: ``simulated``, ``llm`` or ``human``; None: no gate."""

    def tags(self) -> list[str]:
        """Short names of what differs from the defaults (for agent ids)."""
        out = []
        if self.retry_classified:
            out.append("retry-classified")
        if self.tool_surface != "task":
            out.append(f"{self.tool_surface}-surface")
            if self.tool_surface == "minimal" and self.distractors != DEFAULT_DISTRACTORS:
                out[-1] += f"{self.distractors}"
        if self.approval_gate is not None:
            out.append(f"{self.approval_gate}-gate")
        return out


def _simulated(task: Any, tools: Any, policy: str) -> SimulatedApprover:
    return SimulatedApprover(task, tools)


def _human(task: Any, tools: Any, policy: str) -> HumanApprover:
    return HumanApprover(task)


BUILTIN_APPROVERS: Mapping[str, ApproverFactory] = {"simulated": _simulated, "human": _human}
"""The approvers that need no model (``llm`` is built by the caller from its models)."""


def check_approval_gate(
    gate: str | None,
    approvers: Mapping[str, ApproverFactory],
    *,
    concurrency: int = 1,
    flag: str = "--approval-gate",
) -> None:
    """Refuse an unknown approver, ``llm`` without a model, or ``human`` with parallel trials.

    Args:
        gate: The approver's name (None: no gate).
        approvers: The approver factories the CLI built (``llm``).
        concurrency: Trials in flight at once (one terminal answers ``human``'s prompts).
        flag: The option that named the approver, for the error.

    Raises:
        ConfigError: As said.
    """
    if gate is None:
        return
    if gate not in APPROVER_KINDS:
        raise ConfigError(f"{flag} {gate!r}: choose {', '.join(APPROVER_KINDS)}")
    if gate not in approvers and gate not in BUILTIN_APPROVERS:
        raise ConfigError(
            f"{flag} {gate}: no approver model; give --approver-model openai:MODEL "
            "(or a judge model in the models file)"
        )
    if gate == "human" and concurrency != 1:
        raise ConfigError(f"{flag} human asks one call at a time; add --concurrency 1")


class MitigatedFactory:
    """An agent configuration with its own `Mitigations`.

    Args:
        base: The agent.
        mitigations: How its trials run.
        name: The configuration's name (the ablation's), for the manifest.
    """

    def __init__(self, base: AgentFactory, mitigations: Mitigations, name: str = "") -> None:
        self.base = base
        self.mitigations = mitigations
        self.label = name
        self.name = base.name
        # The fault agent needs the golden writes found where tools do not say.
        self.needs_golden_writes = bool(getattr(base, "needs_golden_writes", False))
        # An outside agent's tools are served: full does not widen an allowlist for it.
        self.serves_tools = bool(getattr(base, "serves_tools", False))

    @property
    def agent_id(self) -> str:
        """The base agent's id plus the mitigations (``fault-1a2b+minimal-surface``)."""
        tags = self.mitigations.tags()
        return "+".join([self.base.agent_id, *tags]) if tags else self.base.agent_id

    @property
    def config(self) -> dict[str, Any]:
        """The base agent's configuration plus the mitigations."""
        return {**self.base.config, "mitigations": self.mitigations.model_dump()}

    def __call__(self, ctx: TrialContext) -> Agent:
        """The base agent for one trial (the runner applies the mitigations)."""
        return self.base(ctx)

    async def aclose(self) -> None:
        """Close the base agent's resources, if it holds any."""
        aclose = getattr(self.base, "aclose", None)
        if aclose is not None:
            await aclose()


def trial_mitigations(manifest: Manifest, agent_id: str) -> Mitigations:
    """The mitigations a campaign's trials of ``agent_id`` ran with (for replays).

    The agent's own (a `MitigatedFactory`'s manifest entry), else the campaign's, else
    none (a manifest from before mitigations).
    """
    for a in manifest.agents:
        if a.agent_id == agent_id and isinstance(a.config.get("mitigations"), dict):
            return Mitigations.model_validate(a.config["mitigations"])
    recorded = manifest.verdict_settings.get("mitigations")
    return Mitigations.model_validate(recorded) if isinstance(recorded, dict) else Mitigations()
