"""The ``statebox`` command line (typer).

Commands import their machinery lazily so ``statebox --help`` stays fast.
"""

from statebox.cli import _commands, _tasks  # noqa: F401  (registers the commands)
from statebox.cli._app import app, main

__all__ = ["app", "main"]
