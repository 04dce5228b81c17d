"""``statebox report`` over synthetic and real campaigns, and ``statebox compare``."""

import json
import re
from pathlib import Path

import pytest
from campaign_factory import write_campaign
from typer.testing import CliRunner

from statebox.cli import app

BASE = {f"t{i:02d}": ("retail" if i % 2 else "bank", 5, 5 if i % 3 else 4) for i in range(24)}
WORSE = {t: (d, n, 1 if i % 4 else n) for i, (t, (d, n, _)) in enumerate(BASE.items())}


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.chdir(tmp_path)
    return CliRunner()


@pytest.fixture
def runs(tmp_path: Path) -> tuple[Path, Path]:
    write_campaign(tmp_path / "base", {"agent": BASE}, cost_per_trial_usd={"agent": 0.01})
    write_campaign(tmp_path / "worse", {"agent": WORSE}, cost_per_trial_usd={"agent": 0.002})
    return tmp_path / "base", tmp_path / "worse"


def test_report_json_keeps_keys_and_adds_intervals(cli: CliRunner, runs: tuple[Path, Path]) -> None:
    result = cli.invoke(app, ["report", str(runs[0]), "--format", "json", "--resamples", "300"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    for key in ("tasks", "trials", "overall", "by_domain", "ci", "cost", "failures", "pareto"):
        assert key in data
    for key in (
        "pass_at_1",
        "pass_at_k",
        "pass_hat_k_unbiased",
        "pass_hat_k_plugin",
        "observed_k_of_k",
        "retention",
    ):
        assert key in data["overall"] and key in data["ci"]["overall"]
    assert data["tasks"] == 24 and data["trials"] == 120
    assert data["overall"]["observed_k_of_k"] == pytest.approx(16 / 24)
    assert data["ci"]["method"].startswith("95% percentile bootstrap over tasks (24, each its")
    assert data["ci"]["method"].endswith(", 300 resamples, seed 0")


def test_report_table_of_several_runs_to_a_file(
    cli: CliRunner, runs: tuple[Path, Path], tmp_path: Path
) -> None:
    out = tmp_path / "report.txt"
    result = cli.invoke(app, ["report", str(runs[0]), str(runs[1]), "--out", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert "base:agent" in text and "worse:agent" in text
    assert "pass^5 (unbiased, tau-bench)" in text
    assert "retention (observed 5/5 ÷ pass@1)" in text
    assert re.search(r"0\.667 +", text) and "–" in text  # observed 5/5, interval below it
    assert "cost Pareto frontier" in text
    assert "weak evaluator: failed trials a tool-call grader would pass" in text


def test_report_html_writes_one_offline_file(cli: CliRunner, runs: tuple[Path, Path]) -> None:
    result = cli.invoke(app, ["report", str(runs[0]), str(runs[1]), "--format", "html"])
    assert result.exit_code == 0, result.output
    html = (runs[0] / "report.html").read_text()
    # Nothing is loaded from elsewhere: no external scripts, styles or images.
    assert not re.search(r"<(script|img|iframe)[^>]*\ssrc=", html)
    assert "<link" not in html
    assert html.count("id='report-data'") == 1
    assert "Plotly" in html


def test_report_rejects_an_empty_folder(cli: CliRunner, tmp_path: Path) -> None:
    result = cli.invoke(app, ["report", str(tmp_path)])
    assert result.exit_code == 1
    assert "no trial records yet" in result.output


def test_compare_finds_the_loss_and_names_its_tests(
    cli: CliRunner, runs: tuple[Path, Path]
) -> None:
    result = cli.invoke(app, ["compare", str(runs[0]), str(runs[1]), "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    p1, kk = data["overall"]["pass_at_1"], data["overall"]["observed_k_of_k"]
    # base: 16 tasks 5/5 and 8 tasks 4/5; worse keeps every 4th task as in base, others 1/5.
    assert p1["a"] == pytest.approx((16 + 8 * 0.8) / 24)
    assert p1["lift"] < 0 and p1["interval"][1] < 0 and p1["significant"]
    assert p1["test"]["name"].startswith("Wilcoxon signed-rank test")
    assert kk["test"]["name"].startswith("exact McNemar test")
    assert kk["significant"]
    lost = [f for f in data["flipped"] if f["direction"] == "lost"]
    # Lost: base 5/5 and not kept (i % 3 and i % 4); gained: base 4/5, kept at 5/5 (t00, t12).
    assert len(lost) == sum(1 for i in range(24) if i % 4 and i % 3) == 12
    assert [f["task_id"] for f in data["flipped"] if f["direction"] == "gained"] == ["t00", "t12"]
    assert set(data["by_domain"]) == {"bank", "retail"}
    table = cli.invoke(app, ["compare", str(runs[0]), str(runs[1])])
    assert "lost: A passes every trial, B does not" in table.stdout
    assert "Wilcoxon signed-rank test" in table.stdout
    # Found by a new user: the headers named McNemar for observed k/k whichever test the
    # caption (the one that ran) named; the caption alone names them now.
    flat_table = " ".join(table.stdout.split())
    assert "(McNemar)" not in flat_table and "(Wilcoxon)" not in flat_table
    assert "p for observed k/k: exact McNemar test" in flat_table


def test_compare_needs_an_agent_when_a_run_holds_several(cli: CliRunner, tmp_path: Path) -> None:
    write_campaign(tmp_path / "two", {"x": {"t": ("retail", 2, 2)}, "y": {"t": ("retail", 2, 0)}})
    result = cli.invoke(app, ["compare", str(tmp_path / "two"), str(tmp_path / "two")])
    assert result.exit_code == 1
    assert "choose one with --agent-a" in result.output
    ok = cli.invoke(
        app,
        [
            "compare",
            str(tmp_path / "two"),
            str(tmp_path / "two"),
            "--agent-a",
            "x",
            "--agent-b",
            "y",
            "--format",
            "json",
        ],
    )
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.stdout)["overall"]["pass_at_1"]["lift"] == -1.0


@pytest.mark.slow
def test_fault_rates_compare_in_the_right_direction(cli: CliRunner, tmp_path: Path) -> None:
    # The acceptance demo: the built-in retail suite, two fault rates, one seed.
    for name, rate in (("low", "0.05"), ("high", "0.5")):
        result = cli.invoke(
            app,
            [
                "run",
                "--suite",
                "retail@1.0",
                "--trials",
                "3",
                "--seed",
                "7",
                "--agent",
                f"fault:skip_write={rate}",
                "--out",
                str(tmp_path / name),
            ],
        )
        assert result.exit_code == 0, result.output
    data = json.loads(
        cli.invoke(
            app, ["compare", str(tmp_path / "low"), str(tmp_path / "high"), "--format", "json"]
        ).stdout
    )
    p1 = data["overall"]["pass_at_1"]
    assert p1["lift"] < -0.1 and p1["interval"][1] < 0 and p1["test"]["p_value"] < 0.001
    report = cli.invoke(app, ["report", str(tmp_path / "low")])
    assert report.exit_code == 0
    assert "pass^3 (unbiased, tau-bench)" in report.stdout and "–" in report.stdout
