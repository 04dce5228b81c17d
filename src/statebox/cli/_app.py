"""The typer app: each command builds `Settings`, calls one library function, prints.

Exit codes: 0 ok, 1 a `StateboxError` (message, no traceback), 2 usage, 130 interrupt.
Data goes to stdout; progress and diagnostics go to stderr.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from enum import StrEnum
from functools import wraps
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.text import Text

from statebox.errors import StateboxError

__all__ = [
    "DOMAIN_HELP",
    "SUITE_HELP",
    "CampaignDomainOption",
    "DomainOption",
    "PolicyModeOption",
    "app",
    "err_console",
    "main",
]

SUITE_HELP = (
    "Built-in suite: all, train, DOMAIN or DOMAIN:train, optionally @VERSION (all@1.0, "
    "train@2.0; default version: the newest every built-in domain ships; docs/suites.md)."
)
"""The help of every ``--suite`` option."""

DOMAIN_HELP = (
    "Domain: module:ATTR, path/to/file.py[:ATTR], an importable module (its DOMAIN) or an "
    "installed domain's name (repeatable)."
)
"""The help of every ``--domain`` option."""

DomainOption = Annotated[
    list[str] | None,
    typer.Option(
        "--domain",
        help=DOMAIN_HELP + " Without --suite, --tasks or a PATH: the named domains' own tasks.",
    ),
]
"""``--domain`` of a command that selects tasks (the selection rule: docs/suites.md)."""

CampaignDomainOption = Annotated[
    list[str] | None,
    typer.Option("--domain", help=DOMAIN_HELP + " Default: the campaign's own, from its manifest."),
]
"""``--domain`` of a command that reads a campaign (its manifest names its domains)."""

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
# Data (task ids, agent text, paths) is printed, never interpreted: no markup, no emoji
# codes (an agent's "[/INST]" or a path with ":100:" must come out as written).
err_console = Console(
    stderr=True,
    markup=False,
    emoji=False,
    highlight=False,
    width=None if sys.stderr.isatty() else 200,
)
F = TypeVar("F", bound=Callable[..., Any])


class PolicyModeOption(StrEnum):
    """``--policy-mode``: how the policy reaches the agent (`statebox.kit.PolicyMode`)."""

    prompt = "prompt"
    search = "search"
    both = "both"


def handled(fn: F) -> F:
    """Turn `StateboxError` into exit 1 with its message, Ctrl-C into 130."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("default")
                # Unclosed-stream notices from libraries' garbage (an MCP client's
                # streams after its server was killed) are nothing a user can act on.
                warnings.simplefilter("ignore", ResourceWarning)
                try:
                    return fn(*args, **kwargs)
                finally:
                    for w in caught:
                        err_console.print(f"warning: {w.message}", style="yellow")
        except StateboxError as exc:
            # One line, however long: scripts grep it, and a wrapped path is two.
            err_console.print(Text.assemble(("error:", "red"), f" {exc}"), soft_wrap=True)
            raise typer.Exit(1) from None
        except KeyboardInterrupt:
            err_console.print("interrupted; resume with --resume")
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]


def main() -> None:
    """Console-script entry point."""
    sys.exit(app())
