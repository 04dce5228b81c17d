"""Campaign summaries as plain data (JSON-ready) for the table and ``--format json``.

Reliability figures per agent, overall and per domain, plus failure analysis.

System errors count as failed trials in the canonical figures; the same figures with
system-error trials left out are given beside them under ``excluding_system_errors``.
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Sequence
from typing import Any

from statebox.metrics import (
    UnequalTrialsWarning,
    as_dict,
    metrics_by_domain,
    outcomes_from_trials,
)
from statebox.records import TrialRecord, TrialStatus
from statebox.world import ExcludedField

__all__ = ["summarize"]


def _figures(records: Sequence[TrialRecord], k: int | None) -> dict[str, Any] | None:
    trials = [(r.task_id, r.domain, r.status == TrialStatus.PASSED) for r in records]
    if not trials:
        return None
    outcomes = outcomes_from_trials(trials)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UnequalTrialsWarning)
        report = metrics_by_domain(outcomes, k)
    return {
        "tasks": report.overall.tasks,
        "trials": report.overall.trials,
        "k": report.overall.k,
        "overall": as_dict(report.overall),
        "by_domain": {d: as_dict(m) for d, m in report.by_domain.items()},
        "warnings": [str(w.message) for w in caught],
    }


def _failures(records: Sequence[TrialRecord]) -> dict[str, Any]:
    failed = [r for r in records if r.status != TrialStatus.PASSED]
    judged = [r for r in failed if r.verdict is not None]
    n = len(judged)
    sig = Counter(
        (r.verdict.signature.value if r.verdict and r.verdict.signature else "system_error")
        for r in failed
    )

    def share(pred: Any) -> float | None:
        return sum(1 for r in judged if pred(r)) / n if n else None

    return {
        "failed_trials": len(failed),
        "signatures": dict(sorted(sig.items())),
        "effects_note": "shares of judged failed trials; a trial can have several kinds",
        "with_missing": share(lambda r: r.verdict.comparison.missing),
        "with_wrong": share(lambda r: r.verdict.comparison.wrong),
        "with_extra": share(lambda r: r.verdict.comparison.extra),
        "tool_grader_fooled": share(lambda r: r.verdict.tool_grader_fooled),
    }


def summarize(
    records: Sequence[TrialRecord],
    *,
    k: int | None = None,
    excluded_fields: Sequence[ExcludedField] = (),
) -> dict[str, Any]:
    """Summarise a campaign's trial records.

    Args:
        records: Trial records (any number of agents).
        k: The k of pass@k and pass^k; default: the smallest trial count per task.
        excluded_fields: The field policies of the campaign's domains, printed with it.

    Returns:
        ``{"agents": {agent_id: summary}}`` where a summary has ``tasks``, ``trials``,
        ``k``, ``overall`` and ``by_domain`` (each with ``pass_at_1``, ``pass_at_k``,
        ``pass_hat_k_unbiased``, ``pass_hat_k_plugin``, ``observed_k_of_k``, ...),
        ``system_errors``, ``excluding_system_errors`` and ``failures``. With exactly
        one agent its summary's keys are also at the top level.

    Raises:
        ValueError: ``k`` is larger than every task's trial count, or below 1.
    """
    by_agent: dict[str, list[TrialRecord]] = {}
    for r in records:
        by_agent.setdefault(r.agent_id, []).append(r)
    agents: dict[str, Any] = {}
    for agent_id, recs in sorted(by_agent.items()):
        main = _figures(recs, k)
        assert main is not None  # recs is non-empty by construction
        clean = [r for r in recs if r.status != TrialStatus.SYSTEM_ERROR]
        errors = len(recs) - len(clean)
        agents[agent_id] = {
            **main,
            "system_errors": errors,
            "excluding_system_errors": _figures(clean, k) if errors else main,
            "failures": _failures(recs),
            "cost_usd": sum(r.cost_usd for r in recs),
            "trials_with_skipped_checks": sum(
                1 for r in recs if r.verdict and any(c.skipped for c in r.verdict.checks)
            ),
        }
    out: dict[str, Any] = {
        "agents": agents,
        "field_policy": [e.model_dump() for e in excluded_fields],
    }
    if len(agents) == 1:
        out.update(next(iter(agents.values())))
    return out
