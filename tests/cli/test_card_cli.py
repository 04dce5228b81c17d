"""``statebox tasks card`` on the toy domain and retail."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fixtures.support import TOY_REF, TOY_V2_REF
from statebox.cli import app
from statebox.registry import default_registry


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.chdir(tmp_path)
    return CliRunner()


def test_card_json_on_the_toy_domain(cli: CliRunner) -> None:
    result = cli.invoke(
        app, ["tasks", "card", "--suite", "toy", "--domain", TOY_REF, "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["tasks"] == 3 and data["validated"] is True
    assert data["check_strength"] == 1.0
    assert [d["domain"] for d in data["domains"]] == ["toy"]


def test_card_table_on_retail_without_validation(cli: CliRunner) -> None:
    result = cli.invoke(app, ["tasks", "card", "--suite", "retail@1.0", "--no-validate"])
    assert result.exit_code == 0, result.output
    assert "suite card: retail@1.0 (statebox-bench 1.0, both splits" in result.stdout
    assert "suite shape: statebox-bench 1.0 (no targets)" in result.stdout
    assert "issue #15's measurement" in result.stdout
    assert "not run" in result.stdout
    assert "delivery-exception" in result.stdout
    assert "synthetic" in result.stdout


def test_card_markdown_written_to_a_file(cli: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "docs" / "card.md"
    result = cli.invoke(
        app, ["tasks", "card", "--suite", "toy", "--domain", TOY_REF, "--output", str(out)]
    )
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    # The toy is unversioned: its tasks are the default version's, whichever that is.
    version = default_registry().default_suite_version()
    assert text.startswith(f"# statebox suite card: `toy@{version}`")
    assert "## Suite shape" in text
    assert "100.0% (" in text


def test_card_of_an_unknown_suite_exits_1(cli: CliRunner) -> None:
    result = cli.invoke(app, ["tasks", "card", "--suite", "nope", "--no-validate"])
    assert result.exit_code == 1
    assert "suite 'nope': unknown suite" in result.output
    assert "DOMAIN:train" in result.output and "versions: 1.0" in result.output


def test_card_over_all_installed_domains(cli: CliRunner) -> None:
    # 1.0, whose shape is measured in seconds: the 2.0 card's shape (every golden replayed,
    # 2,182 tasks with the 1.0 column) is the suite tests' job, per domain.
    result = cli.invoke(
        app, ["tasks", "card", "--no-validate", "--format", "json", "--suite", "all@1.0"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    names = [d["domain"] for d in data["domains"]]
    assert {"retail", "neobank_it"} <= set(names)
    assert data["tasks"] == sum(d["tasks"] for d in data["domains"])


def test_card_of_a_2_0_suite_marks_each_target_beside_1_0_and_thinkingbox(
    cli: CliRunner,
) -> None:
    result = cli.invoke(
        app, ["tasks", "card", "--domain", TOY_V2_REF, "--suite", "toy@2.0", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    # The toy is a domain of its own (not built in): never labelled as the benchmark.
    assert (data["suite"], data["bench"]) == ("toy@2.0", "toy's own tasks")
    assert data["domains"][0]["splits"] == {"test": 3, "train": 1}  # both splits
    shape = data["shape"]
    assert shape["version"] == "2.0" and shape["targets"]["test_tasks"] == 100
    assert shape["legacy"]["test_tasks"] == 3  # the toy's 1.0 tasks, measured
    (toy,) = shape["domains"]
    assert (toy["test_tasks"], toy["recovery"], toy["multi_intent"]) == (3, 1, 1)
    assert "test tasks 3 < 100" in toy["misses"]
    md = cli.invoke(
        app,
        ["tasks", "card", "--domain", TOY_V2_REF, "--suite", "toy@2.0", "--format", "markdown"],
    )
    assert md.exit_code == 0, md.output
    rows = {r.split(" | ")[0].lstrip("| "): r for r in md.stdout.splitlines() if r.startswith("| ")}
    assert rows["test tasks"].startswith("| test tasks | 3 ✗ | 3 ✗ | ≥ 100 |")
    assert "| 0 ✓ |" in rows["test tasks sharing a branch or signature with a train task"]
    assert rows["median golden calls"].endswith("| 6 |")  # ThinkingBox-Bench v1.0, quoted
    assert "statebox-bench 1.0" in rows["figure"]
    assert "(the same policies)" in rows["policy words (step blocks included)"]
