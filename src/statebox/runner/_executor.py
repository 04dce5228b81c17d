"""Where a campaign's trials run: the seam between planning and execution.

`run_campaign` plans (manifest, lock, resume, ``--retry-errors``, plan order), checks
the tasks and opens the results file; then either its own event loop runs the pending
trials (the local executor) or a `TrialExecutor` does (`statebox.runner.RayExecutor`).
Either way the runner's `RecordSink` (the driver's one results file) receives every
record, so resume and "nothing lost, nothing duplicated" hold for both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from statebox.agents import AgentFactory
from statebox.records import ErrorRecord, TrialRecord
from statebox.tasks import Task

if TYPE_CHECKING:
    from statebox.runner._campaign import _Runner

__all__ = ["PlannedTrial", "RecordSink", "TrialExecutor"]

PlannedTrial = tuple[Task, AgentFactory, int]
"""One pending trial: (task, agent configuration, trial index)."""


class RecordSink(Protocol):
    """Receives a campaign's trial and error records (`statebox.records.ResultsWriter`)."""

    def write(self, record: TrialRecord) -> None:
        """Store one trial record."""
        ...

    def write_error(self, record: ErrorRecord) -> None:
        """Store one error record."""
        ...


class TrialExecutor(Protocol):
    """Runs a campaign's pending trials somewhere other than the driver's event loop."""

    async def run(self, runner: _Runner, todo: list[PlannedTrial]) -> None:
        """Run every pending trial and hand each record to ``runner.writer``.

        Args:
            runner: The driver's runner: campaign, manifest, results sink, progress.
            todo: Pending trials in plan order.
        """
        ...
