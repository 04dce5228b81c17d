"""Seeded bootstrap confidence intervals for the reliability figures, over task clusters.

The unit of resampling is the *cluster*: tasks that re-instance one workflow branch
(`statebox.metrics.task_branch`: same family and variant, other ids and amounts) are
not independent, and resampling them one by one would make intervals too narrow. Each
resample draws as many clusters as the group has, with replacement, keeps every drawn
task's own (n_i, c_i), and recomputes each figure as a mean over the drawn tasks. When
every cluster is one task this is the plain bootstrap over tasks. The interval is the
percentile interval (Efron) of the resampled figures; `resampling_unit` names the unit
for every caption.

Trade-offs:

* Resampling clusters of tasks, not trials, matches how the figures are defined (means
  over tasks) and keeps each task's trials — and each branch's siblings — together, so
  the interval reflects the spread between branches. It says nothing about how the
  per-task figures would move with more trials.
* Clusters of different sizes make the number of drawn tasks vary between resamples;
  each figure is then a ratio (sum over drawn tasks ÷ drawn tasks), the usual cluster
  bootstrap of a mean.
* Percentile intervals are simple and never leave [0, 1], but undercover with few
  tasks; the number of tasks is printed next to every interval for that reason.
* Clusters with the same multiset of (n_i, c_i) are interchangeable, so a resample is
  drawn as counts per class (one multinomial draw, the same distribution as drawing
  clusters) and every figure is one matrix product with the per-class sums: all figures
  of a group share the same resamples, and the cost grows with the number of distinct
  cluster shapes, not with the number of tasks.
* Tasks are sorted by id before resampling, so the interval does not depend on the
  order outcomes are given in; the seed and the set of task ids fix the stream.

numpy is imported inside the functions: ``import statebox`` stays free of it.
"""

from __future__ import annotations

import zlib
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from statebox.metrics._reliability import (
    TaskOutcome,
    pass_at_k_task,
    pass_hat_k_plugin_task,
    pass_hat_k_unbiased_task,
)

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "BOOTSTRAP_METRICS",
    "DEFAULT_BOOTSTRAP",
    "BootstrapSpec",
    "Interval",
    "bootstrap_intervals",
    "resample_counts",
    "resampling_unit",
]

BOOTSTRAP_METRICS = (
    "pass_at_1",
    "pass_at_k",
    "pass_hat_k_unbiased",
    "pass_hat_k_plugin",
    "observed_k_of_k",
    "retention",
)
"""Figures that get an interval, in the order of `ReliabilityMetrics`."""


class Interval(NamedTuple):
    """A two-sided confidence interval.

    Attributes:
        low: Lower bound.
        high: Upper bound.
    """

    low: float
    high: float


class BootstrapSpec(NamedTuple):
    """How intervals are drawn.

    Attributes:
        resamples: Number of bootstrap resamples.
        level: Coverage of the interval, e.g. 0.95.
        seed: Seed of the random stream (mixed with the task ids of each group).
    """

    resamples: int = 2000
    level: float = 0.95
    seed: int = 0

    def describe(self, unit: str = "tasks") -> str:
        """One line naming the method and its resampling unit, for reports."""
        return (
            f"{self.level:.0%} percentile bootstrap over {unit}, "
            f"{self.resamples} resamples, seed {self.seed}"
        )


DEFAULT_BOOTSTRAP = BootstrapSpec()
"""2000 resamples, 95% percentile intervals, seed 0."""


def _check_spec(spec: BootstrapSpec) -> None:
    if spec.resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {spec.resamples}")
    if not 0 < spec.level < 1:
        raise ValueError(f"level must be in (0, 1), got {spec.level}")


def resample_counts(
    class_sizes: Sequence[int], spec: BootstrapSpec, key: str
) -> npt.NDArray[np.float64]:
    """How many tasks of each class each resample draws.

    Drawing T tasks uniformly with replacement and counting the draws per class of
    interchangeable tasks (same pass counts) is one multinomial draw with the class
    shares as probabilities; drawing that directly costs resamples × classes instead
    of resamples × tasks, and gives the same distribution.

    Args:
        class_sizes: Tasks per class (each at least 1); T is their sum.
        spec: Resamples and seed.
        key: Mixed into the seed (e.g. the group's task ids), so groups get
            independent but reproducible streams.

    Returns:
        A (resamples × classes) float array of draw counts; each row sums to T.

    Raises:
        ValueError: If there is no class, a class is empty, or the spec is invalid.
    """
    import numpy as np

    _check_spec(spec)
    if not class_sizes or min(class_sizes) < 1:
        raise ValueError(f"need non-empty classes to resample, got {list(class_sizes)}")
    rng = np.random.default_rng([spec.seed, zlib.crc32(key.encode("utf-8"))])
    sizes = np.asarray(class_sizes, dtype=np.float64)
    total = int(sizes.sum())
    counts = rng.multinomial(total, sizes / total, size=spec.resamples)
    return counts.astype(np.float64)


