"""Cluster-aware intervals: sibling tasks of one branch are resampled together (issue 13,
finding 6), and the unit is named."""

from __future__ import annotations

import pytest

from statebox.metrics import (
    BootstrapSpec,
    Interval,
    TaskOutcome,
    bootstrap_intervals,
    compare_outcomes,
    outcomes_from_trials,
    resampling_unit,
    task_branch,
)


def branch(name: str, tasks: int, n: int, c: int, domain: str = "retail") -> list[TaskOutcome]:
    """``tasks`` re-instances of one branch, each passing c of n trials."""
    return [
        TaskOutcome(f"{domain}.{name}.{i:03d}", domain, n, c, f"{domain}.{name}")
        for i in range(1, tasks + 1)
    ]


def test_task_branch_strips_the_instance_number() -> None:
    assert task_branch("retail.returns.approve.003") == "retail.returns.approve"
    assert task_branch("retail.returns.approve") == "retail.returns.approve"
    assert task_branch("toy.transfer.basic.001") == "toy.transfer.basic"
    rows = [("r.a.x.001", "r", True), ("r.a.x.002", "r", False), ("tb.test_1", "tb", True)]
    assert [o.unit for o in outcomes_from_trials(rows)] == ["r.a.x", "r.a.x", "tb.test_1"]


def test_siblings_resampled_together_widen_the_interval() -> None:
    # Two branches of five siblings each: one always passes, one always fails. Resampling
    # the ten tasks as if independent gives a narrow interval around 0.5; there are only
    # two independent units, so the interval over branches is the whole [0, 1].
    clustered = branch("a", 5, 4, 4) + branch("b", 5, 4, 0)
    independent = [o._replace(cluster="") for o in clustered]
    spec = BootstrapSpec(resamples=2000, seed=0)
    wide = bootstrap_intervals(clustered, 4, spec)["pass_at_1"]
    narrow = bootstrap_intervals(independent, 4, spec)["pass_at_1"]
    assert wide == Interval(0.0, 1.0)
    assert narrow is not None and narrow.low >= 0.1 and narrow.high <= 0.9
    assert resampling_unit(clustered) == (
        "task branches (2 branches of 10 tasks; "
        "tasks of one branch, family.branch of the id, resampled together)"
    )
    assert resampling_unit(independent) == "tasks (10, each its own cluster)"
    assert spec.describe(resampling_unit(clustered)).startswith(
        "95% percentile bootstrap over task branches (2 branches of 10 tasks"
    )


def test_singleton_clusters_give_the_task_bootstrap() -> None:
    outcomes = [TaskOutcome(f"t{i}", "retail", 5, c) for i, c in enumerate([5, 0, 3, 4, 1])]
    named = [o._replace(cluster=o.task_id) for o in outcomes]
    spec = BootstrapSpec(resamples=500, seed=4)
    assert bootstrap_intervals(named, 3, spec) == bootstrap_intervals(outcomes, 3, spec)


def test_paired_comparison_resamples_and_tests_branches() -> None:
    a = branch("a", 5, 4, 0) + branch("b", 5, 4, 0) + branch("c", 5, 4, 4)
    b = branch("a", 5, 4, 4) + branch("b", 5, 4, 0) + branch("c", 5, 4, 4)
    report = compare_outcomes(a, b, BootstrapSpec(resamples=2000, seed=0))
    o = report.overall
    assert o.unit.startswith("task branches (3 branches of 15 tasks")
    assert o.pass_at_1.lift == pytest.approx(1 / 3)
    # One branch of five gained: one independent change, not five.
    assert o.pass_at_1.test.pairs_used == 1
    assert o.observed_k_of_k.test.pairs_used == 1
    assert "per-branch" in o.pass_at_1.test.name and "per-branch" in o.observed_k_of_k.test.name
    assert o.pass_at_1.test.p_value == 1.0  # a single non-zero difference proves nothing
    assert o.pass_at_1.interval == Interval(0.0, 1.0)  # all three draws of "a": 1/27
    # As independent tasks, McNemar on five flips would call it significant.
    flat = compare_outcomes(
        [x._replace(cluster="") for x in a], [x._replace(cluster="") for x in b]
    ).overall
    assert flat.observed_k_of_k.test.pairs_used == 5
    assert flat.observed_k_of_k.test.p_value == pytest.approx(2 / 32)
