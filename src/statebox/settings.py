"""`Settings`: flags > ``STATEBOX_*`` environment > ``statebox.toml`` > defaults.

Only this module reads the environment. API keys are never settings: `Settings.secret`
reads one, as a `SecretStr`, from the variable a model config names, when a client
needs it — so no key can reach the manifest through `redacted()`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, SecretStr
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

__all__ = ["Settings"]


class Settings(BaseSettings):
    """Resolved statebox settings."""

    model_config = SettingsConfigDict(
        env_prefix="STATEBOX_",
        toml_file="statebox.toml",
        extra="forbid",
        frozen=True,
        use_attribute_docstrings=True,
    )

    suite: str = "all"
    """Built-in suite to run when no task path is given: ``all``, ``train``, ``DOMAIN`` or
    ``DOMAIN:train``, optionally ``@VERSION`` (docs/suites.md)."""
    agent: str = "fault"
    """Agent to run (``oracle``, ``fault`` or ``fault:skip_write=0.2,...``)."""
    trials: int = Field(5, ge=1)
    """Trials per task and agent."""
    concurrency: int = Field(8, ge=1)
    """Trials in flight at once."""
    seed: int = 0
    """Campaign seed."""
    runs_dir: Path = Path("runs")
    """Where campaign directories are created when no ``--out`` is given."""
    trial_timeout_s: float = Field(600.0, gt=0)
    """Wall-clock limit of one trial in seconds."""
    max_steps: int = Field(200, ge=1)
    """Actions per episode."""
    max_turns: int = Field(30, ge=1)
    """Agent messages to the user per episode."""
    user: str | None = None
    """Simulated user: ``rule``, ``human``, ``openai:MODEL`` or ``anthropic:MODEL``
    (None: the models file's user model if it has one, else ``rule``; ``scripted`` is
    an old name of ``rule``)."""
    user_behaviour: Literal[
        "cooperative", "misremembers", "changes-goal", "impatient", "uncooperative"
    ] = "cooperative"
    """How the simulated user plays its spec (rule-based and LLM users alike)."""
    judge: str | None = None
    """Rubric judge model (``openai:MODEL`` or ``anthropic:MODEL``; None: the models
    file's judge if it has one, else rubric checks are skipped and reported)."""
    agent_base_url: str | None = None
    """Base URL of the agent's model endpoint (OpenAI-compatible: ending in ``/v1``)."""
    user_base_url: str | None = None
    """Base URL of the simulated user's model endpoint."""
    judge_base_url: str | None = None
    """Base URL of the rubric judge's model endpoint."""
    models_file: Path | None = None
    """Models file (YAML): model, parameters and key variable per role, retry policy."""
    pricing_file: Path | None = None
    """Pricing file (YAML): USD per million input, cached-input and output tokens."""
    think: bool = False
    """Give LLM agents the ``think`` tool and its guidance."""
    trace_tokens: bool = False
    """Record the agent model's token ids and logprobs with each trial, as
    ``trace_tokens: true`` on the models file's agent does (OpenAI-compatible endpoints
    such as vLLM only; docs/training.md)."""
    max_tool_calls: int = Field(100, ge=1)
    """Tool calls per trial by an LLM agent before the trial ends (``max_tool_calls``)."""
    user_max_follow_ups: int = Field(10, ge=0)
    """Replies of an LLM user before it ends the conversation."""
    model_max_attempts: int | None = Field(None, ge=1)
    """Attempts per model call (None: the models file's, else 6)."""
    model_retry_wait_s: float | None = Field(None, ge=0)
    """First retry wait in seconds (None: the models file's, else 1)."""
    model_retry_max_wait_s: float | None = Field(None, ge=0)
    """Longest retry wait in seconds (None: the models file's, else 60)."""
    model_timeout_s: float | None = Field(None, gt=0)
    """Per-request timeout of every role in seconds (None: the models file's, else 120)."""
    agent_temperature: float | None = Field(None, ge=0)
    """The agent model's sampling temperature (None: the models file's, else the
    endpoint's default)."""
    user_temperature: float | None = Field(None, ge=0)
    """The simulated user model's temperature (None: the models file's / default)."""
    max_output_tokens: int | None = Field(None, ge=1)
    """Output token limit per model call of every role (None: the models file's, else
    4096)."""

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Flags (init) > environment > statebox.toml."""
        return (init_settings, env_settings, TomlConfigSettingsSource(settings_cls))

    @staticmethod
    def secret(env_var: str) -> SecretStr | None:
        """An API key from the environment variable a model config names.

        Keys are read here, on demand, and never stored in `Settings`: they cannot
        reach a manifest, a results file or a log through `redacted()`.

        Args:
            env_var: The variable's name, e.g. ``OPENAI_API_KEY``.

        Returns:
            The key, or None when the variable is unset or empty.
        """
        value = os.environ.get(env_var)
        return SecretStr(value) if value else None

    @staticmethod
    def secret_values() -> list[str]:
        """Values of environment variables that look like credentials (for redaction).

        Names ending in ``_KEY``, ``_TOKEN``, ``_SECRET`` or ``_PASSWORD`` whose value
        has at least 8 characters; writers scrub them from everything they store.
        """
        suffixes = ("_KEY", "_TOKEN", "_SECRET", "_PASSWORD")
        return [v for k, v in os.environ.items() if k.upper().endswith(suffixes) and len(v) >= 8]

    def redacted(self) -> dict[str, Any]:
        """The settings as JSON data with secrets hidden (for manifests and --dry-run)."""
        return self.model_dump(mode="json")
