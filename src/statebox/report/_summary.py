"""Campaign summaries as plain data (JSON-ready) for the table, ``--format json`` and HTML.

One summary *entry* per (campaign, agent): reliability figures overall and per domain,
each with a seeded bootstrap interval over tasks; the pass@k / pass^k curve over k;
failure analysis (signatures, missing / wrong / extra effects, the weak-evaluator
table); and cost. Over several entries: signatures pooled and the cost Pareto frontier.

System errors count as failed trials in the canonical figures; the same figures with
system-error trials left out are given beside them under ``excluding_system_errors``.
A trial with an unjudged rubric question (no judge model) is not passed either; the
figures over the other trials — the tasks judged on their state and reply alone — are
given beside them under ``state_only_tasks``. Intervals resample task branches when
tasks re-instance one (`statebox.metrics.resampling_unit` names the unit).

Summaries are built from `TrialRow` (no transcripts), so a large campaign is summarised
from `read_trial_rows` without building full records.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from statebox.judge import environment_diff
from statebox.metrics import (
    DEFAULT_BOOTSTRAP,
    BootstrapSpec,
    TaskOutcome,
    UnequalTrialsWarning,
    as_dict,
    bootstrap_intervals,
    metrics_by_domain,
    outcomes_from_trials,
    pass_curve,
    resampling_unit,
)
from statebox.records import Manifest, TrialRecord, TrialRow, TrialStatus, trial_row
from statebox.report._users import behaviour_rows, user_figures
from statebox.world import ExcludedField

__all__ = ["CampaignRows", "summarize", "summarize_campaigns"]


class CampaignRows(NamedTuple):
    """The trials of one campaign directory.

    Attributes:
        label: Short name shown in reports (the directory name).
        directory: The campaign directory.
        rows: Its trials.
        planned_trials: Trials per task its manifest planned (the default k), if known.
        manifest: Its manifest (None: hand-made results without one).
    """

    label: str
    directory: Path
    rows: Sequence[TrialRow]
    planned_trials: int | None = None
    manifest: Manifest | None = None


def _ci(outcomes: Sequence[TaskOutcome], k: int, spec: BootstrapSpec) -> dict[str, Any]:
    return {
        name: None if iv is None else [iv.low, iv.high]
        for name, iv in bootstrap_intervals(outcomes, k, spec).items()
    }


def _curve(outcomes: Sequence[TaskOutcome]) -> list[dict[str, float | int]]:
    """pass@k and both pass^k for k = 1 .. the smallest trial count."""
    return [
        {
            "k": m.k,
            "pass_at_k": m.pass_at_k,
            "pass_hat_k_unbiased": m.pass_hat_k_unbiased,
            "pass_hat_k_plugin": m.pass_hat_k_plugin,
        }
        for m in pass_curve(outcomes)
    ]


def _figures(
    rows: Sequence[TrialRow], k: int | None, spec: BootstrapSpec | None
) -> dict[str, Any] | None:
    """Reliability figures; with a spec also their intervals and the pass@k / pass^k curve."""
    if not rows:
        return None
    outcomes = outcomes_from_trials(
        (r.task_id, r.domain, r.status == TrialStatus.PASSED) for r in rows
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UnequalTrialsWarning)
        report = metrics_by_domain(outcomes, k)
    k_used = report.overall.k
    by_domain: dict[str, list[TaskOutcome]] = {}
    for o in outcomes:
        by_domain.setdefault(o.domain, []).append(o)
    out: dict[str, Any] = {
        "tasks": report.overall.tasks,
        "trials": report.overall.trials,
        "k": k_used,
        "overall": as_dict(report.overall),
        "by_domain": {d: as_dict(m) for d, m in report.by_domain.items()},
        "dependable_tasks": sum(1 for o in outcomes if o.c == o.n),
        "warnings": [str(w.message) for w in caught],
    }
    if spec is not None:
        out["ci"] = {
            "method": spec.describe(resampling_unit(outcomes)),
            "unit": resampling_unit(outcomes),
            "overall": _ci(outcomes, k_used, spec),
            "by_domain": {d: _ci(by_domain[d], k_used, spec) for d in report.by_domain},
        }
        out["curve"] = _curve(outcomes)
    return out


def _planned_k(rows: Sequence[TrialRow], planned: int | None) -> tuple[int | None, list[str]]:
    """The default k: the planned trials per task, lowered only where no task has them.

    One short task must not turn pass^5 into pass^1: tasks below k are named and left
    out of pass@k and pass^k instead. Only when some domain has no task with the planned
    count yet (an unfinished campaign) is k lowered to the largest every domain reaches,
    and a warning says so.
    """
    if planned is None:
        return None, []
    counts = Counter(r.task_id for r in rows)
    best: dict[str, int] = {}
    for r in rows:
        best[r.domain] = max(best.get(r.domain, 0), counts[r.task_id])
    k = min(planned, *best.values())
    notes = []
    if k < planned:
        short = sorted(d for d, n in best.items() if n < planned)
        notes.append(
            f"k = {k}, not the planned {planned}: no task of {', '.join(short)} has "
            f"{planned} trials yet (finish the campaign with --resume)"
        )
    return k, notes


def _below_k(rows: Sequence[TrialRow], k: int) -> list[str]:
    counts = Counter(r.task_id for r in rows)
    return sorted(t for t, n in counts.items() if n < k)


def _share(count: int, total: int) -> float | None:
    return count / total if total else None


def _failures(rows: Sequence[TrialRow]) -> dict[str, Any]:
    failed = [r for r in rows if r.status != TrialStatus.PASSED]
    judged = [r for r in failed if r.judged]
    n = len(judged)
    sig = Counter(r.signature or "unlabelled" for r in failed)
    clean_mut = [r for r in judged if r.clean_termination and r.called_mutating_tool]
    fooled = sum(1 for r in clean_mut if r.last_tool_ok)
    return {
        "failed_trials": len(failed),
        "judged_failed_trials": n,
        "signatures": dict(sorted(sig.items())),
        "effects_note": "shares of judged failed trials; a trial can have several kinds",
        "with_missing": _share(sum(r.missing for r in judged), n),
        "with_wrong": _share(sum(r.wrong for r in judged), n),
        "with_extra": _share(sum(r.extra for r in judged), n),
        "weak_evaluator": {
            "judged_failed_trials": n,
            "clean_and_mutating": _share(len(clean_mut), n),
            "clean_mutating_last_tool_ok": _share(fooled, n),
            "note": "among judged failed trials: ended cleanly and called a mutating tool; "
            "and additionally no error in the last tool result (a tool-call grader "
            "would have said done)",
        },
        "tool_grader_fooled": _share(fooled, n),
        # Which class of tool error the agent did not recover from (docs/mitigations.md);
        # "none unrecovered": a record from before error classes (which names none) or
        # from before tool_usage required an unrecovered error (every one made good).
        "tool_usage_by_error_class": dict(
            sorted(
                Counter(
                    r.unrecovered_error or "none unrecovered"
                    for r in failed
                    if r.signature == "tool_usage"
                ).items()
            )
        ),
        "approvals": _approvals(rows),
    }


def _approvals(rows: Sequence[TrialRow]) -> dict[str, int] | None:
    """The approval gate's counts over the trials (None: no trial ran behind a gate)."""
    gated = [r for r in rows if r.approvals_held]
    if not gated:
        return None
    held = sum(r.approvals_held for r in gated)
    refused = sum(r.approvals_refused for r in gated)
    return {"held": held, "approved": held - refused, "refused": refused}


