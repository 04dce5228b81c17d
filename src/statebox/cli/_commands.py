"""``statebox run``, ``report``, ``show`` and ``schema``."""

from __future__ import annotations

import asyncio
import json
import sys
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, NamedTuple

import typer
from rich.console import Console

from statebox.cli._app import app, err_console, handled
from statebox.errors import ConfigError, StateboxError

# Off a terminal rich assumes 80 columns, which folds task ids; logs can be wider.
out_console = Console(
    markup=False, emoji=False, highlight=False, width=None if sys.stdout.isatty() else 160
)


class Format(StrEnum):
    """Report formats."""

    table = "table"
    json = "json"
    html = "html"


def _registry(domain_refs: list[str] | None, settings: Any = None, models: Any = None) -> Any:
    from statebox.registry import default_registry, load_domain_ref

    registry = default_registry(settings, models)
    for ref in domain_refs or []:
        registry.register_domain(load_domain_ref(ref))
    return registry


def _campaign_rows(directories: Path | list[Path]) -> list[Any]:
    from statebox.records import read_trial_rows
    from statebox.report import CampaignRows

    dirs = [directories] if isinstance(directories, Path) else list(directories)
    names = [d.resolve().name or str(d) for d in dirs]
    campaigns = []
    for d, name in zip(dirs, names, strict=True):
        if not d.is_dir():
            raise ConfigError(f"{d}: no such campaign directory")
        rows = read_trial_rows(d)
        if not rows:
            raise ConfigError(f"{d}: no trial records yet")
        _note_incomplete(d, len(rows))
        # Two directories with one name are told apart by their full path.
        label = name if names.count(name) == 1 else str(d)
        campaigns.append(CampaignRows(label, d, rows))
    return campaigns


def _note_incomplete(directory: Path, present: int) -> None:
    """Say so when a campaign holds fewer trials than its manifest planned."""
    from statebox.errors import ResultsFormatError
    from statebox.records import read_manifest

    try:
        m = read_manifest(directory)
    except ResultsFormatError:
        return  # no manifest (hand-made results): nothing planned to compare with
    planned = len(m.task_ids) * len(m.agents) * m.trials
    if present < planned:
        err_console.print(
            f"note: {directory} holds {present} of {planned} planned trials; the figures "
            f"cover only those (finish it with: statebox run --out {directory} --resume)",
            style="yellow",
        )


def _external_domains(directories: list[Path]) -> set[str]:
    """Domains of campaigns that ran on external environments (a ThinkingBox dataset).

    Their servers compare states themselves: no statebox field policy applies.
    """
    from statebox.errors import ResultsFormatError
    from statebox.records import read_manifest

    out: set[str] = set()
    for d in directories:
        try:
            m = read_manifest(d)
        except ResultsFormatError:
            continue
        if "thinkingbox" in m.settings:
            out.update(str(x) for x in m.settings.get("domains", ()))
    return out


