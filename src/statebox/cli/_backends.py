"""``statebox run --backend FILE`` and ``tasks validate --backend FILE``: your own MCP server.

A backend file (`statebox.backends.load_backend`) is a domain: its MCP server over a
database statebox owns. The options travel in the manifest (``settings.backends``:
the files, never a PostgreSQL URL, which may hold a password) so that ``--resume``
rebuilds the same environments; a resume starts a new throwaway PostgreSQL unless
given ``--postgres-url`` again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from statebox.errors import ConfigError

__all__ = [
    "BackendOptions",
    "BackendsRun",
    "manifest_field_policies",
    "open_backends",
    "validate_backend_tasks",
]


def _import() -> Any:
    try:
        import statebox.backends as backends
    except ImportError as exc:
        raise ConfigError(
            f"--backend needs the MCP client ({exc.name} is missing): "
            'pip install "statebox[backends]" (PostgreSQL: "statebox[postgres]")'
        ) from exc
    return backends


class BackendOptions(NamedTuple):
    """The backend options of ``statebox run`` and ``tasks validate``."""

    files: tuple[Path, ...]
    """Backend files (absolute)."""
    postgres_url: str | None
    """The PostgreSQL server (None: a throwaway one for the run)."""
    server_python: str | None
    """Interpreter for ``{python}``."""
    warm: int
    """Trial slots kept ready per task."""

    def to_manifest(self) -> dict[str, Any]:
        """JSON for ``manifest.settings.backends`` (no URL: it may carry a password)."""
        return {
            "files": [str(f) for f in self.files],
            "server_python": self.server_python,
            "warm": self.warm,
        }

    @classmethod
    def from_manifest(cls, data: Mapping[str, Any], postgres_url: str | None) -> BackendOptions:
        """The options a campaign was started with (for ``--resume``)."""
        return cls(
            files=tuple(Path(f) for f in data.get("files") or ()),
            postgres_url=postgres_url,
            server_python=data.get("server_python"),
            warm=int(data.get("warm", 2)),
        )


class BackendsRun(NamedTuple):
    """Opened backends: environments by domain name, their default tasks, one closer."""

    environments: dict[str, Any]
    """Domain name → `statebox.backends.DatabaseBackend`."""
    tasks: list[Any]
    """The tasks of every backend file's ``tasks`` folder, in file order."""
    server: Any
    """The throwaway PostgreSQL server shared by the backends (None when none)."""

    async def aclose(self) -> None:
        """Stop every server and drop every database; stop the throwaway PostgreSQL."""
        for env in self.environments.values():
            await env.aclose()
        if self.server is not None:
            self.server.stop()


def open_backends(
    options: BackendOptions, *, load_tasks: bool, log_dir: Path | None = None
) -> BackendsRun:
    """Open every backend file of ``options`` (one throwaway PostgreSQL for all of them).

    Args:
        options: The backend options.
        load_tasks: Also load each file's ``tasks`` folder.
        log_dir: Folder for the servers' stderr.

    Raises:
        ConfigError: A bad backend file, two backends with one name, a backend file
            without a ``tasks`` folder when tasks are needed, or PostgreSQL missing.
        TaskSpecError: A task file is invalid.
    """
    backends = _import()
    from statebox.tasks import load_tasks as load

    configs = [backends.load_backend(f) for f in options.files]
    names = [c.name for c in configs]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ConfigError(f"two backend files are named {', '.join(dupes)}; give one of each")
    url, server = options.postgres_url, None
    if url is None and any(c.database.kind == "postgres" for c in configs):
        server = backends.PostgresServer.start()
        url = server.url
    environments: dict[str, Any] = {}
    tasks: list[Any] = []
    try:
        for file, config in zip(options.files, configs, strict=True):
            if load_tasks:
                if config.tasks is None:
                    raise ConfigError(f"backend file {file}: no `tasks` folder; give --tasks")
                tasks += load(config.path(config.tasks))
            environments[config.name] = backends.open_backend(
                config,
                postgres_url=url,
                warm=options.warm,
                server_python=options.server_python,
                log_dir=log_dir,
            )
    except BaseException:
        if server is not None:
            server.stop()
        raise
    return BackendsRun(environments, tasks, server)


def manifest_field_policies(directories: Sequence[Path]) -> dict[str, Any]:
    """Domain → field policy of the backends campaigns in ``directories`` ran on."""
    from statebox.errors import ResultsFormatError
    from statebox.records import read_manifest

    out: dict[str, Any] = {}
    for d in directories:
        try:
            settings = read_manifest(d).settings.get("backends")
        except ResultsFormatError:
            continue
        if not isinstance(settings, dict):
            continue
        backends = _import()
        for f in settings.get("files") or ():
            try:
                config = backends.load_backend(Path(f))
            except ConfigError:
                continue  # moved or gone: the report says the policy is unknown
            out[config.name] = config.policy_fields
    return out


def validate_backend_tasks(
    files: Sequence[Path], path: Path | None, postgres_url: str | None
) -> list[tuple[Any, Any]]:
    """``tasks validate --backend``: every task (PATH's, else the files' folders) validated.

    Returns:
        (task, `statebox.judge.TaskValidation`) per task, in file order.

    Raises:
        ConfigError: A bad backend file, or a task of a domain no file names.
    """
    import asyncio

    from statebox.judge import validate_judged_task
    from statebox.tasks import load_tasks

    options = BackendOptions(tuple(f.resolve() for f in files), postgres_url, None, 0)
    run = open_backends(options, load_tasks=path is None)
    tasks = load_tasks(path) if path is not None else run.tasks
    results: list[tuple[Any, Any]] = []

    async def go() -> None:
        try:
            for t in tasks:
                env = run.environments.get(t.domain)
                if env is None:
                    raise ConfigError(
                        f"task {t.id}: domain {t.domain!r} is not one of the backend files' "
                        f"({', '.join(sorted(run.environments))})"
                    )
                results.append((t, await validate_judged_task(env.trial_judge(None), t)))
        finally:
            await run.aclose()

    asyncio.run(go())
    return results
