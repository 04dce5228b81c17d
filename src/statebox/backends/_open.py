"""Opening a backend file: the database kind it names, a throwaway PostgreSQL if needed.

`open_backend` is what the CLI and tests call; `BackendRecipe` is its picklable form,
which a Ray worker calls to build its own `DatabaseBackend` (sharing the driver's
PostgreSQL by URL, or starting one of its own).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from statebox.backends._backend import DatabaseBackend
from statebox.backends._config import BackendConfig
from statebox.backends._database import Databases
from statebox.backends._postgres import PostgresDatabases
from statebox.backends._server import PostgresServer
from statebox.backends._sqlite import SqliteFiles

__all__ = ["BackendRecipe", "open_backend"]


def open_backend(
    config: BackendConfig,
    *,
    postgres_url: str | None = None,
    warm: int = 2,
    server_python: str | None = None,
    log_dir: Path | None = None,
) -> DatabaseBackend:
    """The backend a backend file describes, ready to run trials (close it with ``aclose``).

    Args:
        config: The backend file.
        postgres_url: The PostgreSQL server for a ``postgres`` backend (a role that may
            create databases); None starts a throwaway one, stopped by ``aclose``.
        warm: Trial slots kept ready per task.
        server_python: Interpreter for ``{python}``.
        log_dir: Folder for the servers' stderr.

    Raises:
        ConfigError: The schema, seed or policy file cannot be read, PostgreSQL is not
            installed (for a throwaway server), or the URL is malformed.
    """
    schema, seed = config.schema_sql(), config.seed_data()
    policy = config.policy_text()
    del policy  # read now, so a missing policy file fails before any server starts
    ignored = frozenset(t.table for t in config.database.ignore_tables)
    databases: Databases
    owned: PostgresServer | None = None
    if config.database.kind == "sqlite":
        databases = SqliteFiles(schema, seed, ignored=ignored)
    else:
        if postgres_url is None:
            owned = PostgresServer.start()
            postgres_url = owned.url
        databases = PostgresDatabases(
            postgres_url, schema, seed, schemas=config.database.schemas, ignored=ignored
        )
    backend = DatabaseBackend(
        config,
        databases,
        warm=warm,
        server_python=server_python,
        log_dir=log_dir,
        owned=owned,
    )
    backend.recipe_args = BackendRecipe(config, postgres_url, warm, server_python)
    return backend


@dataclass(frozen=True)
class BackendRecipe:
    """A picklable recipe for a `DatabaseBackend` (what a Ray worker builds)."""

    config: BackendConfig
    """The backend file."""
    postgres_url: str | None
    """The PostgreSQL server to share (None: each worker starts its own)."""
    warm: int
    """Trial slots kept ready per task."""
    server_python: str | None
    """Interpreter for ``{python}``."""

    def __call__(self) -> DatabaseBackend:
        """Open the backend in this process."""
        return open_backend(
            self.config,
            postgres_url=self.postgres_url,
            warm=self.warm,
            server_python=self.server_python,
        )
