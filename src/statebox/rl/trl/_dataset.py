"""The training dataset of a TRL environment: one row per task of a split."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from statebox.errors import ConfigError
from statebox.rl.trl._environment import USER_TOOL
from statebox.tasks import Task

__all__ = ["SYSTEM_PROMPT", "dataset", "rows"]

SYSTEM_PROMPT = (
    "You are a customer-support agent working in the company's systems through tools. "
    "Follow the policy. The user reads only what you send with "
    f"{USER_TOOL}; call it to ask questions or to report what you did. When the work "
    "is done, answer without a tool call to end the conversation."
)
"""The rows' system message (reset appends the policy and the user's opening)."""


def rows(
    tasks: Iterable[Task],
    split: str = "train",
    *,
    system_prompt: str = SYSTEM_PROMPT,
    allow_test: bool = False,
) -> list[dict[str, Any]]:
    """One conversational row per task of ``split``: ``{"prompt": [...], "task_id": ...}``.

    Args:
        tasks: The suite's tasks.
        split: Which split's tasks (``train`` by default).
        system_prompt: The system message of every row.
        allow_test: Allow ``split="test"`` (a test split is for measuring, not training).

    Returns:
        The rows, in task id order.

    Raises:
        ConfigError: A test split without ``allow_test``, or no task in the split.
    """
    if split != "train" and not allow_test:
        raise ConfigError(f"split {split!r}: training rows come from train tasks only")
    chosen = sorted((t for t in tasks if t.split == split), key=lambda t: t.id)
    if not chosen:
        raise ConfigError(f"no {split} tasks to build rows from")
    return [
        {
            "prompt": [
                {"role": "system", "content": system_prompt},
                {"role": "user", "content": ""},
            ],
            "task_id": t.id,
        }
        for t in chosen
    ]


def dataset(tasks: Iterable[Task], split: str = "train", **kwargs: Any) -> Any:
    """`rows` as a Hugging Face ``datasets.Dataset`` (what ``GRPOTrainer`` takes).

    Raises:
        ConfigError: ``datasets`` is not installed, or `rows` refused.
    """
    try:
        from datasets import Dataset  # type: ignore[import-not-found]
    except ModuleNotFoundError as exc:
        raise ConfigError(
            "statebox.rl.trl.dataset needs the 'datasets' package (pip install datasets)"
        ) from exc
    return Dataset.from_list(rows(tasks, split, **kwargs))