def _cost(rows: Sequence[TrialRow], dependable: int) -> dict[str, Any]:
    total = math.fsum(r.cost_usd for r in rows)
    passing = sum(1 for r in rows if r.status == TrialStatus.PASSED)
    undefined = []
    if not passing:
        undefined.append("cost per success: no trial passed")
    if not dependable:
        undefined.append("cost per dependable task: no task passed in every trial")
    return {
        "campaign_cost_usd": total,
        "passing_trials": passing,
        "dependable_tasks": dependable,
        "cost_per_success_usd": total / passing if passing else None,
        "cost_per_dependable_task_usd": total / dependable if dependable else None,
        "undefined": undefined,
    }


def _entry(
    rows: Sequence[TrialRow],
    k: int | None,
    spec: BootstrapSpec,
    campaign: str,
    planned: int | None = None,
    manifest: Manifest | None = None,
) -> dict[str, Any]:
    notes: list[str] = []
    if k is None:
        k, notes = _planned_k(rows, planned)
    main = _figures(rows, k, spec)
    assert main is not None  # rows is non-empty by construction
    below = _below_k(rows, main["k"])
    if below:
        shown = ", ".join(below[:10]) + (f" and {len(below) - 10} more" if len(below) > 10 else "")
        notes.append(
            f"{len(below)} task(s) have fewer than {main['k']} trials and are left out of "
            f"pass@{main['k']} and pass^{main['k']}: {shown}"
        )
    main["warnings"] = notes + main["warnings"]
    clean = [r for r in rows if r.status != TrialStatus.SYSTEM_ERROR]
    errors = len(rows) - len(clean)
    judged = [r for r in rows if not r.skipped_checks]
    unjudged = len(rows) - len(judged)
    return {
        "campaign": campaign,
        "agent_id": rows[0].agent_id,
        **main,
        "system_errors": errors,
        # The named side figure: point values only (intervals are for the canonical one).
        "excluding_system_errors": _figures(clean, k, None) if errors else main,
        "failures": _failures(rows),
        "cost_usd": math.fsum(r.cost_usd for r in rows),
        "cost": _cost(rows, main["dependable_tasks"]),
        "trials_with_skipped_checks": unjudged,
        # Fail-closed: unjudged trials are not passes above; this is the named side figure.
        "state_only_tasks": (_figures(judged, k, None) if judged else None) if unjudged else main,
        "floors": dict(manifest.baselines) if manifest is not None else {},
        "planned_trials": planned,
        "tasks_below_k_ids": below,
        "users": user_figures(rows),
    }


