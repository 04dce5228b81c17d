"""``statebox ablate``: named agent configurations over the same tasks, trials and seed.

Named configurations of one model (``--agent openai:MODEL`` or the models file's):

- ``baseline``: no think tool;
- ``think``: the think tool as the τ-bench study published it;
- ``statebox-think``: statebox's own think tool and its two-line guidance (``--think``);
- ``think+prompt``: the published tool plus each domain's think prompt (worked examples
  of reasoning on its policy) in the system prompt;
- ``extended-thinking``: no think tool; the model's own reasoning — an Anthropic
  ``thinking`` budget (``--thinking-budget``) or an OpenAI reasoning effort
  (``--reasoning-effort``).

The mitigations (docs/mitigations.md), of the ``--agent`` model or of an offline agent
(``--agent fault``, ``--agent oracle``):

- ``retry-classified``: the agent's instructions explain the tool error classes;
- ``minimal-surface``: only the golden tools plus a few distractors are offered;
- ``approval-gate``: irreversible calls are held for an approver (``--approver``);
- and their combinations joined by ``+`` (``minimal-surface+approval-gate``).

``NAME=AGENT`` adds a configuration from any agent spec (``steady=oracle``,
``flaky=fault:skip_write=0.5``): offline ablations need no model. The campaign's
manifest names every configuration (``settings.ablation``); ``--analyze DIR`` prints the
tables of an ablation already run.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import ValidationError

from statebox._model import validation_line
from statebox.cli._app import SUITE_HELP, DomainOption, app, err_console, handled
from statebox.cli._commands import _registry, out_console
from statebox.errors import ConfigError, StateboxError

NAMED = ("baseline", "think", "statebox-think", "think+prompt", "extended-thinking")
"""The named configurations of the think-tool study."""
MITIGATIONS = ("retry-classified", "minimal-surface", "approval-gate")
"""The named mitigations; ``+`` joins them (``minimal-surface+approval-gate``)."""
MITIGATION_CONFIGS = ("baseline", "retry-classified", "minimal-surface", "approval-gate")
"""The mitigation study's configurations (``--config mitigations``), combinations added
with ``--config``."""
_LLM_PROVIDERS = ("openai", "anthropic")
PROMPT_ONLY_NOTE = (
    "changes only the agent's instructions; {agent} is an offline agent that reads none, "
    "so its trials are the reference's by construction (a real model is needed to "
    "measure it)"
)
DEFAULT_CONFIGS = ("baseline", "extended-thinking", "think", "think+prompt")
"""The four configurations of the published study."""
ABLATION_FILE = "ablation.json"
"""The figures, beside the campaign's results."""


def _parse(values: list[str]) -> list[tuple[str, str | None]]:
    out: list[tuple[str, str | None]] = []
    for v in values:
        name, sep, spec = v.partition("=")
        name = name.strip()
        if sep:
            if not name or not spec.strip():
                raise ConfigError(
                    f"--config {v!r}: use NAME=AGENT, e.g. flaky=fault:skip_write=0.5"
                )
            out.append((name, spec.strip()))
        elif name == "mitigations":
            out += [(n, None) for n in MITIGATION_CONFIGS]
        elif name in NAMED or _mitigation_parts(name) is not None:
            out.append((name, None))
        else:
            raise ConfigError(
                f"unknown configuration {name!r}; named: {', '.join(NAMED + MITIGATIONS)}, "
                "mitigations; or NAME=AGENT"
            )
    names = [n for n, _ in out]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ConfigError(f"--config {', '.join(dup)} given twice")
    return out


def _mitigation_parts(name: str) -> tuple[str, ...] | None:
    """The mitigations a configuration name joins, or None when it names none."""
    if name in NAMED:
        return None
    parts = tuple(p.strip() for p in name.split("+"))
    if not parts or any(p not in MITIGATIONS for p in parts) or len(set(parts)) < len(parts):
        return None
    return parts


