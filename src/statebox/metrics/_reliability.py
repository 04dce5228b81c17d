"""Reliability figures for repeated agent trials: pass@1, pass@k, pass^k and k/k.

Each task i is run n_i times and passes c_i of them. Every figure here is a mean over
tasks with each task weighted equally, so a task run ten times counts no more than a
task run twice.

Figures:

* pass@1: mean c_i/n_i.
* pass@k: chance that at least one of k trials drawn without replacement from the n_i
  passes, 1 - C(n_i - c_i, k)/C(n_i, k). Unbiased estimator of Chen et al. (2021),
  "Evaluating Large Language Models Trained on Code".
* pass^k (unbiased): chance that all k drawn trials pass, C(c_i, k)/C(n_i, k). The
  estimator of Yao et al. (2024), "τ-bench".
* pass^k (plug-in): (c_i/n_i)^k, ThinkingBox's estimator.
* observed k/k: share of tasks that passed every one of their own n_i trials. Here "k"
  is each task's own n_i, not the ``k`` argument; when trial counts differ it is the
  share of tasks passed in all their trials, which is easier to pass with fewer trials.
* retention: observed k/k divided by pass@1, i.e. how much of the single-trial success
  survives being asked to succeed every time.

Trade-offs:

* The unbiased pass^k is exactly zero for any task with c_i < k, and has high variance
  when n_i is close to k. The plug-in pass^k is never zero for 0 < c_i, so it reads
  more smoothly, but it is biased upward: each factor c_i/n_i is at least the
  corresponding (c_i - j)/(n_i - j), so plug-in >= unbiased task by task. Both are
  reported so a reader can see the gap rather than trust either alone.
* pass@k and pass^k are undefined for a task with n_i < k (no k distinct trials exist).
  Such tasks are left out of those three figures and counted in ``tasks_below_k``;
  they are never extrapolated or silently dropped. pass@1, observed k/k and retention
  still use every task. The plug-in estimator could be extrapolated past n_i, but the
  aggregate uses the same task set for all three so they stay comparable.
* Binomial coefficients are computed exactly with :func:`math.comb` and each per-task
  figure is one correctly rounded division of exact integers. That costs big-integer
  arithmetic when n_i is large, but trial counts are small and the result is exact,
  monotone in k and free of the cancellation a float product would suffer.
* Means use :func:`math.fsum`, which is correctly rounded, so the result does not depend
  on the order tasks are given in.
"""

from __future__ import annotations

import math
import re
import warnings
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import NamedTuple

__all__ = [
    "MetricsReport",
    "ReliabilityMetrics",
    "TaskOutcome",
    "UnequalTrialsWarning",
    "as_dict",
    "metrics_by_domain",
    "outcomes_from_trials",
    "pass_at_k_task",
    "pass_curve",
    "pass_hat_k_plugin_task",
    "pass_hat_k_unbiased_task",
    "reliability",
    "task_branch",
]


class TaskOutcome(NamedTuple):
    """Pass count of one task over its repeated trials.

    Attributes:
        task_id: Task identifier, unique within one set of outcomes.
        domain: Domain the task belongs to (for example ``"retail"``).
        n: Number of trials run.
        c: Number of those trials that passed.
        cluster: The group of sibling tasks it belongs to (`task_branch`), resampled
            together by the bootstrap; empty: the task alone.
    """

    task_id: str
    domain: str
    n: int
    c: int
    cluster: str = ""

    @property
    def unit(self) -> str:
        """The resampling unit: its cluster, or the task itself."""
        return self.cluster or self.task_id


_INSTANCE = re.compile(r"^(.+)\.\d+$")


def task_branch(task_id: str) -> str:
    """The branch a task re-instances: its id without a trailing instance number.

    Tasks ``retail.returns.approve.001`` … ``.004`` follow one workflow branch (same
    family, variant and tool sequence, other ids and amounts): their outcomes are not
    independent, so intervals resample branches, not tasks. An id without a trailing
    number is a branch of its own.
    """
    m = _INSTANCE.match(task_id)
    return m[1] if m else task_id


