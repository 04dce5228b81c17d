"""Importing ``openenv`` by halves: the client side without the server, the server without gradio.

``openenv.core``'s package ``__init__`` imports its whole server side
(``openenv.core.env_server``: FastAPI, FastMCP) and that package's ``__init__`` imports
the gradio web UI eagerly — about 9 s of a 12–14 s import, paid by every ``statebox
serve`` and by every program that only wants the WebSocket client. statebox serves no
web UI, and a client needs none of the server.

- `client_side` registers ``openenv.core`` and ``openenv.core.env_server`` as packages
  whose ``__init__`` has not run yet, so their leaf modules (``env_client``,
  ``mcp_client``, ``env_server.types`` ...) import alone. The first lookup of a name the
  ``__init__`` defines (``from openenv.core import GenericEnvClient``) runs it then, so
  other code importing openenv sees the package it expects.
- `server_side` imports the server's leaf modules (``http_server``, ``interfaces``,
  ``mcp_types``, ``types``) without running ``openenv.core.env_server``'s ``__init__``,
  and defers ``mcp_environment`` the same way: it imports FastMCP and its client (about
  1.6 s), which only an environment built on openenv's ``MCPEnvironment`` uses, and
  statebox's is not. ``http_server`` takes one name from it, ``get_server_tools``,
  called only for such an environment: a stand-in that loads the real module first.
  Whenever the package ``__init__`` does run (a program's own ``from
  openenv.core.env_server import ...``), gradio is marked absent for the duration:
  openenv's own ``except ModuleNotFoundError`` around its web interface then leaves it
  out (``create_web_interface_app`` is None). The mark is removed afterwards, so a
  program that imports gradio itself still can.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
from types import ModuleType
from typing import Any

__all__ = ["client_side", "server_side"]

_DEFERRED = ("openenv.core", "openenv.core.env_server")
_MCP_ENVIRONMENT = "openenv.core.env_server.mcp_environment"
_SERVER_MODULES = ("interfaces", "mcp_types", "types", "serialization", "http_server")
"""The leaf modules statebox's OpenEnv server uses (``openenv.core.env_server.*``)."""
_LOCK = threading.RLock()


def _run_init(module: ModuleType) -> None:
    """Run a deferred package's own ``__init__`` (once), gradio left out."""
    with _LOCK:
        if module.__dict__.pop("__getattr__", None) is None:
            return  # already run (or never deferred)
        spec = module.__spec__
        assert spec is not None and spec.loader is not None  # set by _defer
        with _without("gradio"):
            spec.loader.exec_module(module)


def _defer(name: str, **names: Any) -> ModuleType:
    """Register ``name`` as a module whose code runs on the first lookup of a missing name.

    ``names`` are set on it now (stand-ins its code replaces when it runs).
    """
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    module = importlib.util.module_from_spec(spec)
    module.__dict__.update(names)

    def deferred_getattr(attr: str) -> Any:
        if attr.startswith("__") and attr != "__all__":
            raise AttributeError(attr)  # probes (copy, pickle, inspect) need no init
        _run_init(module)
        return getattr(module, attr)

    module.__getattr__ = deferred_getattr  # type: ignore[method-assign]
    sys.modules[name] = module
    parent, _, child = name.rpartition(".")
    setattr(sys.modules[parent], child, module)
    return module


def _get_server_tools(*args: Any, **kwargs: Any) -> Any:
    """``mcp_environment.get_server_tools``, its module (and FastMCP) loaded on first call."""
    module = sys.modules[_MCP_ENVIRONMENT]
    _run_init(module)
    return module.get_server_tools(*args, **kwargs)


class _without:
    """Mark a top-level module absent (``import`` raises ModuleNotFoundError) for a block."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.marked = False

    def __enter__(self) -> None:
        if self.name not in sys.modules:
            sys.modules[self.name] = None  # type: ignore[assignment]
            self.marked = True

    def __exit__(self, *exc: object) -> None:
        if self.marked and sys.modules.get(self.name, False) is None:
            del sys.modules[self.name]


def client_side() -> None:
    """Make openenv's client modules importable without its server side (idempotent).

    Raises:
        ModuleNotFoundError: openenv is not installed.
    """
    with _LOCK:
        import openenv  # the top package is light (its names resolve lazily)

        del openenv
        for name in _DEFERRED:
            if name not in sys.modules:
                _defer(name)


def server_side() -> ModuleType:
    """The HTTP/WebSocket server module of openenv, without gradio and without FastMCP.

    Returns:
        ``openenv.core.env_server.http_server``.

    Raises:
        ModuleNotFoundError: openenv is not installed.
    """
    with _LOCK:
        client_side()
        if _MCP_ENVIRONMENT not in sys.modules:
            _defer(_MCP_ENVIRONMENT, get_server_tools=_get_server_tools)
        with _without("gradio"):
            for leaf in _SERVER_MODULES:
                module = importlib.import_module(f"openenv.core.env_server.{leaf}")
        return module
