import itertools
import json
import math
import warnings

import pytest
from hypothesis import given
from hypothesis import strategies as st

from statebox.metrics import (
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


def t(task_id: str, n: int, c: int, domain: str = "retail") -> TaskOutcome:
    return TaskOutcome(task_id=task_id, domain=domain, n=n, c=c)


# --- per-task estimators, hand-computed -------------------------------------------------


def test_hand_computed_n5_c2_k3() -> None:
    # C(3,3)/C(5,3) = 1/10
    assert pass_at_k_task(5, 2, 3) == pytest.approx(0.9)
    # C(2,3) = 0
    assert pass_hat_k_unbiased_task(5, 2, 3) == 0.0
    assert pass_hat_k_plugin_task(5, 2, 3) == pytest.approx(0.064)


def test_hand_computed_n4_c3_k2() -> None:
    # pass@2 = 1 - C(1,2)/C(4,2) = 1 - 0/6 = 1
    assert pass_at_k_task(4, 3, 2) == 1.0
    # pass^2 = C(3,2)/C(4,2) = 3/6
    assert pass_hat_k_unbiased_task(4, 3, 2) == pytest.approx(0.5)
    assert pass_hat_k_plugin_task(4, 3, 2) == pytest.approx(0.5625)


def test_hand_computed_n10_c3_k2() -> None:
    # 1 - C(7,2)/C(10,2) = 1 - 21/45
    assert pass_at_k_task(10, 3, 2) == pytest.approx(24 / 45)
    # C(3,2)/C(10,2) = 3/45
    assert pass_hat_k_unbiased_task(10, 3, 2) == pytest.approx(3 / 45)
    assert pass_hat_k_plugin_task(10, 3, 2) == pytest.approx(0.09)


@pytest.mark.parametrize("n,k", [(1, 1), (4, 1), (4, 2), (4, 4), (9, 5)])
def test_all_fail_gives_zero(n: int, k: int) -> None:
    assert pass_at_k_task(n, 0, k) == 0.0
    assert pass_hat_k_unbiased_task(n, 0, k) == 0.0
    assert pass_hat_k_plugin_task(n, 0, k) == 0.0


@pytest.mark.parametrize("n,k", [(1, 1), (4, 1), (4, 2), (4, 4), (9, 5)])
def test_all_pass_gives_one(n: int, k: int) -> None:
    assert pass_at_k_task(n, n, k) == 1.0
    assert pass_hat_k_unbiased_task(n, n, k) == 1.0
    assert pass_hat_k_plugin_task(n, n, k) == 1.0


def test_k1_estimators_equal_pass_rate() -> None:
    for n in range(1, 8):
        for c in range(n + 1):
            assert pass_at_k_task(n, c, 1) == pytest.approx(c / n)
            assert pass_hat_k_unbiased_task(n, c, 1) == pytest.approx(c / n)
            assert pass_hat_k_plugin_task(n, c, 1) == pytest.approx(c / n)


def test_plugin_never_zero_when_some_pass() -> None:
    assert pass_hat_k_unbiased_task(8, 2, 3) == 0.0
    assert pass_hat_k_plugin_task(8, 2, 3) == pytest.approx(1 / 64)


def test_plugin_defined_beyond_n() -> None:
    assert pass_hat_k_plugin_task(2, 1, 3) == pytest.approx(0.125)


@pytest.mark.parametrize(
    "n,c,k",
    [(5, 2, 0), (5, 2, -1), (5, 6, 2), (5, -1, 2), (0, 0, 1), (3, 1, 4)],
)
def test_task_functions_reject_bad_input(n: int, c: int, k: int) -> None:
    with pytest.raises(ValueError):
        pass_at_k_task(n, c, k)
    with pytest.raises(ValueError):
        pass_hat_k_unbiased_task(n, c, k)


@pytest.mark.parametrize("n,c,k", [(5, 2, 0), (5, 6, 2), (5, -1, 2), (0, 0, 1)])
def test_plugin_rejects_bad_input(n: int, c: int, k: int) -> None:
    with pytest.raises(ValueError):
        pass_hat_k_plugin_task(n, c, k)


def test_large_n_is_exact_enough() -> None:
    # Exact integer arithmetic: no overflow or cancellation for large counts.
    assert pass_at_k_task(2000, 1, 1000) == pytest.approx(0.5)
    assert pass_hat_k_unbiased_task(2000, 1999, 1000) == pytest.approx(0.5)


# --- aggregate figures --------------------------------------------------------------------


def test_reliability_hand_computed_equal_trials() -> None:
    outcomes = [t("a", 4, 4), t("b", 4, 2), t("c", 4, 0), t("d", 4, 3)]
    m = reliability(outcomes, k=2)
    assert m.tasks == 4
    assert m.trials == 16
    assert m.k == 2
    assert m.pass_at_1 == pytest.approx((1 + 0.5 + 0 + 0.75) / 4)
    # per task: 1, 1 - C(2,2)/6 = 5/6, 0, 1
    assert m.pass_at_k == pytest.approx((1 + 5 / 6 + 0 + 1) / 4)
    # per task: 1, C(2,2)/6 = 1/6, 0, C(3,2)/6 = 1/2
    assert m.pass_hat_k_unbiased == pytest.approx((1 + 1 / 6 + 0 + 0.5) / 4)
    assert m.pass_hat_k_plugin == pytest.approx((1 + 0.25 + 0 + 0.5625) / 4)
    assert m.observed_k_of_k == pytest.approx(0.25)
    assert m.retention == pytest.approx(0.25 / 0.5625)
    assert m.tasks_below_k == 0
    assert m.unequal_trials is False


def test_reliability_default_k_is_min_n() -> None:
    m = reliability([t("a", 3, 1), t("b", 3, 2)])
    assert m.k == 3
    assert m.pass_hat_k_unbiased == 0.0
    assert m.observed_k_of_k == 0.0


def test_all_zero() -> None:
    m = reliability([t("a", 5, 0), t("b", 5, 0)], k=3)
    assert m.pass_at_1 == 0.0
    assert m.pass_at_k == 0.0
    assert m.pass_hat_k_unbiased == 0.0
    assert m.pass_hat_k_plugin == 0.0
    assert m.observed_k_of_k == 0.0
    assert m.retention is None


def test_all_one() -> None:
    m = reliability([t("a", 5, 5), t("b", 5, 5)], k=3)
    assert m.pass_at_1 == 1.0
    assert m.pass_at_k == 1.0
    assert m.pass_hat_k_unbiased == 1.0
    assert m.pass_hat_k_plugin == 1.0
    assert m.observed_k_of_k == 1.0
    assert m.retention == 1.0


def test_unequal_trials_warns_and_averages_per_task() -> None:
    outcomes = [t("a", 2, 2), t("b", 4, 2), t("c", 5, 2)]
    with pytest.warns(UnequalTrialsWarning, match=r"n=2 \(1 task\).*n=4 \(1 task\).*n=5"):
        m = reliability(outcomes, k=3)
    assert m.unequal_trials is True
    assert m.tasks == 3
    assert m.trials == 11
    assert m.tasks_below_k == 1
    # pass@1 and observed k/k use every task, each weighted equally.
    assert m.pass_at_1 == pytest.approx((1 + 0.5 + 0.4) / 3)
    assert m.observed_k_of_k == pytest.approx(1 / 3)
    assert m.retention == pytest.approx((1 / 3) / ((1 + 0.5 + 0.4) / 3))
    # k-figures over b and c only.
    # b: 1 - C(2,3)/C(4,3) = 1; c: 1 - C(3,3)/C(5,3) = 0.9
    assert m.pass_at_k == pytest.approx((1 + 0.9) / 2)
    assert m.pass_hat_k_unbiased == 0.0
    assert m.pass_hat_k_plugin == pytest.approx((0.5**3 + 0.4**3) / 2)


def test_unequal_trials_default_k_includes_everyone() -> None:
    with pytest.warns(UnequalTrialsWarning):
        m = reliability([t("a", 2, 1), t("b", 6, 3)])
    assert m.k == 2
    assert m.tasks_below_k == 0
    # a: 1 - C(1,2)/C(2,2) = 1; b: 1 - C(3,2)/C(6,2) = 1 - 3/15
    assert m.pass_at_k == pytest.approx((1 + 12 / 15) / 2)
    # a: C(1,2)=0; b: C(3,2)/C(6,2) = 3/15
    assert m.pass_hat_k_unbiased == pytest.approx((0 + 3 / 15) / 2)


def test_equal_trials_does_not_warn() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        reliability([t("a", 3, 1), t("b", 3, 3)])


def test_no_task_reaches_k_raises() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="k=5"):
            reliability([t("a", 3, 1), t("b", 4, 3)], k=5)


