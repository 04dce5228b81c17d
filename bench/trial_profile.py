"""Where an oracle trial's time goes: cProfile shares by phase (printed, not asserted).

Usage: python bench/trial_profile.py [--suite retail@2.0] [--trials 500] [--out FILE]

Runs about ``--trials`` oracle trials (whole tasks: ``trials // tasks`` per task, at
least one) at concurrency 1 under cProfile, from the first trial's start to the last
record written (the golden replay before the first trial is left out), and prints
each phase's share of the trials' profiled time: its cumulative time in the profile
over the time of every trial (`_Runner._run_trial`). cProfile's own overhead inflates
the many small calls more than the few large ones, so a share is a pointer, not a
measurement; the CPU time per trial printed beside it is the profiled run's own
(``bench/trial_versus.py`` measures speed without a profiler). ``--out`` keeps the
profile for ``pstats``.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import sys
import tempfile
import time
from pathlib import Path

from statebox.agents import OracleFactory
from statebox.records import TrialRecord
from statebox.registry import default_registry
from statebox.runner import Campaign, run_campaign

# (label, file suffix, function name) of each phase; a phase's share is its cumulative
# time (calls nested in another listed phase count in both: e.g. the rule user's reply
# is inside the tool-call loop's step).
PHASES = (
    ("episode steps (tool calls and user replies)", "episode/_episode.py", "step"),
    ("  tool calls (dispatch: validation, tool code, SQL)", "tools/_dispatch.py", "call"),
    ("  rule user replies", "users/_rule.py", "reply"),
    ("judge", "judge/_judge.py", "judge"),
    ("  state match (order-free matching and comparison)", "judge/_checks.py", "match_state"),
    ("  final state hash", "world/_state.py", "hash"),
    ("  effects", "world/_state.py", "effects"),
    ("  terminal state read", "world/_world.py", "state"),
    ("grounding audit", "dialogue/_grounding.py", "audit_user_turns"),
    ("oracle agent", "agents/_oracle.py", "act"),
    ("episode reset (clone, tool list)", "episode/_episode.py", "reset"),
    ("episode close (world back to the pool)", "episode/_episode.py", "close"),
    ("record write", "runner/_campaign.py", "write_record"),
)
TRIAL = ("runner/_campaign.py", "_run_trial")


class _Window:
    """A progress sink that profiles from the first trial's start to the last record."""

    def __init__(self, profile: cProfile.Profile) -> None:
        self.profile = profile
        self.trials = 0
        self.cpu_s = 0.0
        self._t0 = 0.0

    def start(self, total: int, already_done: int) -> None:
        self._t0 = time.process_time()
        self.profile.enable()

    def trial_done(self, record: TrialRecord) -> None:
        self.trials += 1

    def finish(self) -> None:
        self.profile.disable()
        self.cpu_s = time.process_time() - self._t0


def cumulative(stats: pstats.Stats, suffix: str, name: str) -> float:
    """Cumulative seconds of the functions named ``name`` in files ending ``suffix``."""
    table: dict[tuple[str, int, str], tuple[int, int, float, float, object]]
    table = stats.stats  # type: ignore[attr-defined]
    return sum(v[3] for (f, _, n), v in table.items() if n == name and f.endswith(suffix))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="retail@2.0")
    parser.add_argument("--trials", type=int, default=500)
    parser.add_argument("--out", type=Path, help="also write the profile here")
    args = parser.parse_args()
    registry = default_registry()
    tasks = registry.suite(args.suite)
    profile = cProfile.Profile()
    window = _Window(profile)
    with tempfile.TemporaryDirectory() as tmp:
        campaign = Campaign(
            tasks=tasks,
            agents=[OracleFactory()],
            trials=max(1, args.trials // len(tasks)),
            out=Path(tmp) / "run",
            concurrency=1,
        )
        asyncio.run(run_campaign(campaign, registry, progress=window))
    if args.out is not None:
        profile.dump_stats(args.out)
    stats = pstats.Stats(profile, stream=sys.stdout)
    total = cumulative(stats, *TRIAL)
    cpu_ms = window.cpu_s * 1000 / window.trials
    print(
        f"{args.suite}: {window.trials} oracle trials profiled; CPU {cpu_ms:.2f} ms per trial "
        "under the profiler; shares of the trials' profiled time:"
    )
    top = 0.0
    for label, suffix, name in PHASES:
        share = cumulative(stats, suffix, name) / total
        top += 0.0 if label.startswith(" ") else share
        print(f"  {label:58s} {share:6.1%}")
    # What no top-level phase holds (the trial's own code between them), so the shares
    # are seen to account for the whole trial.
    print(f"  {'rest of the trial (in no phase above)':58s} {1 - top:6.1%}")


if __name__ == "__main__":
    main()
