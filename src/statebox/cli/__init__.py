"""The ``statebox`` command line (typer).

Commands import their machinery lazily so ``statebox --help`` stays fast.
"""

import statebox.cli._compare  # noqa: F401  (registers `compare`)
from statebox.cli import (  # noqa: F401  (registers the commands)
    _ablate,
    _author,
    _card,
    _commands,
    _domain,
    _play,
    _serve,
    _tasks,
    _verify,
)
from statebox.cli._app import app, main

__all__ = ["app", "main"]