def _mitigations(name: str, opts: dict[str, Any]) -> Any:
    from statebox.runner import Mitigations

    parts = _mitigation_parts(name) or ()
    return Mitigations(
        retry_classified="retry-classified" in parts,
        tool_surface="minimal" if "minimal-surface" in parts else "task",
        distractors=opts["distractors"],
        approval_gate=opts["approver"] if "approval-gate" in parts else None,
    )


def _offline(agent: str | None) -> bool:
    """Whether ``--agent`` names an agent statebox runs without a model (fault, oracle...)."""
    return agent is not None and agent.partition(":")[0] not in _LLM_PROVIDERS


def _llm_factory(
    name: str, setup: Any, spec: str | None, settings: Any, opts: dict[str, Any]
) -> Any:
    from statebox.agents import LLMAgentFactory

    config = setup.config("agent", spec)
    kwargs: dict[str, Any] = {"max_tool_calls": settings.max_tool_calls}
    if name == "think":
        kwargs["think_tool"] = "tau-bench"
    elif name == "statebox-think":
        kwargs["think_tool"] = "statebox"
    elif name == "think+prompt":
        kwargs["think_tool"] = "tau-bench"
        kwargs["think_prompts"] = opts["think_prompts"]
    elif name == "extended-thinking":
        update = (
            {"thinking_budget_tokens": opts["thinking_budget"]}
            if config.provider == "anthropic"
            else {"reasoning_effort": opts["reasoning_effort"]}
        )
        config = config.model_copy(update=update)
    parts = _mitigation_parts(name)
    if parts is not None:
        from statebox.runner import MitigatedFactory

        kwargs["error_guidance"] = "retry-classified" in parts
        base = LLMAgentFactory(setup.hub, config, **kwargs)
        return MitigatedFactory(base, _mitigations(name, opts), name)
    return LLMAgentFactory(setup.hub, config, **kwargs)


def _offline_factory(name: str, registry: Any, agent: str, opts: dict[str, Any]) -> Any:
    """A named configuration of an offline agent (baseline or mitigations only)."""
    base = registry.agent(agent)
    if name == "baseline":
        return base
    if _mitigation_parts(name) is None:
        raise ConfigError(
            f"--config {name} changes a model's prompt or reasoning; --agent {agent} is an "
            "offline agent: use baseline and the mitigations, or an openai:/anthropic: model"
        )
    from statebox.runner import MitigatedFactory

    return MitigatedFactory(base, _mitigations(name, opts), name)


def _ran(out: Path) -> dict[str, Any]:
    """The ``--config`` and ``--agent`` the ablation in ``out`` ran with ({}: not kept then)."""
    from statebox.records import read_manifest

    ran = read_manifest(out).settings.get("ablation_flags")
    return ran if isinstance(ran, dict) else {}


def _describe(name: str, spec: str | None, factory: Any) -> str:
    if spec is not None and name not in NAMED:
        return spec
    cfg = factory.config
    mitigations = cfg.get("mitigations")
    if "provider" not in cfg:  # an offline agent
        return f"{factory.agent_id} {json.dumps(mitigations or {}, sort_keys=True)}"
    extra = {
        k: cfg[k]
        for k in ("think", "think_tool", "think_prompts_sha256", "thinking_budget_tokens")
        if k in cfg
    }
    if "reasoning_effort" in cfg:
        extra["reasoning_effort"] = cfg["reasoning_effort"]
    if mitigations:
        extra["mitigations"] = mitigations
    return f"{cfg.get('provider')}:{cfg.get('model')} {json.dumps(extra, sort_keys=True)}"


