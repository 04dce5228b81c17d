"""``statebox report`` prints exactly what it printed before the reader and metrics were sped up.

The golden files were written by main's code (before #19's report work) over the
campaign `report_fixture` builds::

    PYTHONPATH=MAIN/src python tests/report/report_fixture.py /tmp/x/fx
    PYTHONPATH=MAIN/src statebox report /tmp/x/fx --format json --out report.json

(and ``table``, ``card``), with the campaign's path replaced by ``@CAMPAIGN@``. Any
change to a figure, an interval, a signature count or a cost shows here as a diff.
"""

from pathlib import Path

import pytest
from report_fixture import write_fixture
from typer.testing import CliRunner

from statebox.cli import app
from statebox.records import read_results, read_trial_rows, trial_row

GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("golden") / "fx"  # the label the golden files name
    write_fixture(directory)
    return directory


def test_the_fixture_has_what_the_report_reads(campaign: Path) -> None:
    rows = read_trial_rows(campaign)
    assert rows == [trial_row(r) for r in read_results(campaign)]
    assert len(rows) == 264 and len({r.agent_id for r in rows}) == 3
    assert {r.status.value for r in rows} == {"passed", "failed", "system_error"}
    assert any(r.skipped_checks for r in rows) and any(r.approvals_held for r in rows)
    assert any(r.unrecovered_error for r in rows) and any(r.user_behaviour for r in rows)
    text = (campaign / "results.jsonl").read_text().splitlines()
    assert len(text) == 265  # one trial recorded twice: the later line wins
    assert sum('"trial_id": ' in line for line in text) == 2  # two lines in another layout


@pytest.mark.parametrize("fmt", ["json", "table", "card"])
def test_report_output_is_unchanged(campaign: Path, tmp_path: Path, fmt: str) -> None:
    out = tmp_path / f"report.{fmt}"
    result = CliRunner().invoke(app, ["report", str(campaign), "--format", fmt, "--out", str(out)])
    assert result.exit_code == 0, result.output
    got = out.read_text(encoding="utf-8").replace(str(campaign), "@CAMPAIGN@")
    assert got == (GOLDEN / f"report.{fmt}").read_text(encoding="utf-8")