@pytest.mark.parametrize("k", [0, -2])
def test_bad_k_raises(k: int) -> None:
    with pytest.raises(ValueError):
        reliability([t("a", 3, 1)], k=k)


def test_empty_raises() -> None:
    with pytest.raises(ValueError):
        reliability([])
    with pytest.raises(ValueError):
        metrics_by_domain([])


@pytest.mark.parametrize("bad", [t("a", 3, 4), t("a", 3, -1), t("a", 0, 0)])
def test_bad_counts_raise(bad: TaskOutcome) -> None:
    with pytest.raises(ValueError):
        reliability([t("z", 3, 1), bad])


def test_duplicate_task_raises() -> None:
    with pytest.raises(ValueError, match="more than once"):
        reliability([t("a", 3, 1), t("a", 3, 2)])


def test_pass_hat_n_equals_observed_n_of_n() -> None:
    outcomes = [t("a", 4, 4), t("b", 4, 3), t("c", 4, 4), t("d", 4, 0)]
    m = reliability(outcomes, k=4)
    assert m.pass_hat_k_unbiased == m.observed_k_of_k == 0.5


# --- grouping and conversion -------------------------------------------------------------


def test_metrics_by_domain() -> None:
    outcomes = [
        t("r1", 4, 4, "retail"),
        t("r2", 4, 0, "retail"),
        t("a1", 4, 2, "airline"),
        t("h1", 4, 3, "hr"),
    ]
    report = metrics_by_domain(outcomes, k=2)
    assert isinstance(report, MetricsReport)
    assert list(report.by_domain) == ["airline", "hr", "retail"]
    assert report.overall == reliability(outcomes, k=2)
    assert report.by_domain["retail"] == reliability(outcomes[:2], k=2)
    assert report.by_domain["airline"].pass_hat_k_unbiased == pytest.approx(1 / 6)
    assert all(m.k == 2 for m in report.by_domain.values())