def _summary(
    directory: Path | list[Path],
    k: int | None,
    registry: Any,
    *,
    seed: int = 0,
    resamples: int = 2000,
    campaigns: list[Any] | None = None,
) -> dict[str, Any]:
    from statebox.metrics import BootstrapSpec
    from statebox.report import summarize_campaigns

    campaigns = campaigns if campaigns is not None else _campaign_rows(directory)
    excluded = []
    external = _external_domains([c.directory for c in campaigns])
    for name in sorted({r.domain for c in campaigns for r in c.rows} - external):
        try:
            excluded += list(registry.domain(name).field_policy.excluded)
        except StateboxError:
            err_console.print(
                f"note: domain {name!r} is not installed; its field policy is unknown"
            )
    try:
        return summarize_campaigns(
            campaigns,
            k=k,
            excluded_fields=excluded,
            spec=BootstrapSpec(resamples=resamples, seed=seed),
        )
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
        typer.Option(
            help="Agent: oracle, fault, fault:skip_write=0.2,..., openai:MODEL or "
            "anthropic:MODEL (repeatable)."
        ),
    ] = None,
    user: Annotated[
        str | None,
        typer.Option(
            help="Simulated user: rule (default), human, openai:MODEL or anthropic:MODEL."
        ),
    ] = None,
    user_behaviour: Annotated[
        str | None,
        typer.Option(
            help="How the simulated user plays: cooperative (default), misremembers, "
            "changes-goal, impatient or uncooperative."
        ),
    ] = None,
    judge: Annotated[
        str | None,
        typer.Option(help="Rubric judge model: openai:MODEL or anthropic:MODEL."),
    ] = None,
    agent_base_url: Annotated[
        str | None, typer.Option(help="Agent model endpoint, e.g. http://localhost:8000/v1.")
    ] = None,
    user_base_url: Annotated[str | None, typer.Option(help="User model endpoint.")] = None,
    judge_base_url: Annotated[str | None, typer.Option(help="Judge model endpoint.")] = None,
    models: Annotated[
        Path | None, typer.Option(help="Models file (YAML): model and parameters per role.")
    ] = None,
    pricing: Annotated[
        Path | None, typer.Option(help="Pricing file (YAML): USD per million tokens.")
    ] = None,
    think: Annotated[
        bool | None, typer.Option("--think/--no-think", help="Give LLM agents a think tool.")
    ] = None,
    trials: Annotated[int | None, typer.Option(min=1, help="Trials per task and agent.")] = None,
    concurrency: Annotated[
        int | None, typer.Option(min=1, help="Trials in flight at once.")
    ] = None,
    out: Annotated[Path | None, typer.Option(help="Campaign directory.")] = None,
    resume: Annotated[bool, typer.Option(help="Continue the campaign in --out.")] = False,
    retry_errors: Annotated[
        bool, typer.Option(help="With --resume: re-run the trials that ended in system errors.")
    ] = False,
    seed: Annotated[int | None, typer.Option(help="Campaign seed.")] = None,
    domain: Annotated[
        list[str] | None, typer.Option(help="Extra domain as module:ATTR or file.py:ATTR.")
    ] = None,
    executor: Annotated[
        str, typer.Option(help="Where trials run: local (this process) or ray (a Ray cluster).")
    ] = "local",
    ray_address: Annotated[
        str | None,
        typer.Option(help="With --executor ray: the cluster (auto, HOST:6379); none: a local one."),
    ] = None,
    ray_workers: Annotated[
        int | None,
        typer.Option(min=1, help="With --executor ray: trial workers (default: one per CPU)."),
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    thinkingbox: Annotated[
        Path | None,
        typer.Option(
            help="ThinkingBox dataset folder (scenario/, test_case/): run its test cases "
            "on its own MCP servers instead of a suite.",
            rich_help_panel="ThinkingBox datasets",
        ),
    ] = None,
    test_list: Annotated[
        Path | None,
        typer.Option(
            help="ThinkingBox test list (YAML list of FILE.py:FUNCTION).",
            rich_help_panel="ThinkingBox datasets",
        ),
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
        typer.Option(
            help="Servers YAML (default: DATASET/../servers/servers.yaml).",
            rich_help_panel="ThinkingBox datasets",
        ),
    ] = None,
    server_python: Annotated[
        str | None,
        typer.Option(
            help="Python for the servers' {python} (default: this one).",
            rich_help_panel="ThinkingBox datasets",
        ),
    ] = None,
    drop_sources: Annotated[
        bool,
        typer.Option(
            help="No search service: drop knowledge-base sources, hide the policy search.",
            rich_help_panel="ThinkingBox datasets",
        ),
    ] = False,
    hide_tool: Annotated[
        list[str] | None,
        typer.Option(
            help="Tool to hide from agents (repeatable).", rich_help_panel="ThinkingBox datasets"
        ),
    ] = None,
    warm_pool: Annotated[
        int,
        typer.Option(
            min=0,
            max=64,
            help="Server processes kept started per server, at most --concurrency "
            "(0: start each on demand).",
            rich_help_panel="ThinkingBox datasets",
        ),
    ] = 2,
    check_timeout: Annotated[
        float,
        typer.Option(
            min=1.0,
            max=3600.0,
            help="Seconds one check function may run.",
            rich_help_panel="ThinkingBox datasets",
        ),
    ] = 60.0,
) -> None:
    """Run a campaign (default: the built-in suite, the fault-injection agent, 5 trials)."""
    from statebox.cli._thinkingbox import TbOptions
    from statebox.episode import Limits
    from statebox.runner import Campaign, run_campaign
    from statebox.settings import Settings
    from statebox.tasks import load_tasks

    if resume:
        if out is None:
            raise ConfigError("--resume needs --out DIR")
        # A resume continues the campaign as planned: what the flags leave out comes from
        # its manifest, never from defaults (5 trials would silently shrink a 20-trial plan).
        planned = _planned(out)
        trials = trials if trials is not None else planned.trials
        seed = seed if seed is not None else planned.seed
        concurrency = concurrency if concurrency is not None else planned.concurrency
        user_behaviour = user_behaviour if user_behaviour is not None else planned.user_behaviour
        tb_planned = planned.thinkingbox if thinkingbox is None else None
        if suite is None and not tasks and tb_planned is None and thinkingbox is None:
            suite, tasks = planned.suite, planned.tasks
        agent = agent or planned.agents
    from statebox.dialogue import UserBehaviour

    if user_behaviour is not None and user_behaviour not in {b.value for b in UserBehaviour}:
        raise ConfigError(
            f"--user-behaviour {user_behaviour!r}: choose from "
            + ", ".join(b.value for b in UserBehaviour)
        )
    flags: dict[str, Any] = {
        "suite": suite,
        "trials": trials,
        "concurrency": concurrency,
        "seed": seed,
        "user": user,
        "user_behaviour": user_behaviour,
        "judge": judge,
        "agent_base_url": agent_base_url,
        "user_base_url": user_base_url,
        "judge_base_url": judge_base_url,
        "models_file": models,
        "pricing_file": pricing,
        "think": think,
    }
    try:
        settings = Settings.model_validate({k: v for k, v in flags.items() if v is not None})
    except ValueError as exc:
        raise ConfigError(f"settings: {exc}") from exc
    if sum(map(bool, (suite is not None, tasks, thinkingbox is not None))) > 1:
        raise ConfigError("give one of --suite, --tasks and --thinkingbox")
    tb: TbOptions | None = None
    if thinkingbox is not None:
        tb = TbOptions.build(
            thinkingbox,
            test_list=test_list,
            names=test,
            servers=tb_servers,
            server_python=server_python,
            drop_sources=drop_sources,
            hidden_tools=hide_tool,
            warm=warm_pool,
            check_timeout_s=check_timeout,
        )
    elif resume and tb_planned is not None:
        tb = tb_planned
        given = [
            flag
            for flag, value in (
                ("--test-list", test_list),
                ("--test", test),
                ("--tb-servers", tb_servers),
                ("--server-python", server_python),
                ("--hide-tool", hide_tool),
            )
            if value
        ]
        if given:
            raise ConfigError(
                f"{', '.join(given)}: a resume runs the campaign's own ThinkingBox options "
                "(from its manifest); to change them use a new --out"
            )
    elif test_list or test:
        raise ConfigError("--test-list and --test select ThinkingBox tests; add --thinkingbox")
    from statebox.cli._models import run_models

    roles = run_models(settings, agent or [settings.agent])
    registry = _registry(domain, settings, roles.setup)
    from statebox.cli._thinkingbox import open_dataset

    agents = [registry.agent(a) for a in (agent or [settings.agent])]
    if out is None:
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        label = "thinkingbox" if tb else settings.suite if not tasks else "tasks"
        out = settings.runs_dir / f"{label}-{agents[0].agent_id}-{stamp}"
    tb_run = None
    if tb is not None and executor == "ray":
        raise ConfigError("ThinkingBox datasets run with --executor local only")
    if tb is not None:
        # More ready servers than trials in flight would only cost memory.
        tb = tb._replace(warm=min(tb.warm, settings.concurrency))
        tb_run = open_dataset(tb, log_dir=out / "server-logs")
        task_list, source = tb_run.tasks, tb.source
    elif tasks:
        task_list, source = load_tasks(tasks), ", ".join(str(p) for p in tasks)
    else:
        task_list, source = registry.suite(settings.suite), f"suite:{settings.suite}"
    campaign = Campaign(
        tasks=task_list,
        agents=agents,
        trials=settings.trials,
        out=out,
        task_source=source,
        concurrency=settings.concurrency,
        seed=settings.seed,
        limits=Limits(max_steps=settings.max_steps, max_turns=settings.max_turns),
        trial_timeout_s=settings.trial_timeout_s,
        resume=resume,
        users=roles.users,
        user_behaviour=settings.user_behaviour,
        rubric=roles.rubric,
        retry_errors=retry_errors,
        models=roles.labels,
        agent_specs=tuple(agent or [settings.agent]),
        environments=tb_run.environments if tb_run else {},
        source_settings={"thinkingbox": tb.to_manifest()} if tb else {},
    )
    from statebox.cli._progress import make_progress
    from statebox.cli._scale import executor_for

    pool = executor_for(
        executor, settings, domain or [], campaign.agent_specs, ray_address, ray_workers
    )
    if pool is not None and ray_address is None:
        from statebox.cli._scale import local_ray_notice

        notice = local_ray_notice()
        if notice:
            err_console.print(notice, highlight=False, soft_wrap=True)

    async def go() -> Any:
        try:
            return await run_campaign(campaign, registry, make_progress(err_console), pool)
        finally:
            await roles.setup.aclose()
            if tb_run is not None:
                await tb_run.aclose()

    result = asyncio.run(go())
    err_console.print(
        f"campaign {result.directory}: {result.ran} trials run, {result.skipped} resumed, "
        f"{result.system_errors} system errors",
        highlight=False,
    )
    if result.system_errors:
        _first_errors(out)
    summary = _summary(out, None, registry)
    if json_out:
        typer.echo(json.dumps(summary, indent=2))
    else:
        from statebox.report import print_summary

        print_summary(summary, out_console)
    if result.ran and result.system_errors == result.ran:
        # Nothing was judged: a misconfigured run must not look like a finished one.
        err_console.print(
            "error: every trial run ended in a system error (see above); fix the cause, "
            f"then: statebox run --out {out} --resume --retry-errors"
        )
        raise typer.Exit(1)