def _pareto(agents: dict[str, Any]) -> dict[str, Any]:
    """Entries not beaten on both cost per success (lower) and pass@1 (higher)."""
    points = [
        (name, s["cost"]["cost_per_success_usd"], s["overall"]["pass_at_1"])
        for name, s in agents.items()
    ]
    defined = [(n, c, p) for n, c, p in points if c is not None]

    def dominated(c: float, p: float) -> bool:
        return any(c2 <= c and p2 >= p and (c2 < c or p2 > p) for _, c2, p2 in defined)

    return {
        "x": "cost per success (USD)",
        "y": "pass@1",
        "points": [
            {
                "entry": n,
                "cost_per_success_usd": c,
                "pass_at_1": p,
                "on_frontier": not dominated(c, p),
            }
            for n, c, p in sorted(defined, key=lambda t: (t[1], -t[2]))
        ],
        "left_out": sorted(n for n, c, _ in points if c is None),
    }


def compared_environment_diff(a: Mapping[str, str], b: Mapping[str, str]) -> list[str]:
    """The environment parts that differ, leaving out the domains only one side ran.

    A part is named ``DOMAIN.part`` (or is campaign-wide, without a dot): a domain whose
    parts only one campaign has was not run by the other, so none of its tasks is
    compared and it does not make the figures unlike.
    """

    def domains(env: Mapping[str, str]) -> set[str]:
        return {k.split(".", 1)[0] for k in env if "." in k}

    both = domains(a) & domains(b)
    return [k for k in environment_diff(a, b) if "." not in k or k.split(".", 1)[0] in both]


def environment_difference(a: Manifest, b: Manifest) -> list[str]:
    """What makes two campaigns' environments unlike for comparing them ([]: nothing).

    Parts of a domain only one campaign ran are left out (`compared_environment_diff`).
    Hashes that differ where no recorded part does (a manifest edited, or hashed by
    another version) are ``parts unknown``: a difference nobody can name is still one.
    """
    if a.environment_hash == b.environment_hash:
        return []
    if not environment_diff(a.environment, b.environment):
        return ["parts unknown"]
    return compared_environment_diff(a.environment, b.environment)


def _environment(campaigns: Sequence[CampaignRows]) -> dict[str, Any]:
    """Each campaign's environment hash, and warnings when they differ."""
    hashes = {
        c.label: (c.manifest.environment_hash if c.manifest is not None else None)
        for c in campaigns
    }
    warnings_ = [
        f"{label}: no environment hash in its manifest (an older campaign); it cannot be "
        "told whether it ran the same tasks, policies and judge as the others"
        for label, h in hashes.items()
        if h is None and len(campaigns) > 1
    ]
    known = [c for c in campaigns if c.manifest is not None and c.manifest.environment_hash]
    for c in known[1:]:
        assert c.manifest is not None and known[0].manifest is not None
        parts = environment_difference(known[0].manifest, c.manifest)
        if parts:
            warnings_.append(
                f"{c.label} ran a different environment from {known[0].label} "
                f"({', '.join(parts)} differ): its figures are not like for like"
            )
    return {"hashes": hashes, "warnings": warnings_}


