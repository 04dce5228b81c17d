"""External backends: your own MCP server over a database statebox owns.

A backend file (`load_backend`) names an MCP server command and a database — a SQLite
file or PostgreSQL — with its schema and seed. Per trial statebox clones the task's
template database, starts the server on the clone, lets the agent call its tools
through the usual episode, allowlist and transcript, and judges the trial by reading
the database itself (`DatabaseJudge`: the same canonical form, comparison, invariants
and checks as statebox's own domains). The server needs no lifecycle tools.
"""

from statebox.backends._backend import DatabaseBackend, DatabaseJudge
from statebox.backends._config import (
    BackendConfig,
    DatabaseConfig,
    IgnoredTable,
    ServerConfig,
    load_backend,
)
from statebox.backends._database import Clone, Databases, Template
from statebox.backends._open import BackendRecipe, open_backend
from statebox.backends._postgres import (
    PostgresClone,
    PostgresDatabases,
    PostgresWorld,
    database_url,
    redact_url,
)
from statebox.backends._server import PostgresServer, find_postgres_bin
from statebox.backends._session import DatabaseSession, TrialSlot
from statebox.backends._sqlite import SqliteClone, SqliteFiles, SqliteWorld
from statebox.backends._values import pg_value, sqlite_type, sqlite_value

__all__ = [
    "BackendConfig",
    "BackendRecipe",
    "Clone",
    "DatabaseBackend",
    "DatabaseConfig",
    "DatabaseJudge",
    "DatabaseSession",
    "Databases",
    "IgnoredTable",
    "PostgresClone",
    "PostgresDatabases",
    "PostgresServer",
    "PostgresWorld",
    "ServerConfig",
    "SqliteClone",
    "SqliteFiles",
    "SqliteWorld",
    "Template",
    "TrialSlot",
    "database_url",
    "find_postgres_bin",
    "load_backend",
    "open_backend",
    "pg_value",
    "redact_url",
    "sqlite_type",
    "sqlite_value",
]