def _first_errors(out: Path, shown: int = 3) -> None:
    """Print the distinct messages of a campaign's system errors (the first few)."""
    from statebox.records import read_errors

    seen: dict[str, int] = {}
    for e in read_errors(out):
        first_line = f"{e.type}: {e.message}".splitlines()[0][:300]
        seen[first_line] = seen.get(first_line, 0) + 1
    for message, count in list(seen.items())[:shown]:
        err_console.print(f"system error ({count}x): {message}", style="yellow")
    if len(seen) > shown:
        err_console.print(f"... {len(seen) - shown} more kinds; see {out / 'errors.jsonl'}")


class _Planned(NamedTuple):
    trials: int
    seed: int
    suite: str | None
    tasks: list[Path] | None
    agents: list[str] | None
    thinkingbox: Any = None  # TbOptions when the campaign ran a ThinkingBox dataset
    concurrency: int | None = None
    user_behaviour: str | None = None


def _planned(out: Path) -> _Planned:
    """What a campaign directory's manifest planned (for ``run --resume``)."""
    from statebox.records import read_manifest

    if not out.is_dir():
        raise ConfigError(f"{out}: no such campaign directory to resume")
    m = read_manifest(out)
    source = m.task_source
    specs = m.settings.get("agent_specs")
    agents = [str(s) for s in specs] if isinstance(specs, list) and specs else None
    tb = m.settings.get("thinkingbox")
    raw = m.settings.get("concurrency")
    concurrency = raw if isinstance(raw, int) else None
    behaviour = m.settings.get("user_behaviour")
    user_behaviour = behaviour if isinstance(behaviour, str) else None
    if isinstance(tb, dict):
        from statebox.cli._thinkingbox import TbOptions

        return _Planned(
            m.trials,
            m.seed,
            None,
            None,
            agents,
            TbOptions.from_manifest(tb),
            concurrency,
            user_behaviour,
        )
    suite = source.removeprefix("suite:") if source.startswith("suite:") else None
    tasks = None if suite else [Path(p) for p in source.split(", ")]
    return _Planned(m.trials, m.seed, suite, tasks, agents, None, concurrency, user_behaviour)


