"""Model configuration by role, the models file and the pricing file.

A role (``agent``, ``user``, ``judge``) is a provider, a model and its parameters. API
keys never live here: a config names the environment variable that holds its key
(``api_key_env``), and only `statebox.settings` reads it. Prices are USD per million
tokens with the date they were read, so a cost figure can be traced to a price list.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Literal, TypeAlias

import yaml
from pydantic import Field, ValidationError, model_validator

from statebox._model import Model, validation_line
from statebox._yaml_error import yaml_problem
from statebox.errors import ConfigError

__all__ = [
    "ModelConfig",
    "ModelsFile",
    "Price",
    "PriceTable",
    "Provider",
    "RetryPolicy",
    "Role",
    "load_models_file",
    "load_pricing",
    "parse_model_spec",
]

Provider: TypeAlias = Literal["openai", "anthropic"]
"""SDK family: ``openai`` covers every OpenAI-compatible endpoint (Azure, vLLM, Ollama,
llama.cpp server, OpenRouter) by base URL."""
Role: TypeAlias = Literal["agent", "user", "judge"]
"""Who a model plays."""

_DEFAULT_KEY_ENV: dict[str, str] = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}


class ModelConfig(Model):
    """One model endpoint and its sampling parameters."""

    provider: Provider
    """SDK family."""
    model: str
    """Model name as the endpoint knows it, e.g. ``gpt-4o`` or ``claude-sonnet-4-5``."""
    base_url: str | None = None
    """Endpoint base URL (None: the provider's default). OpenAI-compatible servers take
    the ``/v1`` URL, e.g. ``http://localhost:8000/v1``."""
    api_key_env: str | None = None
    """Environment variable holding the API key (None: ``OPENAI_API_KEY`` or
    ``ANTHROPIC_API_KEY``). The key itself is never stored or written."""
    temperature: float | None = None
    """Sampling temperature (None: the endpoint's default; the judge always uses 0)."""
    max_tokens: int = Field(4096, ge=1)
    """Output token limit per call."""
    seed: int | None = None
    """Sampling seed where the provider supports one (OpenAI-compatible only)."""
    timeout_s: float = Field(120.0, gt=0)
    """Per-request timeout in seconds; a timeout is retried."""
    max_connections: int = Field(16, ge=1)
    """Calls in flight at once to this (provider, base URL, model)."""
    thinking_budget_tokens: int | None = Field(None, ge=1024)
    """Anthropic extended thinking: the ``thinking`` budget in tokens (None: off). It is
    added to ``max_tokens`` on each call, so the reply keeps its own limit; the
    temperature is then left to the endpoint (Anthropic requires its default)."""
    reasoning_effort: Literal["minimal", "low", "medium", "high"] | None = None
    """OpenAI reasoning effort for reasoning models (None: the endpoint's default)."""
    trace_tokens: bool = False
    """Ask the endpoint for the prompt's and the completion's token ids and the sampled
    tokens' logprobs (vLLM's ``return_token_ids``, OpenAI's ``logprobs``) and record
    them with the trial (`statebox.llm.TokenTrace`; docs/training.md). OpenAI-compatible
    endpoints only; one that does not return them is recorded as absent, with a warning."""

    @model_validator(mode="after")
    def _traced_provider(self) -> ModelConfig:
        if self.trace_tokens and self.provider != "openai":
            raise ValueError(
                "trace_tokens: token ids come from an OpenAI-compatible endpoint "
                "(vLLM); the anthropic API returns none"
            )
        return self

    @property
    def key_env(self) -> str:
        """The environment variable the key is read from."""
        return self.api_key_env or _DEFAULT_KEY_ENV[self.provider]

    @property
    def label(self) -> str:
        """``provider:model``."""
        return f"{self.provider}:{self.model}"


class RetryPolicy(Model):
    """How model calls are retried on rate limits, 5xx, timeouts and connection errors."""

    max_attempts: int = Field(6, ge=1)
    """Attempts per call, the first included."""
    initial_wait_s: float = Field(1.0, ge=0)
    """First backoff in seconds; doubles per attempt, with jitter."""
    max_wait_s: float = Field(60.0, ge=0)
    """Cap on one wait in seconds (a longer ``Retry-After`` is capped too)."""


class ModelsFile(Model):
    """A models file (YAML): the model of each role and the retry policy."""

    schema_version: Literal[1] = 1
    """Format version."""
    agent: ModelConfig | None = None
    """The agent's model."""
    user: ModelConfig | None = None
    """The simulated user's model."""
    judge: ModelConfig | None = None
    """The rubric judge's model (temperature is forced to 0)."""
    retry: RetryPolicy = RetryPolicy()
    """Retry policy for every role."""


class Price(Model):
    """Price of one model in US dollars per million tokens."""

    input_usd_per_mtok: float = Field(ge=0)
    """Uncached input tokens."""
    cached_input_usd_per_mtok: float | None = Field(None, ge=0)
    """Cached input tokens (None: the input price)."""
    output_usd_per_mtok: float = Field(ge=0)
    """Output tokens (reasoning tokens included)."""
    as_of: date
    """When the price was read from the provider's price list."""

    def cost_usd(self, input_tokens: int, cached_input_tokens: int, output_tokens: int) -> float:
        """Cost of one call in US dollars.

        Args:
            input_tokens: All input tokens, cached ones included.
            cached_input_tokens: The cached part of ``input_tokens``.
            output_tokens: Output tokens, reasoning included.

        Returns:
            ``((input - cached) * in + cached * cached_in + output * out) / 1e6``.
        """
        cached_price = self.cached_input_usd_per_mtok
        if cached_price is None:
            cached_price = self.input_usd_per_mtok
        uncached = max(input_tokens - cached_input_tokens, 0)
        return (
            uncached * self.input_usd_per_mtok
            + cached_input_tokens * cached_price
            + output_tokens * self.output_usd_per_mtok
        ) / 1_000_000


class PriceTable(Model):
    """A pricing file: ``provider:model`` → `Price`."""

    schema_version: Literal[1] = 1
    """Format version."""
    models: dict[str, Price] = {}
    """Prices by ``provider:model`` (or a bare model name, matching any provider)."""

    def price(self, provider: str, model: str) -> Price | None:
        """The price of a model, or None when the table does not list it."""
        return self.models.get(f"{provider}:{model}") or self.models.get(model)


def _read_yaml(path: Path, what: str) -> object:
    try:
        return yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{what} {path}: {exc.strerror or exc}") from exc
    except yaml.YAMLError as exc:
        raise ConfigError(f"{what} {path}: {yaml_problem(exc)}") from exc


def load_models_file(path: Path) -> ModelsFile:
    """Read a models file.

    Raises:
        ConfigError: Unreadable, not YAML, or not a valid models file (field named).
    """
    try:
        return ModelsFile.model_validate(_read_yaml(path, "models file") or {})
    except ValidationError as exc:
        raise ConfigError(f"models file {path}: {validation_line(exc)}") from exc


def load_pricing(path: Path) -> PriceTable:
    """Read a pricing file.

    Raises:
        ConfigError: Unreadable, not YAML, or not a valid pricing file (field named).
    """
    try:
        return PriceTable.model_validate(_read_yaml(path, "pricing file") or {})
    except ValidationError as exc:
        raise ConfigError(f"pricing file {path}: {validation_line(exc)}") from exc


def parse_model_spec(spec: str, base: ModelConfig | None = None) -> ModelConfig:
    """A `ModelConfig` from ``provider:model``.

    Args:
        spec: ``openai:MODEL`` or ``anthropic:MODEL``.
        base: Parameters to keep (e.g. from the models file) when only the model changes.

    Raises:
        ConfigError: Not ``provider:model`` or an unknown provider.
    """
    provider, sep, model = spec.partition(":")
    if not sep or not model or provider not in _DEFAULT_KEY_ENV:
        raise ConfigError(f"model {spec!r}: use openai:MODEL or anthropic:MODEL")
    data = base.model_dump() if base is not None else {}
    if base is not None and base.provider != provider:
        data.pop("api_key_env", None)
        data.pop("base_url", None)
    data.update(provider=provider, model=model)
    return ModelConfig.model_validate(data)