class ReliabilityMetrics(NamedTuple):
    """Reliability figures for one group of tasks.

    Attributes:
        tasks: Number of tasks in the group, including those below ``k``.
        trials: Total trials over all tasks in the group.
        k: The ``k`` used for pass@k and pass^k.
        pass_at_1: Mean over tasks of c_i/n_i.
        pass_at_k: Mean unbiased pass@k over tasks with n_i >= k.
        pass_hat_k_unbiased: Mean unbiased pass^k over tasks with n_i >= k.
        pass_hat_k_plugin: Mean plug-in pass^k over tasks with n_i >= k.
        observed_k_of_k: Share of tasks with c_i == n_i, each against its own n_i.
        retention: ``observed_k_of_k / pass_at_1``, or None when pass@1 is zero.
        tasks_below_k: Tasks with n_i < k, left out of pass@k and both pass^k figures.
        unequal_trials: True when trial counts differ across the group's tasks.
    """

    tasks: int
    trials: int
    k: int
    pass_at_1: float
    pass_at_k: float
    pass_hat_k_unbiased: float
    pass_hat_k_plugin: float
    observed_k_of_k: float
    retention: float | None
    tasks_below_k: int
    unequal_trials: bool


class MetricsReport(NamedTuple):
    """Reliability figures for all tasks together and for each domain.

    Attributes:
        overall: Figures over every task.
        by_domain: Figures per domain, keyed and ordered by domain name.
    """

    overall: ReliabilityMetrics
    by_domain: dict[str, ReliabilityMetrics]


class UnequalTrialsWarning(UserWarning):
    """Warned when tasks were run a different number of times.

    Observed k/k then compares tasks against different bars, and a fixed ``k`` may
    exceed some tasks' trial counts.
    """


def _check_task(n: int, c: int, k: int) -> None:
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if n < 1:
        raise ValueError(f"n (trials) must be at least 1, got {n}")
    if not 0 <= c <= n:
        raise ValueError(f"c (passes) must be between 0 and n={n}, got {c}")


def _check_defined(n: int, k: int) -> None:
    if k > n:
        raise ValueError(f"k={k} exceeds n={n} trials; the estimator is undefined")


def pass_at_k_task(n: int, c: int, k: int) -> float:
    """Unbiased pass@k for one task: 1 - C(n - c, k) / C(n, k).

    Args:
        n: Trials run.
        c: Trials passed.
        k: Number of trials drawn.

    Returns:
        Chance that at least one of k trials drawn without replacement passes.

    Raises:
        ValueError: If k < 1, n < 1, c is outside [0, n], or k > n.
    """
    _check_task(n, c, k)
    _check_defined(n, k)
    total = math.comb(n, k)
    # One division of exact integers keeps the result correctly rounded and monotone in k.
    return (total - math.comb(n - c, k)) / total


def pass_hat_k_unbiased_task(n: int, c: int, k: int) -> float:
    """Unbiased pass^k for one task (τ-bench): C(c, k) / C(n, k).

    Args:
        n: Trials run.
        c: Trials passed.
        k: Number of trials drawn.

    Returns:
        Chance that all k trials drawn without replacement pass; 0.0 whenever c < k.

    Raises:
        ValueError: If k < 1, n < 1, c is outside [0, n], or k > n.
    """
    _check_task(n, c, k)
    _check_defined(n, k)
    return math.comb(c, k) / math.comb(n, k)


def pass_hat_k_plugin_task(n: int, c: int, k: int) -> float:
    """Plug-in pass^k for one task (ThinkingBox): (c / n) ** k.

    Unlike the unbiased estimator this is defined for k > n and is never zero when
    c > 0; :func:`reliability` still leaves out tasks with n < k so that its three
    k-figures cover the same tasks.

    Args:
        n: Trials run.
        c: Trials passed.
        k: Exponent.

    Returns:
        The observed pass rate raised to the k-th power.

    Raises:
        ValueError: If k < 1, n < 1 or c is outside [0, n].
    """
    _check_task(n, c, k)
    return (c / n) ** k


