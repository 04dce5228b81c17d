"""Progress displays: a rich bar on a terminal, plain lines elsewhere (CI, pipes)."""

from __future__ import annotations

import time

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from statebox.records import TrialRecord, TrialStatus

__all__ = ["PlainProgress", "RichProgress", "make_progress"]


class _Counts:
    def __init__(self) -> None:
        self.done = self.passed = self.errors = 0
        self.cost_usd = 0.0

    def add(self, r: TrialRecord) -> None:
        self.done += 1
        self.passed += r.status == TrialStatus.PASSED
        self.errors += r.status == TrialStatus.SYSTEM_ERROR
        self.cost_usd += r.cost_usd

    def text(self) -> str:
        # Counts of the trials run now (a resume's earlier ones are in the summary).
        return (
            f"this run: passed {self.passed}, system errors {self.errors}, "
            f"spend ${self.cost_usd:.2f}"
        )


class RichProgress:
    """A rich progress bar on stderr: done/total, passed, system errors, spend, ETA."""

    def __init__(self, console: Console) -> None:
        self._p = Progress(
            TextColumn("trials"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[stats]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=console,
        )
        self._task: TaskID | None = None
        self._c = _Counts()

    def start(self, total: int, already_done: int) -> None:
        """Show the bar (none when nothing is left to run)."""
        if total and already_done >= total:
            self._p.console.print(f"nothing left to run: all {total} trials are done")
            return
        self._p.start()
        self._task = self._p.add_task("trials", total=total, completed=already_done, stats="")

    def trial_done(self, record: TrialRecord) -> None:
        """Advance the bar."""
        self._c.add(record)
        if self._task is not None:
            self._p.update(self._task, advance=1, stats=self._c.text())

    def finish(self) -> None:
        """Remove the bar."""
        self._p.stop()


class PlainProgress:
    """One line every few seconds (and at the end) on stderr."""

    def __init__(self, console: Console, every_s: float = 5.0) -> None:
        self._console = console
        self._every_s = every_s
        self._c = _Counts()
        self._total = self._base = 0
        self._last = 0.0

    def start(self, total: int, already_done: int) -> None:
        """Announce the plan."""
        self._total, self._base = total, already_done
        self._last = time.monotonic()
        if total and already_done >= total:
            self._console.print(f"nothing left to run: all {total} trials are done")
            return
        resumed = f" ({already_done} already done)" if already_done else ""
        self._console.print(f"running {total} trials{resumed}", highlight=False)

    def trial_done(self, record: TrialRecord) -> None:
        """Print a line when enough time has passed."""
        self._c.add(record)
        now = time.monotonic()
        if now - self._last >= self._every_s:
            self._last = now
            self._line()

    def _line(self) -> None:
        done = self._base + self._c.done
        self._console.print(f"trials {done}/{self._total}: {self._c.text()}", highlight=False)

    def finish(self) -> None:
        """Print the final line (none when nothing ran: the summary follows)."""
        if self._c.done:
            self._line()


def make_progress(console: Console) -> RichProgress | PlainProgress:
    """A rich bar on an interactive terminal, plain lines otherwise."""
    if console.is_terminal and not console.is_dumb_terminal:
        return RichProgress(console)
    return PlainProgress(console)
