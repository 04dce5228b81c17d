"""statebox episodes as a SkyRL environment (``pip install "statebox[skyrl]"``).

Follows skyrl-gym `SKYRL_GYM_VERSION`'s ``BaseTextEnv`` and SkyRL's generator
(`StateboxSkyRLEnv` says how)::

    from statebox.rl.skyrl import register, rows

    register()                      # skyrl_gym env id "statebox", in SkyRL's entrypoint
    pandas.DataFrame(rows("retail:train")).to_parquet("train.parquet")
    # SkyRL config: environment.env_class=statebox,
    #               environment.skyrl_gym.statebox.suite=retail:train

The terminal step's reward is the verdict (1.0 passed, 0.0 failed); a trajectory
statebox could not run raises `statebox.rl.TrialSystemError` with its trial id, never a
reward (SkyRL's own OpenEnv adapter would score it −1).
"""

from __future__ import annotations

from typing import Any

from statebox.rl.skyrl._env import SKYRL_GYM_VERSION, StateboxSkyRLEnv, parse_turn, tools_prompt
from statebox.rl.trl import StateboxTrlEnvironment, for_suite

__all__ = [
    "ENV_ID",
    "SKYRL_GYM_VERSION",
    "SYSTEM_PROMPT",
    "StateboxSkyRLEnv",
    "parse_turn",
    "register",
    "rows",
    "tools_prompt",
]

ENV_ID = "statebox"
"""The skyrl_gym environment id `register` uses (the dataset rows' ``env_class``)."""

SYSTEM_PROMPT = (
    "You are a customer-support agent working in the company's systems through tools. "
    "Follow the policy. Ask the user for what you need; they read every reply that is "
    "not a tool call."
)
"""The rows' system message (``init`` adds the task's tools and the calling format)."""


def register(
    env_id: str = ENV_ID, rollout_class: type[StateboxTrlEnvironment] | None = None
) -> None:
    """Register `StateboxSkyRLEnv` with skyrl_gym under ``env_id`` (replacing one there).

    Args:
        env_id: The skyrl_gym id (the rows' ``env_class``).
        rollout_class: Tasks, domains and users of every environment made under it
            (`statebox.rl.trl.environment_class`); None: from SkyRL's ``env_config``.
    """
    from skyrl_gym.envs.registration import register as skyrl_register
    from skyrl_gym.envs.registration import registry

    registry.pop(env_id, None)  # the new registration replaces the old one
    kwargs = {} if rollout_class is None else {"rollout_class": rollout_class}
    skyrl_register(id=env_id, entry_point="statebox.rl.skyrl._env:StateboxSkyRLEnv", kwargs=kwargs)


def rows(
    suite: str = "train",
    split: str | None = None,
    *,
    allow_test: bool = False,
    env_id: str = ENV_ID,
    system_prompt: str = SYSTEM_PROMPT,
) -> list[dict[str, Any]]:
    """SkyRL dataset rows, one per task of the suite's split (train by default).

    Each row has SkyRL's ``prompt`` and ``env_class`` columns and the ``task_id`` the
    environment resets to (SkyRL hands the other columns to it as ``extras``).

    Raises:
        ConfigError: A test split without ``allow_test``, or no task in the split.
    """
    _, trl_rows = for_suite(suite, split, allow_test=allow_test)
    return [
        {
            "data_source": "statebox",
            "prompt": [
                {"role": "system", "content": system_prompt},
                {"role": "user", "content": ""},
            ],
            "env_class": env_id,
            "task_id": row["task_id"],
        }
        for row in trl_rows
    ]