def test_metrics_by_domain_shares_global_default_k() -> None:
    outcomes = [t("r1", 3, 3, "retail"), t("a1", 6, 5, "airline")]
    with pytest.warns(UnequalTrialsWarning) as record:
        report = metrics_by_domain(outcomes)
    assert len(record) == 1
    assert report.overall.k == 3
    assert report.by_domain["airline"].k == 3
    assert report.by_domain["airline"].unequal_trials is False
    assert report.overall.unequal_trials is True


def test_metrics_by_domain_domain_below_k_raises() -> None:
    outcomes = [t("r1", 2, 2, "retail"), t("a1", 6, 5, "airline")]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="retail"):
            metrics_by_domain(outcomes, k=4)


def test_outcomes_from_trials() -> None:
    trials = [
        ("b", "retail", True),
        ("a", "airline", False),
        ("b", "retail", False),
        ("a", "airline", True),
        ("a", "airline", True),
    ]
    assert outcomes_from_trials(trials) == [
        TaskOutcome("a", "airline", 3, 2),
        TaskOutcome("b", "retail", 2, 1),
    ]
    assert outcomes_from_trials([]) == []


def test_outcomes_from_trials_two_domains_raises() -> None:
    with pytest.raises(ValueError, match="two domains"):
        outcomes_from_trials([("a", "retail", True), ("a", "airline", True)])


def test_as_dict_is_json_ready() -> None:
    m = reliability([t("a", 2, 0)], k=1)
    d = as_dict(m)
    assert list(d) == list(ReliabilityMetrics._fields)
    assert d["retention"] is None
    assert json.loads(json.dumps(d)) == d


# --- properties ---------------------------------------------------------------------------


@st.composite
def task_counts(draw: st.DrawFn, max_n: int = 30) -> tuple[int, int]:
    n = draw(st.integers(min_value=1, max_value=max_n))
    c = draw(st.integers(min_value=0, max_value=n))
    return n, c


