"""The ablation table: named agent configurations over the same tasks, trials and seed.

What the τ-bench study of the think tool published, computed on any campaign whose
agents are named configurations (`statebox ablate`):

- pass^k for k = 1…K per configuration, with both estimators named (unbiased
  C(c, k)/C(n, k), τ-bench; plug-in (c/n)^k, ThinkingBox);
- each configuration against the first, paired by task: the lift in pass@1 and in
  observed k/k with a paired bootstrap interval and the paired tests ``compare`` runs
  (`statebox.metrics.compare_outcomes`: Wilcoxon signed-rank, exact McNemar);
- Welch's t-test (unequal variances) on the per-trial passes of the two sample sets,
  named as unpaired — the published study's statistic, valid where the samples are not
  paired (different tasks or trial counts);
- the lift broken down by task complexity (golden chain length, policy decisions,
  read-only or not), so "it does not help simple tasks" can be checked on any suite;
- think-tool usage: the share of trials with a thought, thoughts per trial, the share of
  mutating calls with a thought right before them (since the previous call), and pass@1
  of trials with and without a thought before their first write;
- failure signatures per configuration and their change against the first, tool-usage
  failures by the class of the error the agent did not recover from, the approval
  gate's counts (held, approved, refused), and whether a configuration's trials pass
  and fail as the reference's do, trial by trial (or on how many they differ;
  docs/mitigations.md).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from rich.console import Console
from rich.table import Table

from statebox.judge import FailureSignature
from statebox.metrics import (
    BootstrapSpec,
    TaskOutcome,
    compare_outcomes,
    outcomes_from_trials,
    pass_curve,
)
from statebox.records import TrialRecord, TrialStatus
from statebox.tasks import Task

__all__ = [
    "COMPLEXITY",
    "AblationConfig",
    "analyze_ablation",
    "policy_decisions",
    "print_ablation",
    "welch_t_test",
]


class AblationConfig(NamedTuple):
    """One named configuration of an ablation."""

    name: str
    """Its name (``baseline``, ``think``, ``think+prompt`` ...)."""
    agent_id: str
    """The agent id its trials carry."""
    spec: str = ""
    """How it was built, in words (for the manifest and the table)."""
    note: str = ""
    """What it cannot show on this agent (a prompt-only change of an offline agent)."""


def policy_decisions(task: Task, mutating: frozenset[str]) -> int:
    """How many policy decisions a task's checks pin.

    Its golden writes (each an action the policy allows), its SQL invariants, and each
    fact the reply must or must not carry (a refusal or a disclosure).
    """
    writes = sum(1 for c in task.golden if c.tool in mutating)
    reply = task.checks.reply
    facts = len(reply.must_contain) + len(reply.must_not_contain) if reply is not None else 0
    return writes + len(task.checks.invariants) + facts


def _bucket(value: int, edges: Sequence[tuple[int, str]]) -> str:
    for top, label in edges:
        if value <= top:
            return label
    return edges[-1][1]


_ANY = 1 << 62

COMPLEXITY: dict[str, Callable[[Task, frozenset[str]], str]] = {
    "golden chain length": lambda t, m: _bucket(
        len(t.golden), [(1, "1 call"), (3, "2-3 calls"), (_ANY, "4+ calls")]
    ),
    "policy decisions": lambda t, m: _bucket(
        policy_decisions(t, m), [(1, "0-1"), (3, "2-3"), (_ANY, "4+")]
    ),
    "read-only": lambda t, m: "read-only" if t.read_only else "writes",
}
"""Complexity dimension → the bucket of a task (given its domain's mutating tools)."""


def welch_t_test(a: Sequence[float], b: Sequence[float]) -> dict[str, Any]:
    """Welch's t-test (unequal variances, two-sided) of sample ``b`` against ``a``.

    Returns:
        ``name``, ``t``, ``df``, ``p_value`` (None when undefined: fewer than two samples
        a side, or no variance in either), ``n_a``, ``n_b``.
    """
    from scipy import stats  # type: ignore[import-untyped]

    out: dict[str, Any] = {
        "name": "Welch's t-test (unpaired, unequal variances, per-trial passes)",
        "n_a": len(a),
        "n_b": len(b),
        "t": None,
        "df": None,
        "p_value": None,
    }
    if len(a) < 2 or len(b) < 2:
        return out
    na, nb = len(a), len(b)
    ma, mb = sum(a) / na, sum(b) / nb
    va = sum((x - ma) ** 2 for x in a) / (na - 1)
    vb = sum((x - mb) ** 2 for x in b) / (nb - 1)
    se2 = va / na + vb / nb
    if se2 == 0:
        return out
    t = (mb - ma) / math.sqrt(se2)
    # Welch-Satterthwaite degrees of freedom; the p-value from Student's t with them.
    df = se2**2 / ((va / na) ** 2 / (na - 1) + (vb / nb) ** 2 / (nb - 1))
    out.update(t=t, df=df, p_value=float(2 * stats.t.sf(abs(t), df)))
    return out


def _lift(lift: Any) -> dict[str, Any]:
    return {
        "a": lift.a,
        "b": lift.b,
        "lift": lift.lift,
        "interval": [lift.interval.low, lift.interval.high],
        "test": {
            "name": lift.test.name,
            "statistic": lift.test.statistic,
            "p_value": lift.test.p_value,
            "pairs_used": lift.test.pairs_used,
        },
    }


def _usage(
    records: Sequence[TrialRecord], mutating: Mapping[str, frozenset[str]]
) -> dict[str, Any]:
    judged = [r for r in records if r.status != TrialStatus.SYSTEM_ERROR]
    with_thought = sum(1 for r in judged if r.thoughts)
    writes = after_thought = 0
    before: list[bool] = []
    not_before: list[bool] = []
    for r in judged:
        steps = set(r.thought_steps)
        mut = mutating.get(r.domain, frozenset())
        calls = [e.call.tool for e in r.transcript if e.kind == "tool_call" and e.call is not None]
        first_write = next((j for j, tool in enumerate(calls) if tool in mut), None)
        for j, tool in enumerate(calls):
            if tool in mut:
                writes += 1
                after_thought += j in steps  # a thought since the previous call
        if first_write is not None:
            passed = r.status == TrialStatus.PASSED
            (before if any(s <= first_write for s in steps) else not_before).append(passed)

    def share(xs: Sequence[bool]) -> float | None:
        return sum(xs) / len(xs) if xs else None

    return {
        "trials": len(judged),
        "trials_with_thought": with_thought / len(judged) if judged else None,
        "thoughts_per_trial": sum(len(r.thoughts) for r in judged) / len(judged)
        if judged
        else None,
        "mutating_calls": writes,
        "mutating_calls_after_thought": after_thought / writes if writes else None,
        "trials_that_wrote": len(before) + len(not_before),
        "pass_at_1_thought_before_first_write": share(before),
        "trials_thought_before_first_write": len(before),
        "pass_at_1_no_thought_before_first_write": share(not_before),
        "trials_no_thought_before_first_write": len(not_before),
    }


def analyze_ablation(
    configs: Sequence[AblationConfig],
    records: Sequence[TrialRecord],
    tasks: Sequence[Task],
    mutating: Mapping[str, frozenset[str]],
    spec: BootstrapSpec,
) -> dict[str, Any]:
    """The ablation's figures as data (JSON-serialisable).

    Args:
        configs: The configurations, the reference first.
        records: The campaign's trial records (latest per trial id).
        tasks: Its tasks (for the complexity breakdown).
        mutating: Domain → names of its mutating tools.
        spec: Bootstrap settings of the paired intervals.

    Raises:
        ValueError: Fewer than two configurations, or one without trials.
    """
    if len(configs) < 2:
        raise ValueError("an ablation needs at least two configurations")
    by_agent: dict[str, list[TrialRecord]] = {c.agent_id: [] for c in configs}
    for r in records:
        if r.agent_id in by_agent:
            by_agent[r.agent_id].append(r)
    for c in configs:
        if not by_agent[c.agent_id]:
            raise ValueError(f"configuration {c.name} ({c.agent_id}) has no trials")

    def outcomes(rs: Sequence[TrialRecord]) -> list[TaskOutcome]:
        return outcomes_from_trials(
            (r.task_id, r.domain, r.status == TrialStatus.PASSED) for r in rs
        )

    per = {c.name: outcomes(by_agent[c.agent_id]) for c in configs}
    k_max = min(min(o.n for o in os) for os in per.values())
    ref = configs[0]
    data: dict[str, Any] = {
        "configurations": [
            {
                "name": c.name,
                "agent_id": c.agent_id,
                "spec": c.spec,
                "tasks": len(per[c.name]),
                "trials": len(by_agent[c.agent_id]),
            }
            for c in configs
        ],
        "reference": ref.name,
        "k": k_max,
        "estimators": {
            "pass_hat_k_unbiased": "pass^k, unbiased estimator C(c,k)/C(n,k) (tau-bench)",
            "pass_hat_k_plugin": "pass^k, plug-in estimator (c/n)^k (ThinkingBox)",
        },
        "bootstrap": f"{spec.level:.0%} paired percentile bootstrap over task clusters, "
        f"{spec.resamples} resamples, seed {spec.seed}",
        "pass_hat_k": {},
        "pass_at_1": {},
        "paired": {},
        "welch": {},
        "by_complexity": {},
        "think_usage": {},
        "signatures": {},
        "signature_change": {},
        "tool_usage_by_error_class": {},
        "approvals": {},
        "same_outcomes_as_reference": {},
        "trials_differing_from_reference": {},
        "notes": {c.name: c.note for c in configs if c.note},
    }
    outcome_of = {
        c.name: {(r.task_id, r.trial): r.status for r in by_agent[c.agent_id]} for c in configs
    }
    for c in configs:
        rs = by_agent[c.agent_id]
        sig = Counter(_signature(r) for r in rs if r.status != TrialStatus.PASSED)
        data["signatures"][c.name] = dict(sorted(sig.items()))
        classes = Counter(
            (r.verdict.unrecovered_error if r.verdict is not None else None) or "none unrecovered"
            for r in rs
            if r.verdict is not None and r.verdict.signature == FailureSignature.TOOL_USAGE
        )
        data["tool_usage_by_error_class"][c.name] = dict(sorted(classes.items()))
        gated = [r.approvals for r in rs if r.approvals is not None]
        data["approvals"][c.name] = (
            {
                "trials": len(gated),
                "held": sum(a.held for a in gated),
                "approved": sum(a.approved for a in gated),
                "refused": sum(a.refused for a in gated),
            }
            if gated
            else None
        )
    ref_sig = data["signatures"][configs[0].name]
    for c in configs[1:]:
        mine = data["signatures"][c.name]
        data["signature_change"][c.name] = {
            s: mine.get(s, 0) - ref_sig.get(s, 0)
            for s in sorted(set(mine) | set(ref_sig))
            if mine.get(s, 0) != ref_sig.get(s, 0)
        }
        mine_out, ref_out = outcome_of[c.name], outcome_of[configs[0].name]
        data["same_outcomes_as_reference"][c.name] = mine_out == ref_out
        data["trials_differing_from_reference"][c.name] = sum(
            mine_out.get(key) != ref_out.get(key) for key in set(mine_out) | set(ref_out)
        )
    for c in configs:
        curve = pass_curve(per[c.name])[:k_max]
        data["pass_hat_k"][c.name] = [
            {
                "k": m.k,
                "pass_hat_k_unbiased": m.pass_hat_k_unbiased,
                "pass_hat_k_plugin": m.pass_hat_k_plugin,
            }
            for m in curve
        ]
        data["pass_at_1"][c.name] = curve[0].pass_at_1 if curve else None
        data["think_usage"][c.name] = _usage(by_agent[c.agent_id], mutating)
    a_trials = [float(r.status == TrialStatus.PASSED) for r in by_agent[ref.agent_id]]
    for c in configs[1:]:
        report = compare_outcomes(per[ref.name], per[c.name], spec)
        data["paired"][c.name] = {
            "tasks": report.overall.tasks,
            "unit": report.overall.unit,
            "pass_at_1": _lift(report.overall.pass_at_1),
            "observed_k_of_k": _lift(report.overall.observed_k_of_k),
            "only_reference": report.only_a,
            "only_this": report.only_b,
        }
        b_trials = [float(r.status == TrialStatus.PASSED) for r in by_agent[c.agent_id]]
        data["welch"][c.name] = welch_t_test(a_trials, b_trials)
    by_task = {t.id: t for t in tasks}
    for dim, bucket_of in COMPLEXITY.items():
        buckets: dict[str, set[str]] = {}
        for t in by_task.values():
            buckets.setdefault(bucket_of(t, mutating.get(t.domain, frozenset())), set()).add(t.id)
        rows: dict[str, Any] = {}
        for label in sorted(buckets):
            ids = buckets[label]
            sub = {n: [o for o in os if o.task_id in ids] for n, os in per.items()}
            if not sub[ref.name]:
                continue
            row: dict[str, Any] = {"tasks": len(sub[ref.name]), "pass_at_1": {}, "lift": {}}
            for c in configs:
                os = sub[c.name]
                row["pass_at_1"][c.name] = (
                    sum(o.c for o in os) / sum(o.n for o in os) if os else None
                )
            for c in configs[1:]:
                if not sub[c.name]:
                    continue
                lift = compare_outcomes(sub[ref.name], sub[c.name], spec).overall.pass_at_1
                row["lift"][c.name] = {
                    "lift": lift.lift,
                    "interval": [lift.interval.low, lift.interval.high],
                }
            rows[label] = row
        data["by_complexity"][dim] = rows
    return data


def _signature(r: TrialRecord) -> str:
    if r.verdict is not None and r.verdict.signature is not None:
        return r.verdict.signature.value
    return "system_error" if r.status == TrialStatus.SYSTEM_ERROR else "unlabelled"


def _f(x: object, digits: int = 3) -> str:
    return "n/a" if not isinstance(x, int | float) else f"{x:.{digits}f}"


def _signed(x: object) -> str:
    return "n/a" if not isinstance(x, int | float) else f"{x:+.3f}"


def _p(x: object) -> str:
    return "undefined" if not isinstance(x, int | float) else f"{x:.3g}"


def print_ablation(data: Mapping[str, Any], console: Console) -> None:
    """Print the ablation's tables.

    pass^k per configuration, paired comparisons, complexity, think usage.
    """
    names = [c["name"] for c in data["configurations"]]
    ref = data["reference"]
    k = data["k"]
    t = Table(title=f"pass^k for k = 1..{k} per configuration (both estimators, named)")
    t.add_column("configuration")
    t.add_column("estimator")
    for i in range(1, k + 1):
        t.add_column(f"k={i}", justify="right")
    for n in names:
        curve = data["pass_hat_k"][n]
        t.add_row(n, "pass^k unbiased (tau-bench)", *[_f(m["pass_hat_k_unbiased"]) for m in curve])
        t.add_row("", "pass^k plug-in (ThinkingBox)", *[_f(m["pass_hat_k_plugin"]) for m in curve])
    console.print(t)
    p = Table(title=f"Against {ref}, paired by task ({data['bootstrap']})")
    for col in (
        "configuration",
        "pass@1",
        "lift",
        "95% interval",
        "Wilcoxon p",
        "observed k/k lift",
        "McNemar p",
        "Welch's t (unpaired) p",
    ):
        p.add_column(col, justify="left" if col == "configuration" else "right")
    p.add_row(ref, _f(data["pass_at_1"][ref]), "", "", "", "", "", "")
    for n in names[1:]:
        pair, welch = data["paired"][n], data["welch"][n]
        lo, hi = pair["pass_at_1"]["interval"]
        p.add_row(
            n,
            _f(data["pass_at_1"][n]),
            _signed(pair["pass_at_1"]["lift"]),
            f"[{_signed(lo)}, {_signed(hi)}]",
            _p(pair["pass_at_1"]["test"]["p_value"]),
            _signed(pair["observed_k_of_k"]["lift"]),
            _p(pair["observed_k_of_k"]["test"]["p_value"]),
            _p(welch["p_value"]),
        )
    console.print(p)
    c = Table(title=f"pass@1 by task complexity (lift against {ref}, 95% paired interval)")
    c.add_column("dimension")
    c.add_column("bucket")
    c.add_column("tasks", justify="right")
    for n in names:
        c.add_column(n, justify="right")
    for dim, rows in data["by_complexity"].items():
        for label, row in rows.items():
            cells = []
            for n in names:
                value = _f(row["pass_at_1"].get(n))
                lift = row["lift"].get(n)
                if lift is not None:
                    lo, hi = lift["interval"]
                    value += f" ({_signed(lift['lift'])} [{_signed(lo)}, {_signed(hi)}])"
                cells.append(value)
            c.add_row(dim, label, str(row["tasks"]), *cells)
    console.print(c)
    u = Table(title="Think-tool usage")
    for col in (
        "configuration",
        "trials with a thought",
        "thoughts per trial",
        "writes right after a thought",
        "pass@1, thought before 1st write",
        "pass@1, none before 1st write",
    ):
        u.add_column(col, justify="left" if col == "configuration" else "right")
    for n in names:
        us = data["think_usage"][n]
        u.add_row(
            n,
            _f(us["trials_with_thought"]),
            _f(us["thoughts_per_trial"], 2),
            _f(us["mutating_calls_after_thought"]),
            f"{_f(us['pass_at_1_thought_before_first_write'])} "
            f"(n={us['trials_thought_before_first_write']})",
            f"{_f(us['pass_at_1_no_thought_before_first_write'])} "
            f"(n={us['trials_no_thought_before_first_write']})",
        )
    console.print(u)
    _print_mitigations(data, console, names, ref)


def _counts(values: Mapping[str, int]) -> str:
    return ", ".join(f"{k} {v:+d}" if isinstance(v, int) else f"{k} {v}" for k, v in values.items())


def _outcome_note(same: bool | None, differing: int | None) -> str:
    """Trial statuses against the reference's: signatures may change while these hold."""
    if same:
        return "same pass/fail per trial as the reference"
    if differing is None:  # an ablation written before the count existed
        return "pass/fail differs"
    return f"pass/fail differs on {differing} trial{'s' if differing != 1 else ''}"


def _print_mitigations(
    data: Mapping[str, Any], console: Console, names: Sequence[str], ref: str
) -> None:
    """Failure signatures and their change, tool-usage error classes, approvals, notes.

    Ablations written before these figures existed have none: nothing is printed.
    """
    if "signatures" not in data:
        return
    s = Table(title=f"Failure signatures (failed trials) and change against {ref}")
    for col in (
        "configuration",
        "signatures",
        f"change against {ref}",
        "tool usage by unrecovered error class",
        "approval gate: held / approved / refused",
        "per-trial outcomes",
    ):
        s.add_column(col, justify="left")
    for n in names:
        sig = data["signatures"].get(n, {})
        change = data["signature_change"].get(n)
        same = data["same_outcomes_as_reference"].get(n)
        gate = data["approvals"].get(n)
        differing = data.get("trials_differing_from_reference", {}).get(n)
        s.add_row(
            n,
            ", ".join(f"{k} {v}" for k, v in sig.items()) or "none",
            "" if n == ref else (_counts(change) if change else "no change"),
            ", ".join(f"{k} {v}" for k, v in data["tool_usage_by_error_class"][n].items())
            or "none",
            "no gate"
            if gate is None
            else f"{gate['held']} / {gate['approved']} / {gate['refused']}",
            "" if n == ref else _outcome_note(same, differing),
        )
    console.print(s)
    for n, note in data.get("notes", {}).items():
        console.print(f"note: {n} {note}", highlight=False)
