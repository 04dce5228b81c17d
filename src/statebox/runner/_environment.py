"""Environments: external tool backends a campaign runs beside statebox's own domains.

An `Environment` is a `Backend` (one fresh tool session per trial) that also judges
its own trials: a ThinkingBox dataset, for example, brings MCP server processes and
check functions of its own (`statebox.thinkingbox`). A campaign names them in
`Campaign.environments`, by the domain name its tasks carry.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from statebox.episode import Backend, EpisodeOutcome
from statebox.judge import RubricJudge, Verdict
from statebox.tasks import Task

__all__ = ["Environment", "TrialJudge"]


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
