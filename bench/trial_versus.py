"""This checkout's oracle trial against another checkout's, alternating in one run.

Usage: python bench/trial_versus.py --base-src /work/main/src [--suite retail@2.0]
       [--trials 4] [--rounds 4]

Each round runs one oracle campaign (concurrency 1, ``--trials`` per task) in a fresh
process for each side: the baseline with ``--base-src`` first on ``PYTHONPATH``, then
this checkout's ``src``; rounds alternate which side goes first (ABBA...), so neither
side runs on the warmer machine. Both sides run in this interpreter, with the same
installed dependencies, and are measured by the same code (`bench/run.py`'s
``bench_campaign``): CPU time per trial (this process's, from the first trial's start to
the last record written: every trial's clone, calls, judge, audit and record write; the
golden replay before the first trial is left out of both) and the median trial end to
end. Printed: each round's figures, the load average before and after, and the ratio
of the sides' medians over rounds (above 1: this checkout is faster).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
SRC = BENCH.parent / "src"


def _child(suite: str, trials: int, limit: int | None, src: Path) -> None:
    import statebox

    found = Path(statebox.__file__).resolve().parents[1]
    if found != src.resolve():  # checked before anything runs
        raise SystemExit(f"the child imported statebox from {found}, not {src}")
    sys.path.insert(0, str(BENCH))
    from run import bench_campaign

    f = bench_campaign(suite, trials, 1, limit)
    print(json.dumps({"src": str(found), **f._asdict()}))


def run_side(
    src: Path, suite: str, trials: int, limit: int | None = None
) -> dict[str, float | str]:
    """One campaign in a fresh process with ``src`` first on the path; its figures.

    Raises:
        SystemExit: The child imported statebox from elsewhere than ``src``, or failed.
    """
    env = {**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    more = ["--limit", str(limit)] if limit is not None else []
    child = [sys.executable, __file__, "--child", "--suite", suite, "--trials", str(trials)]
    done = subprocess.run(
        [*child, "--base-src", str(src), *more],
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        raise SystemExit(lines[-1] if lines else f"the child failed ({done.returncode})")
    figures: dict[str, float | str] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-src", type=Path, help="the baseline checkout's src directory")
    parser.add_argument("--suite", default="retail@2.0")
    parser.add_argument("--trials", type=int, default=4, help="trials per task per campaign")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--limit", type=int, help="only the suite's first LIMIT tasks")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.suite, args.trials, args.limit, args.base_src)
        return
    if args.base_src is None:
        parser.error("--base-src is required")
    sides = {"base": args.base_src, "this": SRC}
    got: dict[str, list[dict[str, float | str]]] = {"base": [], "this": []}
    print(f"load average before {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for r in range(args.rounds):
        # ABBA: round 0 base first, round 1 this first, ...
        order = ["base", "this"] if r % 2 == 0 else ["this", "base"]
        for side in order:
            f = run_side(sides[side], args.suite, args.trials, args.limit)
            got[side].append(f)
            print(
                f"round {r} {side:4s} ({f['src']}): {f['trials']} trials, CPU "
                f"{float(f['cpu_per_trial_ms']):.2f} ms per trial, median trial end to end "
                f"{float(f['per_trial_ms']):.2f} ms; load {os.getloadavg()[0]:.2f}",
                flush=True,
            )
    print(f"load average after {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    paired = [
        float(b["cpu_per_trial_ms"]) / float(t["cpu_per_trial_ms"])
        for b, t in zip(got["base"], got["this"], strict=True)
    ]
    print(
        "CPU per trial, base / this, round by round: "
        + ", ".join(f"{r:.2f}x" for r in paired)
        + f" (median {statistics.median(paired):.2f}x)"
    )
    for key, label in (("cpu_per_trial_ms", "CPU per trial"), ("per_trial_ms", "median trial")):
        base = statistics.median(float(f[key]) for f in got["base"])
        this = statistics.median(float(f[key]) for f in got["this"])
        print(
            f"{args.suite}: {label}, median over {args.rounds} rounds: base {base:.2f} ms, "
            f"this {this:.2f} ms; this checkout {base / this:.2f}x faster"
        )


if __name__ == "__main__":
    main()
