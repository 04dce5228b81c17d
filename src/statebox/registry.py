"""The registry: domain name → `Domain`, agent name → factory builder.

Built-in domains join the same way a user's package does: an entry point in the
``statebox.domains`` group pointing at a `Domain` value. A ``--domain`` reference
(`resolve_domain_ref`) is ``module:ATTR``, ``path/to/file.py[:ATTR]``, an importable
module (its ``DOMAIN``) or an installed domain's name. `default_registry()` builds a
fresh registry; nothing is global, so tests pass their own.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from importlib.metadata import (
    EntryPoint,
    PackageNotFoundError,
    entry_points,
    packages_distributions,
    version,
)
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from pydantic import ValidationError

from statebox._model import validation_line
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
    suite_label,
    suite_tasks,
    suite_versions,
)

if TYPE_CHECKING:
    from statebox.llm import ModelSetup, Provider
    from statebox.settings import Settings

__all__ = [
    "ENTRY_POINT_GROUP",
    "DomainSource",
    "Registry",
    "default_registry",
    "installed_domain_names",
    "load_domain_ref",
    "model_agent_builder",
    "resolve_domain_ref",
]

ENTRY_POINT_GROUP = "statebox.domains"
"""Entry-point group of domains."""

BUILTIN_PREFIX = "statebox.domains."
"""Entry points into this package are the built-in domains (they set the default version)."""

AgentBuilder = Callable[[dict[str, Any]], AgentFactory]
"""Builds an agent factory from options."""


class DomainSource(NamedTuple):
    """Where a ``--domain`` reference found its domain (what a manifest records)."""

    ref: str
    """The reference to record: a file path made absolute; a module or installed name
    as given."""
    kind: Literal["attribute", "file", "module", "installed"]
    """``module:ATTR`` / ``file.py:ATTR``; ``file.py``; an importable module; an
    installed domain's name."""
    domain: str
    """The domain's name."""
    distribution: str | None = None
    """The installed distribution that provides it, when one does (provenance)."""
    version: str | None = None
    """That distribution's version."""

    def provenance(self) -> dict[str, str]:
        """The source as a manifest entry.

        Keys: ``ref``, ``kind``, ``domain``, and ``distribution`` and ``version`` when known.
        """
        out = {"ref": self.ref, "kind": self.kind, "domain": self.domain}
        if self.distribution:
            out["distribution"] = self.distribution
            out["version"] = self.version or ""
        return out


DEFAULT_ATTR = "DOMAIN"
"""The attribute a reference without ``:ATTR`` names."""

_MODULE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


def _domain_entry_points() -> dict[str, EntryPoint]:
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def _dist_label(ep: EntryPoint) -> str:
    dist = ep.dist
    return f"distribution {dist.name} {dist.version}" if dist is not None else "no distribution"


def installed_domain_names() -> list[str]:
    """The names of the installed domains (entry points; none is loaded), sorted."""
    return sorted(_domain_entry_points())


def _unknown_ref(ref: str, why: str) -> DomainError:
    names = ", ".join(installed_domain_names()) or "none"
    return DomainError(
        f"domain reference {ref!r}: {why}; installed domains: {names} (or give "
        "module[:ATTR] or path/to/file.py[:ATTR])"
    )


