"""``statebox compare RUN_A RUN_B``: campaign B against campaign A, paired by task.

Each side is labelled with its user behaviour, so two campaigns that differ only in
``--user-behaviour`` compare what the behaviour does to the agent's figures.
"""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from statebox.cli._app import CampaignDomainOption, app, err_console, handled
from statebox.errors import ConfigError

__all__ = ["compare"]

_ALPHA = 0.05


class CompareFormat(StrEnum):
    """Output formats of ``compare``."""

    table = "table"
    json = "json"


def _behaviours(directory: Path, agent: str) -> str:
    """The user behaviour(s) of one agent's trials in a campaign, for labels."""
    from statebox.records import read_trial_rows
    from statebox.report import NOT_RECORDED

    found = sorted(
        {
            r.user_behaviour or NOT_RECORDED
            for r in read_trial_rows(directory)
            if r.agent_id == agent
        }
    )
    return ", ".join(found)


def _outcomes(directory: Path, agent: str | None, side: str) -> tuple[str, list[Any], int]:
    from statebox.metrics import outcomes_from_trials
    from statebox.records import TrialStatus, read_trial_rows

    rows = read_trial_rows(directory)
    if not rows:
        raise ConfigError(f"{directory}: no trial records yet")
    agents = sorted({r.agent_id for r in rows})
    if agent is None:
        if len(agents) > 1:
            raise ConfigError(
                f"{directory} holds several agents ({', '.join(agents)}); "
                f"choose one with --agent-{side}"
            )
        agent = agents[0]
    elif agent not in agents:
        raise ConfigError(f"no agent {agent!r} in {directory}; it has {', '.join(agents)}")
    # System errors count as unsuccessful trials, as in the canonical figures.
    trials = ((r.task_id, r.domain, r.status == TrialStatus.PASSED) for r in rows)
    chosen = [t for t, r in zip(trials, rows, strict=True) if r.agent_id == agent]
    errors = sum(1 for r in rows if r.agent_id == agent and r.status == TrialStatus.SYSTEM_ERROR)
    return agent, outcomes_from_trials(chosen), errors


def _caveats(a: list[Any], b: list[Any], errors_a: int, errors_b: int) -> list[str]:
    """What makes a lift misleading: unequal trial counts, system errors."""
    notes = []
    n_a = {o.task_id: o.n for o in a}
    unequal = sorted(o.task_id for o in b if o.task_id in n_a and n_a[o.task_id] != o.n)
    if unequal:
        counts_a = sorted({n_a[t] for t in unequal})
        counts_b = sorted({o.n for o in b if o.task_id in unequal})
        notes.append(
            f"{len(unequal)} shared tasks ran a different number of trials (A: {counts_a}, "
            f"B: {counts_b}); observed k/k is easier to reach with fewer trials, so its "
            "lift is not like for like — compare campaigns with equal trials"
        )
    for side, errors in (("A", errors_a), ("B", errors_b)):
        if errors:
            notes.append(
                f"{side} has {errors} system-error trials, counted as failures: part of the "
                "lift may be an outage, not the agent (statebox run --resume --retry-errors)"
            )
    return notes


def _environment_notes(run_a: Path, run_b: Path) -> list[str]:
    """Name what differs when the two campaigns ran different environments."""
    from statebox.cli._commands import _read_manifest_or_none
    from statebox.report import environment_difference

    a, b = _read_manifest_or_none(run_a), _read_manifest_or_none(run_b)
    missing = [str(d) for d, m in ((run_a, a), (run_b, b)) if m is None or not m.environment_hash]
    if missing:
        return [
            f"{', '.join(missing)}: no environment hash in the manifest; whether both ran the "
            "same tasks, policies, schemas, seeds, tools, field policies and judge is unknown"
        ]
    parts = environment_difference(a, b)
    if not parts:
        return []
    return [
        f"A and B ran different environments ({', '.join(parts)} differ): the lift mixes the "
        "agents' difference with the environment's"
    ]


def _provenance(directory: Path) -> dict[str, str]:
    """Domain → ``distribution version`` of the ``--domain`` packages a campaign ran."""
    from statebox.cli._commands import _read_manifest_or_none

    m = _read_manifest_or_none(directory)
    entries = m.settings.get("domain_provenance") if m is not None else None
    out: dict[str, str] = {}
    for e in entries if isinstance(entries, list) else ():
        if isinstance(e, dict) and e.get("distribution"):
            out[str(e.get("domain"))] = f"{e['distribution']} {e.get('version') or '?'}"
    return out


def _domain_notes(run_a: Path, run_b: Path, domains: set[str], registry: Any) -> list[str]:
    """Domains whose package differs between A and B, or that are not installed now."""
    a, b = _provenance(run_a), _provenance(run_b)
    notes = [
        f"domain {name}: A ran {a[name]}, B ran {b[name]}; the lift mixes the agents' "
        "difference with the domain's"
        for name in sorted(set(a) & set(b))
        if a[name] != b[name]
    ]
    installed = set(registry.domain_names())
    notes += [
        f"domain {name!r} is not installed: statebox show, verify and rejudge need it "
        "(give --domain)"
        for name in sorted(domains - installed)
    ]
    return notes


def _lift_json(lift: Any) -> dict[str, Any]:
    return {
        "a": lift.a,
        "b": lift.b,
        "lift": lift.lift,
        "interval": [lift.interval.low, lift.interval.high],
        "test": lift.test._asdict(),
        "significant": lift.test.p_value < _ALPHA,
    }


