"""`ModelSetup`: the models of a run, resolved from `Settings` (flags > env > file).

Per role, a ``provider:model`` spec (a flag) is merged over the models file's entry
for that role, then the role's base URL flag and the global timeout override it. One
`ModelHub` (shared clients, endpoint semaphores, retry policy, prices) serves every
role, so the agent, the user and the judge on one endpoint share its limit.
"""

from __future__ import annotations

from statebox.errors import ConfigError
from statebox.llm._client import ModelHub
from statebox.llm._config import (
    ModelConfig,
    ModelsFile,
    RetryPolicy,
    Role,
    load_models_file,
    load_pricing,
    parse_model_spec,
)
from statebox.settings import Settings

__all__ = ["ModelSetup"]


class ModelSetup:
    """Role configs and the shared hub of one run.

    Args:
        settings: The resolved settings (models file, pricing file, base URLs, retries).
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.file = load_models_file(settings.models_file) if settings.models_file else ModelsFile()
        self._hub: ModelHub | None = None

    @property
    def retry(self) -> RetryPolicy:
        """The retry policy: settings over the models file over defaults."""
        s, base = self.settings, self.file.retry
        return RetryPolicy(
            max_attempts=s.model_max_attempts or base.max_attempts,
            initial_wait_s=base.initial_wait_s
            if s.model_retry_wait_s is None
            else s.model_retry_wait_s,
            max_wait_s=base.max_wait_s
            if s.model_retry_max_wait_s is None
            else s.model_retry_max_wait_s,
        )

    @property
    def hub(self) -> ModelHub:
        """The shared hub (built on first use)."""
        if self._hub is None:
            prices = (
                load_pricing(self.settings.pricing_file) if self.settings.pricing_file else None
            )
            self._hub = ModelHub(Settings.secret, self.retry, prices)
        return self._hub

    def config(self, role: Role, spec: str | None = None) -> ModelConfig:
        """The model of a role.

        Args:
            role: agent, user or judge.
            spec: ``provider:model`` from a flag; None uses the models file's entry.

        Raises:
            ConfigError: No model for the role, or a bad spec.
        """
        base: ModelConfig | None = getattr(self.file, role)
        if spec is not None:
            config = parse_model_spec(spec, base)
        elif base is not None:
            config = base
        else:
            raise ConfigError(f"no {role} model: give --{role} openai:MODEL or a models file")
        url = getattr(self.settings, f"{role}_base_url")
        update: dict[str, object] = {}
        if role == "agent" and self.settings.trace_tokens and not config.trace_tokens:
            if config.provider != "openai":
                raise ConfigError(
                    f"--trace-tokens: token ids come from an OpenAI-compatible endpoint "
                    f"(vLLM); the agent model {config.label} returns none"
                )
            update["trace_tokens"] = True
        if url:
            update["base_url"] = url
        if self.settings.model_timeout_s is not None:
            update["timeout_s"] = self.settings.model_timeout_s
        if self.settings.max_output_tokens is not None:
            update["max_tokens"] = self.settings.max_output_tokens
        temperature = {
            "agent": self.settings.agent_temperature,
            "user": self.settings.user_temperature,
        }.get(role)
        if temperature is not None:  # the judge's is always 0 (`ModelRubricJudge`)
            update["temperature"] = temperature
        return config.model_copy(update=update) if update else config

    async def aclose(self) -> None:
        """Close the hub's clients, if any were made."""
        if self._hub is not None:
            await self._hub.aclose()