@app.command()
@handled
def report(
    directories: Annotated[list[Path], typer.Argument(help="Campaign directories.")],
    format: Annotated[Format, typer.Option(help="table, json or html.")] = Format.table,
    out: Annotated[
        Path | None,
        typer.Option(help="Write here instead of stdout (html default: RUN/report.html)."),
    ] = None,
    k: Annotated[int | None, typer.Option(help="k of pass@k and pass^k.")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap intervals.")] = 0,
    resamples: Annotated[int, typer.Option(help="Bootstrap resamples.")] = 2000,
) -> None:
    """Reliability metrics with intervals, failure analysis and cost of one or more campaigns."""
    if resamples < 1:
        raise ConfigError("--resamples must be at least 1")
    campaigns = _campaign_rows(directories)
    summary = _summary(
        directories, k, _registry(None), seed=seed, resamples=resamples, campaigns=campaigns
    )
    if format == Format.html:
        from statebox.report import write_html_report

        target = out or directories[0] / "report.html"
        write_html_report(summary, campaigns, target)
        err_console.print(f"wrote {target}", highlight=False)
        return
    if format == Format.json:
        text = json.dumps(summary, indent=2)
        if out is None:
            typer.echo(text)
            return
        out.write_text(text + "\n", encoding="utf-8")
    else:
        from statebox.report import print_summary

        if out is None:
            print_summary(summary, out_console)
            return
        with out.open("w", encoding="utf-8") as f:
            print_summary(
                summary, Console(file=f, width=160, markup=False, emoji=False, highlight=False)
            )
    err_console.print(f"wrote {out}", highlight=False)


@app.command()
@handled
def show(
    directory: Annotated[Path, typer.Argument(help="Campaign directory.")],
    trial_id: Annotated[str, typer.Argument(help="Trial id, as in results.jsonl.")],
) -> None:
    """Print one trial: its checks, transcript and effect diff."""
    from statebox.cli._show import print_trial
    from statebox.records import find_trial, read_trial_rows

    if not directory.is_dir():
        raise ConfigError(f"{directory}: no such campaign directory")
    record = find_trial(directory, trial_id)
    if record is None:
        near = [r.trial_id for r in read_trial_rows(directory) if trial_id in r.trial_id][:5]
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
