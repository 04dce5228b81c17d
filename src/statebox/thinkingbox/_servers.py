"""The servers file of a ThinkingBox dataset: which command starts which MCP server.

A servers YAML maps server names to launch specs under ``servers:``. Only
``type: mcp-process`` entries (a stdio MCP server started as a child process) can run
here; the others are kept by name so that a scenario needing one fails with a message
that says so, not with "unknown server". Placeholders: ``{python}`` in a command item
becomes the interpreter chosen for the servers (they often need their own venv).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from statebox._model import Model
from statebox.errors import ConfigError

__all__ = ["ServerSpec", "ServerSpecs", "load_servers"]


class ServerSpec(Model):
    """How to start one stdio MCP server process."""

    name: str
    """Server name (the key under ``servers:``; ``init.<name>`` in test files)."""
    command: tuple[str, ...]
    """Executable and arguments, placeholders already replaced."""
    env: dict[str, str] = {}
    """Variables set for the child on top of this process's environment."""
    cwd: Path | None = None
    """Working directory of the child (absolute), or None for ours."""
    python: str | None = None
    """The interpreter that replaced a leading ``{python}`` (None: the command starts
    with something else); such a server can be run through statebox's launcher (fork
    server, search redirect)."""


class ServerSpecs(dict[str, ServerSpec]):
    """Runnable (``mcp-process``) servers by name, remembering the servers that are not.

    Args:
        path: The servers file they came from (for messages).
        servers: Runnable servers by name.
        unsupported: Other servers' names → their ``type``.
    """

    def __init__(
        self, path: Path, servers: dict[str, ServerSpec], unsupported: dict[str, str]
    ) -> None:
        super().__init__(servers)
        self.path = path
        self.unsupported = dict(unsupported)

    def require(self, name: str) -> ServerSpec:
        """The spec of server ``name``.

        Raises:
            ConfigError: The file lacks it, or declares it with a type other than
                ``mcp-process`` (the message names the type).
        """
        spec = self.get(name)
        if spec is not None:
            return spec
        if name in self.unsupported:
            raise _fail(
                self.path,
                name,
                f"type {self.unsupported[name]!r} cannot run here; only `mcp-process` "
                "servers (stdio MCP child processes) are supported",
            )
        raise _fail(self.path, name, f"no such server (it declares {sorted(self)})")


def _fail(path: Path, name: str | None, reason: str) -> ConfigError:
    where = f"{path}" + (f", server {name!r}" if name else "")
    return ConfigError(f"servers file {where}: {reason}")


def _spec(path: Path, name: str, entry: dict[str, Any], python: str) -> ServerSpec:
    command = entry.get("command")
    if not isinstance(command, list) or not command or not all(isinstance(c, str) for c in command):
        raise _fail(path, name, "`command` must be a non-empty list of strings")
    env = entry.get("env") or {}
    if not isinstance(env, dict):
        raise _fail(path, name, "`env` must be a mapping of names to values")
    cwd_raw = entry.get("cwd")
    if cwd_raw is not None and not isinstance(cwd_raw, str):
        raise _fail(path, name, "`cwd` must be a string path")
    cwd = None
    if cwd_raw is not None:
        cwd = Path(cwd_raw).expanduser()
        if not cwd.is_absolute():
            cwd = (path.parent / cwd).resolve()
    return ServerSpec(
        name=name,
        command=tuple(c.replace("{python}", python) for c in command),
        # YAML may read `1` or `true` for a variable; the child's environment wants text.
        env={str(k): "" if v is None else str(v) for k, v in env.items()},
        cwd=cwd,
        python=python if command[0] == "{python}" else None,
    )


def load_servers(path: Path, *, python: str) -> ServerSpecs:
    """Read a ThinkingBox servers YAML.

    Args:
        path: The servers file (``servers:`` mapping of name → entry with ``type``,
            ``command``, optional ``env`` and ``cwd``).
        python: Interpreter that replaces ``{python}`` in command items (the servers'
            own venv, typically).

    Returns:
        The runnable servers by name (a dict); its ``unsupported`` attribute maps the
        other servers to their type and `ServerSpecs.require` names the problem when a
        scenario needs one of them.

    Raises:
        ConfigError: The file is missing or not YAML, has no ``servers:`` mapping, or an
            ``mcp-process`` entry lacks a valid ``command`` (the message names file and
            server).
    """
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise _fail(path, None, f"cannot read it ({exc.strerror or exc})") from exc
    except yaml.YAMLError as exc:
        raise _fail(path, None, f"not valid YAML ({exc})") from exc
    servers = raw.get("servers") if isinstance(raw, dict) else None
    if not isinstance(servers, dict):
        raise _fail(path, None, "expected a `servers:` mapping of server names to entries")
    runnable: dict[str, ServerSpec] = {}
    unsupported: dict[str, str] = {}
    for name, entry in servers.items():
        if not isinstance(entry, dict):
            raise _fail(path, str(name), "entry must be a mapping")
        kind = entry.get("type")
        if kind != "mcp-process":
            unsupported[str(name)] = str(kind)
            continue
        runnable[str(name)] = _spec(path, str(name), entry, python)
    return ServerSpecs(path, runnable, unsupported)
