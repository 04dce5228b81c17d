"""The registry: domain name → `Domain`, agent name → factory builder.

Built-in domains join the same way a user's package does: an entry point in the
``statebox.domains`` group pointing at a `Domain` value. A domain can also be given
as ``module:ATTR`` or ``path/to/file.py:ATTR``. `default_registry()` builds a fresh
registry; nothing is global, so tests pass their own.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable, Iterable
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Any

from statebox.agents import (
    AgentFactory,
    FaultInjectionFactory,
    FaultRates,
    NoopFactory,
    OracleFactory,
    RefuseFactory,
    SleepyFactory,
    SleepyOptions,
)
from statebox.domains import Domain
from statebox.errors import ConfigError, DomainError
from statebox.tasks import (
    SuiteName,
    Task,
    default_version,
    resolve_suite,
    suite_tasks,
    suite_versions,
)

if TYPE_CHECKING:
    from statebox.llm import ModelSetup, Provider
    from statebox.settings import Settings

__all__ = [
    "ENTRY_POINT_GROUP",
    "Registry",
    "default_registry",
    "load_domain_ref",
    "model_agent_builder",
]

ENTRY_POINT_GROUP = "statebox.domains"
"""Entry-point group of domains."""

BUILTIN_PREFIX = "statebox.domains."
"""Entry points into this package are the built-in domains (they set the default version)."""

AgentBuilder = Callable[[dict[str, Any]], AgentFactory]
"""Builds an agent factory from options."""


def load_domain_ref(ref: str) -> Domain:
    """Load a `Domain` from ``module:ATTR`` or ``path/to/file.py:ATTR``.

    Raises:
        DomainError: The module or attribute cannot be loaded or is not a `Domain`.
    """
    target, _, attr = ref.rpartition(":")
    if not target or not attr:
        raise DomainError(f"domain reference {ref!r}: use module:ATTR or file.py:ATTR")
    try:
        if target.endswith(".py"):
            path = Path(target).resolve()
            spec = importlib.util.spec_from_file_location(f"statebox_user_{path.stem}", path)
            if spec is None or spec.loader is None:
                raise DomainError(f"cannot load {path}")
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module
            try:
                spec.loader.exec_module(module)
            except BaseException:
                del sys.modules[spec.name]  # leave no half-loaded module behind
                raise
        else:
            module = importlib.import_module(target)
        value = getattr(module, attr)
    except DomainError:
        raise
    except Exception as exc:  # a broken user module (SyntaxError, ValueError...) is named
        raise DomainError(f"domain reference {ref!r}: {type(exc).__name__}: {exc}") from exc
    if not isinstance(value, Domain):
        raise DomainError(f"domain reference {ref!r} is a {type(value).__name__}, not a Domain")
    return value


def _fault(options: dict[str, Any]) -> AgentFactory:
    if "model" in options:
        raise ConfigError(f"fault agent option {options['model']!r}: use key=value")
    try:
        return FaultInjectionFactory(FaultRates(**options))
    except ValueError as exc:
        raise ConfigError(f"fault agent options: {exc}") from exc


def _oracle(options: dict[str, Any]) -> AgentFactory:
    if options:
        raise ConfigError(f"the oracle takes no options, got {sorted(options)}")
    return OracleFactory()


def _baseline(factory: type[NoopFactory] | type[RefuseFactory]) -> AgentBuilder:
    def build(options: dict[str, Any]) -> AgentFactory:
        if options:
            raise ConfigError(f"the {factory.name} agent takes no options, got {sorted(options)}")
        return factory()

    return build


def _sleepy(options: dict[str, Any]) -> AgentFactory:
    if "model" in options:
        raise ConfigError(f"sleepy agent option {options['model']!r}: use key=value")
    try:
        return SleepyFactory(SleepyOptions(**options))
    except ValueError as exc:
        raise ConfigError(f"sleepy agent options: {exc}") from exc


def model_agent_builder(provider: Provider, models: Callable[[], ModelSetup]) -> AgentBuilder:
    """The builder of ``openai:MODEL`` / ``anthropic:MODEL`` agents.

    Args:
        provider: The SDK family.
        models: Gives the run's `ModelSetup` (called on the first build).

    Returns:
        A builder taking ``{"model": MODEL}``.
    """

    def build(options: dict[str, Any]) -> AgentFactory:
        from statebox.agents import LLMAgentFactory

        extra = sorted(set(options) - {"model"})
        if extra:
            raise ConfigError(f"{provider} agent: unknown options {extra}; use {provider}:MODEL")
        setup = models()
        model = options.get("model")
        config = setup.config("agent", f"{provider}:{model}" if model else None)
        if config.provider != provider:
            raise ConfigError(f"the models file's agent is {config.label}, not {provider}")
        return LLMAgentFactory(
            setup.hub,
            config,
            think=setup.settings.think,
            max_tool_calls=setup.settings.max_tool_calls,
        )

    return build


def _http(options: dict[str, Any]) -> AgentFactory:
    """A bring-your-own agent at ``options["url"]`` (imports the serve extra lazily)."""
    from statebox.serve import HttpAgentFactory

    extra = sorted(set(options) - {"url", "timeout_s"})
    if extra or "url" not in options:
        raise ConfigError(f"http agent: give a URL (http://HOST/PATH); unknown options {extra}")
    return HttpAgentFactory(str(options["url"]), float(options.get("timeout_s", 300.0)))


class Registry:
    """Domains and agent builders by name.

    Args:
        domains: Domains to register now.
        load_entry_points: Whether `domain` also looks in the ``statebox.domains``
            entry-point group (lazily, on the first lookup).
    """

    def __init__(self, domains: Iterable[Domain] = (), *, load_entry_points: bool = False) -> None:
        self._domains: dict[str, Domain] = {}
        self._agents: dict[str, AgentBuilder] = {
            "oracle": _oracle,
            "fault": _fault,
            "sleepy": _sleepy,
            "noop": _baseline(NoopFactory),
            "refuse": _baseline(RefuseFactory),
        }
        self._entry_points_pending = load_entry_points
        self._builtin: set[str] = set()
        for d in domains:
            self.register_domain(d)

    def register_domain(self, domain: Domain) -> None:
        """Add a domain.

        Raises:
            DomainError: A different domain with that name is registered.
        """
        known = self._domains.get(domain.name)
        if known is not None and known is not domain:
            raise DomainError(f"two domains are named {domain.name!r}")
        self._domains[domain.name] = domain

    def register_agent(self, name: str, builder: AgentBuilder) -> None:
        """Add an agent builder.

        Raises:
            ConfigError: The name is taken.
        """
        if name in self._agents:
            raise ConfigError(f"agent {name!r} is already registered")
        self._agents[name] = builder

    def _load_entry_points(self) -> None:
        if not self._entry_points_pending:
            return
        self._entry_points_pending = False
        for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
            try:
                value = ep.load()
            except Exception as exc:  # a broken plug-in is named, never skipped
                raise DomainError(
                    f"domain entry point {ep.name!r} ({ep.value}) failed: {exc}"
                ) from exc
            if not isinstance(value, Domain):
                raise DomainError(f"entry point {ep.name!r} is not a Domain")
            self.register_domain(value)
            if ep.value.startswith(BUILTIN_PREFIX):
                self._builtin.add(value.name)

    def domain_names(self) -> list[str]:
        """Registered domain names, sorted."""
        self._load_entry_points()
        return sorted(self._domains)

    def domain(self, name: str) -> Domain:
        """The domain called ``name``.

        Raises:
            DomainError: Unknown name (the known ones are listed).
        """
        self._load_entry_points()
        try:
            return self._domains[name]
        except KeyError:
            raise DomainError(
                f"unknown domain {name!r}; known: {', '.join(self.domain_names()) or 'none'}"
            ) from None

    def builtin_domains(self) -> list[str]:
        """Names of the registered built-in domains (statebox's own entry points), sorted."""
        self._load_entry_points()
        return sorted(self._builtin)

    def _all_domains(self) -> dict[str, Domain]:
        self._load_entry_points()
        return dict(self._domains)

    def suite_versions(self) -> list[str]:
        """Every suite version an installed domain ships, oldest first."""
        return suite_versions(self._all_domains())

    def default_suite_version(self) -> str:
        """The newest version every installed built-in domain ships (docs/suites.md)."""
        return default_version(self._all_domains(), self._builtin)

    def resolve_suite(self, name: str | SuiteName) -> SuiteName:
        """A suite name with its version resolved (docs/suites.md).

        Names: ``all``, ``train``, ``DOMAIN``, ``DOMAIN:train``, each optionally ``@VERSION``.

        Raises:
            DomainError: A bad name or version (one line listing what exists).
        """
        return resolve_suite(name, self._all_domains(), self._builtin)

    def suite(self, name: str | SuiteName, *, both_splits: bool = False) -> list[Task]:
        """The tasks of a built-in suite (docs/suites.md: names, splits, versions).

        Args:
            name: The suite name (resolved here when it has no version).
            both_splits: Both splits of the suite's domains, whatever its split.

        Raises:
            DomainError: Unknown suite or version, or a domain without tasks.
            TaskSpecError: A task file is invalid.
        """
        ref = self.resolve_suite(name)
        return suite_tasks(ref, self._all_domains(), both_splits=both_splits)

    def agent(self, spec: str) -> AgentFactory:
        """An agent factory from a spec.

        Forms: ``NAME``; ``NAME:key=value,key=value``; ``NAME:MODEL`` (options
        ``{"model": MODEL}``, for model providers such as ``openai:gpt-4o``); a URL
        ``http(s)://...`` (the ``http`` builder with ``{"url": URL}``).

        Raises:
            ConfigError: Unknown agent or bad options.
        """
        options: dict[str, Any]
        if spec.startswith(("http://", "https://")):
            name, rest, options = "http", "", {"url": spec}
        else:
            name, _, rest = spec.partition(":")
            options = {}
            if rest and "=" not in rest:
                options, rest = {"model": rest}, ""
        builder = self._agents.get(name)
        if builder is None:
            raise ConfigError(f"unknown agent {name!r}; known: {', '.join(sorted(self._agents))}")
        for part in filter(None, rest.split(",")):
            key, eq, value = part.partition("=")
            if not eq:
                raise ConfigError(f"agent option {part!r}: use key=value")
            try:
                options[key.strip()] = float(value) if "." in value else int(value)
            except ValueError:
                options[key.strip()] = value
        return builder(options)


def default_registry(
    settings: Settings | None = None, models: ModelSetup | None = None
) -> Registry:
    """A registry with the installed domains (entry points, loaded on first use).

    Args:
        settings: Settings the ``openai`` and ``anthropic`` agent builders close over
            (None: `Settings()` when one is first built).
        models: The run's `ModelSetup`, shared with its user and judge (None: one is
            made from ``settings`` on first use).
    """
    registry = Registry(load_entry_points=True)
    made: list[ModelSetup] = [models] if models is not None else []

    def setup() -> ModelSetup:
        if not made:
            from statebox.llm import ModelSetup
            from statebox.settings import Settings

            made.append(ModelSetup(settings if settings is not None else Settings()))
        return made[0]

    registry.register_agent("openai", model_agent_builder("openai", setup))
    registry.register_agent("anthropic", model_agent_builder("anthropic", setup))
    registry.register_agent("http", _http)
    return registry