def summarize_campaigns(
    campaigns: Sequence[CampaignRows],
    *,
    k: int | None = None,
    excluded_fields: Sequence[ExcludedField] = (),
    spec: BootstrapSpec = DEFAULT_BOOTSTRAP,
) -> dict[str, Any]:
    """Summarise one or several campaigns, one entry per (campaign, agent).

    Args:
        campaigns: The campaigns, each with its trial rows.
        k: The k of pass@k and pass^k; default: each campaign's planned trials per task
            (tasks below it are named in ``tasks_below_k_ids``), else the smallest trial
            count per task.
        excluded_fields: The field policies of the campaigns' domains, printed with it.
        spec: Bootstrap resamples, level and seed of every interval.

    Returns:
        ``agents`` (entry → summary: ``tasks``, ``trials``, ``k``, ``overall`` and
        ``by_domain`` with ``pass_at_1``, ``pass_at_k``, ``pass_hat_k_unbiased``,
        ``pass_hat_k_plugin``, ``observed_k_of_k``, ``retention``; ``ci``, ``curve``,
        ``system_errors``, ``excluding_system_errors``, ``failures``, ``cost``, ``users``:
        user behaviours and grounding shares), ``campaigns``, ``signatures_pooled``,
        ``by_behaviour`` (pass@1 and observed k/k per entry and user behaviour),
        ``pareto``, ``bootstrap`` and ``field_policy``. An entry is named by its agent
        id, or ``<campaign>:<agent id>`` when an agent id occurs in several campaigns.
        With exactly one entry its summary's keys are also at the top level.

    Raises:
        ValueError: ``k`` is larger than every task's trial count, or below 1.
    """
    ids = Counter(a for c in campaigns for a in {r.agent_id for r in c.rows})
    agents: dict[str, Any] = {}
    entry_rows: dict[str, list[TrialRow]] = {}
    listing: list[dict[str, Any]] = []
    for c in campaigns:
        by_agent: dict[str, list[TrialRow]] = {}
        for r in c.rows:
            by_agent.setdefault(r.agent_id, []).append(r)
        names = []
        for agent_id, rows in sorted(by_agent.items()):
            name = agent_id if ids[agent_id] == 1 else f"{c.label}:{agent_id}"
            agents[name] = _entry(rows, k, spec, c.label, c.planned_trials, c.manifest)
            entry_rows[name] = rows
            names.append(name)
        listing.append({"label": c.label, "directory": str(c.directory), "entries": names})
    pooled: Counter[str] = Counter()
    for s in agents.values():
        pooled.update(s["failures"]["signatures"])
    out: dict[str, Any] = {
        "agents": agents,
        "campaigns": listing,
        "signatures_pooled": dict(sorted(pooled.items())),
        "by_behaviour": behaviour_rows(entry_rows, agents),
        "pareto": _pareto(agents),
        "bootstrap": spec.describe("task clusters (see each entry's ci.unit)"),
        "field_policy": [e.model_dump() for e in excluded_fields],
        "environment": _environment(campaigns),
    }
    if len(agents) == 1:
        out.update(next(iter(agents.values())))
    return out


def summarize(
    records: Sequence[TrialRecord | TrialRow],
    *,
    k: int | None = None,
    excluded_fields: Sequence[ExcludedField] = (),
    spec: BootstrapSpec = DEFAULT_BOOTSTRAP,
    label: str = "campaign",
) -> dict[str, Any]:
    """Summarise one campaign's trials (see `summarize_campaigns` for the result).

    Args:
        records: Trial records or rows (any number of agents).
        k: The k of pass@k and pass^k; default: the smallest trial count per task.
        excluded_fields: The field policies of the campaign's domains, printed with it.
        spec: Bootstrap resamples, level and seed of every interval.
        label: Name of the campaign in the summary.

    Returns:
        As `summarize_campaigns` with one campaign.

    Raises:
        ValueError: ``k`` is larger than every task's trial count, or below 1.
    """
    rows = [r if isinstance(r, TrialRow) else trial_row(r) for r in records]
    return summarize_campaigns(
        [CampaignRows(label, Path(label), rows)],
        k=k,
        excluded_fields=excluded_fields,
        spec=spec,
    )