def _as_json(report: Any, a: str, b: str, users: tuple[str, str]) -> dict[str, Any]:
    def group(g: Any) -> dict[str, Any]:
        return {
            "tasks": g.tasks,
            "pass_at_1": _lift_json(g.pass_at_1),
            "observed_k_of_k": _lift_json(g.observed_k_of_k),
        }

    return {
        "a": a,
        "b": b,
        "a_user_behaviour": users[0],
        "b_user_behaviour": users[1],
        "alpha": _ALPHA,
        "bootstrap": "paired " + report.spec.describe(report.overall.unit),
        "unit": report.overall.unit,
        "overall": group(report.overall),
        "by_domain": {d: group(g) for d, g in report.by_domain.items()},
        "flipped": [
            {
                "task_id": f.task_id,
                "domain": f.domain,
                "direction": f.direction,
                "a": [f.a.c, f.a.n],
                "b": [f.b.c, f.b.n],
            }
            for f in report.flipped
        ],
        "only_a": report.only_a,
        "only_b": report.only_b,
    }


def _cell(lift: Any) -> str:
    return f"{lift.lift:+.3f} [{lift.interval.low:+.3f}, {lift.interval.high:+.3f}]"


def _p(lift: Any) -> str:
    mark = " *" if lift.test.p_value < _ALPHA else ""
    return f"{lift.test.p_value:.2g}{mark}"


def _print(report: Any, a: str, b: str, users: tuple[str, str], console: Console) -> None:
    table = Table(
        title=f"B = {b} (user: {users[1]}) against A = {a} (user: {users[0]}), paired by task "
        "(lift = B − A)"
    )
    # Which test gives each p depends on the tasks (paired by task, or by branch when
    # tasks share one): the caption names it, the headers do not guess.
    for name in ("group", "tasks", "pass@1 A", "pass@1 B", "lift pass@1", "p pass@1"):
        table.add_column(name, justify="left" if name == "group" else "right")
    for name in ("observed k/k A", "observed k/k B", "lift observed k/k", "p observed k/k"):
        table.add_column(name, justify="right")
    groups = [("overall", report.overall), *report.by_domain.items()]
    for name, g in groups:
        p1, kk = g.pass_at_1, g.observed_k_of_k
        table.add_row(
            name,
            str(g.tasks),
            f"{p1.a:.3f}",
            f"{p1.b:.3f}",
            _cell(p1),
            _p(p1),
            f"{kk.a:.3f}",
            f"{kk.b:.3f}",
            _cell(kk),
            _p(kk),
        )
    table.caption = (
        f"in brackets: paired {report.spec.describe(report.overall.unit)}; p for pass@1: "
        f"{report.overall.pass_at_1.test.name}; p for observed k/k: "
        f"{report.overall.observed_k_of_k.test.name}; * p < {_ALPHA}"
    )
    console.print(table)
    if report.flipped:
        flips = Table(title="tasks that flipped (passed every trial in one campaign only)")
        for name in ("task", "domain", "direction", "A passes", "B passes"):
            flips.add_column(name)
        for f in report.flipped:
            flips.add_row(
                f.task_id,
                f.domain,
                "gained: B passes every trial, A does not"
                if f.direction == "gained"
                else "lost: A passes every trial, B does not",
                f"{f.a.c}/{f.a.n}",
                f"{f.b.c}/{f.b.n}",
            )
        console.print(flips)
    else:
        console.print("no task flipped between passing every trial and not")
    for side, ids in (("A", report.only_a), ("B", report.only_b)):
        if ids:
            console.print(
                f"note: {len(ids)} tasks only in {side}, left out: "
                + ", ".join(ids[:10])
                + (" …" if len(ids) > 10 else "")
            )


@app.command()
@handled
def compare(
    run_a: Annotated[Path, typer.Argument(help="Baseline campaign directory (A).")],
    run_b: Annotated[Path, typer.Argument(help="Campaign compared with it (B).")],
    agent_a: Annotated[
        str | None, typer.Option(help="Agent id in A (needed when A holds several).")
    ] = None,
    agent_b: Annotated[
        str | None, typer.Option(help="Agent id in B (needed when B holds several).")
    ] = None,
    format: Annotated[CompareFormat, typer.Option(help="table or json.")] = CompareFormat.table,
    seed: Annotated[int, typer.Option(help="Seed of the paired bootstrap.")] = 0,
    resamples: Annotated[int, typer.Option(help="Bootstrap resamples.")] = 2000,
    domain: CampaignDomainOption = None,
) -> None:
    """Lift of B over A in pass@1 and observed k/k, with paired intervals and tests."""
    from statebox.metrics import BootstrapSpec, compare_outcomes

    if resamples < 1:
        raise ConfigError("--resamples must be at least 1")
    a_id, a, errors_a = _outcomes(run_a, agent_a, "a")
    b_id, b, errors_b = _outcomes(run_b, agent_b, "b")
    from statebox.cli._commands import _campaign_registry

    registry = _campaign_registry([run_a, run_b], domain)
    domains = {o.domain for o in (*a, *b)}
    notes = _caveats(a, b, errors_a, errors_b) + _environment_notes(run_a, run_b)
    for note in notes + _domain_notes(run_a, run_b, domains, registry):
        err_console.print(f"warning: {note}", style="yellow")
    try:
        report = compare_outcomes(a, b, BootstrapSpec(resamples=resamples, seed=seed))
    except ValueError as exc:
        raise ConfigError(str(exc)) from exc
    a_name, b_name = f"{run_a.name}:{a_id}", f"{run_b.name}:{b_id}"
    users = (_behaviours(run_a, a_id), _behaviours(run_b, b_id))
    if format == CompareFormat.json:
        typer.echo(json.dumps(_as_json(report, a_name, b_name, users), indent=2))
        return
    console = Console(
        markup=False, emoji=False, highlight=False, width=None if sys.stdout.isatty() else 200
    )
    _print(report, a_name, b_name, users, console)
