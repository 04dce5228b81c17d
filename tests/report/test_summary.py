import math
from pathlib import Path

import pytest
from campaign_factory import write_campaign
from rich.console import Console

from statebox.metrics import BootstrapSpec
from statebox.records import read_trial_rows
from statebox.report import CampaignRows, print_summary, summarize, summarize_campaigns

# Known per-task pass counts: (domain, n, c).
ALPHA = {
    "r1": ("retail", 5, 5),
    "r2": ("retail", 5, 3),
    "r3": ("retail", 5, 0),
    "b1": ("bank", 5, 5),
    "b2": ("bank", 5, 4),
}


@pytest.fixture
def alpha_dir(tmp_path: Path) -> Path:
    write_campaign(tmp_path / "alpha", {"alpha": ALPHA}, cost_per_trial_usd={"alpha": 0.01})
    return tmp_path / "alpha"


def test_synthetic_campaign_reproduces_every_figure(alpha_dir: Path) -> None:
    s = summarize(read_trial_rows(alpha_dir), label="alpha")
    o = s["overall"]
    assert (s["tasks"], s["trials"], s["k"]) == (5, 25, 5)
    assert o["pass_at_1"] == pytest.approx(3.4 / 5)  # mean(1, .6, 0, 1, .8)
    assert o["pass_at_k"] == pytest.approx(0.8)  # every task with a pass: 4 of 5
    assert o["pass_hat_k_unbiased"] == pytest.approx(0.4)  # C(c,5)/C(5,5): only c = 5
    assert o["pass_hat_k_plugin"] == pytest.approx((1 + 0.6**5 + 0 + 1 + 0.8**5) / 5)
    assert o["observed_k_of_k"] == pytest.approx(0.4)
    assert o["retention"] == pytest.approx(0.4 / 0.68)
    retail, bank = s["by_domain"]["retail"], s["by_domain"]["bank"]
    assert retail["pass_at_1"] == pytest.approx(1.6 / 3)
    assert retail["observed_k_of_k"] == pytest.approx(1 / 3)
    assert bank["pass_at_1"] == pytest.approx(0.9)
    assert bank["pass_hat_k_plugin"] == pytest.approx((1 + 0.8**5) / 2)
    # Every figure, overall and per domain, has its interval, and each holds the point value.
    for name, (low, high) in s["ci"]["overall"].items():
        assert low <= o[name] <= high, name
    for domain, intervals in s["ci"]["by_domain"].items():
        for name, (low, high) in intervals.items():
            assert low <= s["by_domain"][domain][name] <= high, (domain, name)
    assert set(s["ci"]["by_domain"]) == {"bank", "retail"}
    assert s["ci"]["method"] == "95% percentile bootstrap over tasks, 2000 resamples, seed 0"
    assert [p["k"] for p in s["curve"]] == [1, 2, 3, 4, 5]
    assert s["curve"][0]["pass_at_k"] == pytest.approx(0.68)
    assert s["curve"][-1]["pass_hat_k_unbiased"] == pytest.approx(0.4)


def test_failure_analysis_and_weak_evaluator(alpha_dir: Path) -> None:
    f = summarize(read_trial_rows(alpha_dir))["failures"]
    # 8 failed trials cycle through shapes 0,1,2: three skipped writes (missing,
    # no_state_change), five wrong values, two of them with a failing last tool call.
    assert f["failed_trials"] == 8
    assert f["signatures"] == {"no_state_change": 3, "wrong_state_update": 5}
    assert (f["with_missing"], f["with_wrong"], f["with_extra"]) == (3 / 8, 5 / 8, 0.0)
    w = f["weak_evaluator"]
    assert w["judged_failed_trials"] == 8
    assert w["clean_and_mutating"] == 5 / 8
    assert w["clean_mutating_last_tool_ok"] == 3 / 8
    assert f["tool_grader_fooled"] == 3 / 8


def test_cost_figures(alpha_dir: Path) -> None:
    c = summarize(read_trial_rows(alpha_dir))["cost"]
    assert c["campaign_cost_usd"] == pytest.approx(0.25)
    assert c["passing_trials"] == 17
    assert c["cost_per_success_usd"] == pytest.approx(0.25 / 17)
    assert c["dependable_tasks"] == 2
    assert c["cost_per_dependable_task_usd"] == pytest.approx(0.125)
    assert c["undefined"] == []


