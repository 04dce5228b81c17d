"""Per-trial backend start of ThinkingBox servers: fork server vs warm pool vs plain
processes, as ratios measured in one run (printed, not asserted).

Usage: python bench/thinkingbox_start.py [--trials 12] [--trial-s 0.3] [--warm 2]
    [--servers FILE --server NAME --python PY --init-config JSON]

Default: the Tiny Shop fixture server (tests/fixtures/thinkingbox), whose start is a
real import of the MCP SDK and the ``typesense`` client. With ``--servers`` (e.g. the
v1.0 release's ``servers/servers.yaml``), ``--server`` and ``--python`` (its venv):
that server. Each trial, one after another: take a fresh process, ``__reserved__init``
it (the figure: wall time of both), make its effects read, close it in the background,
then "think" for ``--trial-s`` seconds (an agent's time, in which a warm pool refills).

Modes:
- ``plain``: a new process per trial, started on demand (what a bare harness does);
- ``warm pool``: ``--warm`` processes started ahead per server (`WarmPool`, no fork);
- ``fork server``: one parent imports the server once and forks each trial's fresh
  process on demand (no pool).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from statebox.thinkingbox._pool import WarmPool
from statebox.thinkingbox._servers import ServerSpec, load_servers

ROOT = Path(__file__).resolve().parents[1]
SERVERS = ROOT / "tests" / "fixtures" / "thinkingbox" / "servers.yaml"


async def run_mode(
    spec: ServerSpec, *, size: int, fork: bool, trials: int, trial_s: float, config: Any
) -> list[float]:
    pool = WarmPool({spec.name: spec}, size, fork_server=fork, on_notice=print)
    out: list[float] = []
    try:
        if fork:
            await pool.fork_servers()  # the parent's one import happens before the run
        await pool.warm(wait=True)
        for _ in range(trials):
            t0 = time.monotonic()
            process = await pool.acquire(spec.name)
            await process.reserved_init(config)
            out.append(time.monotonic() - t0)
            await process.geteffects()
            process.close()
            await asyncio.sleep(trial_s)
    finally:
        await pool.aclose()
    return out


def main() -> None:
    """Parse the flags, run the three modes and print their figures and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=12)
    parser.add_argument("--trial-s", type=float, default=0.3)
    parser.add_argument("--warm", type=int, default=2)
    parser.add_argument("--servers", type=Path, default=SERVERS)
    parser.add_argument("--server", default="tiny_shop")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--init-config", default='{"data_patch": {}}')
    args = parser.parse_args()
    spec = load_servers(args.servers, python=args.python)[args.server]
    config = json.loads(args.init_config)
    print(f"server {args.server}; {args.trials} trials per mode; load {os.getloadavg()}")
    medians: dict[str, float] = {}
    for name, size, fork in (
        ("plain", 0, False),
        ("warm pool", args.warm, False),
        ("fork server", 0, True),
    ):
        lat = asyncio.run(
            run_mode(spec, size=size, fork=fork, trials=args.trials, trial_s=args.trial_s,
                     config=config)
        )  # fmt: skip
        medians[name] = statistics.median(lat)
        print(
            f"{name:12s} acquire+init: median {medians[name] * 1000:7.1f} ms, "
            f"mean {statistics.mean(lat) * 1000:7.1f} ms, worst {max(lat) * 1000:7.1f} ms"
        )
    plain = medians["plain"]
    for name in ("warm pool", "fork server"):
        print(f"plain / {name}: {plain / medians[name]:.1f}x faster per trial start")
    print(f"warm pool / fork server: {medians['warm pool'] / medians['fork server']:.2f}x")
    print(f"load after: {os.getloadavg()}")


if __name__ == "__main__":
    # Servers and clients talk over loopback only (see scripts/loopback.py).
    sys.path.insert(0, str(ROOT))
    from scripts.loopback import ensure

    ensure(__file__)
    main()
