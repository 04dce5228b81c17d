"""Paired comparison of two campaigns, task by task: lift, paired bootstrap, paired tests.

Two campaigns that ran the same tasks are compared on the tasks they share. Per task,
pass@1 is c_i/n_i and "dependable" means c_i = n_i (observed k/k). The lift is B − A,
averaged over shared tasks.

Tests (two-sided):

* pass@1: **Wilcoxon signed-rank test** on the per-task differences of c_i/n_i
  (zero differences dropped, Wilcoxon's original rule; ties get mean ranks; exact
  sign-flip distribution up to 50 non-zero differences, normal approximation beyond).
  It uses the size of each task's change, not only its sign. Differences are exact
  fractions, so equal changes tie exactly.
* observed k/k: **exact McNemar test** on the tasks that flipped: under no effect a
  task that changed is equally likely to have gained or lost dependability, so the
  number gained is Binomial(gained + lost, 1/2). Exact, no continuity correction.

Tasks that re-instance one branch (`task_branch`) are not independent: when a group
holds such clusters, the paired bootstrap resamples clusters (each keeping its tasks'
A and B together) and both tests run on per-cluster mean differences — the Wilcoxon
signed-rank test for pass@1 and for observed k/k alike (on ±1 differences it is the
exact McNemar test). When every cluster is one task they are the task-level tests
above. Each test's name says its unit. Tasks present in only one campaign are listed,
never silently dropped.

numpy is imported inside the functions; no scipy is needed.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from typing import Literal, NamedTuple

from statebox.metrics._bootstrap import (
    DEFAULT_BOOTSTRAP,
    BootstrapSpec,
    Interval,
    resample_counts,
    resampling_unit,
)
from statebox.metrics._reliability import TaskOutcome

__all__ = [
    "FlippedTask",
    "Lift",
    "PairedComparison",
    "PairedReport",
    "PairedTest",
    "compare_outcomes",
    "mcnemar_exact",
    "wilcoxon_signed_rank",
]


class PairedTest(NamedTuple):
    """Result of a named paired significance test.

    Attributes:
        name: The test, by name.
        statistic: The test statistic (None when no task changed).
        p_value: Two-sided p-value.
        pairs_used: Pairs that entered the test (non-zero differences / discordant tasks).
    """

    name: str
    statistic: float | None
    p_value: float
    pairs_used: int


class Lift(NamedTuple):
    """One figure in both campaigns, their paired difference and its uncertainty.

    Attributes:
        a: The figure in campaign A.
        b: The figure in campaign B.
        lift: ``b - a``.
        interval: Paired bootstrap interval of the lift.
        test: The paired significance test.
    """

    a: float
    b: float
    lift: float
    interval: Interval
    test: PairedTest


class PairedComparison(NamedTuple):
    """Lifts over one group of shared tasks.

    Attributes:
        tasks: Shared tasks in the group.
        pass_at_1: Lift in pass@1.
        observed_k_of_k: Lift in observed k/k (share of tasks passed in every trial).
        unit: The resampling unit of its interval and tests, in words.
    """

    tasks: int
    pass_at_1: Lift
    observed_k_of_k: Lift
    unit: str = "tasks"


class FlippedTask(NamedTuple):
    """A shared task whose dependability (passed every trial) changed from A to B.

    Attributes:
        task_id: Task id.
        domain: Task domain.
        direction: ``gained`` (B passes every trial, A does not) or ``lost``.
        a: The task's outcome in A.
        b: The task's outcome in B.
    """

    task_id: str
    domain: str
    direction: Literal["gained", "lost"]
    a: TaskOutcome
    b: TaskOutcome


class PairedReport(NamedTuple):
    """A paired comparison of campaign B against campaign A.

    Attributes:
        overall: Lifts over every shared task.
        by_domain: Lifts per domain, ordered by domain name.
        flipped: Tasks that gained or lost dependability, gained first, by task id.
        only_a: Task ids run in A only (left out of the comparison).
        only_b: Task ids run in B only (left out of the comparison).
        spec: The bootstrap settings.
    """

    overall: PairedComparison
    by_domain: dict[str, PairedComparison]
    flipped: list[FlippedTask]
    only_a: list[str]
    only_b: list[str]
    spec: BootstrapSpec


def mcnemar_exact(gained: int, lost: int) -> PairedTest:
    """Exact McNemar test: two-sided binomial test of ``gained`` in ``gained + lost`` at 1/2.

    Args:
        gained: Discordant pairs that changed in B's favour.
        lost: Discordant pairs that changed in A's favour.

    Returns:
        The test; p = 1 when no pair is discordant.

    Raises:
        ValueError: If either count is negative.
    """
    if gained < 0 or lost < 0:
        raise ValueError(f"counts must be non-negative, got {gained} and {lost}")
    n = gained + lost
    name = "exact McNemar test (two-sided binomial on discordant tasks)"
    if n == 0:
        return PairedTest(name, None, 1.0, 0)
    tail = sum(math.comb(n, i) for i in range(min(gained, lost) + 1))
    # One division of exact integers: no underflow for large n.
    p = min(1.0, 2 * tail / 2**n)
    return PairedTest(name, float(min(gained, lost)), p, n)


_EXACT_MAX_PAIRS = 50
"""Up to this many non-zero differences the Wilcoxon p-value is exact."""


def _ranks(values: Sequence[Fraction | float]) -> list[Fraction]:
    """Ranks 1..n of ``values`` (ascending), ties given their mean rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [Fraction(0)] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for m in range(i, j + 1):
            ranks[order[m]] = Fraction(i + j + 2, 2)
        i = j + 1
    return ranks


