"""``statebox domain new`` and ``statebox domain check``: your own domain."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Annotated

import typer

from statebox.cli._app import app, err_console, handled
from statebox.cli._commands import out_console

domain_app = typer.Typer(help="Scaffold and lint your own domain.", no_args_is_help=True)
app.add_typer(domain_app, name="domain")


@domain_app.command("new")
@handled
def new(
    name: Annotated[str, typer.Argument(help="Domain name: a lowercase identifier.")],
    directory: Annotated[
        Path | None, typer.Option("--dir", help="Where the project goes (default: ./NAME).")
    ] = None,
) -> None:
    """Write a pip-installable domain package: schema, seed, tools, policy, three tasks, a test."""
    from statebox.scaffold import new_domain

    target = directory if directory is not None else Path(name)
    written = new_domain(name, target)
    for path in written:
        out_console.print(f"wrote {path}", highlight=False)
    where = shlex.quote(str(target))
    for line in (
        "next:",
        f"  pip install -e {where}",
        f"  statebox domain check {name}",
        f"  statebox tasks validate --domain {name}",
        f"  statebox run --domain {name} --agent oracle",
    ):
        err_console.print(line, highlight=False, soft_wrap=True)


@domain_app.command("check")
@handled
def check(
    ref: Annotated[
        str,
        typer.Argument(
            help="The domain: an installed domain's name, module, module:ATTR or file.py[:ATTR]."
        ),
    ],
) -> None:
    """Lint a domain: tool docs and types, mutating flags (probed), keys, field policy, policy.

    Exits 1 on a finding, one line each.
    """
    from statebox.registry import resolve_domain_ref
    from statebox.scaffold import check_domain

    domain, _ = resolve_domain_ref(ref)
    result = check_domain(domain)
    for line in result.lines():
        out_console.print(line, highlight=False, soft_wrap=True)
    for note in result.notes:
        err_console.print(f"note: domain {result.domain}: {note}", highlight=False, soft_wrap=True)
    if result.unprobed:
        probed = f"{len(domain.tools)} tools not probed: {result.unprobed}"
    else:
        probed = (
            f"{len(domain.tools)} tools probed with {result.probe_calls} calls on seeded worlds, "
            f"{result.golden_calls} golden calls replayed"
            + (" — the probes made every mutating tool write" if result.seed_wrote_all else "")
        )
    err_console.print(
        f"domain {result.domain}: {len(result.findings)} findings, {len(result.notes)} notes "
        f"({probed})",
        highlight=False,
        soft_wrap=True,
    )
    if result.findings:
        raise typer.Exit(1)
