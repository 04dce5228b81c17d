"""``statebox tasks validate`` and ``statebox tasks list``."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from statebox.cli._app import SUITE_HELP, DomainOption, err_console, handled, tasks_app
from statebox.cli._commands import _registry, out_console, selected_suites
from statebox.errors import ConfigError

JobsOption = Annotated[
    int | None,
    typer.Option(
        "--jobs", "-j", min=1, help="Worker processes for validation (default: one per CPU)."
    ),
]
CacheOption = Annotated[
    Path | None,
    typer.Option(
        help="Cache of per-task validation results (default: ~/.cache/statebox/validate)."
    ),
]
NoCacheOption = Annotated[
    bool, typer.Option("--no-cache", help="Validate every task again; read no cache.")
]


def _select(suite: str | None, path: Path | None, domain_refs: list[str] | None) -> Any:
    from statebox.tasks import load_tasks

    registry = _registry(domain_refs)
    if suite is not None and path is not None:
        raise ConfigError("give --suite or a PATH, not both")
    if path is not None:
        tasks, where = load_tasks(path), str(path)
    else:
        refs = selected_suites(registry, suite, given=False) or registry.resolve_suites("all")
        tasks = registry.suites(refs)
        names = ", ".join(str(r) for r in refs)
        where = f"suite {names} ({registry.suite_label(refs[0])})"
        label = registry.suite_label(refs[0])
        err_console.print(f"suite {names}: {len(tasks)} tasks ({label})", highlight=False)
    if not tasks:
        # Zero tasks pass every check: an empty or comment-only file, or an empty folder,
        # must not look like a suite that validated.
        raise ConfigError(f"{where}: no tasks found (empty files, or no .yaml/.yml files)")
    return registry, tasks


def run_validation(
    registry: Any, tasks: list[Any], jobs: int | None, cache: Path | None, no_cache: bool
) -> list[Any]:
    """Validate tasks with progress on stderr and a closing timing line."""
    from statebox.cli._progress import CountProgress
    from statebox.judge import default_cache_dir, validate_suite

    domains = {n: registry.domain(n) for n in sorted({t.domain for t in tasks})}
    workers = jobs or os.cpu_count() or 1
    folder = None if no_cache else (cache or default_cache_dir())
    progress = CountProgress(err_console, "validating tasks", len(tasks))
    counts = {"invalid": 0, "cached": 0}

    def step(v: Any, cached: bool) -> None:
        counts["invalid"] += not v.ok
        counts["cached"] += cached
        progress.advance(f"invalid {counts['invalid']}, from cache {counts['cached']}")

    t0 = time.perf_counter()
    try:
        results, cached = validate_suite(domains, tasks, jobs=workers, cache=folder, progress=step)
    finally:
        progress.finish()
    err_console.print(
        f"validated {len(results)} tasks in {time.perf_counter() - t0:.1f} s "
        f"({cached} from the cache{'' if folder is None else f' in {folder}'}; "
        f"{min(workers, len(results) or 1)} worker process(es))",
        highlight=False,
    )
    return list(results)


def _call_level(registry: Any, tasks: list[Any], max_alter: int) -> list[Any]:
    """The call-level mutants of every task (``--call-level``), in this process."""
    import asyncio

    from statebox.judge import Judge
    from statebox.judge._call_mutants import domain_call_mutants
    from statebox.tasks import WorldCache

    worlds = WorldCache()
    judges: dict[str, Any] = {}
    out: list[Any] = []

    async def go() -> None:
        for t in tasks:
            d = registry.domain(t.domain)
            judge = judges.setdefault(d.name, Judge(d, worlds))
            out.extend(await domain_call_mutants(d, t, judge, max_alter_per_call=max_alter))

    asyncio.run(go())
    return out


def _task_json(v: Any) -> dict[str, Any]:
    return {
        "task_id": v.task_id,
        "split": v.split,
        "ok": v.ok,
        "problems": list(v.problems),
        "check_strength": v.check_strength,
        "caught": v.caught,
        "survived": v.survived,
        "equivalent": v.equivalent,
        "excluded_only": v.excluded_only,
        "text_mutants": v.text_mutants,
        "probes": len(v.probes),
        "rejected": v.rejected,
        "false_rejection_rate": v.false_rejection_rate,
        "baselines": v.baselines,
        "mutants": [m.model_dump() for m in v.mutants],
        "alternatives": [p.model_dump() for p in v.probes],
    }


def _why(v: Any) -> str:
    parts = list(v.problems)
    parts += [f"survived: {m.kind} {m.description}" for m in v.mutants if m.outcome == "survived"]
    parts += [
        f"rejected: {p.kind} {p.description} ({'; '.join(p.rejected_by)})"
        for p in v.probes
        if p.outcome == "rejected"
    ]
    return "; ".join(parts)


@tasks_app.command("validate")
@handled
def validate(
    path: Annotated[Path | None, typer.Argument(help="Task file or folder.")] = None,
    suite: Annotated[str | None, typer.Option(help=SUITE_HELP)] = None,
    domain: DomainOption = None,
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
    jobs: JobsOption = None,
    cache: CacheOption = None,
    no_cache: NoCacheOption = False,
) -> None:
    """Validate tasks: golden replay, oracle, noop and refuse agents, mutants, alternatives.

    Exits 1 when any task is invalid: a problem, a surviving mutant (one touching only
    an excluded column included) or a rejected plausible alternative. With --thinkingbox:
    call-level mutants through the dataset's servers, strength per domain and operator
    and survivors by field; exits 1 only when a task could not be judged.
    """
    from statebox.report import CheckStrength, strength_lines

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
    call_results: list[Any] = []
    if backend:
        from statebox.cli._backends import validate_backend_tasks

        if suite is not None:
            raise ConfigError("give --backend or --suite, not both")
        if call_level or jobs is not None or cache is not None:
            raise ConfigError(
                "--call-level, --jobs and --cache are for statebox's own domains, not "
                "--backend files"
            )
        results = [v for _, v in validate_backend_tasks(backend, path, postgres_url)]
    else:
        if postgres_url is not None:
            raise ConfigError("--postgres-url is for --backend files")
        registry, tasks = _select(suite, path, domain)
        results = run_validation(registry, tasks, jobs, cache, no_cache)
        if call_level:
            call_results = _call_level(registry, tasks, max_alter)
    total = CheckStrength.of(results)
    bad = [v for v in results if not v.ok]
    if json_out:
        typer.echo(
            json.dumps(
                {
                    "tasks": len(results),
                    "invalid": len(bad),
                    "check_strength": total.strength,
                    "caught": total.caught,
                    "survived": total.survived,
                    "equivalent": total.equivalent,
                    "excluded_only": total.excluded_only,
                    "excluded_only_survived": total.excluded_only_survived,
                    "text_mutants": total.text_mutants,
                    "probes": total.probes,
                    "rejected": total.rejected,
                    "false_rejection_rate": total.false_rejection_rate,
                    "floors": [{**f.model_dump(), "pass_at_1": f.pass_at_1} for f in total.floors],
                    **(
                        {"call_level_mutants": [m.model_dump() for m in call_results]}
                        if call_level
                        else {}
                    ),
                    "results": [_task_json(v) for v in results],
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
            "text mutants",
            "false rejection",
            "noop / refuse",
            "problems",
        ):
            table.add_column(col)
        for v in results:
            s = "—" if v.check_strength is None else f"{v.check_strength:.0%}"
            fr = "—" if v.false_rejection_rate is None else f"{v.rejected}/{len(v.probes)}"
            floors = " / ".join(
                "PASSES" if v.baselines.get(a) else "fails" for a in ("noop", "refuse")
            )
            table.add_row(
                v.task_id,
                "yes" if v.ok else "NO",
                s,
                str(v.caught),
                str(v.survived),
                str(v.text_mutants),
                fr,
                floors if v.baselines else "not run",
                _why(v),
            )
        out_console.print(table)
        for line in strength_lines(total):
            out_console.print(line, highlight=False)
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
    suite: Annotated[str | None, typer.Option(help=SUITE_HELP)] = None,
    domain: DomainOption = None,
) -> None:
    """List tasks: id, domain, family, split, golden calls."""
    _, tasks = _select(suite, path, domain)
    table = Table(title=f"{len(tasks)} tasks")
    for col in ("id", "domain", "family", "split", "golden calls", "read-only"):
        table.add_column(col)
    for t in tasks:
        table.add_row(
            t.id, t.domain, t.family, t.split, str(len(t.golden)), "yes" if t.read_only else ""
        )
    out_console.print(table)
