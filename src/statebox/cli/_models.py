"""Model roles of ``statebox run`` and ``statebox play``: the user and judge they build.

Imported only by those commands, so ``statebox --help`` loads no model machinery.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from statebox.errors import ConfigError
from statebox.judge import ModelRubricJudge, RubricJudge
from statebox.llm import ModelConfig, ModelSetup, load_pricing
from statebox.runner import UserFactory
from statebox.settings import Settings
from statebox.users import HumanUser, LLMUserFactory

__all__ = ["RunModels", "run_models"]


class RunModels(NamedTuple):
    """The model side of a run."""

    setup: ModelSetup
    """Shared hub and role configs (close it with ``await setup.aclose()``)."""
    users: UserFactory | None
    """The simulated user's factory (None: the rule-based user)."""
    rubric: RubricJudge | None
    """The rubric judge (None: rubric checks skipped and reported)."""
    labels: dict[str, str]
    """Role → ``provider:model`` (or ``rule`` / ``human``), for the manifest."""


def _same_endpoint(config: ModelConfig, settings: Settings, agents: Sequence[str]) -> ModelConfig:
    # A user or judge on the agent's very model (e.g. a local server playing every role)
    # shares the agent's endpoint unless given its own; another model never does.
    if config.base_url is None and settings.agent_base_url and config.label in agents:
        return config.model_copy(update={"base_url": settings.agent_base_url})
    return config


def run_models(settings: Settings, agents: Sequence[str] = ()) -> RunModels:
    """Build the user and judge a run's settings ask for.

    Args:
        settings: The run's settings.
        agents: The run's agent specs; a user or judge on the same ``provider:model``
            as an agent, with no base URL of its own, uses ``--agent-base-url``.

    Raises:
        ConfigError: A bad ``--user`` / ``--judge`` spec, a missing models file entry,
            or a hosted model without its API key variable set.
    """
    setup = ModelSetup(settings)
    if settings.pricing_file is not None:
        # Read at the start, not at the first model call: a campaign of offline agents
        # never calls a model, and took a missing or broken file without a word.
        load_pricing(settings.pricing_file)
    spec = settings.user
    if spec is None:
        spec = "model" if setup.file.user is not None else "rule"
    users: UserFactory | None
    if spec in ("rule", "scripted"):  # "scripted": the rule user's old name
        users, user_label = None, "rule"
    elif spec == "human":
        if settings.user_behaviour != "cooperative":
            raise ConfigError(
                "--user-behaviour plays a simulated user; a person at the terminal plays as "
                "they like (use --user rule or a model user)"
            )
        users, user_label = (lambda task, trial: HumanUser(task)), "human"
    else:
        config = setup.config("user", None if spec == "model" else spec)
        config = _same_endpoint(config, settings, agents)
        users = LLMUserFactory(
            setup.hub,
            config,
            settings.user_max_follow_ups,
            behaviour=settings.user_behaviour,
            seed=settings.seed,
        )
        user_label = config.label
    labels = {"user": user_label}
    rubric: RubricJudge | None = None
    if settings.judge is not None or setup.file.judge is not None:
        judge = _same_endpoint(setup.config("judge", settings.judge), settings, agents)
        rubric = ModelRubricJudge(setup.hub, judge)
        labels["judge"] = judge.label
    if spec == "human" and settings.concurrency != 1:
        raise ConfigError("--user human plays one trial at a time; add --concurrency 1")
    return RunModels(setup, users, rubric, labels)
