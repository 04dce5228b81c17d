"""``statebox tasks card`` on the toy domain and retail."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fixtures.support import TOY_REF
from statebox.cli import app


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
    result = cli.invoke(app, ["tasks", "card", "--suite", "retail", "--no-validate"])
    assert result.exit_code == 0, result.output
    assert "suite card: retail" in result.stdout
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
    assert text.startswith("# statebox suite card: `toy`")
    assert "100.0% (" in text


def test_card_of_an_unknown_suite_exits_1(cli: CliRunner) -> None:
    result = cli.invoke(app, ["tasks", "card", "--suite", "nope", "--no-validate"])
    assert result.exit_code == 1
    assert "unknown domain 'nope'" in result.output


def test_card_over_all_installed_domains(cli: CliRunner) -> None:
    result = cli.invoke(app, ["tasks", "card", "--no-validate", "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    names = [d["domain"] for d in data["domains"]]
    assert {"retail", "neobank_it"} <= set(names)
    assert data["tasks"] == sum(d["tasks"] for d in data["domains"])