def _mean(values: Sequence[float]) -> float:
    # fsum is correctly rounded, so the mean does not depend on task order.
    return math.fsum(values) / len(values)


def _validate(outcomes: Sequence[TaskOutcome]) -> None:
    if not outcomes:
        raise ValueError("no task outcomes given")
    seen: set[str] = set()
    for o in outcomes:
        if o.n < 1:
            raise ValueError(f"task {o.task_id!r}: n (trials) must be at least 1, got {o.n}")
        if not 0 <= o.c <= o.n:
            raise ValueError(
                f"task {o.task_id!r}: c (passes) must be between 0 and n={o.n}, got {o.c}"
            )
        # A repeated task would count twice and break equal weighting of tasks.
        if o.task_id in seen:
            raise ValueError(f"task {o.task_id!r} appears more than once")
        seen.add(o.task_id)


def _resolve_k(outcomes: Sequence[TaskOutcome], k: int | None) -> int:
    if k is None:
        return min(o.n for o in outcomes)
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    return k


def _describe_counts(outcomes: Sequence[TaskOutcome]) -> str:
    counts = Counter(o.n for o in outcomes)
    parts = [
        f"n={n} ({count} task{'s' if count != 1 else ''})" for n, count in sorted(counts.items())
    ]
    return ", ".join(parts)


def _warn_if_unequal(outcomes: Sequence[TaskOutcome], k: int) -> None:
    if len({o.n for o in outcomes}) > 1:
        warnings.warn(
            f"trial counts differ across tasks: {_describe_counts(outcomes)}; observed k/k "
            f"holds each task to its own n, and tasks with n < k={k} are left out of "
            "pass@k and pass^k",
            UnequalTrialsWarning,
            stacklevel=3,
        )


def _compute(outcomes: Sequence[TaskOutcome], k: int) -> ReliabilityMetrics:
    eligible = [o for o in outcomes if o.n >= k]
    if not eligible:
        raise ValueError(
            f"no task has at least k={k} trials (trial counts: {_describe_counts(outcomes)})"
        )
    # Tasks share few distinct (n, c): compute each estimator once per pair. The lists
    # averaged are the same as task by task, so the means are too.
    per_pair = {
        (n, c): (
            pass_at_k_task(n, c, k),
            pass_hat_k_unbiased_task(n, c, k),
            pass_hat_k_plugin_task(n, c, k),
        )
        for n, c in {(o.n, o.c) for o in eligible}
    }
    values = [per_pair[(o.n, o.c)] for o in eligible]
    pass_at_1 = _mean([o.c / o.n for o in outcomes])
    observed = sum(1 for o in outcomes if o.c == o.n) / len(outcomes)
    return ReliabilityMetrics(
        tasks=len(outcomes),
        trials=sum(o.n for o in outcomes),
        k=k,
        pass_at_1=pass_at_1,
        pass_at_k=_mean([v[0] for v in values]),
        pass_hat_k_unbiased=_mean([v[1] for v in values]),
        pass_hat_k_plugin=_mean([v[2] for v in values]),
        observed_k_of_k=observed,
        retention=None if pass_at_1 == 0 else observed / pass_at_1,
        tasks_below_k=len(outcomes) - len(eligible),
        unequal_trials=len({o.n for o in outcomes}) > 1,
    )


def pass_curve(outcomes: Sequence[TaskOutcome]) -> list[ReliabilityMetrics]:
    """Figures for every k from 1 to the smallest trial count: breadth against consistency.

    pass@k rises with k and both pass^k fall; drawing them side by side shows how far
    "can do it once" is from "does it every time". Does not warn about unequal trial
    counts (:func:`reliability` does).

    Args:
        outcomes: One outcome per task; task ids must be unique.

    Returns:
        One `ReliabilityMetrics` per k = 1 .. min n_i, in order of k.

    Raises:
        ValueError: As :func:`reliability`.
    """
    _validate(outcomes)
    return [_compute(outcomes, k) for k in range(1, min(o.n for o in outcomes) + 1)]