def test_cost_undefined_when_nothing_passes_every_time(tmp_path: Path) -> None:
    write_campaign(
        tmp_path / "c",
        {"flaky": {"t1": ("retail", 3, 2)}, "broken": {"t1": ("retail", 3, 0)}},
        cost_per_trial_usd={"flaky": 0.5, "broken": 0.1},
    )
    s = summarize(read_trial_rows(tmp_path / "c"))
    flaky, broken = s["agents"]["flaky"]["cost"], s["agents"]["broken"]["cost"]
    assert flaky["cost_per_success_usd"] == pytest.approx(0.75)
    assert flaky["cost_per_dependable_task_usd"] is None
    assert flaky["undefined"] == ["cost per dependable task: no task passed in every trial"]
    assert broken["cost_per_success_usd"] is None
    assert s["pareto"]["left_out"] == ["broken"]
    console = Console(record=True, width=200)
    print_summary(s, console)
    text = console.export_text()
    assert "per dependable task undefined" in " ".join(text.split())
    assert "undefined (no success)" in text


def test_system_errors_count_as_failures_and_are_shown_excluded(tmp_path: Path) -> None:
    write_campaign(
        tmp_path / "c",
        {"a": {"t1": ("retail", 4, 3), "t2": ("retail", 4, 4)}},
        system_errors={"a": ["t1"]},
    )
    s = summarize(read_trial_rows(tmp_path / "c"))
    assert s["system_errors"] == 1
    assert s["overall"]["pass_at_1"] == pytest.approx((3 / 4 + 1) / 2)
    ex = s["excluding_system_errors"]
    assert ex["overall"]["pass_at_1"] == pytest.approx(1.0)
    assert ex["trials"] == 7
    assert s["failures"]["signatures"] == {"system_error": 1}
    console = Console(record=True, width=200)
    print_summary(s, console)
    assert "pass@1 excluding system errors" in console.export_text()


def test_unequal_trial_counts_warn_and_keep_every_task(tmp_path: Path) -> None:
    write_campaign(tmp_path / "c", {"a": {"t1": ("retail", 2, 2), "t2": ("retail", 5, 1)}})
    s = summarize(read_trial_rows(tmp_path / "c"), k=3)
    assert s["tasks"] == 2
    assert s["overall"]["tasks_below_k"] == 1
    assert s["overall"]["pass_at_1"] == pytest.approx((1 + 0.2) / 2)
    assert any("trial counts differ" in w for w in s["warnings"])


def test_several_campaigns_pool_signatures_and_find_the_pareto_frontier(tmp_path: Path) -> None:
    tasks = {f"t{i}": ("retail", 4, c) for i, c in enumerate([4, 4, 2, 0])}
    cheap = {f"t{i}": ("retail", 4, c) for i, c in enumerate([4, 1, 1, 0])}
    worse = {f"t{i}": ("retail", 4, c) for i, c in enumerate([2, 1, 1, 0])}
    write_campaign(tmp_path / "one", {"model": tasks}, cost_per_trial_usd={"model": 0.02})
    write_campaign(tmp_path / "two", {"model": cheap}, cost_per_trial_usd={"model": 0.001})
    write_campaign(tmp_path / "three", {"other": worse}, cost_per_trial_usd={"other": 0.05})
    s = summarize_campaigns(
        [
            CampaignRows(n, tmp_path / n, read_trial_rows(tmp_path / n))
            for n in ("one", "two", "three")
        ],
        spec=BootstrapSpec(resamples=300),
    )
    # The same agent id in two campaigns is told apart by the campaign; a unique one is not.
    assert list(s["agents"]) == ["one:model", "two:model", "other"]
    assert s["campaigns"][2] == {
        "label": "three",
        "directory": str(tmp_path / "three"),
        "entries": ["other"],
    }
    frontier = {p["entry"]: p["on_frontier"] for p in s["pareto"]["points"]}
    assert frontier == {"one:model": True, "two:model": True, "other": False}
    assert s["pareto"]["points"][0]["entry"] == "two:model"  # sorted by cost per success
    pooled = s["signatures_pooled"]
    assert sum(pooled.values()) == sum(
        sum(a["failures"]["signatures"].values()) for a in s["agents"].values()
    )
    assert "pass_at_1" not in s  # several entries: nothing promoted to the top level
    assert math.isclose(s["agents"]["one:model"]["overall"]["pass_at_1"], 10 / 16)
