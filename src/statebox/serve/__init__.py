"""Serving episodes to outside programs: MCP gateway, control API, OpenEnv, BYO agents.

Names resolve lazily so that ``import statebox.serve`` loads neither the ``mcp`` SDK
nor ``openenv`` until one is used (``openenv`` is the optional ``rl`` extra).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from statebox.serve._app import BackgroundServer, ServeApp
    from statebox.serve._byo import (
        PROTOCOL,
        AgentTurnRequest,
        AgentTurnResponse,
        HttpAgentFactory,
        McpEndpoint,
    )
    from statebox.serve._gateway import MAX_BODY_BYTES, McpGateway
    from statebox.serve._openenv import OpenEnvServer, StateboxEnvironment
    from statebox.serve._openenv_types import (
        StateboxAction,
        StateboxEnvClient,
        StateboxObservation,
        StateboxState,
    )
    from statebox.serve._sessions import (
        Session,
        SessionStore,
        TaskCatalog,
        is_reserved_name,
    )

__all__ = [
    "MAX_BODY_BYTES",
    "PROTOCOL",
    "AgentTurnRequest",
    "AgentTurnResponse",
    "BackgroundServer",
    "HttpAgentFactory",
    "McpEndpoint",
    "McpGateway",
    "OpenEnvServer",
    "ServeApp",
    "Session",
    "SessionStore",
    "StateboxAction",
    "StateboxEnvClient",
    "StateboxEnvironment",
    "StateboxObservation",
    "StateboxState",
    "TaskCatalog",
    "is_reserved_name",
]

_WHERE = {
    "BackgroundServer": "_app",
    "ServeApp": "_app",
    "PROTOCOL": "_byo",
    "AgentTurnRequest": "_byo",
    "AgentTurnResponse": "_byo",
    "HttpAgentFactory": "_byo",
    "McpEndpoint": "_byo",
    "MAX_BODY_BYTES": "_gateway",
    "McpGateway": "_gateway",
    "OpenEnvServer": "_openenv",
    "StateboxEnvironment": "_openenv",
    "StateboxAction": "_openenv_types",
    "StateboxEnvClient": "_openenv_types",
    "StateboxObservation": "_openenv_types",
    "StateboxState": "_openenv_types",
    "Session": "_sessions",
    "SessionStore": "_sessions",
    "TaskCatalog": "_sessions",
    "is_reserved_name": "_sessions",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'statebox.serve' has no attribute {name!r}")
    value = getattr(import_module(f"statebox.serve.{module}"), name)
    globals()[name] = value
    return value
