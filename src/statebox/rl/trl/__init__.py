"""statebox episodes as a TRL environment (``GRPOTrainer(environment_factory=...)``).

Follows the contract of TRL `TRL_VERSION` (`StateboxTrlEnvironment` says how)::

    from statebox.rl.trl import for_suite

    env_cls, rows = for_suite("retail:train")
    trainer = GRPOTrainer(model=..., train_dataset=Dataset.from_list(rows),
                          environment_factory=env_cls, args=GRPOConfig(...))

``get_reward()`` is the verdict (1.0 passed, 0.0 failed); a rollout statebox could not
run raises `statebox.rl.TrialSystemError` with its trial id.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from statebox.episode import Limits, UserSimulator
from statebox.rl.trl._dataset import SYSTEM_PROMPT, dataset, rows
from statebox.rl.trl._environment import USER_TOOL, StateboxTrlEnvironment, environment_class
from statebox.tasks import Task, parse_suite

__all__ = [
    "SYSTEM_PROMPT",
    "TRL_VERSION",
    "USER_TOOL",
    "StateboxTrlEnvironment",
    "dataset",
    "environment_class",
    "for_suite",
    "rows",
]

TRL_VERSION = "1.16.0"
"""The TRL release whose ``environment_factory`` contract this adapter follows."""


def for_suite(
    suite: str = "train",
    split: str | None = None,
    *,
    registry: Any = None,
    allow_test: bool = False,
    users: Callable[[Task], UserSimulator] | None = None,
    limits: Limits | None = None,
) -> tuple[type[StateboxTrlEnvironment], list[dict[str, Any]]]:
    """The environment class and dataset rows of a built-in suite's ``split``.

    Args:
        suite: A suite name (docs/suites.md): ``train`` (every domain's train tasks of
            the default version), ``DOMAIN:train``, ``all``/``DOMAIN`` (their train
            split unless ``split`` says otherwise), each optionally ``@VERSION``.
        split: The split the rows come from (None: the suite's own split, else train).
        registry: Where the suite and its domains come from (default: the built-in
            domains and the ``statebox.domains`` entry points).
        allow_test: Allow a test split (refused by default: it is for measuring).
        users: The simulated user of each rollout (default: each task's rule-based user).
        limits: Per-episode limits.

    Returns:
        ``(environment class, rows)``.

    Raises:
        ConfigError: A test split without ``allow_test``, or no task in the split.
        DomainError: Unknown suite or version.
    """
    if registry is None:
        from statebox.registry import default_registry

        registry = default_registry()
    ref = registry.resolve_suite(suite)
    split = split or parse_suite(suite).split or "train"  # as written: `:test` is test
    tasks = registry.suite(ref, both_splits=True)
    domains = {n: registry.domain(n) for n in sorted({t.domain for t in tasks})}
    data = rows(tasks, split, allow_test=allow_test)
    chosen = [t for t in tasks if t.split == split]
    cls = environment_class(chosen, domains, allow_test=allow_test, users=users, limits=limits)
    return cls, data