@given(task_counts())
def test_pass_at_k_in_unit_interval_and_non_decreasing(nc: tuple[int, int]) -> None:
    n, c = nc
    values = [pass_at_k_task(n, c, k) for k in range(1, n + 1)]
    assert all(0.0 <= v <= 1.0 for v in values)
    assert all(a <= b for a, b in itertools.pairwise(values))


@given(task_counts())
def test_pass_hat_k_non_increasing(nc: tuple[int, int]) -> None:
    n, c = nc
    unbiased = [pass_hat_k_unbiased_task(n, c, k) for k in range(1, n + 1)]
    plugin = [pass_hat_k_plugin_task(n, c, k) for k in range(1, n + 1)]
    assert all(0.0 <= v <= 1.0 for v in unbiased + plugin)
    assert all(a >= b for a, b in itertools.pairwise(unbiased))
    assert all(a >= b for a, b in itertools.pairwise(plugin))


@given(task_counts(), st.integers(min_value=1, max_value=30))
def test_plugin_at_least_unbiased(nc: tuple[int, int], k: int) -> None:
    n, c = nc
    k = min(k, n)
    assert pass_hat_k_plugin_task(n, c, k) >= pass_hat_k_unbiased_task(n, c, k) - 1e-12


@given(task_counts(max_n=8), st.integers(min_value=1, max_value=8))
def test_matches_enumeration_of_k_subsets(nc: tuple[int, int], k: int) -> None:
    # Brute force: draw every k-subset of the n trials, c of which passed.
    n, c = nc
    k = min(k, n)
    results = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(results, k))
    assert pass_at_k_task(n, c, k) == pytest.approx(sum(map(any, subsets)) / len(subsets))
    assert pass_hat_k_unbiased_task(n, c, k) == pytest.approx(sum(map(all, subsets)) / len(subsets))


@given(st.lists(st.integers(min_value=0, max_value=6), min_size=1, max_size=20))
def test_pass_hat_n_unbiased_equals_observed_when_n_equal(cs: list[int]) -> None:
    n = 6
    outcomes = [t(f"t{i}", n, c) for i, c in enumerate(cs)]
    m = reliability(outcomes, k=n)
    assert m.pass_hat_k_unbiased == m.observed_k_of_k


outcome_lists = st.lists(task_counts(max_n=12), min_size=1, max_size=15).map(
    lambda ncs: [
        t(f"task{i}", n, c, domain=("retail", "airline")[i % 2]) for i, (n, c) in enumerate(ncs)
    ]
)


@pytest.mark.filterwarnings("ignore::statebox.metrics.UnequalTrialsWarning")
@given(outcome_lists.flatmap(lambda o: st.tuples(st.just(o), st.permutations(o))))
def test_invariant_to_task_order(pair: tuple[list[TaskOutcome], list[TaskOutcome]]) -> None:
    original, shuffled = pair
    assert reliability(shuffled) == reliability(original)
    assert metrics_by_domain(shuffled) == metrics_by_domain(original)


@pytest.mark.filterwarnings("ignore::statebox.metrics.UnequalTrialsWarning")
@given(outcome_lists, st.integers(min_value=1, max_value=12))
def test_aggregate_invariants(outcomes: list[TaskOutcome], k: int) -> None:
    if all(o.n < k for o in outcomes):
        with pytest.raises(ValueError):
            reliability(outcomes, k=k)
        return
    m = reliability(outcomes, k=k)
    assert m.tasks == len(outcomes)
    assert m.trials == sum(o.n for o in outcomes)
    assert m.tasks_below_k == sum(1 for o in outcomes if o.n < k)
    assert m.unequal_trials == (len({o.n for o in outcomes}) > 1)
    for v in (m.pass_at_1, m.pass_at_k, m.pass_hat_k_unbiased, m.pass_hat_k_plugin):
        assert 0.0 <= v <= 1.0
    assert m.pass_hat_k_plugin >= m.pass_hat_k_unbiased - 1e-12
    if m.retention is None:
        assert m.pass_at_1 == 0.0
    else:
        assert math.isclose(m.retention * m.pass_at_1, m.observed_k_of_k, abs_tol=1e-12)
        # Passing every trial implies the task's pass rate is 1, so k/k <= pass@1.
        assert m.retention <= 1.0 + 1e-12
