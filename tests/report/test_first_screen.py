"""A first screen a newcomer can read (issue 17, items 11 and 12).

At 80 columns nothing is cut: short metric names with a legend of full names, each
failure signature explained, the field policy grouped by reason, and a run ends with
its campaign directory and the next commands. A resume with nothing left prints the
campaign's own figures, never "passed 0".
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from campaign_factory import write_campaign
from rich.console import Console
from typer.testing import CliRunner

from fixtures.support import TOY_REF, TOY_TASKS
from statebox.cli import app
from statebox.records import read_trial_rows
from statebox.report import SIGNATURE_MEANINGS, print_summary, summarize
from statebox.world import ExcludedField

DOMAINS = ["auto_insurance", "consulting_hr", "neobank_it", "retail", "travel"]


def _screen(summary: dict, width: int = 80) -> str:
    console = Console(width=width, record=True, markup=False, emoji=False, highlight=False)
    print_summary(summary, console)
    return console.export_text()


def test_the_summary_fits_80_columns_with_a_legend_and_explained_signatures(
    tmp_path: Path,
) -> None:
    tasks = {f"t{i:02d}": (DOMAINS[i % 5], 5, i % 6) for i in range(30)}
    write_campaign(
        tmp_path / "c", {"fault-35667b0b": tasks}, system_errors={"fault-35667b0b": ["t01"]}
    )
    policy = [
        ExcludedField(table="tickets", column="subject", reason="free text written by the agent"),
        ExcludedField(table="notes", column="body", reason="free text written by the agent"),
        ExcludedField(table="notes", column="body", reason="free text written by the agent"),
        ExcludedField(table="claims", column="description", reason="free text; judged by rubric"),
    ]
    summary = summarize(read_trial_rows(tmp_path / "c"), excluded_fields=policy)
    text = _screen(summary)
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "…" not in text
    for short, full in [
        ("pass^5 u", "pass^5 (unbiased, tau-bench)"),
        ("pass^5 p", "pass^5 (plug-in, ThinkingBox)"),
        ("5/5", "observed 5/5 (tasks passed in every trial)"),
        ("retain", "retention (observed 5/5 ÷ pass@1)"),
    ]:
        assert re.search(rf"^\s+{re.escape(short)}\s+{re.escape(full)}$", text, re.M), short
    for domain in DOMAINS:
        assert re.search(rf"^ {domain}\s+\d\.\d{{3}}", text, re.M), domain
    flat = " ".join(text.split())
    for sig in summary["signatures_pooled"]:
        assert SIGNATURE_MEANINGS[sig] in flat, sig
    # Grouped by reason, each field once.
    assert flat.count("free text written by the agent:") == 1
    assert "notes.body, tickets.subject" in flat and flat.count("notes.body") == 1


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.chdir(tmp_path)
    return CliRunner()


def test_a_run_ends_with_its_directory_and_the_next_commands(
    cli: CliRunner, tmp_path: Path
) -> None:
    out = tmp_path / "c"
    args = [
        "run",
        "--tasks",
        str(TOY_TASKS),
        "--domain",
        TOY_REF,
        "--agent",
        "fault:skip_write=0.5",
    ]
    result = cli.invoke(app, [*args, "--trials", "3", "--out", str(out)])
    assert result.exit_code == 0, result.output
    lines = result.output.rstrip().splitlines()
    assert lines[-1].strip() == f"statebox report {out} --format html"
    shown = next(line.split()[-1] for line in lines if line.strip().startswith("statebox show"))
    failed = {r.trial_id for r in read_trial_rows(out) if r.status == "failed"}
    assert shown in failed
    table = next(i for i, line in enumerate(lines) if "tasks," in line and "k = 3" in line)
    where = next(i for i, line in enumerate(lines) if line.startswith(f"campaign {out}:"))
    assert where > table  # the directory comes after the figures, not above them

    again = cli.invoke(app, ["run", "--out", str(out), "--resume"])
    assert again.exit_code == 0, again.output
    rows = read_trial_rows(out)
    passed = sum(r.status == "passed" for r in rows)
    flat = " ".join(again.output.split())
    assert "nothing left to run" in flat and "passed 0" not in flat
    assert f"9 of 9 planned trials, {passed} passed" in flat
    assert "pass@1" in flat  # the campaign's figures are printed
