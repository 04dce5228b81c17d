"""Reliability metrics over repeated trials: pass@1, pass@k, pass^k, observed k/k, retention.

Pure functions over per-task pass counts; see :mod:`statebox.metrics._reliability` for
the definitions and the trade-offs between the estimators.
"""

from statebox.metrics._reliability import (
    MetricsReport,
    ReliabilityMetrics,
    TaskOutcome,
    UnequalTrialsWarning,
    as_dict,
    metrics_by_domain,
    outcomes_from_trials,
    pass_at_k_task,
    pass_hat_k_plugin_task,
    pass_hat_k_unbiased_task,
    reliability,
)

__all__ = [
    "MetricsReport",
    "ReliabilityMetrics",
    "TaskOutcome",
    "UnequalTrialsWarning",
    "as_dict",
    "metrics_by_domain",
    "outcomes_from_trials",
    "pass_at_k_task",
    "pass_hat_k_plugin_task",
    "pass_hat_k_unbiased_task",
    "reliability",
]
