"""The CLI's side of the mitigations: the LLM approver built from the run's models."""

from __future__ import annotations

from typing import Any

from statebox.errors import ConfigError

__all__ = ["llm_approvers"]


def llm_approvers(setup: Any, model: str | None, base_url: str | None) -> dict[str, Any]:
    """``{"llm": factory}`` for an LLM approver on ``model`` (or the models file's judge).

    The approver is metered as the ``judge`` role.

    Raises:
        ConfigError: No approver model given and no judge in the models file.
    """
    from statebox.episode import LLMApprover

    try:
        config = setup.config("judge", model)
    except ConfigError as exc:
        raise ConfigError(
            "--approval-gate llm: give --approver-model openai:MODEL (or a judge model in "
            f"the models file): {exc}"
        ) from exc
    if base_url:
        config = config.model_copy(update={"base_url": base_url})
    client = setup.hub.client(config, "judge")

    def make(task: Any, tools: Any, policy: str) -> LLMApprover:
        return LLMApprover(client, task, policy)

    return {"llm": make}
