"""The ThinkingBox dataset options as typer parameter types, for the commands that take them.

``statebox serve`` declares its dataset options with these (``run`` still spells its
own out, with the same names, defaults and help).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

__all__ = [
    "CheckTimeout",
    "DropSources",
    "ForkServer",
    "HideTool",
    "ServerPython",
    "TbServers",
    "TestList",
    "TestName",
    "ToolTimeout",
    "TypesenseUrl",
    "WarmPool",
]

_PANEL = "ThinkingBox datasets"

TestList = Annotated[
    Path | None,
    typer.Option(
        help="ThinkingBox test list (YAML list of FILE.py:FUNCTION).", rich_help_panel=_PANEL
    ),
]
TestName = Annotated[
    list[str] | None,
    typer.Option(
        "--test",
        help="One ThinkingBox test, FILE.py:FUNCTION (repeatable).",
        rich_help_panel=_PANEL,
    ),
]
TbServers = Annotated[
    Path | None,
    typer.Option(
        help="Servers YAML (default: DATASET/../servers/servers.yaml).", rich_help_panel=_PANEL
    ),
]
ServerPython = Annotated[
    str | None,
    typer.Option(
        help="Python for the servers' {python} (default: this one).", rich_help_panel=_PANEL
    ),
]
DropSources = Annotated[
    bool,
    typer.Option(
        help="No search service: drop knowledge-base sources, hide the policy search.",
        rich_help_panel=_PANEL,
    ),
]
HideTool = Annotated[
    list[str] | None,
    typer.Option(help="Tool to hide from agents (repeatable).", rich_help_panel=_PANEL),
]
WarmPool = Annotated[
    int,
    typer.Option(
        min=0,
        max=64,
        help="Server processes kept started per server (0: start each on demand).",
        rich_help_panel=_PANEL,
    ),
]
CheckTimeout = Annotated[
    float,
    typer.Option(
        min=1.0, max=3600.0, help="Seconds one check function may run.", rich_help_panel=_PANEL
    ),
]
TypesenseUrl = Annotated[
    str | None,
    typer.Option(
        help="Index knowledge-base sources in this Typesense (http://HOST:PORT) instead of "
        "statebox's built-in search service (key: $STATEBOX_TYPESENSE_API_KEY, else the "
        "servers file's).",
        rich_help_panel=_PANEL,
    ),
]
ForkServer = Annotated[
    bool,
    typer.Option(
        "--fork-server/--no-fork-server",
        help="Fork each episode's fresh server processes from one pre-imported parent per "
        "server (servers that cannot be forked start plainly).",
        rich_help_panel=_PANEL,
    ),
]
ToolTimeout = Annotated[
    float,
    typer.Option(
        min=1.0, max=3600.0, help="Seconds one server tool call may take.", rich_help_panel=_PANEL
    ),
]
