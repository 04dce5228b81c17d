"""statebox on verifiers' OpenEnv taskset (``verifiers.v1.tasksets.openenv``).

verifiers `VERIFIERS_VERSION` runs an OpenEnv server's episodes as a taskset:
``OpenEnvConfig(base_url=..., resets=[...])`` makes one finite task per ``resets``
entry, each passed to the client's ``reset(**entry)``. `openenv_taskset` reads the
served split's task ids from a running ``statebox serve --openenv`` and returns those
fields::

    from statebox.rl.verifiers import openenv_taskset
    from verifiers.v1.tasksets.openenv import OpenEnvConfig

    config = OpenEnvConfig(**openenv_taskset("http://127.0.0.1:8000/openenv"))

verifiers scores a rollout with the sum of the steps' rewards: statebox gives none
before the terminal step, whose reward is the verdict (1.0 or 0.0). A step statebox
cannot run fails (openenv's client raises), so verifiers records the rollout as an
error, never as a reward of 0.
"""

from __future__ import annotations

from statebox.rl.verifiers._taskset import VERIFIERS_VERSION, openenv_taskset

__all__ = ["VERIFIERS_VERSION", "openenv_taskset"]
