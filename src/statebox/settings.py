"""`Settings`: flags > ``STATEBOX_*`` environment > ``statebox.toml`` > defaults.

Only this module reads the environment. Nothing here is a secret yet; when API keys
arrive they are `SecretStr` and `redacted()` hides them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field
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
    """Built-in suite to run when no task path is given (a domain name or ``all``)."""
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

    def redacted(self) -> dict[str, Any]:
        """The settings as JSON data with secrets hidden (for manifests and --dry-run)."""
        return self.model_dump(mode="json")
