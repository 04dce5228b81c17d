import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from statebox.metrics import (
    BOOTSTRAP_METRICS,
    BootstrapSpec,
    Interval,
    TaskOutcome,
    bootstrap_intervals,
    reliability,
    resample_counts,
)


def t(task_id: str, n: int, c: int, domain: str = "retail") -> TaskOutcome:
    return TaskOutcome(task_id=task_id, domain=domain, n=n, c=c)


MIXED = [t(f"t{i}", 5, c) for i, c in enumerate([5, 5, 3, 0, 4, 5, 2, 1, 5, 0])]


def test_resample_counts_rows_sum_to_task_count() -> None:
    w = resample_counts([3, 1, 3], BootstrapSpec(resamples=50, seed=3), "g")
    assert w.shape == (50, 3)
    assert set(w.sum(axis=1).tolist()) == {7.0}
    # The class of 3 is drawn three times as often as the class of 1 on average.
    big = resample_counts([3, 1], BootstrapSpec(resamples=20000), "g").mean(axis=0)
    assert big[0] == pytest.approx(3.0, abs=0.05) and big[1] == pytest.approx(1.0, abs=0.05)
    with pytest.raises(ValueError):
        resample_counts([], BootstrapSpec(), "g")


def test_all_passed_gives_degenerate_intervals_at_one() -> None:
    ci = bootstrap_intervals([t(f"t{i}", 4, 4) for i in range(6)], 4)
    assert set(ci) == set(BOOTSTRAP_METRICS)
    assert all(iv == Interval(1.0, 1.0) for iv in ci.values())


def test_all_failed_gives_zero_and_undefined_retention() -> None:
    ci = bootstrap_intervals([t(f"t{i}", 3, 0) for i in range(4)], 2)
    assert ci["pass_at_1"] == Interval(0.0, 0.0)
    assert ci["pass_hat_k_plugin"] == Interval(0.0, 0.0)
    assert ci["observed_k_of_k"] == Interval(0.0, 0.0)
    assert ci["retention"] is None  # pass@1 is 0 in every resample


def test_two_opposite_tasks_span_the_unit_interval() -> None:
    # Resampled pass@1 is 0, 1/2 or 1 with chances 1/4, 1/2, 1/4: the 95% interval is [0, 1].
    ci = bootstrap_intervals([t("a", 5, 5), t("b", 5, 0)], 5)
    assert ci["pass_at_1"] == Interval(0.0, 1.0)
    assert ci["observed_k_of_k"] == Interval(0.0, 1.0)


def test_tasks_below_k_are_left_out_of_k_figures() -> None:
    # Only task "b" has n >= 3; a resample drawing only "a" has no k-figure and is ignored.
    with pytest.warns(UserWarning):
        point = reliability([t("a", 2, 2), t("b", 5, 0)], 3)
    ci = bootstrap_intervals([t("a", 2, 2), t("b", 5, 0)], 3)
    assert point.pass_at_k == 0.0
    assert ci["pass_at_k"] == Interval(0.0, 0.0)
    assert ci["pass_hat_k_unbiased"] == Interval(0.0, 0.0)
    assert ci["pass_at_1"] == Interval(0.0, 1.0)


def test_intervals_contain_the_point_estimate_on_a_mixed_campaign() -> None:
    point = reliability(MIXED, 5)
    ci = bootstrap_intervals(MIXED, 5)
    for name in BOOTSTRAP_METRICS:
        iv = ci[name]
        assert iv is not None
        value = getattr(point, name)
        assert iv.low <= value <= iv.high, name
        assert iv.low < iv.high, name
    # Plug-in pass^k is at least the unbiased one in every resample, so its bounds are too.
    assert ci["pass_hat_k_plugin"].low >= ci["pass_hat_k_unbiased"].low  # type: ignore[union-attr]


def test_seeded_and_reproducible() -> None:
    a = bootstrap_intervals(MIXED, 5, BootstrapSpec(resamples=500, seed=11))
    b = bootstrap_intervals(MIXED, 5, BootstrapSpec(resamples=500, seed=11))
    c = bootstrap_intervals(MIXED, 5, BootstrapSpec(resamples=500, seed=12))
    assert a == b
    assert a != c


def test_wider_level_gives_wider_interval() -> None:
    narrow = bootstrap_intervals(MIXED, 5, BootstrapSpec(level=0.5))["pass_at_1"]
    wide = bootstrap_intervals(MIXED, 5, BootstrapSpec(level=0.99))["pass_at_1"]
    assert narrow is not None and wide is not None
    assert wide.low < narrow.low and narrow.high < wide.high


@pytest.mark.parametrize("spec", [BootstrapSpec(resamples=0), BootstrapSpec(level=1.0)])
def test_bad_spec_raises(spec: BootstrapSpec) -> None:
    with pytest.raises(ValueError):
        bootstrap_intervals(MIXED, 5, spec)


def test_empty_or_bad_k_raises() -> None:
    with pytest.raises(ValueError, match="no task outcomes"):
        bootstrap_intervals([], 1)
    with pytest.raises(ValueError, match="k must be at least 1"):
        bootstrap_intervals(MIXED, 0)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.integers(min_value=0, max_value=4), min_size=1, max_size=12),
    st.randoms(use_true_random=False),
)
def test_invariant_to_task_order(cs: list[int], rnd: random.Random) -> None:
    outcomes = [t(f"t{i}", 4, c) for i, c in enumerate(cs)]
    shuffled = outcomes[:]
    rnd.shuffle(shuffled)
    spec = BootstrapSpec(resamples=200)
    assert bootstrap_intervals(outcomes, 2, spec) == bootstrap_intervals(shuffled, 2, spec)
