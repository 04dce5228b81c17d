"""Training on statebox: the verdict as the reward, in the trainers' own interfaces.

- `statebox.rl.trl`: a TRL ``environment_factory`` class and its dataset.
- `statebox.rl.skyrl`: a skyrl_gym ``BaseTextEnv`` and its dataset rows (``statebox[skyrl]``).
- `statebox.rl.verifiers`: verifiers' OpenEnv taskset fields for a running
  ``statebox serve --openenv``; ART runs an OpenEnv client in its ``rollout()``
  (``examples/art_rollout.py``). See ``docs/training.md``.

The adapters run the same `Episode` and judge as a campaign: one verdict, binary and
deterministic for the same end state. A trial statebox could not run (a tool that
broke, a backend that died) is never a reward of 0: it raises `TrialSystemError`
naming the trial, so the trainer can refill its batch.
"""

from __future__ import annotations

from statebox.rl._errors import TrialSystemError

__all__ = ["TrialSystemError"]
