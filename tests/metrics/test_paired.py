import math
from fractions import Fraction

import pytest

from statebox.metrics import (
    BootstrapSpec,
    Interval,
    TaskOutcome,
    compare_outcomes,
    mcnemar_exact,
    wilcoxon_signed_rank,
)


def t(task_id: str, n: int, c: int, domain: str = "retail") -> TaskOutcome:
    return TaskOutcome(task_id=task_id, domain=domain, n=n, c=c)


def test_mcnemar_exact_hand_computed() -> None:
    # 2 * (C(10,0) + C(10,1) + C(10,2) + C(10,3)) / 2^10 = 352 / 1024
    assert mcnemar_exact(3, 7).p_value == pytest.approx(0.34375)
    assert mcnemar_exact(7, 3).p_value == pytest.approx(0.34375)
    assert mcnemar_exact(8, 0).p_value == pytest.approx(2 / 256)
    assert mcnemar_exact(8, 0).pairs_used == 8
    assert mcnemar_exact(2, 2).p_value == 1.0
    none = mcnemar_exact(0, 0)
    assert (none.p_value, none.statistic, none.pairs_used) == (1.0, None, 0)
    assert "McNemar" in none.name
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 2)


def test_mcnemar_large_counts_do_not_underflow() -> None:
    p = mcnemar_exact(600, 400).p_value
    assert 0 < p < 1e-9


def test_wilcoxon_hand_computed_statistic() -> None:
    # Non-zero |d|: 0.2, 0.4, 0.2, 0.6 -> ranks 1.5, 3, 1.5, 4; negative rank sum = 1.5.
    test = wilcoxon_signed_rank([0.2, 0.4, 0.0, -0.2, 0.6])
    assert test.statistic == 1.5
    assert test.pairs_used == 4
    assert 0.3 < test.p_value < 0.5
    assert "Wilcoxon signed-rank" in test.name
    assert test.p_value == pytest.approx(0.375)  # 2 * 3/16 sign patterns with W- <= 1.5
    assert wilcoxon_signed_rank([0.0, 0.0]).p_value == 1.0


def test_wilcoxon_exact_and_normal_branches() -> None:
    # 12 equal negative differences: only 1 of 2^12 sign patterns is as extreme per side.
    assert wilcoxon_signed_rank([-1.0] * 12).p_value == pytest.approx(2 / 4096)
    # 60 equal positive differences: ranks all 30.5, W- = 0, mean 915, sd = sqrt(60 * 30.5^2 / 4).
    z = 915 / math.sqrt(60 * 30.5**2 / 4)
    big = wilcoxon_signed_rank([1.0] * 60)
    assert big.p_value == pytest.approx(math.erfc(z / math.sqrt(2)))
    assert big.statistic == 0.0


def test_wilcoxon_ties_of_exact_fractions() -> None:
    # 3/5 - 1/5 and 2/5 - 0 tie exactly as fractions; as floats they would not.
    d = [Fraction(3, 5) - Fraction(1, 5), Fraction(2, 5), -Fraction(2, 5)]
    assert wilcoxon_signed_rank(d).statistic == 2.0  # the negative one has rank (1+2+3)/3


def test_compare_hand_worked() -> None:
    a = [t("t0", 5, 5), t("t1", 5, 5), t("t2", 5, 3), t("t3", 5, 0), t("t4", 5, 4)]
    b = [t("t0", 5, 5), t("t1", 5, 2), t("t2", 5, 5), t("t3", 5, 0), t("t4", 5, 5)]
    r = compare_outcomes(a, b)
    assert r.overall.tasks == 5
    assert r.overall.pass_at_1.a == pytest.approx(0.68)
    assert r.overall.pass_at_1.b == pytest.approx(0.68)
    assert r.overall.pass_at_1.lift == pytest.approx(0.0)
    kk = r.overall.observed_k_of_k
    assert (kk.a, kk.b) == (pytest.approx(0.4), pytest.approx(0.6))
    assert kk.lift == pytest.approx(0.2)
    # 2 gained, 1 lost: 2 * (C(3,0) + C(3,1)) / 8 = 1
    assert kk.test.p_value == 1.0
    assert [(f.task_id, f.direction) for f in r.flipped] == [
        ("t2", "gained"),
        ("t4", "gained"),
        ("t1", "lost"),
    ]
    assert kk.interval.low <= kk.lift <= kk.interval.high


def test_clear_loss_is_significant_with_a_tight_interval() -> None:
    a = [t(f"t{i:02d}", 5, 5) for i in range(12)]
    b = [t(f"t{i:02d}", 5, 0) for i in range(12)]
    r = compare_outcomes(a, b)
    assert r.overall.pass_at_1.lift == -1.0
    assert r.overall.pass_at_1.interval == Interval(-1.0, -1.0)
    assert r.overall.observed_k_of_k.test.p_value == pytest.approx(2 / 2**12)
    assert r.overall.pass_at_1.test.p_value < 0.001
    assert len(r.flipped) == 12 and {f.direction for f in r.flipped} == {"lost"}


def test_per_domain_groups_and_unpaired_tasks() -> None:
    a = [t("r1", 4, 4), t("r2", 4, 0, "retail"), t("b1", 4, 1, "bank"), t("only_a", 4, 4)]
    b = [t("r1", 4, 4), t("r2", 4, 4, "retail"), t("b1", 4, 1, "bank"), t("only_b", 4, 0)]
    r = compare_outcomes(a, b, BootstrapSpec(resamples=300))
    assert r.only_a == ["only_a"] and r.only_b == ["only_b"]
    assert list(r.by_domain) == ["bank", "retail"]
    assert r.by_domain["bank"].pass_at_1.lift == 0.0
    assert r.by_domain["retail"].pass_at_1.lift == pytest.approx(0.5)
    assert r.by_domain["retail"].tasks == 2
    assert r.overall.tasks == 3


def test_paired_bootstrap_is_seeded() -> None:
    a = [t(f"t{i:02d}", 7, (i * 3) % 8) for i in range(40)]
    b = [t(f"t{i:02d}", 7, (i * 5 + 1) % 8) for i in range(40)]
    one = compare_outcomes(a, b, BootstrapSpec(seed=1))
    assert one == compare_outcomes(list(reversed(a)), b, BootstrapSpec(seed=1))
    other = compare_outcomes(a, b, BootstrapSpec(seed=2))
    assert one.overall.pass_at_1.interval != other.overall.pass_at_1.interval


def test_no_shared_task_or_domain_mismatch_raises() -> None:
    with pytest.raises(ValueError, match="share no task"):
        compare_outcomes([t("a", 2, 1)], [t("b", 2, 1)])
    with pytest.raises(ValueError, match="retail"):
        compare_outcomes([t("a", 2, 1, "retail")], [t("a", 2, 1, "bank")])
