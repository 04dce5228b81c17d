"""``statebox tasks validate`` and ``statebox tasks list``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from statebox.cli._app import err_console, handled, tasks_app
from statebox.cli._commands import _registry, out_console
from statebox.errors import ConfigError


def _select(suite: str | None, path: Path | None, domain_refs: list[str] | None) -> Any:
    from statebox.tasks import load_tasks

    registry = _registry(domain_refs)
    if suite is not None and path is not None:
        raise ConfigError("give --suite or a PATH, not both")
    tasks = load_tasks(path) if path is not None else registry.suite(suite or "all")
    if not tasks:
        # Zero tasks pass every check: an empty or comment-only file, or an empty folder,
        # must not look like a suite that validated.
        where = str(path) if path is not None else f"suite {suite or 'all'}"
        raise ConfigError(f"{where}: no tasks found (empty files, or no .yaml/.yml files)")
    return registry, tasks


@tasks_app.command("validate")
@handled
def validate(
    path: Annotated[Path | None, typer.Argument(help="Task file or folder.")] = None,
    suite: Annotated[str | None, typer.Option(help="Built-in suite (domain or 'all').")] = None,
    domain: Annotated[
        list[str] | None, typer.Option(help="Extra domain as module:ATTR or file.py:ATTR.")
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print results as JSON.")] = False,
    backend: Annotated[
        list[Path] | None,
        typer.Option(
            help="Backend file: validate its tasks (or PATH's) on its own MCP server and "
            "database (repeatable)."
        ),
    ] = None,
    postgres_url: Annotated[
        str | None,
        typer.Option(help="PostgreSQL server for postgres backends (default: a throwaway one)."),
    ] = None,
    call_level: Annotated[
        bool,
        typer.Option(
            "--call-level",
            help="Also run the call-level mutants (drop / alter / repeat a golden write) "
            "and print their strength: the operators --thinkingbox uses.",
        ),
    ] = False,
    thinkingbox: Annotated[
        Path | None,
        typer.Option(
            help="Mutation-test a ThinkingBox dataset (call-level mutants through its own "
            "servers) instead of statebox tasks.",
            rich_help_panel="ThinkingBox datasets",
        ),
    ] = None,
    test_list: Annotated[
        Path | None,
        typer.Option(help="ThinkingBox test list.", rich_help_panel="ThinkingBox datasets"),
    ] = None,
    test: Annotated[
        list[str] | None,
        typer.Option(
            help="One ThinkingBox test, FILE.py:FUNCTION (repeatable).",
            rich_help_panel="ThinkingBox datasets",
        ),
    ] = None,
    tb_servers: Annotated[
        Path | None,
        typer.Option(help="Servers YAML.", rich_help_panel="ThinkingBox datasets"),
    ] = None,
    server_python: Annotated[
        str | None,
        typer.Option(help="Python for {python}.", rich_help_panel="ThinkingBox datasets"),
    ] = None,
    concurrency: Annotated[
        int,
        typer.Option(min=1, help="Trials in flight.", rich_help_panel="ThinkingBox datasets"),
    ] = 4,
    max_alter: Annotated[
        int,
        typer.Option(
            min=0, help="Most alter mutants per golden write (spread over its argument leaves)."
        ),
    ] = 3,
) -> None:
    """Validate tasks: schema, golden replay, oracle, do-nothing agent, mutants.

    Exits 1 when any task is invalid or any real mutant survives. With --thinkingbox:
    call-level mutants through the dataset's servers, strength per domain and operator
    and survivors by field; exits 1 only when a task could not be judged.
    """
    from statebox.judge import Judge, validate_task
    from statebox.tasks import WorldCache

    if thinkingbox is not None:
        from statebox.cli._tb_validate import run_tb_validate
        from statebox.cli._thinkingbox import TbOptions

        options = TbOptions.build(
            thinkingbox, test_list=test_list, names=test, servers=tb_servers,
            server_python=server_python, drop_sources=False, hidden_tools=None, warm=0,
            check_timeout_s=60.0,
        )  # fmt: skip
        run_tb_validate(options, concurrency=concurrency, max_alter=max_alter, json_out=json_out)
        return
    results: list[Any] = []
    call_results: list[Any] = []
    if backend:
        from statebox.cli._backends import validate_backend_tasks

        if suite is not None:
            raise ConfigError("give --backend or --suite, not both")
        results = validate_backend_tasks(backend, path, postgres_url)
    else:
        if postgres_url is not None:
            raise ConfigError("--postgres-url is for --backend files")
        registry, tasks = _select(suite, path, domain)
        worlds = WorldCache()
        judges: dict[str, Judge] = {}

        async def go() -> None:
            from statebox.judge._call_mutants import domain_call_mutants

            for t in tasks:
                d = registry.domain(t.domain)
                judge = judges.setdefault(d.name, Judge(d, worlds))
                results.append((t, await validate_task(d, t, judge)))
                if call_level:
                    call_results.extend(
                        await domain_call_mutants(d, t, judge, max_alter_per_call=max_alter)
                    )

        asyncio.run(go())
    bad = [v for _, v in results if not v.ok]
    caught = sum(v.caught for _, v in results)
    survived = sum(v.survived for _, v in results)
    excluded = sum(v.excluded for _, v in results)
    strength = caught / (caught + survived) if caught + survived else None
    if json_out:
        typer.echo(
            json.dumps(
                {
                    "tasks": len(results),
                    "invalid": len(bad),
                    "check_strength": strength,
                    "caught": caught,
                    "survived": survived,
                    "excluded": excluded,
                    **(
                        {"call_level_mutants": [m.model_dump() for m in call_results]}
                        if call_level
                        else {}
                    ),
                    "results": [
                        {
                            "task_id": v.task_id,
                            "ok": v.ok,
                            "problems": list(v.problems),
                            "check_strength": v.check_strength,
                            "caught": v.caught,
                            "survived": v.survived,
                            "excluded": v.excluded,
                            "mutants": [m.model_dump() for m in v.mutants],
                        }
                        for _, v in results
                    ],
                },
                indent=2,
            )
        )
    else:
        table = Table(title=f"task validation: {len(results)} tasks")
        for col in (
            "task",
            "valid",
            "check strength",
            "caught",
            "survived",
            "excluded (field policy)",
            "problems",
        ):
            table.add_column(col)
        for _, v in results:
            s = "—" if v.check_strength is None else f"{v.check_strength:.0%}"
            problems = "; ".join(v.problems) + "".join(
                f"; survived: {m.kind} {m.description}"
                for m in v.mutants
                if m.outcome == "survived"
            )
            table.add_row(
                v.task_id,
                "yes" if v.ok else "NO",
                s,
                str(v.caught),
                str(v.survived),
                str(v.excluded),
                problems.lstrip("; "),
            )
        out_console.print(table)
        reasons = sorted({m.reason for _, v in results for m in v.mutants if m.reason})
        suite_strength = "—" if strength is None else f"{strength:.1%}"
        out_console.print(
            f"check strength over the suite: {suite_strength} ({caught} caught, {survived} "
            f"survived; {excluded} touched only excluded fields"
            + (f": {'; '.join(reasons)}" if reasons else "")
            + ")"
        )
    if call_level and not json_out:
        from statebox.cli._tb_validate import print_call_level

        print_call_level(call_results, f"{len(results)} statebox tasks")
    if bad:
        err_console.print(f"{len(bad)} of {len(results)} task(s) invalid", style="red")
        raise typer.Exit(1)


@tasks_app.command("list")
@handled
def list_tasks(
    path: Annotated[Path | None, typer.Argument(help="Task file or folder.")] = None,
    suite: Annotated[str | None, typer.Option(help="Built-in suite (domain or 'all').")] = None,
) -> None:
    """List tasks: id, domain, family, split, golden calls."""
    _, tasks = _select(suite, path, None)
    table = Table(title=f"{len(tasks)} tasks")
    for col in ("id", "domain", "family", "split", "golden calls", "read-only"):
        table.add_column(col)
    for t in tasks:
        table.add_row(
            t.id, t.domain, t.family, t.split, str(len(t.golden)), "yes" if t.read_only else ""
        )
    out_console.print(table)
