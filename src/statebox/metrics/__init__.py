"""Reliability metrics over repeated trials: pass@1, pass@k, pass^k, observed k/k, retention.

Pure functions over per-task pass counts (see :mod:`statebox.metrics._reliability` for
the definitions and the trade-offs between the estimators), seeded bootstrap intervals
over tasks, and paired comparisons of two campaigns. numpy is imported only
when an interval or a test is computed.
"""

from statebox.metrics._bootstrap import (
    BOOTSTRAP_METRICS,
    DEFAULT_BOOTSTRAP,
    BootstrapSpec,
    Interval,
    bootstrap_intervals,
    resample_counts,
    resampling_unit,
)
from statebox.metrics._paired import (
    FlippedTask,
    Lift,
    PairedComparison,
    PairedReport,
    PairedTest,
    compare_outcomes,
    mcnemar_exact,
    wilcoxon_signed_rank,
)
from statebox.metrics._reliability import (
    MetricsReport,
    ReliabilityMetrics,
    TaskOutcome,
    UnequalTrialsWarning,
    as_dict,
    metrics_by_domain,
    outcomes_from_trials,
    pass_at_k_task,
    pass_curve,
    pass_hat_k_plugin_task,
    pass_hat_k_unbiased_task,
    reliability,
    task_branch,
)

__all__ = [
    "BOOTSTRAP_METRICS",
    "DEFAULT_BOOTSTRAP",
    "BootstrapSpec",
    "FlippedTask",
    "Interval",
    "Lift",
    "MetricsReport",
    "PairedComparison",
    "PairedReport",
    "PairedTest",
    "ReliabilityMetrics",
    "TaskOutcome",
    "UnequalTrialsWarning",
    "as_dict",
    "bootstrap_intervals",
    "compare_outcomes",
    "mcnemar_exact",
    "metrics_by_domain",
    "outcomes_from_trials",
    "pass_at_k_task",
    "pass_curve",
    "pass_hat_k_plugin_task",
    "pass_hat_k_unbiased_task",
    "reliability",
    "resample_counts",
    "resampling_unit",
    "task_branch",
    "wilcoxon_signed_rank",
]
