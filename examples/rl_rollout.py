"""Collect (trajectory, reward) pairs from statebox's OpenEnv server.

Start the server (train tasks only are served unless --allow-test-split):

    statebox serve --tasks tests/serve/tasks --domain tests/fixtures/toy/__init__.py:DOMAIN

then roll out a policy over WebSocket with the OpenEnv client and write one JSON line
per episode — the actions taken, the observations seen, and the terminal reward
(1.0 iff statebox's verdict passed):

    python examples/rl_rollout.py --url http://127.0.0.1:8000/openenv --episodes 8

The policy is the rule-based toy policy; ``--noise`` perturbs transfer amounts so
some rollouts earn reward 0, as an untrained policy's would.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
from pathlib import Path
from typing import Any

import httpx

from statebox.serve import StateboxAction, StateboxEnvClient

sys.path.insert(0, str(Path(__file__).resolve().parent))
from toy_policy import plan


async def rollout(
    env: StateboxEnvClient, seed: int, rng: random.Random, noise: float
) -> dict[str, Any]:
    """One episode: reset (task sampled from the train split by seed), act until done."""
    result = await env.reset(seed=seed)
    obs = result.observation
    trajectory: list[dict[str, Any]] = [{"observation": obs.model_dump(exclude={"tools"})}]
    users = [obs.user_message or ""]
    while not result.done:
        todo = plan(users)
        actions: list[StateboxAction] = []
        if todo.question is not None:
            actions.append(StateboxAction(kind="message_user", text=todo.question))
        else:
            for tool, args in todo.calls:
                if tool == "transfer" and rng.random() < noise:
                    args = {**args, "amount": args["amount"] + 1}
                actions.append(StateboxAction(kind="call_tool", tool=tool, args=args))
            actions.append(StateboxAction(kind="end", text=todo.final))
        for action in actions:
            result = await env.step(action)
            trajectory.append(
                {
                    "action": action.model_dump(exclude={"metadata"}),
                    "observation": result.observation.model_dump(exclude={"metadata"}),
                }
            )
            if result.observation.user_message:
                users.append(result.observation.user_message)
            if result.done:
                break
    verdict = (result.metadata or {}).get("verdict", {})
    return {
        "task_id": obs.task_id,
        "trajectory": trajectory,
        "reward": result.reward,
        "signature": verdict.get("signature"),
    }


async def wait_ready(url: str, timeout_s: float = 120.0) -> None:
    """Poll the server's readiness route until the tasks are loaded."""
    async with httpx.AsyncClient() as client:
        for _ in range(int(timeout_s * 10)):
            try:
                if (await client.get(url + "/ready")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.1)
    raise SystemExit(f"{url} did not become ready in {timeout_s:g} s")


async def main(url: str, episodes: int, out: Path, noise: float, seed: int) -> None:
    """Roll out ``episodes`` episodes and append them to ``out``."""
    rng = random.Random(seed)
    await wait_ready(url)
    async with StateboxEnvClient(base_url=url) as env:
        with out.open("a") as f:
            for i in range(episodes):
                pair = await rollout(env, seed + i, rng, noise)
                f.write(json.dumps(pair) + "\n")
                print(f"{pair['task_id']}: reward {pair['reward']}", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000/openenv")
    parser.add_argument("--episodes", type=int, default=8)
    parser.add_argument("--out", type=Path, default=Path("rollouts.jsonl"))
    parser.add_argument("--noise", type=float, default=0.3)
    parser.add_argument("--seed", type=int, default=0)
    ns = parser.parse_args()
    asyncio.run(main(ns.url, ns.episodes, ns.out, ns.noise, ns.seed))
