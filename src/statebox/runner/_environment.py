"""Environments: external tool backends a campaign runs beside statebox's own domains.

An `Environment` is a `Backend` (one fresh tool session per trial) that also judges
its own trials: a ThinkingBox dataset, for example, brings MCP server processes and
check functions of its own (`statebox.thinkingbox`); an MCP server over a database
statebox owns is judged by statebox's own checks (`statebox.backends`). A campaign
names them in `Campaign.environments`, by the domain name its tasks carry.

An environment may also say which tools write (`DeclaresWrites`: the fault agent's
write faults need it), check its tasks before a campaign starts (`ChecksTasks`), and
give a picklable recipe that rebuilds it in a Ray worker (`Portable`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

from statebox.episode import Backend, EpisodeOutcome
from statebox.judge import RubricJudge, Verdict
from statebox.tasks import Task

__all__ = ["ChecksTasks", "DeclaresWrites", "Environment", "Portable", "TrialJudge"]


class TrialJudge(Protocol):
    """Judges an ended episode of one task."""

    async def judge(self, task: Task, outcome: EpisodeOutcome) -> Verdict:
        """The verdict; a check that cannot be evaluated is a check with ``error=True``."""
        ...


@runtime_checkable
class Environment(Backend, Protocol):
    """A `Backend` that also judges its trials."""

    def trial_judge(self, rubric: RubricJudge | None) -> TrialJudge:
        """The judge for this environment's trials.

        Args:
            rubric: The campaign's judge model for yes/no rubric questions; None: they
                are recorded as skipped.
        """
        ...


@runtime_checkable
class DeclaresWrites(Protocol):
    """An environment that knows which of its tools write."""

    async def mutating_tools(self, task: Task) -> frozenset[str]:
        """The tools of ``task`` that change state."""
        ...


@runtime_checkable
class ChecksTasks(Protocol):
    """An environment that can check its tasks before a campaign starts."""

    async def task_problems(self, task: Task) -> list[str]:
        """Every reason ``task`` is invalid (empty when none)."""
        ...


@runtime_checkable
class Portable(Protocol):
    """An environment a Ray worker can rebuild in its own process."""

    def recipe(self) -> Callable[[], object]:
        """A picklable callable returning an equivalent `Environment` (with ``aclose``)."""
        ...
