"""The `ProgressSink` protocol the runner reports to (the CLI draws it)."""

from __future__ import annotations

from typing import Protocol

from statebox.records import TrialRecord

__all__ = ["NullProgress", "ProgressSink"]


class ProgressSink(Protocol):
    """Receives campaign progress."""

    def start(self, total: int, already_done: int) -> None:
        """The campaign starts: ``total`` trials planned, ``already_done`` found on resume."""
        ...

    def trial_done(self, record: TrialRecord) -> None:
        """One trial finished and was written."""
        ...

    def finish(self) -> None:
        """The campaign ended (completed or interrupted)."""
        ...


class NullProgress:
    """A sink that shows nothing."""

    def start(self, total: int, already_done: int) -> None:
        """Ignore."""

    def trial_done(self, record: TrialRecord) -> None:
        """Ignore."""

    def finish(self) -> None:
        """Ignore."""