def _analyze(out: Path, domain: list[str] | None, resamples: int, seed: int) -> dict[str, Any]:
    from statebox.metrics import BootstrapSpec
    from statebox.records import read_manifest, read_results
    from statebox.report import AblationConfig, analyze_ablation
    from statebox.runner import campaign_domains, campaign_tasks

    if not out.is_dir():
        raise ConfigError(f"{out}: no such campaign directory")
    manifest = read_manifest(out)
    recorded = manifest.settings.get("ablation")
    if not isinstance(recorded, list) or not recorded:
        raise ConfigError(f"{out}: not an ablation (its manifest names no configurations)")
    configs = [
        AblationConfig(
            str(c["name"]), str(c["agent_id"]), str(c.get("spec", "")), str(c.get("note", ""))
        )
        for c in recorded
    ]
    records = read_results(out)
    if not records:
        raise ConfigError(f"{out}: no trial records yet")
    registry = campaign_domains(manifest, _registry(domain))
    try:
        tasks = [t for t in campaign_tasks(manifest, registry) if t.id in set(manifest.task_ids)]
    except StateboxError as exc:  # the figures need no tasks; the breakdown does
        err_console.print(f"note: tasks not found ({exc}); no complexity breakdown")
        tasks = []
    mutating = {
        t.domain: frozenset(n for n, s in registry.domain(t.domain).tools.items() if s.mutates)
        for t in tasks
    }
    try:
        return analyze_ablation(
            configs, records, tasks, mutating, BootstrapSpec(resamples=resamples, seed=seed)
        )
    except ValueError as exc:
        raise ConfigError(f"{out}: {exc}") from exc