def reliability(outcomes: Sequence[TaskOutcome], k: int | None = None) -> ReliabilityMetrics:
    """Compute reliability figures over one group of tasks.

    Warns :class:`UnequalTrialsWarning`, naming the trial counts, when tasks were run a
    different number of times.

    Args:
        outcomes: One outcome per task; task ids must be unique.
        k: Trials drawn for pass@k and pass^k. Defaults to the smallest n_i.

    Returns:
        The group's figures. Tasks with n_i < k are counted in ``tasks_below_k`` and
        left out of pass@k and both pass^k figures.

    Raises:
        ValueError: If ``outcomes`` is empty, a task id repeats, a task has n < 1 or c
            outside [0, n], k < 1, or no task has at least k trials.
    """
    _validate(outcomes)
    k = _resolve_k(outcomes, k)
    result = _compute(outcomes, k)
    # Warn only once the figures exist, so a call that raises does not also warn.
    _warn_if_unequal(outcomes, k)
    return result


def metrics_by_domain(outcomes: Sequence[TaskOutcome], k: int | None = None) -> MetricsReport:
    """Compute reliability figures overall and for each domain, with one ``k`` for all.

    Warns :class:`UnequalTrialsWarning` at most once, for the whole set of outcomes.

    Args:
        outcomes: One outcome per task; task ids must be unique.
        k: Trials drawn for pass@k and pass^k. Defaults to the smallest n over all
            outcomes, so per-domain figures are comparable with each other.

    Returns:
        Overall figures and per-domain figures ordered by domain name.

    Raises:
        ValueError: As :func:`reliability`, including when some domain has no task
            with at least k trials.
    """
    _validate(outcomes)
    k = _resolve_k(outcomes, k)
    groups: dict[str, list[TaskOutcome]] = {}
    for o in outcomes:
        groups.setdefault(o.domain, []).append(o)
    by_domain: dict[str, ReliabilityMetrics] = {}
    for domain in sorted(groups):
        try:
            by_domain[domain] = _compute(groups[domain], k)
        except ValueError as exc:
            raise ValueError(f"domain {domain!r}: {exc}") from exc
    overall = _compute(outcomes, k)
    _warn_if_unequal(outcomes, k)
    return MetricsReport(overall=overall, by_domain=by_domain)


def outcomes_from_trials(trials: Iterable[tuple[str, str, bool]]) -> list[TaskOutcome]:
    """Fold per-trial results into one outcome per task.

    Args:
        trials: ``(task_id, domain, passed)`` for each trial, in any order.

    Returns:
        One :class:`TaskOutcome` per task id, sorted by task id, each in the cluster of
        its branch (`task_branch`); empty for no trials.

    Raises:
        ValueError: If one task id appears with two different domains.
    """
    domains: dict[str, str] = {}
    runs: Counter[str] = Counter()
    passes: Counter[str] = Counter()
    for task_id, domain, passed in trials:
        known = domains.setdefault(task_id, domain)
        if known != domain:
            raise ValueError(f"task {task_id!r} appears in two domains: {known!r} and {domain!r}")
        runs[task_id] += 1
        if passed:
            passes[task_id] += 1
    return [
        TaskOutcome(
            task_id=t,
            domain=domains[t],
            n=runs[t],
            c=passes[t],
            cluster="" if task_branch(t) == t else task_branch(t),
        )
        for t in sorted(domains)
    ]


def as_dict(m: ReliabilityMetrics) -> dict[str, float | int | bool | None]:
    """Return the figures as a plain dict, ready for JSON.

    Args:
        m: Figures to convert.

    Returns:
        Field name to value, in field order.
    """
    return {name: getattr(m, name) for name in m._fields}
