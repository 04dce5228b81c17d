"""``statebox run``, ``report``, ``show`` and ``schema``."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import ValidationError
from rich.console import Console

from statebox._model import validation_line
from statebox.cli._app import (
    SUITE_HELP,
    CampaignDomainOption,
    DomainOption,
    PolicyModeOption,
    app,
    err_console,
    handled,
)
from statebox.cli._resume import (
    Planned,
    domain_refs_for_manifest,
    read_planned,
    run_verdict_settings,
)
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
    card = "card"


def _registry(domain_refs: list[str] | None, settings: Any = None, models: Any = None) -> Any:
    from statebox.registry import default_registry

    registry = default_registry(settings, models)
    for ref in domain_refs or []:
        registry.add_domain_ref(ref)
    return registry


def _campaign_registry(directories: list[Path], domain_refs: list[str] | None) -> Any:
    """A registry with ``--domain`` given now, else the campaigns' own (from manifests).

    A recorded reference that no longer loads is named on stderr and left out: what
    needs its domain (a field policy) then says it is unknown.
    """
    if domain_refs is not None:
        return _registry(domain_refs)
    registry = _registry(None)
    for ref in _campaign_domain_refs(directories):
        try:
            registry.add_domain_ref(ref)
        except StateboxError as exc:
            err_console.print(f"note: --domain {ref} of the campaign: {exc}")
    return registry


def selected_suites(registry: Any, suite: str | None, *, given: bool) -> Any:
    """The suites a command runs: ``suite``, else (``--domain`` given) the domains' own.

    Args:
        registry: The registry with the ``--domain`` references added.
        suite: The ``--suite`` given (None: not given).
        given: Whether tasks came another way (``--tasks``, a PATH): then no suite.

    Returns:
        The resolved suites, or None when ``suite`` is None and no ``--domain`` was given
        (the caller's default applies).
    """
    if given:
        return None
    if suite is not None:
        return registry.resolve_suites(suite)
    return registry.own_suites() if registry.sources else None


def _read_manifest_or_none(directory: Path) -> Any:
    from statebox.errors import ResultsFormatError
    from statebox.records import read_manifest

    try:
        return read_manifest(directory)
    except ResultsFormatError:
        return None  # hand-made results without a manifest


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
        trials = _note_incomplete(d, len(rows))
        # Two directories with one name are told apart by their full path.
        label = name if names.count(name) == 1 else str(d)
        campaigns.append(CampaignRows(label, d, rows, trials, _read_manifest_or_none(d)))
    return campaigns


def _note_incomplete(directory: Path, present: int) -> int | None:
    """Say so when a campaign holds fewer trials than its manifest planned.

    Returns:
        The planned trials per task (the report's k), or None without a manifest.
    """
    from statebox.errors import ResultsFormatError
    from statebox.records import read_manifest

    try:
        m = read_manifest(directory)
    except ResultsFormatError:
        return None  # no manifest (hand-made results): nothing planned to compare with
    planned = len(m.task_ids) * len(m.agents) * m.trials
    if present < planned:
        err_console.print(
            f"note: {directory} holds {present} of {planned} planned trials; the figures "
            f"cover only those (finish it with: statebox run --out {directory} --resume)",
            style="yellow",
        )
    return m.trials


def _campaign_domain_refs(directories: list[Path]) -> list[str]:
    """The ``--domain`` references the campaigns ran with (recorded in their manifests)."""
    from statebox.errors import ResultsFormatError
    from statebox.records import read_manifest

    refs: list[str] = []
    for d in directories:
        try:
            recorded = read_manifest(d).settings.get("domain_refs") or []
        except ResultsFormatError:
            continue
        refs += [str(r) for r in recorded if str(r) not in refs]
    return refs


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
    from statebox.cli._backends import manifest_field_policies

    own = manifest_field_policies([c.directory for c in campaigns])
    for name in sorted({r.domain for c in campaigns for r in c.rows} - external):
        try:
            policy = own.get(name) or registry.domain(name).field_policy
            excluded += list(policy.excluded)
        except StateboxError:
            err_console.print(
                f"note: domain {name!r} is not installed; its field policy is unknown"
            )
    try:
        summary = summarize_campaigns(
            campaigns,
            k=k,
            excluded_fields=excluded,
            spec=BootstrapSpec(resamples=resamples, seed=seed),
        )
    except ValueError as exc:
        raise ConfigError(str(exc)) from exc
    for w in summary["environment"]["warnings"]:
        err_console.print(f"warning: {w}", style="yellow")
    return summary


def _mitigation_options(
    surface: str,
    distractors: int,
    gate: str | None,
    approver_model: str | None,
    setup: Any,
    concurrency: int,
) -> tuple[Any, dict[str, Any]]:
    """The campaign's `Mitigations` and approver factories from ``run``'s flags."""
    from statebox.runner import Mitigations, check_approval_gate

    if surface not in ("task", "full", "minimal"):
        raise ConfigError(f"--tool-surface {surface!r}: choose task, full or minimal")
    approvers: dict[str, Any] = {}
    if gate == "llm":
        from statebox.cli._mitigations import llm_approvers

        approvers = llm_approvers(setup, approver_model, None)
    check_approval_gate(gate, approvers, concurrency=concurrency)
    m = Mitigations(tool_surface=surface, distractors=distractors, approval_gate=gate)
    return m, approvers


@app.command()
@handled
def run(
    suite: Annotated[str | None, typer.Option(help=SUITE_HELP)] = None,
    tasks: Annotated[
        list[Path] | None, typer.Option(help="Task YAML file or folder (repeatable).")
    ] = None,
    agent: Annotated[
        list[str] | None,
        typer.Option(
            help="Agent: oracle, fault, fault:skip_write=0.2,..., noop, refuse, openai:MODEL or "
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
    trace_tokens: Annotated[
        bool | None,
        typer.Option(
            "--trace-tokens/--no-trace-tokens",
            help="Store the agent model's token ids and logprobs with each trial "
            "(OpenAI-compatible endpoints such as vLLM; docs/training.md).",
        ),
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
    domain: DomainOption = None,
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
    policy_mode: Annotated[
        PolicyModeOption | None,
        typer.Option(
            help="How the policy reaches the agent: prompt (the whole text), search (a pointer "
            "and the search_policy tool) or both; default: each task's own (prompt). Kept in "
            "the manifest: a resume keeps it."
        ),
    ] = None,
    tool_surface: Annotated[
        str,
        typer.Option(
            help="Tools offered: task (the task's allowlist), full (every domain tool) or "
            "minimal (the golden tools plus --distractors others); docs/mitigations.md.",
            rich_help_panel="Mitigations",
        ),
    ] = "task",
    distractors: Annotated[
        int,
        typer.Option(
            min=0,
            help="minimal surface: tools beyond the golden ones.",
            rich_help_panel="Mitigations",
        ),
    ] = 3,
    approval_gate: Annotated[
        str | None,
        typer.Option(
            help="Hold irreversible calls for an approver: simulated (approves the golden "
            "calls), llm (--approver-model) or human (asks at the terminal).",
            rich_help_panel="Mitigations",
        ),
    ] = None,
    approver_model: Annotated[
        str | None,
        typer.Option(
            help="The llm approver's model: openai:MODEL or anthropic:MODEL (default: the "
            "models file's judge).",
            rich_help_panel="Mitigations",
        ),
    ] = None,
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
        bool | None,
        typer.Option(
            "--drop-sources/--keep-sources",
            help="No search service: drop knowledge-base sources, hide the policy search.",
            rich_help_panel="ThinkingBox datasets",
            show_default="keep",
        ),
    ] = None,
    hide_tool: Annotated[
        list[str] | None,
        typer.Option(
            help="Tool to hide from agents (repeatable).", rich_help_panel="ThinkingBox datasets"
        ),
    ] = None,
    warm_pool: Annotated[
        int | None,
        typer.Option(
            min=0,
            max=64,
            help="Server processes kept started per server, at most --concurrency "
            "(0: start each on demand).",
            rich_help_panel="ThinkingBox datasets",
            show_default="2",
        ),
    ] = None,
    check_timeout: Annotated[
        float | None,
        typer.Option(
            min=1.0,
            max=3600.0,
            help="Seconds one check function may run.",
            rich_help_panel="ThinkingBox datasets",
            show_default="60",
        ),
    ] = 60.0,
    backend: Annotated[
        list[Path] | None,
        typer.Option(
            help="Backend file (YAML): your MCP server over a database statebox owns "
            "(SQLite or PostgreSQL); its tasks folder unless --tasks (repeatable).",
            rich_help_panel="Your own MCP server",
        ),
    ] = None,
    postgres_url: Annotated[
        str | None,
        typer.Option(
            help="PostgreSQL server for postgres backends (a role that may create "
            "databases); default: a throwaway one on loopback for the campaign.",
            rich_help_panel="Your own MCP server",
        ),
    ] = None,
    typesense_url: Annotated[
        str | None,
        typer.Option(
            help="Index knowledge-base sources in this Typesense (http://HOST:PORT) instead "
            "of statebox's built-in search service (key: $STATEBOX_TYPESENSE_API_KEY, else "
            "the servers file's).",
            rich_help_panel="ThinkingBox datasets",
        ),
    ] = None,
    fork_server: Annotated[
        bool,
        typer.Option(
            "--fork-server/--no-fork-server",
            help="Fork each trial's fresh server processes from one pre-imported parent "
            "per server (servers that cannot be forked start plainly).",
            rich_help_panel="ThinkingBox datasets",
        ),
    ] = True,
    tool_timeout: Annotated[
        float | None,
        typer.Option(
            min=1.0,
            max=3600.0,
            help="Seconds one server tool call may take (default 300).",
            rich_help_panel="ThinkingBox datasets",
        ),
    ] = None,
    preset: Annotated[
        str | None,
        typer.Option(
            help="A published protocol in one flag: thinkingbox (20 trials, agent "
            "temperature 1.0, user 0.3, judge 0, 4096 output tokens, 10 user follow-ups, "
            "600 s per trial, 300 s per tool call, 5 retries). Flags override it.",
        ),
    ] = None,
) -> None:
    """Run a campaign (default: the built-in suite, the fault-injection agent, 5 trials)."""
    from statebox.cli._backends import BackendOptions, open_backends
    from statebox.cli._thinkingbox import TbOptions
    from statebox.episode import Limits
    from statebox.runner import Campaign, run_campaign
    from statebox.settings import Settings
    from statebox.tasks import load_tasks

    planned: Planned | None = None
    if resume:
        if out is None:
            raise ConfigError("--resume needs --out DIR")
        # A resume continues the campaign as planned: what the flags leave out comes from
        # its manifest, never from defaults (5 trials would silently shrink a 20-trial plan).
        planned = read_planned(out)
        trials = trials if trials is not None else planned.trials
        seed = seed if seed is not None else planned.seed
        concurrency = concurrency if concurrency is not None else planned.concurrency
        if policy_mode is None and planned.policy_mode is not None:
            policy_mode = PolicyModeOption(planned.policy_mode)
        tb_planned = planned.thinkingbox if thinkingbox is None else None
        if not backend and planned.backends is not None:
            backend = [Path(f) for f in planned.backends.get("files") or ()]
            server_python = server_python or planned.backends.get("server_python")
        if suite is None and not tasks and tb_planned is None and thinkingbox is None:
            suite, tasks = planned.suite, planned.tasks
        agent = agent or planned.agents
        preset = preset or planned.preset
        domain = domain or planned.domains
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
        "trace_tokens": trace_tokens,
        "tool_timeout_s": tool_timeout,
    }
    if planned is not None:
        flags = planned.restore(flags)
    from statebox.cli._preset import apply_preset

    preset_applied = apply_preset(preset, flags)
    flags = preset_applied.flags
    tool_timeout_s = float(flags.pop("tool_timeout_s") or 300.0)
    try:
        settings = Settings.model_validate({k: v for k, v in flags.items() if v is not None})
    except ValidationError as exc:
        raise ConfigError(f"settings: {validation_line(exc)}") from exc
    if sum(map(bool, (suite is not None, tasks, thinkingbox is not None))) > 1:
        raise ConfigError("give one of --suite, --tasks and --thinkingbox")
    if backend and (suite is not None or thinkingbox is not None):
        raise ConfigError(
            "--backend runs its own tasks (or --tasks); not with --suite/--thinkingbox"
        )
    if postgres_url is not None and not backend:
        raise ConfigError("--postgres-url is for --backend files")
    db: BackendOptions | None = None
    if backend:
        db = BackendOptions(
            files=tuple(p.resolve() for p in backend),
            postgres_url=postgres_url,
            server_python=server_python,
            warm=2 if warm_pool is None else warm_pool,
        )
    tb: TbOptions | None = None
    if policy_mode is not None and (thinkingbox is not None or (resume and tb_planned)):
        raise ConfigError(
            "--policy-mode serves a statebox domain's policy; a ThinkingBox dataset's "
            "servers serve their own"
        )
    if thinkingbox is not None:
        tb = TbOptions.build(
            thinkingbox,
            test_list=test_list,
            names=test,
            servers=tb_servers,
            server_python=server_python,
            drop_sources=bool(drop_sources),
            hidden_tools=hide_tool,
            warm=2 if warm_pool is None else warm_pool,
            check_timeout_s=60.0 if check_timeout is None else check_timeout,
            typesense_url=typesense_url,
            fork_server=fork_server,
            tool_timeout_s=tool_timeout_s,
        )
    elif resume and tb_planned is not None:
        tb = _resumed_dataset(
            tb_planned,
            {
                "--test-list": test_list,
                "--test": test,
                "--tb-servers": tb_servers,
                "--server-python": server_python,
                "--hide-tool": hide_tool,
                "--typesense-url": typesense_url,
            },
            drop_sources=drop_sources,
            check_timeout=check_timeout,
            warm_pool=warm_pool,
        )
    elif test_list or test:
        raise ConfigError("--test-list and --test select ThinkingBox tests; add --thinkingbox")
    from statebox.cli._models import run_models

    roles = run_models(settings, agent or [settings.agent])
    registry = _registry(domain, settings, roles.setup)
    from statebox.cli._thinkingbox import open_dataset

    agents = [registry.agent(a) for a in (agent or [settings.agent])]
    if settings.trace_tokens:
        from statebox.agents import LLMAgentFactory

        if not any(isinstance(a, LLMAgentFactory) for a in agents):
            # A flag that could silently record nothing would read as "no tokens".
            raise ConfigError(
                "--trace-tokens traces a model agent's tokens (openai:MODEL); "
                f"this run's agents are {', '.join(agent or [settings.agent])}"
            )
    suites = (
        None
        if tb is not None or db is not None or tasks
        else selected_suites(registry, suite, given=False)
        or registry.resolve_suites(settings.suite)
    )
    mitigations, approvers = _mitigation_options(
        tool_surface, distractors, approval_gate, approver_model, roles.setup, settings.concurrency
    )
    if out is None:
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        label = (
            "thinkingbox"
            if tb
            else "backend"
            if db
            else "tasks"
            if tasks
            else "+".join(r.scope for r in suites or [])
            if suite is None and registry.sources
            else settings.suite
        ).translate(str.maketrans(":@", "--"))
        # An agent id may be a URL (an outside agent): one folder, no separators in it.
        folder = re.sub(r"[^A-Za-z0-9._+-]+", "-", agents[0].agent_id).strip("-")
        out = settings.runs_dir / f"{label}-{folder}-{stamp}"
    tb_run = None
    db_run = None
    evaluation: dict[str, str] = {}
    if tb is not None:
        # More ready servers than trials in flight would only cost memory.
        tb = tb._replace(warm=min(tb.warm, settings.concurrency))
        # On Ray the workers run the trials: each builds the dataset's environments
        # itself (and its node's search service); the driver's only plan.
        tb_run = open_dataset(tb, log_dir=out / "server-logs", start_search=executor != "ray")
        from statebox.thinkingbox import EVALUATION_TERMS

        # The dataset card's terms travel with its results (statebox serve says the same).
        evaluation = {"mode": "evaluation", "evaluation_terms": EVALUATION_TERMS}
        task_list, source = tb_run.tasks, tb.source
    elif db is not None:
        db = db._replace(warm=min(db.warm, settings.concurrency))
        db_run = open_backends(db, load_tasks=not tasks, log_dir=out / "server-logs")
        task_list = load_tasks(tasks) if tasks else db_run.tasks
        source = (
            ", ".join(str(p.resolve()) for p in tasks)
            if tasks
            else "backend:" + ", ".join(str(f) for f in db.files)
        )
    elif tasks:
        # Absolute: verify, rejudge and resume find them from any folder.
        task_list, source = load_tasks(tasks), ", ".join(str(p.resolve()) for p in tasks)
    else:
        refs = suites or []
        task_list = registry.suites(refs)
        source = "suite:" + ", ".join(str(r) for r in refs)
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
        environments=tb_run.environments if tb_run else db_run.environments if db_run else {},
        source_settings={
            **({"thinkingbox": tb.to_manifest()} if tb else {}),
            **evaluation,
            **({"backends": db.to_manifest()} if db else {}),
            **({"preset": preset_applied.manifest} if preset_applied.manifest else {}),
            **domain_refs_for_manifest(registry.sources),
        },
        policy_mode=None if policy_mode is None else policy_mode.value,
        verdict_settings=run_verdict_settings(settings),
        mitigations=mitigations,
        approvers=approvers,
    )
    from statebox.cli._progress import make_progress
    from statebox.cli._scale import executor_for

    pool = executor_for(
        executor,
        settings,
        [src.ref for src in registry.sources],  # files made absolute: workers run elsewhere
        campaign.agent_specs,
        ray_address,
        ray_workers,
    )
    if pool is not None and tb is not None:
        from statebox.cli._thinkingbox import TbWorkerSetup

        pool.setup = TbWorkerSetup(pool.setup, tb, str((out / "server-logs").resolve()))
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
            if db_run is not None:
                await db_run.aclose()

    result = asyncio.run(go())
    if result.system_errors:
        _first_errors(out)
    campaigns = _campaign_rows(out)
    summary = _summary(out, None, registry, campaigns=campaigns)
    if json_out:
        typer.echo(json.dumps(summary, indent=2))
    else:
        from statebox.report import print_summary

        print_summary(summary, out_console)
    _footer(result, campaigns[0].rows)
    if result.ran and result.system_errors == result.ran:
        # Nothing was judged: a misconfigured run must not look like a finished one.
        err_console.print(
            "error: every trial run ended in a system error (see above); fix the cause, "
            f"then: statebox run --out {out} --resume --retry-errors"
        )
        raise typer.Exit(1)


def _footer(result: Any, rows: list[Any]) -> None:
    """The last lines of a run: the campaign's own counts, where it is, what to run next."""
    import shlex

    from statebox.records import TrialStatus

    out = shlex.quote(str(result.directory))
    counts = {s: sum(1 for r in rows if r.status == s) for s in TrialStatus}
    resumed = f"{result.skipped} resumed, " if result.skipped else ""
    now = (
        "nothing left to run"
        if not result.ran
        else f"{resumed}{result.ran} run now, {result.system_errors} of them system errors"
    )
    err_console.print(
        f"campaign {result.directory}: {len(rows)} of {result.planned} planned trials, "
        f"{counts[TrialStatus.PASSED]} passed, {counts[TrialStatus.FAILED]} failed, "
        f"{counts[TrialStatus.SYSTEM_ERROR]} system errors ({now})",
        highlight=False,
        soft_wrap=True,
    )
    failed = next((r for r in rows if r.status == TrialStatus.FAILED), None)
    failed = failed or next((r for r in rows if r.status == TrialStatus.SYSTEM_ERROR), None)
    lines = ["next:"]
    if failed is not None:
        lines += ["  one failed trial, in full:", f"    statebox show {out} {failed.trial_id}"]
    lines += [
        "  every figure, chart and transcript in one page:",
        f"    statebox report {out} --format html",
    ]
    if counts[TrialStatus.SYSTEM_ERROR]:
        lines += [
            "  re-run the system errors once their cause is fixed:",
            f"    statebox run --out {out} --resume --retry-errors",
        ]
    for line in lines:
        err_console.print(line, highlight=False, soft_wrap=True)


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


def _resumed_dataset(
    planned: Any,
    fixed: dict[str, Any],
    *,
    drop_sources: bool | None,
    check_timeout: float | None,
    warm_pool: int | None,
) -> Any:
    """A ThinkingBox campaign's own options, with a new --warm-pool applied.

    The dataset options decide the tasks and their verdicts: a resume never changes
    them, and a flag that would is refused (never ignored).

    Raises:
        ConfigError: A dataset option is given, or differs from the campaign's.
    """
    given = [flag for flag, value in fixed.items() if value]
    if drop_sources is not None and drop_sources != planned.drop_sources:
        given.append("--drop-sources" if drop_sources else "--keep-sources")
    if check_timeout is not None and check_timeout != planned.check_timeout_s:
        given.append(f"--check-timeout {check_timeout:g}")
    if given:
        raise ConfigError(
            f"{', '.join(given)}: a resume runs the campaign's own ThinkingBox options "
            "(from its manifest); to change them use a new --out"
        )
    return planned if warm_pool is None else planned._replace(warm=warm_pool)


@app.command()
@handled
def report(
    directories: Annotated[list[Path], typer.Argument(help="Campaign directories.")],
    format: Annotated[
        Format, typer.Option(help="table, json, html or card (a citable markdown summary).")
    ] = Format.table,
    out: Annotated[
        Path | None,
        typer.Option(help="Write here instead of stdout (html default: RUN/report.html)."),
    ] = None,
    k: Annotated[int | None, typer.Option(help="k of pass@k and pass^k.")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap intervals.")] = 0,
    resamples: Annotated[int, typer.Option(help="Bootstrap resamples.")] = 2000,
    domain: CampaignDomainOption = None,
) -> None:
    """Reliability metrics with intervals, failure analysis and cost of one or more campaigns."""
    if resamples < 1:
        raise ConfigError("--resamples must be at least 1")
    campaigns = _campaign_rows(directories)
    # The campaigns' own domains; one that no longer loads leaves its field policy unknown.
    registry = _campaign_registry(directories, domain)
    summary = _summary(
        directories, k, registry, seed=seed, resamples=resamples, campaigns=campaigns
    )
    if format == Format.card:
        from statebox.report import render_campaign_card

        text = render_campaign_card(summary, campaigns)
        if out is None:
            typer.echo(text)
            return
        with _writing(out):
            out.write_text(text, encoding="utf-8")
        err_console.print(f"wrote {out}", highlight=False)
        return
    if format == Format.html:
        from statebox.cli._ablate import recorded_ablation
        from statebox.report import write_html_report

        target = out or directories[0] / "report.html"
        with _writing(target):
            write_html_report(summary, campaigns, target, ablation=recorded_ablation(directories))
        err_console.print(f"wrote {target}", highlight=False)
        return
    if format == Format.json:
        text = json.dumps(summary, indent=2)
        if out is None:
            typer.echo(text)
            return
        with _writing(out):
            out.write_text(text + "\n", encoding="utf-8")
    else:
        from statebox.report import print_summary

        if out is None:
            print_summary(summary, out_console)
            return
        with _writing(out), out.open("w", encoding="utf-8") as f:
            print_summary(
                summary, Console(file=f, width=160, markup=False, emoji=False, highlight=False)
            )
    err_console.print(f"wrote {out}", highlight=False)


@contextmanager
def _writing(path: Path) -> Iterator[None]:
    """Turn a file that cannot be written into a one-line error naming it."""
    if path.is_dir():
        raise ConfigError(f"--out {path}: is a directory; name the file to write")
    try:
        yield
    except OSError as exc:
        raise ConfigError(f"--out {path}: cannot write it: {exc.strerror or exc}") from exc


@app.command()
@handled
def show(
    directory: Annotated[Path, typer.Argument(help="Campaign directory.")],
    trial_id: Annotated[str, typer.Argument(help="Trial id, as in results.jsonl.")],
    domain: CampaignDomainOption = None,
) -> None:
    """Print one trial: its checks, transcript and effect diff."""
    from statebox.cli._backends import manifest_field_policies
    from statebox.cli._show import print_excluded, print_trial
    from statebox.records import find_trial, read_trial_rows

    if not directory.is_dir():
        raise ConfigError(f"{directory}: no such campaign directory")
    record = find_trial(directory, trial_id)
    if record is None:
        near = [r.trial_id for r in read_trial_rows(directory) if trial_id in r.trial_id][:5]
        hint = f"; did you mean {', '.join(near)}" if near else ""
        raise ConfigError(f"no trial {trial_id!r} in {directory}{hint}")
    print_trial(record, out_console)
    if record.verdict is None or record.domain in _external_domains([directory]):
        return  # nothing judged, or a server that compares states itself
    policy = manifest_field_policies([directory]).get(record.domain)
    if policy is None:
        registry = _campaign_registry([directory], domain)  # a --domain given that fails: said
        try:
            policy = registry.domain(record.domain).field_policy
        except StateboxError:
            err_console.print(
                f"note: domain {record.domain!r} is not installed; its field policy is "
                "unknown (give --domain)"
            )
            return
    print_excluded(record, policy, out_console)


@app.command()
@handled
def schema(
    what: Annotated[str, typer.Argument(help="results, errors, manifest or task.")],
) -> None:
    """Print the JSON Schema of a record or of a task."""
    from statebox.records import ErrorRecord, Manifest, TrialRecord
    from statebox.tasks import task_json_schema

    # A record's schema is of what is written (serialisation: its derived fields too,
    # such as a verdict's ``passed``); a task's is of what a task file may say.
    records: dict[str, Any] = {"results": TrialRecord, "errors": ErrorRecord, "manifest": Manifest}
    if what == "task":
        schema = task_json_schema()
    elif what in records:
        schema = records[what].model_json_schema(mode="serialization")
    else:
        raise ConfigError(f"unknown schema {what!r}; choose from {', '.join([*records, 'task'])}")
    typer.echo(json.dumps(schema, indent=2))
