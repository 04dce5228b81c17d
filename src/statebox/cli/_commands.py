"""``statebox run``, ``report``, ``show`` and ``schema``."""

from __future__ import annotations

import asyncio
import json
import sys
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from statebox.cli._app import app, err_console, handled
from statebox.errors import ConfigError, StateboxError

# Off a terminal rich assumes 80 columns, which folds task ids; logs can be wider.
out_console = Console(highlight=False, width=None if sys.stdout.isatty() else 160)


class Format(StrEnum):
    """Report formats."""

    table = "table"
    json = "json"


def _registry(domain_refs: list[str] | None) -> Any:
    from statebox.registry import default_registry, load_domain_ref

    registry = default_registry()
    for ref in domain_refs or []:
        registry.register_domain(load_domain_ref(ref))
    return registry


def _summary(directory: Path, k: int | None, registry: Any) -> dict[str, Any]:
    from statebox.records import read_results
    from statebox.report import summarize

    records = read_results(directory)
    if not records:
        raise ConfigError(f"{directory}: no trial records yet")
    excluded = []
    for name in sorted({r.domain for r in records}):
        try:
            excluded += list(registry.domain(name).field_policy.excluded)
        except StateboxError:
            err_console.print(
                f"note: domain {name!r} is not installed; its field policy is unknown"
            )
    try:
        return summarize(records, k=k, excluded_fields=excluded)
    except ValueError as exc:
        raise ConfigError(str(exc)) from exc


@app.command()
@handled
def run(
    suite: Annotated[
        str | None, typer.Option(help="Built-in suite: a domain name or 'all'.")
    ] = None,
    tasks: Annotated[
        list[Path] | None, typer.Option(help="Task YAML file or folder (repeatable).")
    ] = None,
    agent: Annotated[
        list[str] | None,
        typer.Option(help="Agent: oracle, fault, or fault:skip_write=0.2,... (repeatable)."),
    ] = None,
    trials: Annotated[int | None, typer.Option(help="Trials per task and agent.")] = None,
    concurrency: Annotated[int | None, typer.Option(help="Trials in flight at once.")] = None,
    out: Annotated[Path | None, typer.Option(help="Campaign directory.")] = None,
    resume: Annotated[bool, typer.Option(help="Continue the campaign in --out.")] = False,
    seed: Annotated[int | None, typer.Option(help="Campaign seed.")] = None,
    domain: Annotated[
        list[str] | None, typer.Option(help="Extra domain as module:ATTR or file.py:ATTR.")
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Run a campaign (default: the built-in suite, the fault-injection agent, 5 trials)."""
    from statebox.episode import Limits
    from statebox.runner import Campaign, run_campaign
    from statebox.settings import Settings
    from statebox.tasks import load_tasks

    flags: dict[str, Any] = {
        "suite": suite,
        "trials": trials,
        "concurrency": concurrency,
        "seed": seed,
    }
    try:
        settings = Settings.model_validate({k: v for k, v in flags.items() if v is not None})
    except ValueError as exc:
        raise ConfigError(f"settings: {exc}") from exc
    if suite is not None and tasks:
        raise ConfigError("give --suite or --tasks, not both")
    registry = _registry(domain)
    task_list = load_tasks(tasks) if tasks else registry.suite(settings.suite)
    source = ", ".join(str(p) for p in tasks) if tasks else f"suite:{settings.suite}"
    agents = [registry.agent(a) for a in (agent or [settings.agent])]
    if out is None:
        if resume:
            raise ConfigError("--resume needs --out DIR")
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        label = settings.suite if not tasks else "tasks"
        out = settings.runs_dir / f"{label}-{agents[0].agent_id}-{stamp}"
    campaign = Campaign(
        tasks=task_list,
        agents=agents,
        trials=settings.trials,
        out=out,
        task_source=source,
        concurrency=settings.concurrency,
        seed=settings.seed,
        limits=Limits(max_steps=settings.max_steps),
        trial_timeout_s=settings.trial_timeout_s,
        resume=resume,
    )
    from statebox.cli._progress import make_progress

    result = asyncio.run(run_campaign(campaign, registry, make_progress(err_console)))
    err_console.print(
        f"campaign {result.directory}: {result.ran} trials run, {result.skipped} resumed, "
        f"{result.system_errors} system errors",
        highlight=False,
    )
    summary = _summary(out, None, registry)
    if json_out:
        typer.echo(json.dumps(summary, indent=2))
    else:
        from statebox.report import print_summary

        print_summary(summary, out_console)


@app.command()
@handled
def report(
    directory: Annotated[Path, typer.Argument(help="Campaign directory.")],
    format: Annotated[Format, typer.Option(help="table or json.")] = Format.table,
    k: Annotated[int | None, typer.Option(help="k of pass@k and pass^k.")] = None,
) -> None:
    """Print a campaign's reliability metrics and failure analysis."""
    summary = _summary(directory, k, _registry(None))
    if format == Format.json:
        typer.echo(json.dumps(summary, indent=2))
    else:
        from statebox.report import print_summary

        print_summary(summary, out_console)


@app.command()
@handled
def show(
    directory: Annotated[Path, typer.Argument(help="Campaign directory.")],
    trial_id: Annotated[str, typer.Argument(help="Trial id, as in results.jsonl.")],
) -> None:
    """Print one trial: its checks, transcript and effect diff."""
    from statebox.cli._show import print_trial
    from statebox.records import read_results

    records = {r.trial_id: r for r in read_results(directory)}
    record = records.get(trial_id)
    if record is None:
        near = [t for t in records if trial_id in t][:5]
        hint = f"; did you mean {', '.join(near)}" if near else ""
        raise ConfigError(f"no trial {trial_id!r} in {directory}{hint}")
    print_trial(record, out_console)


@app.command()
@handled
def schema(
    what: Annotated[str, typer.Argument(help="results, errors, manifest or task.")],
) -> None:
    """Print the JSON Schema of a record or of a task."""
    from statebox.records import ErrorRecord, Manifest, TrialRecord
    from statebox.tasks import Task

    models: dict[str, Any] = {
        "results": TrialRecord,
        "errors": ErrorRecord,
        "manifest": Manifest,
        "task": Task,
    }
    if what not in models:
        raise ConfigError(f"unknown schema {what!r}; choose from {', '.join(models)}")
    typer.echo(json.dumps(models[what].model_json_schema(), indent=2))
