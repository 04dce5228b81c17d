"""The typer app: each command builds `Settings`, calls one library function, prints.

Exit codes: 0 ok, 1 a `StateboxError` (message, no traceback), 2 usage, 130 interrupt.
Data goes to stdout; progress and diagnostics go to stderr.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

import typer
from rich.console import Console

from statebox.errors import StateboxError

__all__ = ["app", "err_console", "main"]

app = typer.Typer(
    name="statebox",
    help="Grade business AI agents by the database they leave behind, every time.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
tasks_app = typer.Typer(help="Inspect and validate tasks.", no_args_is_help=True)
app.add_typer(tasks_app, name="tasks")

# Off a terminal rich wraps at 80 columns, splitting messages that tools grep for.
err_console = Console(stderr=True, width=None if sys.stderr.isatty() else 200)
F = TypeVar("F", bound=Callable[..., Any])


def handled(fn: F) -> F:
    """Turn `StateboxError` into exit 1 with its message, Ctrl-C into 130."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except StateboxError as exc:
            err_console.print(f"[red]error:[/red] {exc}", markup=True, highlight=False)
            raise typer.Exit(1) from None
        except KeyboardInterrupt:
            err_console.print("interrupted; resume with --resume")
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]


def main() -> None:
    """Console-script entry point."""
    sys.exit(app())
