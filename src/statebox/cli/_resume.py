"""What ``statebox run --resume`` takes back from a campaign's manifest.

A resume continues the campaign as planned: every setting the flags leave out comes
from the manifest, never from defaults — trials, seed, concurrency, the task source,
the agents, the extra domains, and every setting that can change a verdict (the
simulated user and its behaviour, the judge, model endpoints, the models file, agent
and episode limits). A flag given with a different value than the campaign's is refused by the
runner (`statebox.runner.verdict_changes`), naming each differing setting.

Secrets are never stored: a base URL holding credentials (``user:pass@``, a query
string) is recorded redacted, and a resume must give it again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from statebox.errors import ConfigError

__all__ = [
    "RESTORED_FLAGS",
    "Planned",
    "domain_refs_for_manifest",
    "read_planned",
    "redact_url",
    "run_verdict_settings",
]

REDACTED = "[redacted]"

RESTORED_FLAGS = (
    "user",
    "user_behaviour",
    "judge",
    "agent_base_url",
    "user_base_url",
    "judge_base_url",
    "models_file",
    "think",
    "trace_tokens",
    "max_tool_calls",
    "user_max_follow_ups",
    "max_steps",
    "max_turns",
    "trial_timeout_s",
    "agent_temperature",
    "user_temperature",
    "max_output_tokens",
)
"""`Settings` fields a resume takes from the manifest's verdict settings when not given."""


def redact_url(url: str | None) -> str | None:
    """``url`` with its credentials (``user:password@``, query values) replaced."""
    if url is None:
        return None
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        netloc = REDACTED + "@" + netloc.rpartition("@")[2]
    query = urlencode([(k, REDACTED) for k, _ in parse_qsl(parts.query, keep_blank_values=True)])
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def _file(path: Path | None) -> dict[str, str] | None:
    if path is None:
        return None
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it: {exc.strerror}") from exc
    return {"path": str(path.resolve()), "sha256": digest}


def run_verdict_settings(settings: Any) -> dict[str, Any]:
    """The verdict settings ``statebox run`` adds to the campaign's own (`Settings` given).

    The models file is recorded by path and content hash: an edited file is a change.
    """
    return {
        "user": settings.user,
        "user_behaviour": settings.user_behaviour,
        "judge": settings.judge,
        "agent_base_url": redact_url(settings.agent_base_url),
        "user_base_url": redact_url(settings.user_base_url),
        "judge_base_url": redact_url(settings.judge_base_url),
        "models_file": _file(settings.models_file),
        "think": settings.think,
        "trace_tokens": settings.trace_tokens,
        "max_tool_calls": settings.max_tool_calls,
        "user_max_follow_ups": settings.user_max_follow_ups,
        "agent_temperature": settings.agent_temperature,
        "user_temperature": settings.user_temperature,
        "max_output_tokens": settings.max_output_tokens,
    }


def domain_refs_for_manifest(sources: Sequence[Any]) -> dict[str, Any]:
    """The manifest settings of a campaign's ``--domain`` references (`DomainSource`).

    ``domain_refs`` holds what a resume loads again (file paths absolute, names as
    given); ``domain_provenance`` says where each came from: its kind, the domain's
    name, and for an installed name or module the distribution and its version.
    """
    if not sources:
        return {}
    return {
        "domain_refs": [s.ref for s in sources],
        "domain_provenance": [s.provenance() for s in sources],
    }


class Planned(NamedTuple):
    """What a campaign directory's manifest planned."""

    trials: int
    seed: int
    suite: str | None
    tasks: list[Path] | None
    agents: list[str] | None
    thinkingbox: Any = None  # TbOptions when the campaign ran a ThinkingBox dataset
    concurrency: int | None = None
    domains: list[str] | None = None
    """``--domain`` references of the campaign."""
    verdict: dict[str, Any] = {}
    """The manifest's verdict settings."""
    policy_mode: str | None = None
    """The campaign's policy mode (None: each task's own)."""
    backends: dict[str, Any] | None = None
    """``settings.backends`` of a ``--backend`` campaign."""
    preset: str | None = None
    """The ``--preset`` the campaign ran with."""

    def restore(self, flags: dict[str, Any]) -> dict[str, Any]:
        """``flags`` with the campaign's verdict settings filled in where not given.

        Raises:
            ConfigError: A base URL the campaign recorded redacted is not given again.
        """
        out = dict(flags)
        for name in RESTORED_FLAGS:
            if out.get(name) is not None or name not in self.verdict:
                continue
            value = self.verdict[name]
            if name == "models_file" and isinstance(value, dict):
                value = Path(value["path"])
            if isinstance(value, str) and REDACTED in value:
                flag = "--" + name.replace("_", "-")
                raise ConfigError(
                    f"{flag}: the campaign's held credentials, which are never stored; "
                    f"give {flag} again to resume"
                )
            out[name] = value
        return out


def read_planned(out: Path) -> Planned:
    """What a campaign directory's manifest planned (for ``run --resume``).

    Raises:
        ConfigError: No such directory.
        ResultsFormatError: No readable manifest.
    """
    from statebox.records import read_manifest
    from statebox.tasks import pin_legacy

    if not out.is_dir():
        raise ConfigError(f"{out}: no such campaign directory to resume")
    m = read_manifest(out)
    source = m.task_source
    specs = m.settings.get("agent_specs")
    agents = [str(s) for s in specs] if isinstance(specs, list) and specs else None
    refs = m.settings.get("domain_refs")
    domains = [str(r) for r in refs] if isinstance(refs, list) and refs else None
    raw = m.settings.get("concurrency")
    concurrency = raw if isinstance(raw, int) else None
    tb = m.settings.get("thinkingbox")
    suite = dataset = None
    tasks: list[Path] | None = None
    if isinstance(tb, dict):
        from statebox.cli._thinkingbox import TbOptions

        dataset = TbOptions.from_manifest(tb)
    else:
        # A name recorded before suites had versions meant 1.0's tasks (docs/suites.md).
        suite = (
            ", ".join(pin_legacy(n.strip()) for n in source.removeprefix("suite:").split(","))
            if source.startswith("suite:")
            else None
        )
        if not suite and not source.startswith("backend:"):
            tasks = [Path(p) for p in source.split(", ")]
    mode = m.settings.get("policy_mode")
    backends = m.settings.get("backends")
    raw_preset = m.settings.get("preset")
    return Planned(
        m.trials,
        m.seed,
        suite,
        tasks,
        agents,
        dataset,
        concurrency,
        domains,
        m.verdict_settings,
        policy_mode=mode if mode in {"prompt", "search", "both"} else None,
        backends=backends if isinstance(backends, dict) else None,
        preset=raw_preset.get("name") if isinstance(raw_preset, dict) else None,
    )
