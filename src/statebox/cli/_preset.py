"""``statebox run --preset NAME``: a published protocol in one flag.

A preset fills in the run's settings that no flag gives; any flag given wins. What it
filled in (and what flags overrode) goes into the manifest under ``settings.preset``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from statebox.errors import ConfigError

__all__ = ["PRESETS", "AppliedPreset", "apply_preset"]

PRESETS: dict[str, dict[str, Any]] = {
    # ThinkingBox-Bench's protocol (its paper): 20 trials; agent temperature 1.0 (where
    # the endpoint takes one), user 0.3, judge 0.0 (statebox's judge always uses 0);
    # 4096 output tokens; at most 10 user follow-ups; agent 600 s; tool call 300 s;
    # at most 5 network retries (6 attempts).
    "thinkingbox": {
        "trials": 20,
        "agent_temperature": 1.0,
        "user_temperature": 0.3,
        "max_output_tokens": 4096,
        "user_max_follow_ups": 10,
        "trial_timeout_s": 600.0,
        "tool_timeout_s": 300.0,
        "model_max_attempts": 6,
    },
}
"""Preset name → settings it fills in (``tool_timeout_s`` is a ThinkingBox option)."""


class AppliedPreset(NamedTuple):
    """A preset laid under the flags."""

    flags: dict[str, Any]
    """The flags with the preset's values where a flag was not given."""
    manifest: dict[str, Any]
    """``{"name", "applied", "overridden"}`` for ``manifest.settings.preset``."""


def apply_preset(name: str | None, flags: dict[str, Any]) -> AppliedPreset:
    """Fill ``flags`` (None = not given) from preset ``name``.

    Raises:
        ConfigError: No such preset.
    """
    if name is None:
        return AppliedPreset(dict(flags), {})
    if name not in PRESETS:
        raise ConfigError(f"--preset {name}: unknown preset; choose from {', '.join(PRESETS)}")
    out = dict(flags)
    applied: dict[str, Any] = {}
    overridden: dict[str, Any] = {}
    for key, value in PRESETS[name].items():
        if out.get(key) is None:
            out[key] = value
            applied[key] = value
        else:
            overridden[key] = out[key]
    return AppliedPreset(out, {"name": name, "applied": applied, "overridden": overridden})
