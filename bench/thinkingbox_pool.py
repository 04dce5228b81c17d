"""Warm pool of ThinkingBox server processes: acquire + init latency (printed, not asserted).

Usage: python bench/thinkingbox_pool.py [--trials 8] [--trial-s 1.0] [--sizes 0,4]
    [--start-delay-s 0.5]

Runs the Tiny Shop fixture server (tests/fixtures/thinkingbox) with
``TINY_SHOP_START_DELAY_S`` added to its start, as a stand-in for a real server's
slower start. For each pool size: the pool is filled first (as a campaign does while it
loads tasks), then ``--trials`` trials run one after another; each takes a process
(`WarmPool.acquire`), initialises it (``__reserved__init``), makes one tool call and
reads the effects, "thinks" for ``--trial-s`` seconds (the agent's time), and closes the
process in the background. Prints per size: median, mean and worst acquire + init
latency, and how many processes were started.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

from statebox.thinkingbox._pool import WarmPool
from statebox.thinkingbox._servers import load_servers

ROOT = Path(__file__).resolve().parents[1]
SERVERS = ROOT / "tests" / "fixtures" / "thinkingbox" / "servers.yaml"


async def run_size(size: int, trials: int, trial_s: float, start_delay_s: float) -> list[float]:
    spec = load_servers(SERVERS, python=sys.executable)["tiny_shop"]
    spec = spec.model_copy(
        update={"env": {**spec.env, "TINY_SHOP_START_DELAY_S": str(start_delay_s)}}
    )
    pool = WarmPool({"tiny_shop": spec}, size)
    latencies_s: list[float] = []
    try:
        await pool.warm(wait=True)
        for _ in range(trials):
            t0 = time.monotonic()
            process = await pool.acquire("tiny_shop")
            await process.reserved_init({"data_patch": {}})
            latencies_s.append(time.monotonic() - t0)
            await process.call_tool("get_order", {"order_id": "O1"})
            await process.geteffects()
            process.close()
            await asyncio.sleep(trial_s)
    finally:
        await pool.aclose()
    print(
        f"pool size {size}: acquire+init over {trials} trials: "
        f"median {statistics.median(latencies_s) * 1000:.0f} ms, "
        f"mean {statistics.mean(latencies_s) * 1000:.0f} ms, "
        f"worst {max(latencies_s) * 1000:.0f} ms; processes started {pool.started}"
    )
    return latencies_s


def main() -> None:
    """Parse the flags and print one line per pool size."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=8)
    parser.add_argument("--trial-s", type=float, default=1.0)
    parser.add_argument("--sizes", default="0,4")
    parser.add_argument("--start-delay-s", type=float, default=0.5)
    args = parser.parse_args()
    for size in (int(s) for s in args.sizes.split(",")):
        asyncio.run(run_size(size, args.trials, args.trial_s, args.start_delay_s))


if __name__ == "__main__":
    # Servers, clients and Ray here talk over loopback only (see scripts/loopback.py).
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from scripts.loopback import ensure

    ensure(__file__)
    main()