@app.command()
@handled
def ablate(
    config: Annotated[
        list[str] | None,
        typer.Option(
            help="Configuration: baseline, think, statebox-think, think+prompt, "
            "extended-thinking; retry-classified, minimal-surface, approval-gate and their "
            "+combinations; mitigations (baseline and the three); or NAME=AGENT "
            "(repeatable; the first is the reference). "
            "Default: baseline, extended-thinking, think, think+prompt."
        ),
    ] = None,
    agent: Annotated[
        str | None,
        typer.Option(
            help="Agent of the named configurations: openai:MODEL or anthropic:MODEL; or an "
            "offline agent (fault, oracle, fault:skip_write=0.2) for baseline and the "
            "mitigations."
        ),
    ] = None,
    suite: Annotated[str | None, typer.Option(help=SUITE_HELP)] = None,
    tasks: Annotated[
        list[Path] | None, typer.Option(help="Task YAML file or folder (repeatable).")
    ] = None,
    domain: DomainOption = None,
    trials: Annotated[
        int | None,
        typer.Option(min=1, help="Trials per task and configuration (K). Default: 5."),
    ] = None,
    seed: Annotated[
        int | None, typer.Option(help="Campaign seed (shared by every configuration). Default: 0.")
    ] = None,
    concurrency: Annotated[
        int | None, typer.Option(min=1, help="Trials in flight at once. Default: 8.")
    ] = None,
    out: Annotated[Path | None, typer.Option(help="Campaign directory to write.")] = None,
    resume: Annotated[
        bool,
        typer.Option(
            help="Continue the ablation in --out: its configurations, agent, tasks, trials, "
            "seed and settings come from its manifest unless given again."
        ),
    ] = False,
    analyze: Annotated[
        Path | None, typer.Option(help="Print the tables of an ablation already run; runs nothing.")
    ] = None,
    agent_base_url: Annotated[
        str | None, typer.Option(help="Agent model endpoint, e.g. http://localhost:8000/v1.")
    ] = None,
    models: Annotated[
        Path | None, typer.Option(help="Models file (YAML): model and parameters per role.")
    ] = None,
    user: Annotated[
        str | None,
        typer.Option(help="Simulated user: scripted, openai:MODEL or anthropic:MODEL."),
    ] = None,
    user_base_url: Annotated[str | None, typer.Option(help="User model endpoint.")] = None,
    thinking_budget: Annotated[
        int, typer.Option(min=1024, help="extended-thinking on Anthropic: thinking budget tokens.")
    ] = 2048,
    reasoning_effort: Annotated[
        str, typer.Option(help="extended-thinking on OpenAI: minimal, low, medium or high.")
    ] = "high",
    approver: Annotated[
        str,
        typer.Option(
            help="Who decides in the approval-gate configurations: simulated, llm, human."
        ),
    ] = "simulated",
    approver_model: Annotated[
        str | None, typer.Option(help="The llm approver's model: openai:MODEL or anthropic:MODEL.")
    ] = None,
    approver_base_url: Annotated[
        str | None, typer.Option(help="The llm approver's endpoint.")
    ] = None,
    distractors: Annotated[
        int, typer.Option(min=0, help="minimal-surface: tools offered beyond the golden ones.")
    ] = 3,
    resamples: Annotated[int, typer.Option(min=1, help="Bootstrap resamples.")] = 2000,
    json_out: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
) -> None:
    """Run named agent configurations over the same tasks: think-tool and mitigation ablations."""
    if analyze is not None:
        data = _analyze(analyze, domain, resamples, seed or 0)
        _emit(data, analyze, json_out)
        return
    if out is None:
        raise ConfigError("--out DIR: where the ablation's campaign goes (or --analyze DIR)")
    from statebox.cli._resume import read_planned

    planned = None
    if resume:
        # What the flags leave out comes from the manifest, never from defaults (a
        # default --trials 5 silently made a 3-trial ablation a 5-trial one).
        planned = read_planned(out)
        trials = trials if trials is not None else planned.trials
        seed = seed if seed is not None else planned.seed
        concurrency = concurrency if concurrency is not None else planned.concurrency
        if suite is None and not tasks:
            suite, tasks = planned.suite, planned.tasks
        domain = domain or planned.domains
        ran = _ran(out)
        config = config or ran.get("config")
        agent = agent or ran.get("agent")
    trials, seed, concurrency = trials or 5, seed or 0, concurrency or 8
    if reasoning_effort not in ("minimal", "low", "medium", "high"):
        raise ConfigError(f"--reasoning-effort {reasoning_effort!r}: minimal, low, medium or high")
    if suite is not None and tasks:
        raise ConfigError("give one of --suite and --tasks")
    chosen = _parse(config or list(DEFAULT_CONFIGS))
    if len(chosen) < 2:
        raise ConfigError("an ablation needs at least two --config")
    from statebox.cli._models import run_models
    from statebox.cli._resume import domain_refs_for_manifest, run_verdict_settings
    from statebox.episode import Limits
    from statebox.runner import Campaign, run_campaign
    from statebox.settings import Settings
    from statebox.tasks import load_tasks

    flags = {
        "agent_base_url": agent_base_url,
        "models_file": models,
        "user": user,
        "user_base_url": user_base_url,
        "trials": trials,
        "seed": seed,
        "concurrency": concurrency,
    }
    if planned is not None:
        flags = planned.restore(flags)
    try:
        settings = Settings.model_validate({k: v for k, v in flags.items() if v is not None})
    except ValidationError as exc:
        raise ConfigError(f"settings: {validation_line(exc)}") from exc
    llm = [n for n, s in chosen if s is None]
    offline = _offline(agent)
    roles = run_models(settings, [agent] if agent and not offline else [])
    registry = _registry(domain, settings, roles.setup)
    if tasks:
        task_list, source = load_tasks(tasks), ", ".join(str(p) for p in tasks)
    else:
        from statebox.cli._commands import selected_suites

        refs = selected_suites(registry, suite, given=False) or registry.resolve_suites(
            settings.suite
        )
        task_list = registry.suites(refs)
        source = "suite:" + ", ".join(str(r) for r in refs)
    prompts = {}
    for name in sorted({t.domain for t in task_list}):
        d = registry.domain(name)
        if d.think_prompt:
            prompts[name] = d.think_prompt
    if "think+prompt" in llm and not prompts:
        err_console.print(
            "note: no domain of these tasks ships a think prompt; think+prompt = think"
        )
    opts = {
        "think_prompts": prompts,
        "thinking_budget": thinking_budget,
        "reasoning_effort": reasoning_effort,
        "approver": approver,
        "distractors": distractors,
    }
    from statebox.runner import check_approval_gate

    approvers = {}
    gated = any("approval-gate" in (_mitigation_parts(n) or ()) for n, s in chosen if s is None)
    if gated and approver == "llm":
        from statebox.cli._mitigations import llm_approvers

        approvers = llm_approvers(roles.setup, approver_model, approver_base_url)
    if gated:
        check_approval_gate(
            approver, approvers, concurrency=settings.concurrency, flag="--approver"
        )
    factories = []
    recorded = []
    for name, spec in chosen:
        if spec is not None:
            f = registry.agent(spec)
        elif offline:
            assert agent is not None  # _offline says so
            f = _offline_factory(name, registry, agent, opts)
        else:
            f = _llm_factory(name, roles.setup, agent, settings, opts)
        factories.append(f)
        entry = {"name": name, "agent_id": f.agent_id, "spec": _describe(name, spec, f)}
        parts = _mitigation_parts(name) if spec is None else None
        if offline and parts and "retry-classified" in parts:
            entry["note"] = (
                PROMPT_ONLY_NOTE.format(agent=agent)
                if parts == ("retry-classified",)
                else f"its retry-classified part changes nothing for {agent} (an offline "
                "agent reads no instructions)"
            )
        recorded.append(entry)
    ids = [r["agent_id"] for r in recorded]
    same = sorted({i for i in ids if ids.count(i) > 1})
    if same:
        names = [r["name"] for r in recorded if r["agent_id"] in same]
        raise ConfigError(f"configurations {', '.join(names)} are the same agent ({same[0]})")
    campaign = Campaign(
        tasks=task_list,
        agents=factories,
        trials=settings.trials,
        out=out,
        task_source=source,
        concurrency=settings.concurrency,
        seed=settings.seed,
        limits=Limits(max_steps=settings.max_steps, max_turns=settings.max_turns),
        trial_timeout_s=settings.trial_timeout_s,
        resume=resume,
        users=roles.users,
        rubric=roles.rubric,
        models=roles.labels,
        source_settings={
            "ablation": recorded,
            # What `ablate --resume` needs again that the configurations above do not say.
            "ablation_flags": {"config": config or list(DEFAULT_CONFIGS), "agent": agent},
            **domain_refs_for_manifest(registry.sources),
        },
        verdict_settings=run_verdict_settings(settings),
        approvers=approvers,
    )
    from statebox.cli._progress import make_progress

    async def go() -> Any:
        try:
            return await run_campaign(campaign, registry, make_progress(err_console))
        finally:
            await roles.setup.aclose()

    result = asyncio.run(go())
    if result.system_errors:
        err_console.print(
            f"note: {result.system_errors} trials ended in system errors (counted as failed); "
            f"see {out / 'errors.jsonl'}"
        )
    data = _analyze(out, domain, resamples, settings.seed)
    _emit(data, out, json_out)


def recorded_ablation(directories: list[Path]) -> dict[str, Any] | None:
    """The figures ``statebox ablate`` wrote for one campaign directory, else None.

    Several directories make no one ablation: their reports carry no ablation section.
    """
    if len(directories) != 1:
        return None
    path = directories[0] / ABLATION_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # not an ablation, or a file it cannot read: the report goes on
    return data if isinstance(data, dict) and "pass_hat_k" in data else None


def _emit(data: dict[str, Any], directory: Path, json_out: bool) -> None:
    text = json.dumps(data, indent=2)
    try:
        (directory / ABLATION_FILE).write_text(text + "\n", encoding="utf-8")
    except OSError as exc:
        err_console.print(f"note: {directory / ABLATION_FILE} not written: {exc.strerror}")
    if json_out:
        typer.echo(text)
        return
    from statebox.report import print_ablation

    print_ablation(data, out_console)
    err_console.print(
        f"figures in {directory / ABLATION_FILE}; table and pass^k chart in the HTML report: "
        f"statebox report {directory} --format html",
        highlight=False,
    )
