"""The judge's final state hash: this checkout's against another's, and what a prefix skips.

Usage: python bench/state_hash.py --base-src /work/main/src [--suite retail@2.0]
       [--rounds 6] [--repeat 40]

The work is each task's golden end state hashed as a trial's final state is: a fresh
`State` over its rows whose base is the task's initial state (hashed first, as the
judge's per-task cache holds it), so only the tables and rows the golden run wrote are
encoded. Each round hashes every task's state ``--repeat`` times in a fresh process per
side, alternating which side goes first; printed: CPU per final-state hash, each round,
and the load average. Every hash is first checked against `state_hash` of the rows.

Also printed (this checkout, once): the share of the hashed bytes that come before the
first table that differs from the initial state, and before the first differing byte:
what a sha256 state cached after the unchanged prefix (``hashlib``'s ``copy``) could
skip at most.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from statebox.world import State

SRC = Path(__file__).resolve().parent.parent / "src"


def _pairs(suite: str) -> list[tuple[State, State]]:
    from statebox.judge import Judge
    from statebox.registry import default_registry

    registry = default_registry()
    tasks = registry.suite(suite)
    judges = {d: Judge(registry.domain(d)) for d in {t.domain for t in tasks}}
    return [
        (judges[t.domain].initial_state(t), judges[t.domain].golden_states(t)[0]) for t in tasks
    ]


def _child(suite: str, repeat: int, src: Path) -> None:
    import statebox
    from statebox.world import State, state_hash

    found = Path(statebox.__file__).resolve().parents[1]
    if found != src.resolve():  # checked before anything is measured
        raise SystemExit(f"the child imported statebox from {found}, not {src}")

    pairs = _pairs(suite)
    for initial, _ in pairs:
        initial.hash()
    finals = [g for _, g in pairs]

    def fresh(g: State) -> State:
        return State(g.rows, g.primary_keys, g.base)

    if any(fresh(g).hash() != state_hash(g.rows) for g in finals):
        raise SystemExit("a derived state's hash differs from its rows' hash")
    t0 = time.process_time()
    for _ in range(repeat):
        for g in finals:
            fresh(g).hash()
    cpu_ms = (time.process_time() - t0) * 1000 / (repeat * len(finals))
    print(json.dumps({"cpu_ms": cpu_ms, "states": len(finals)}))


def prefix_shares(suite: str) -> tuple[float, float]:
    """Shares of the hashed text before the first changed table, and the first changed byte."""
    from statebox.world._canonical import table_text

    total = table_prefix = byte_prefix = 0
    for initial, golden in _pairs(suite):
        a = {t: table_text(t, r) for t, r in initial.rows.items() if r}
        b = {t: table_text(t, r) for t, r in golden.rows.items() if r}
        names = sorted(b)
        total += sum(len(b[t]) + 1 for t in names)
        done = 0
        for t in names:
            if a.get(t) == b[t]:
                done += len(b[t]) + 1
                continue
            # Character by character on purpose: the texts are not paths.
            same = len(os.path.commonprefix([a.get(t, ""), b[t]]))  # noqa: RUF071
            table_prefix += done
            byte_prefix += done + same
            break
        else:
            table_prefix += done
            byte_prefix += done
    return table_prefix / total, byte_prefix / total


def run_side(src: Path, suite: str, repeat: int) -> float:
    env = {**os.environ, "PYTHONPATH": str(src)}
    cmd = [sys.executable, __file__, "--child", "--suite", suite, "--repeat", str(repeat)]
    cmd += ["--base-src", str(src)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(done.stderr.strip().splitlines()[-1])
    return float(json.loads(done.stdout.strip().splitlines()[-1])["cpu_ms"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-src", type=Path, help="the baseline checkout's src directory")
    parser.add_argument("--suite", default="retail@2.0")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=40)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.suite, args.repeat, args.base_src)
        return
    if args.base_src is None:
        parser.error("--base-src is required")
    print(f"load average before {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    got: dict[str, list[float]] = {"base": [], "this": []}
    for r in range(args.rounds):
        order = ["base", "this"] if r % 2 == 0 else ["this", "base"]
        for side in order:
            got[side].append(
                run_side(args.base_src if side == "base" else SRC, args.suite, args.repeat)
            )
        print(
            f"round {r}: base {got['base'][-1]:.4f} ms, this {got['this'][-1]:.4f} ms per final "
            f"state hash; load {os.getloadavg()[0]:.2f}",
            flush=True,
        )
    base, this = statistics.median(got["base"]), statistics.median(got["this"])
    print(
        f"median over {args.rounds} rounds: base {base:.4f} ms, this {this:.4f} ms "
        f"({base / this:.2f}x)"
    )
    table, byte = prefix_shares(args.suite)
    print(
        f"{args.suite}: hashed bytes before the first changed table {table:.1%}, "
        f"before the first changed byte {byte:.1%} (the most a cached prefix could skip)"
    )
    print(f"load average after {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