def _load_file(ref: str, path: Path) -> ModuleType:
    path = path.resolve()
    spec = importlib.util.spec_from_file_location(f"statebox_user_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise DomainError(f"domain reference {ref!r}: cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[spec.name]  # leave no half-loaded module behind
        raise
    return module


def _importable(name: str) -> bool:
    if not _MODULE_NAME.match(name):
        return False
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a missing parent package
        return False


def _distribution_of(module: str) -> tuple[str | None, str | None]:
    """The installed distribution holding a top-level package, and its version."""
    top = module.partition(".")[0]
    dists = packages_distributions().get(top) or []
    if not dists:
        return None, None
    try:
        return dists[0], version(dists[0])
    except PackageNotFoundError:
        return dists[0], None


def _checked(ref: str, value: Any) -> Domain:
    if not isinstance(value, Domain):
        kind = type(value).__name__
        article = "an" if kind[:1].lower() in "aeiou" else "a"
        raise DomainError(f"domain reference {ref!r} is {article} {kind}, not a Domain")
    return value


def _installed(ref: str, d: Domain, ep: EntryPoint) -> DomainSource:
    dist = ep.dist
    return DomainSource(
        ref,
        "installed",
        d.name,
        dist.name if dist is not None else None,
        dist.version if dist is not None else None,
    )


def resolve_domain_ref(ref: str) -> tuple[Domain, DomainSource]:
    """Load a `Domain` from a ``--domain`` reference, and say where it came from.

    Tried in this order: ``module:ATTR`` or ``path/to/file.py:ATTR``; ``path/to/file.py``
    or an importable ``module`` (attribute ``DOMAIN``); the name of an installed domain
    (an entry point in the ``statebox.domains`` group).

    Raises:
        DomainError: None of the forms loads a `Domain` (one line naming the reference
            and listing the installed domains), or the module fails to import.
    """
    target, colon, attr = ref.rpartition(":")
    if not colon:
        target, attr = ref, ""
    elif not target or not attr:
        raise _unknown_ref(ref, "an empty module or attribute")
    try:
        if target.endswith(".py"):
            path = Path(target)
            if not path.is_file():
                raise _unknown_ref(ref, f"no file {target}")
            module = _load_file(ref, path)
            name = attr or DEFAULT_ATTR
            if not hasattr(module, name):
                raise DomainError(f"domain reference {ref!r}: {path} has no {name}")
            d = _checked(ref, getattr(module, name))
            kind: Literal["attribute", "file"] = "attribute" if attr else "file"
            recorded = f"{path.resolve()}:{attr}" if attr else str(path.resolve())
            return d, DomainSource(recorded, kind, d.name)
        if attr:
            module = importlib.import_module(target)
            d = _checked(ref, getattr(module, attr))
            return d, DomainSource(ref, "attribute", d.name, *_distribution_of(target))
        installed = _domain_entry_points()
        if _importable(target):
            module = importlib.import_module(target)
            if hasattr(module, DEFAULT_ATTR) or target not in installed:
                if not hasattr(module, DEFAULT_ATTR):
                    raise _unknown_ref(ref, f"module {target} has no {DEFAULT_ATTR}")
                d = _checked(ref, getattr(module, DEFAULT_ATTR))
                ep = installed.get(target)
                if ep is not None and ep.value.replace(" ", "") == f"{target}:{DEFAULT_ATTR}":
                    return d, _installed(ref, d, ep)  # the same thing, by its installed name
                return d, DomainSource(ref, "module", d.name, *_distribution_of(target))
        ep = installed.get(target)
        if ep is None:
            raise _unknown_ref(ref, "no such module, file or installed domain")
        d = _checked(ref, ep.load())
        return d, _installed(ref, d, ep)
    except DomainError:
        raise
    except Exception as exc:  # a broken user module (SyntaxError, ValueError...) is named
        raise DomainError(f"domain reference {ref!r}: {type(exc).__name__}: {exc}") from exc


def load_domain_ref(ref: str) -> Domain:
    """Load a `Domain` from a ``--domain`` reference (`resolve_domain_ref`'s forms).

    Raises:
        DomainError: The reference does not load a `Domain`.
    """
    return resolve_domain_ref(ref)[0]


def _fault(options: dict[str, Any]) -> AgentFactory:
    if "model" in options:
        raise ConfigError(f"fault agent option {options['model']!r}: use key=value")
    try:
        return FaultInjectionFactory(FaultRates(**options))
    except ValidationError as exc:
        raise ConfigError(f"fault agent options: {validation_line(exc)}") from exc
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
    except ValidationError as exc:
        raise ConfigError(f"sleepy agent options: {validation_line(exc)}") from exc
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
        self.sources: list[DomainSource] = []
        """The ``--domain`` references added (`add_domain_ref`), in order."""
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

    def add_domain_ref(self, ref: str) -> DomainSource:
        """Load a ``--domain`` reference (`resolve_domain_ref`) and register its domain.

        Raises:
            DomainError: It does not load, or another domain has its name.
        """
        d, source = resolve_domain_ref(ref)
        self.register_domain(d)
        if all(s.domain != source.domain for s in self.sources):
            self.sources.append(source)
        return source

    def own_suites(self) -> list[SuiteName]:
        """The suites of the ``--domain`` references' own tasks (the selection rule).

        Each named domain's newest suite version (the default version for an
        unversioned one), with the split rules of the ``DOMAIN`` suite name.

        Raises:
            DomainError: No reference was added, or a domain ships no tasks.
        """
        if not self.sources:
            raise DomainError("no --domain given: nothing selects its own tasks")
        out = []
        for source in self.sources:
            d = self.domain(source.domain)
            shipped = d.versions()
            at = shipped[-1] if shipped else None
            out.append(self.resolve_suite(SuiteName(scope=d.name, version=at)))
        return out

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
            known = self._domains.get(value.name)
            if known is not None and known is not value:
                source = next((s for s in self.sources if s.domain == value.name), None)
                if source is None:
                    raise DomainError(
                        f"two installed domains are named {value.name!r}: entry point "
                        f"{ep.value} ({_dist_label(ep)}) and another; uninstall one"
                    )
                if ep.value.startswith(BUILTIN_PREFIX):
                    # A domain of your own under a built-in's name would be reported as
                    # that statebox-bench suite: refused, never shadowed.
                    raise DomainError(
                        f"--domain {source.ref}: its domain is named {value.name!r}, the name "
                        "of statebox's built-in domain; give it a name of its own"
                    )
                # An explicit --domain (say the package's source file beside its installed
                # copy) shadows the installed outside domain of that name: the author chose it.
                continue
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
        domains = self._all_domains()
        return suite_tasks(ref, domains, both_splits=both_splits, builtin=self._builtin)

    def suite_label(self, name: str | SuiteName) -> str:
        """What a suite is, for people (`statebox.tasks.suite_label`).

        ``statebox-bench 2.0`` for the benchmark, ``NAME's own tasks`` for a domain
        written outside statebox.
        """
        self._load_entry_points()
        return suite_label(self.resolve_suite(name), self._builtin)

    def resolve_suites(self, text: str) -> list[SuiteName]:
        """Suite names separated by commas, each resolved (`resolve_suite`).

        A campaign of several ``--domain`` references records its suites this way.
        """
        parts = [p.strip() for p in text.split(",") if p.strip()]
        if not parts:
            raise DomainError(f"suite {text!r}: no suite name")
        return [self.resolve_suite(p) for p in parts]

    def suites(self, refs: Sequence[SuiteName], *, both_splits: bool = False) -> list[Task]:
        """The tasks of several resolved suites, in order (`suite` for each)."""
        return [t for ref in refs for t in self.suite(ref, both_splits=both_splits)]

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
