"""Train on statebox with SkyRL: a skyrl_gym environment whose terminal reward is the verdict.

    pip install "statebox[skyrl]" skyrl-train              # skyrl-train brings Ray, vLLM, torch
    python examples/skyrl_train.py --suite retail:train --data out/   # writes train.parquet
    python examples/skyrl_train.py --train data.train_data="['out/train.parquet']"
        environment.env_class=statebox environment.skyrl_gym.statebox.suite=retail:train ...

The environment (`statebox.rl.skyrl.StateboxSkyRLEnv`, registered as ``statebox``) reads
each model turn as Hermes tool calls (``<tool_call>{...}</tool_call>``), a message to
the user, or a final answer with ``<DONE>``; the terminal step's reward is 1.0 iff
statebox's verdict passed. A trajectory statebox could not run raises
``statebox.rl.TrialSystemError`` with its trial id instead of SkyRL's OpenEnv adapter's
−1. Test tasks are never in the rows (``--allow-test`` overrides).

``--dry-run`` needs no skyrl-train, model or GPU: it plays each train task's golden
trajectory through ``skyrl_gym.make("statebox", ...)`` as SkyRL's generator would and
prints the rewards (all 1.0).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from statebox.llm import DONE_MARKER
from statebox.rl.skyrl import ENV_ID, register, rows


def dry_run(suite: str, allow_test: bool) -> float:
    """Each row's golden trajectory through skyrl_gym; returns the mean reward."""
    import skyrl_gym
    from omegaconf import DictConfig

    register()
    config = DictConfig({"suite": suite, "allow_test": allow_test})
    rewards = []
    for row in rows(suite, allow_test=allow_test):
        extras = {k: v for k, v in row.items() if k not in ("prompt", "env_class")}
        env = skyrl_gym.make(
            row["env_class"], env_config=config, extras={**extras, "max_turns": 50}
        )
        env.init(row["prompt"])
        task = env._rollout.catalog.task(row["task_id"])
        turns = [
            f"<tool_call>{json.dumps({'name': c.tool, 'arguments': c.args})}</tool_call>"
            for c in task.golden
        ] + [f"{task.reference_response or 'Done.'} {DONE_MARKER}"]
        out: dict[str, Any] = {}
        for text in turns:
            out = env.step(text)
            if out["done"]:
                break
        env.close()
        rewards.append(out["reward"])
        print(f"{row['task_id']}: reward {out['reward']}")
    mean = sum(rewards) / len(rewards)
    print(f"golden trajectories: mean reward {mean:.3f} over {len(rewards)} train tasks")
    return mean


def main() -> None:
    """Dry-run, write the dataset, or hand the remaining arguments to SkyRL's trainer."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="retail:train")
    parser.add_argument("--allow-test", action="store_true")
    parser.add_argument("--dry-run", action="store_true", help="golden rollouts, no SkyRL")
    parser.add_argument("--data", default=None, help="write train.parquet to this folder")
    parser.add_argument("--train", action="store_true", help="run SkyRL (args after it: hydra)")
    args, rest = parser.parse_known_args()
    if args.dry_run:
        dry_run(args.suite, args.allow_test)
    elif args.data:
        import pandas as pd

        pd.DataFrame(rows(args.suite, allow_test=args.allow_test)).to_parquet(
            f"{args.data}/train.parquet"
        )
    elif args.train:
        import ray
        from skyrl_train.entrypoints.main_base import BasePPOExp, config_dir, validate_cfg
        from skyrl_train.utils import initialize_ray

        @ray.remote(num_cpus=1)
        def entrypoint(cfg: Any) -> None:
            register(ENV_ID)  # in the Ray task, as SkyRL's own integrations register theirs
            BasePPOExp(cfg).run()

        import hydra

        @hydra.main(config_path=config_dir, config_name="ppo_base_config", version_base=None)
        def run(cfg: Any) -> None:
            validate_cfg(cfg)
            initialize_ray(cfg)
            ray.get(entrypoint.remote(cfg))

        sys.argv = [sys.argv[0], *rest]
        run()
    else:
        parser.print_help()


if __name__ == "__main__":
    main()
