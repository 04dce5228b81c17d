"""The backend config file: an MCP server plus the database statebox owns for it.

A backend file is a domain. It names the server's command (stdio MCP, or streamable
HTTP on a port statebox picks), the environment the server gets — where
``{database_url}`` becomes the trial's database — the database kind with its schema and
seed files, the policy text, the field policy and the default task folder::

    name: shop
    policy: policy.md
    tasks: tasks/
    database:
      kind: postgres            # or sqlite
      schema: schema.postgres.sql
      seed: seed.yaml           # table → rows, applied by primary key (or a .sql script)
    server:
      command: ["{python}", "server.py"]
      env: {SHOP_DATABASE_URL: "{database_url}", SHOP_NOW: "{now}"}
    field_policy:
      - {table: orders, column: note, reason: "free text; not compared"}

Placeholders in ``command``, ``env`` and ``url``: ``{database_url}`` (the trial's
database: a file path or a ``postgresql://`` URL), ``{now}`` (the task's frozen clock,
ISO 8601), ``{python}`` (the interpreter for the server), ``{port}`` (a free loopback
port, HTTP only). Paths are relative to the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

import yaml
from pydantic import Field, ValidationError, model_validator

from statebox._model import Model
from statebox.errors import ConfigError
from statebox.world import ExcludedField, FieldPolicy

__all__ = ["BackendConfig", "DatabaseConfig", "IgnoredTable", "ServerConfig", "load_backend"]


class IgnoredTable(Model):
    """A table left out of the state, with the reason (a log without a key, say)."""

    table: str
    """Table name as in states (``schema.table`` when several schemas are read)."""
    reason: str
    """Why it is not part of the judged state."""


class DatabaseConfig(Model):
    """The database statebox builds, clones per trial and reads."""

    kind: Literal["sqlite", "postgres"]
    """``sqlite``: a file cloned per trial; ``postgres``: a database cloned from a template."""
    schema_file: Path = Field(alias="schema")
    """SQL file creating the tables (each needs a primary key, or an ``ignore_tables`` entry)."""
    seed: Path | None = None
    """Seed rows: YAML (table → list of rows, applied by primary key) or a ``.sql`` script."""
    schemas: tuple[str, ...] = ("public",)
    """PostgreSQL schemas whose tables are the state (table names are bare with one
    schema, ``schema.table`` with several)."""
    ignore_tables: tuple[IgnoredTable, ...] = ()
    """Tables left out of the state, each with its reason."""


class ServerConfig(Model):
    """How to start the MCP server for one trial."""

    command: tuple[str, ...] = Field(min_length=1)
    """Executable and arguments (placeholders allowed)."""
    transport: Literal["stdio", "http"] = "stdio"
    """``stdio``: MCP over the process's stdin/stdout; ``http``: streamable HTTP at ``url``."""
    url: str = "http://127.0.0.1:{port}/mcp"
    """The streamable HTTP endpoint (http only); must stay on loopback."""
    env: dict[str, str] = {}
    """Variables set for the server on top of this process's environment."""
    cwd: Path | None = None
    """Working directory (default: the backend file's folder)."""
    start_timeout_s: float = Field(60.0, gt=0)
    """Limit on starting the server and listing its tools, in seconds."""
    call_timeout_s: float = Field(300.0, gt=0)
    """Limit on one tool call, in seconds."""

    @model_validator(mode="after")
    def _names_the_database(self) -> ServerConfig:
        text = " ".join([*self.command, *self.env.values()])
        if "{database_url}" not in text:
            raise ValueError(
                "neither `command` nor `env` contains {database_url}: the server would not "
                "know which database a trial uses"
            )
        if self.transport == "http":
            if "{port}" not in self.url or "{port}" not in text:
                raise ValueError("an http server needs {port} in `url` and in its command or env")
            host = urlsplit(self.url.replace("{port}", "1")).hostname
            if host not in ("127.0.0.1", "localhost", "::1"):
                raise ValueError(f"`url` must stay on loopback (127.0.0.1), not {host!r}")
        return self


class BackendConfig(Model):
    """A backend file: the server, the database, the policy and the field policy."""

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_]*$")
    """Domain name; its tasks' ids start with it."""
    database: DatabaseConfig
    """The database statebox owns."""
    server: ServerConfig
    """The MCP server."""
    policy: Path | None = None
    """Markdown file with the policy the agent follows."""
    tasks: Path | None = None
    """Default task folder."""
    field_policy: tuple[ExcludedField, ...] = ()
    """Columns left out of state comparison, each with its reason."""
    mutating_tools: tuple[str, ...] | None = None
    """Tools that write (for the fault agent's write faults and failure signatures);
    None: every tool the server does not annotate ``readOnlyHint: true``."""
    root: Path = Path()
    """The backend file's folder (set by the loader; relative paths start here)."""

    @property
    def policy_fields(self) -> FieldPolicy:
        """The field policy as statebox's judge reads it."""
        return FieldPolicy(excluded=self.field_policy)

    def path(self, p: Path) -> Path:
        """``p`` resolved against the backend file's folder."""
        return p if p.is_absolute() else (self.root / p).resolve()

    def schema_sql(self) -> str:
        """The schema file's text.

        Raises:
            ConfigError: It cannot be read.
        """
        return _read(self.path(self.database.schema_file), "database.schema")

    def seed_data(self) -> dict[str, list[dict[str, Any]]] | str:
        """The seed: rows by table (YAML), or SQL text (a ``.sql`` file), or no rows.

        Raises:
            ConfigError: The file cannot be read, is not YAML, or is not table → rows.
        """
        if self.database.seed is None:
            return {}
        path = self.path(self.database.seed)
        text = _read(path, "database.seed")
        if path.suffix == ".sql":
            return text
        try:
            data = yaml.safe_load(text) or {}
        except yaml.YAMLError as exc:
            raise ConfigError(f"{path}: not valid YAML ({exc})") from exc
        ok = isinstance(data, dict) and all(
            isinstance(rows, list) and all(isinstance(r, dict) for r in rows)
            for rows in data.values()
        )
        if not ok:
            raise ConfigError(f"{path}: the seed must map table names to lists of rows")
        return {str(k): list(v) for k, v in data.items()}

    def policy_text(self) -> str:
        """The policy text ('' when none).

        Raises:
            ConfigError: The file cannot be read.
        """
        return "" if self.policy is None else _read(self.path(self.policy), "policy")


def _read(path: Path, field: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"backend file: {field} {path}: {exc.strerror or exc}") from exc


def load_backend(path: Path) -> BackendConfig:
    """Read a backend file.

    Raises:
        ConfigError: Missing or not YAML, or an invalid field (the message names the
            file and the field).
    """
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"backend file {path}: {exc.strerror or exc}") from exc
    except yaml.YAMLError as exc:
        raise ConfigError(f"backend file {path}: not valid YAML ({exc})") from exc
    if not isinstance(raw, dict):
        raise ConfigError(f"backend file {path}: expected a mapping (name, database, server)")
    try:
        config = BackendConfig.model_validate({**raw, "root": path.resolve().parent})
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        field = ".".join(str(p) for p in err["loc"]) or "(file)"
        raise ConfigError(f"backend file {path}: {field}: {err['msg']}") from None
    return config