def _exact_signed_rank_p(ranks: Sequence[Fraction], w_minus: Fraction) -> float:
    """Two-sided p of the sign-flip distribution of the negative rank sum, given the ranks."""
    doubled = [int(2 * r) for r in ranks]  # mean ranks are halves: doubling makes them whole
    counts = [0] * (sum(doubled) + 1)
    counts[0] = 1
    for d in doubled:
        for total in range(len(counts) - 1, d - 1, -1):
            counts[total] += counts[total - d]
    observed = int(2 * w_minus)
    low, high = sum(counts[: observed + 1]), sum(counts[observed:])
    p: float = min(1.0, 2 * min(low, high) / 2 ** len(ranks))
    return p


def wilcoxon_signed_rank(differences: Sequence[Fraction | float]) -> PairedTest:
    """Two-sided Wilcoxon signed-rank test of per-task differences.

    Zero differences are dropped (Wilcoxon's rule); tied magnitudes get their mean rank.
    With at most 50 non-zero differences the p-value is exact: the distribution of the
    negative rank sum over all 2^n sign flips of the observed ranks (ties included),
    by dynamic programming. Beyond that it is the normal approximation with the
    tie-corrected variance sum(r²)/4, without continuity correction.

    Args:
        differences: Per-task B − A. Pass `fractions.Fraction` values when they come
            from ratios, so that equal magnitudes tie exactly.

    Returns:
        The test; statistic = min(W+, W−); p = 1 when every difference is zero.
    """
    name = "Wilcoxon signed-rank test (two-sided, zero differences dropped)"
    nonzero = [d for d in differences if d != 0]
    if not nonzero:
        return PairedTest(name, None, 1.0, 0)
    magnitudes: list[Fraction | float] = [d if d > 0 else -d for d in nonzero]
    ranks = _ranks(magnitudes)
    w_minus = sum((r for r, d in zip(ranks, nonzero, strict=True) if d < 0), Fraction(0))
    w_plus = sum(ranks, Fraction(0)) - w_minus
    if len(nonzero) <= _EXACT_MAX_PAIRS:
        p = _exact_signed_rank_p(ranks, w_minus)
    else:
        mean = sum(ranks, Fraction(0)) / 2
        sd = math.sqrt(sum(r * r for r in ranks) / 4)
        p = min(1.0, math.erfc(abs(float(w_minus - mean)) / sd / math.sqrt(2)))
    return PairedTest(name, float(min(w_plus, w_minus)), p, len(nonzero))


