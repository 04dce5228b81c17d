"""Train a policy on statebox with TRL's GRPO: the verdict is the reward.

    pip install "statebox[rl]" trl datasets      # TRL brings torch and transformers
    python examples/trl_grpo.py --suite retail:train --model Qwen/Qwen3-0.6B --output-dir out/

Every rollout resets a fresh world for its dataset row's train task; the model calls the
domain's tools (and ``send_message_to_user`` to talk to the simulated user) in TRL's
tool loop; ``get_reward()`` judges the end state: 1.0 iff the verdict passed. A rollout
statebox could not run raises ``statebox.rl.TrialSystemError`` with its trial id
instead of scoring 0. Test tasks are never trained on (``--allow-test`` overrides).

``--dry-run`` needs no TRL, model or GPU: it plays each train task's golden trajectory
through the environment as TRL would (reset, tool calls, get_reward) and prints the
rewards, which checks the setup before a training run.
"""

from __future__ import annotations

import argparse
import inspect
from typing import Any

from statebox.rl.trl import USER_TOOL, for_suite


def dry_run(env_cls: Any, rows: list[dict[str, Any]]) -> float:
    """Each row's golden trajectory through the environment; returns the mean reward."""
    env = env_cls()
    tools = {
        n: getattr(env, n)
        for n, _ in inspect.getmembers(env_cls, predicate=inspect.isfunction)
        if n not in ("reset", "get_reward") and not n.startswith("_")
    }
    rewards = []
    for row in rows:
        env.reset(**row)
        task = env_cls.catalog.task(row["task_id"])
        for call in task.golden:
            tools[call.tool](**call.args)
        tools[USER_TOOL](task.reference_response or "Done.")
        reward = env.get_reward()
        rewards.append(reward)
        print(f"{row['task_id']}: reward {reward}")
    mean = sum(rewards) / len(rewards)
    print(f"golden trajectories: mean reward {mean:.3f} over {len(rewards)} train tasks")
    return mean


def train(env_cls: Any, rows: list[dict[str, Any]], args: argparse.Namespace) -> None:
    """GRPO with the statebox environment as TRL's environment_factory."""
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    config = GRPOConfig(
        output_dir=args.output_dir,
        num_generations=args.num_generations,
        per_device_train_batch_size=args.num_generations,
        max_completion_length=args.max_completion_length,
        max_steps=args.max_steps,
        logging_steps=1,
    )
    trainer = GRPOTrainer(
        model=args.model,
        train_dataset=Dataset.from_list(rows),
        environment_factory=env_cls,
        args=config,
    )
    trainer.train()


def main() -> None:
    """Parse the arguments; dry-run or train."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--suite", default="retail:train", help="train, DOMAIN:train, ... optionally @VERSION"
    )
    parser.add_argument("--split", default=None, help="default: the suite's (train)")
    parser.add_argument("--allow-test", action="store_true", help="allow a test split")
    parser.add_argument("--dry-run", action="store_true", help="golden rollouts, no TRL")
    parser.add_argument("--model", default="Qwen/Qwen3-0.6B")
    parser.add_argument("--output-dir", default="trl-statebox")
    parser.add_argument("--num-generations", type=int, default=8)
    parser.add_argument("--max-completion-length", type=int, default=2048)
    parser.add_argument("--max-steps", type=int, default=100)
    args = parser.parse_args()
    env_cls, rows = for_suite(args.suite, args.split, allow_test=args.allow_test)
    if args.dry_run:
        dry_run(env_cls, rows)
    else:
        train(env_cls, rows, args)


if __name__ == "__main__":
    main()