def resampling_unit(outcomes: Sequence[TaskOutcome]) -> str:
    """The resampling unit of a group of outcomes, in words, for interval captions."""
    clusters = {o.unit for o in outcomes}
    if len(clusters) == len(outcomes):
        return f"tasks ({len(outcomes)}, each its own cluster)"
    return (
        f"task branches ({len(clusters)} branches of {len(outcomes)} tasks; "
        "tasks of one branch, family.branch of the id, resampled together)"
    )


def _per_task(n: int, c: int, k: int) -> tuple[float, ...]:
    """pass@1, pass@k, pass^k unbiased, pass^k plug-in, k/k, eligible (n >= k)."""
    ok = n >= k
    return (
        c / n,
        pass_at_k_task(n, c, k) if ok else 0.0,
        pass_hat_k_unbiased_task(n, c, k) if ok else 0.0,
        pass_hat_k_plugin_task(n, c, k) if ok else 0.0,
        1.0 if c == n else 0.0,
        1.0 if ok else 0.0,
    )


def _cluster_classes(
    outcomes: Sequence[TaskOutcome], k: int
) -> tuple[list[int], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Clusters by shape: clusters per class, per-class sums of the six columns, tasks."""
    import numpy as np

    clusters: dict[str, list[tuple[int, int]]] = {}
    for o in outcomes:
        clusters.setdefault(o.unit, []).append((o.n, o.c))
    shapes = Counter(tuple(sorted(v)) for v in clusters.values())
    classes = sorted(shapes)
    sums = np.asarray(
        [
            [sum(col) for col in zip(*(_per_task(n, c, k) for n, c in cl), strict=True)]
            for cl in classes
        ],
        dtype=np.float64,
    )
    sizes = np.asarray([len(cl) for cl in classes], dtype=np.float64)
    return [shapes[cl] for cl in classes], sums, sizes


def _interval(values: npt.NDArray[np.float64], level: float) -> Interval | None:
    import numpy as np

    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return None
    tail = (1 - level) / 2
    low, high = np.quantile(finite, [tail, 1 - tail])
    return Interval(float(low), float(high))


def bootstrap_intervals(
    outcomes: Sequence[TaskOutcome],
    k: int,
    spec: BootstrapSpec = DEFAULT_BOOTSTRAP,
) -> dict[str, Interval | None]:
    """Percentile bootstrap intervals over task clusters for every reliability figure.

    pass@k and both pass^k are averaged, in each resample, over the drawn tasks with
    n_i >= k, as in :func:`statebox.metrics.reliability`; retention is the ratio of
    resampled observed k/k to resampled pass@1. A figure with no defined value in any
    resample (retention when every resample has pass@1 = 0) gets None.

    Args:
        outcomes: One outcome per task (any order; unique task ids); tasks sharing a
            ``cluster`` are resampled together.
        k: The k of pass@k and pass^k (at least 1).
        spec: Resamples, level and seed. The stream is keyed by the seed and the set
            of task ids, so the same tasks always get the same resamples.

    Returns:
        Figure name (see `BOOTSTRAP_METRICS`) → interval, or None where undefined.

    Raises:
        ValueError: If ``outcomes`` is empty, k < 1, or the spec is invalid.
    """
    import numpy as np

    if not outcomes:
        raise ValueError("no task outcomes given")
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    ordered = sorted(outcomes, key=lambda o: o.task_id)
    counts, x, sizes = _cluster_classes(ordered, k)
    key = "\n".join(o.task_id for o in ordered)
    w = resample_counts(counts, spec, key)
    sums = w @ x
    tasks = w @ sizes
    eligible = sums[:, 5]
    with np.errstate(divide="ignore", invalid="ignore"):
        k_means = sums[:, 1:4] / eligible[:, None]
        pass_at_1 = sums[:, 0] / tasks
        kk = sums[:, 4] / tasks
        retention = np.where(pass_at_1 > 0, kk / np.where(pass_at_1 > 0, pass_at_1, 1.0), np.nan)
    columns = {
        "pass_at_1": pass_at_1,
        "pass_at_k": k_means[:, 0],
        "pass_hat_k_unbiased": k_means[:, 1],
        "pass_hat_k_plugin": k_means[:, 2],
        "observed_k_of_k": kk,
        "retention": retention,
    }
    return {name: _interval(columns[name], spec.level) for name in BOOTSTRAP_METRICS}