def _group(
    pairs: Sequence[tuple[TaskOutcome, TaskOutcome]], spec: BootstrapSpec
) -> PairedComparison:
    import numpy as np

    p1 = np.array([[a.c / a.n, b.c / b.n] for a, b in pairs], dtype=np.float64)
    kk = np.array([[a.c == a.n, b.c == b.n] for a, b in pairs], dtype=np.float64)
    diffs = np.stack([p1[:, 1] - p1[:, 0], kk[:, 1] - kk[:, 0]], axis=1)
    clusters: dict[str, list[tuple[TaskOutcome, TaskOutcome]]] = {}
    for a, b in pairs:
        clusters.setdefault(a.unit, []).append((a, b))
    # Clusters with the same pairs of counts are interchangeable: resample them as classes.
    shapes = Counter(
        tuple(sorted((a.n, a.c, b.n, b.c) for a, b in members)) for members in clusters.values()
    )
    classes = sorted(shapes)
    class_sums = np.array(
        [
            [
                sum(cb / nb - ca / na for na, ca, nb, cb in cl),
                sum(float(cb == nb) - float(ca == na) for na, ca, nb, cb in cl),
            ]
            for cl in classes
        ],
        dtype=np.float64,
    )
    sizes = np.array([len(cl) for cl in classes], dtype=np.float64)
    key = "paired\n" + "\n".join(a.task_id for a, _ in pairs)
    w = resample_counts([shapes[cl] for cl in classes], spec, key)
    boot = (w @ class_sums) / (w @ sizes)[:, None]
    tail = (1 - spec.level) / 2
    lows, highs = np.quantile(boot, [tail, 1 - tail], axis=0)
    unit = resampling_unit([a for a, _ in pairs])
    if len(clusters) == len(pairs):
        exact = [Fraction(b.c, b.n) - Fraction(a.c, a.n) for a, b in pairs]
        gained = int(np.sum(diffs[:, 1] > 0))
        lost = int(np.sum(diffs[:, 1] < 0))
        test_p1, test_kk = wilcoxon_signed_rank(exact), mcnemar_exact(gained, lost)
    else:
        members = [clusters[c] for c in sorted(clusters)]
        p1_means = [
            sum((Fraction(b.c, b.n) - Fraction(a.c, a.n) for a, b in m), Fraction(0)) / len(m)
            for m in members
        ]
        kk_means = [
            Fraction(sum(int(b.c == b.n) - int(a.c == a.n) for a, b in m), len(m)) for m in members
        ]
        test_p1 = _per_cluster(wilcoxon_signed_rank(p1_means), "pass@1")
        test_kk = _per_cluster(wilcoxon_signed_rank(kk_means), "observed k/k")

    def lift(col: int, values: np.ndarray, test: PairedTest) -> Lift:
        a, b = math.fsum(values[:, 0]) / len(pairs), math.fsum(values[:, 1]) / len(pairs)
        return Lift(a, b, b - a, Interval(float(lows[col]), float(highs[col])), test)

    return PairedComparison(
        tasks=len(pairs),
        pass_at_1=lift(0, p1, test_p1),
        observed_k_of_k=lift(1, kk, test_kk),
        unit=unit,
    )


def _per_cluster(test: PairedTest, figure: str) -> PairedTest:
    return test._replace(
        name=f"Wilcoxon signed-rank test on per-branch mean changes in {figure} "
        "(two-sided, zero differences dropped; branches are the unit)"
    )


def compare_outcomes(
    a: Sequence[TaskOutcome], b: Sequence[TaskOutcome], spec: BootstrapSpec = DEFAULT_BOOTSTRAP
) -> PairedReport:
    """Compare campaign B with campaign A, paired by task.

    Args:
        a: Per-task outcomes of the baseline campaign.
        b: Per-task outcomes of the campaign compared with it.
        spec: Bootstrap resamples, level and seed.

    Returns:
        Overall and per-domain lifts with paired bootstrap intervals and named tests,
        flipped tasks, and the tasks left out because only one side ran them.

    Raises:
        ValueError: If the campaigns share no task, or a shared task has different
            domains on the two sides.
    """
    by_a = {o.task_id: o for o in a}
    by_b = {o.task_id: o for o in b}
    shared = sorted(by_a.keys() & by_b.keys())
    if not shared:
        raise ValueError("the two campaigns share no task; nothing to pair")
    pairs = [(by_a[t], by_b[t]) for t in shared]
    groups: dict[str, list[tuple[TaskOutcome, TaskOutcome]]] = {}
    for oa, ob in pairs:
        if oa.domain != ob.domain:
            raise ValueError(f"task {oa.task_id!r} is {oa.domain!r} in A but {ob.domain!r} in B")
        groups.setdefault(oa.domain, []).append((oa, ob))
    flipped = [
        FlippedTask(oa.task_id, oa.domain, "gained" if ob.c == ob.n else "lost", oa, ob)
        for oa, ob in pairs
        if (oa.c == oa.n) != (ob.c == ob.n)
    ]
    flipped.sort(key=lambda f: (f.direction != "gained", f.task_id))
    return PairedReport(
        overall=_group(pairs, spec),
        by_domain={d: _group(groups[d], spec) for d in sorted(groups)},
        flipped=flipped,
        only_a=sorted(by_a.keys() - by_b.keys()),
        only_b=sorted(by_b.keys() - by_a.keys()),
        spec=spec,
    )
