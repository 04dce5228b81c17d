"""The command line under rough handling: resume plans, printed data, missing folders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fixtures.support import TOY_REF, TOY_TASKS
from statebox.cli import app
from statebox.records import RESULTS_FILE, find_trial, read_results


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.chdir(tmp_path)
    for name in ("STATEBOX_TRIALS", "STATEBOX_AGENT", "STATEBOX_SEED", "STATEBOX_CONCURRENCY"):
        monkeypatch.delenv(name, raising=False)
    return CliRunner()


def _run(cli: CliRunner, *args: str) -> str:
    result = cli.invoke(app, ["run", "--domain", TOY_REF, *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_resume_without_flags_continues_the_planned_campaign(
    cli: CliRunner, tmp_path: Path
) -> None:
    out = tmp_path / "c"
    _run(cli, "--tasks", str(TOY_TASKS), "--agent", "fault:skip_write=0.3", "--trials", "7",
         "--seed", "4", "--out", str(out))  # fmt: skip
    lines = (out / RESULTS_FILE).read_text().splitlines()
    (out / RESULTS_FILE).write_text("\n".join(lines[:5]) + "\n")  # as if killed after 5
    # Only --out and --resume: trials, seed, tasks and agent come from the manifest.
    _run(cli, "--out", str(out), "--resume")
    records = read_results(out)
    assert len(records) == 3 * 7
    assert {r.agent_id for r in records} == {records[0].agent_id}
    assert records[0].agent_id.startswith("fault-")


def test_a_smaller_trial_count_on_resume_is_refused(cli: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "c"
    _run(cli, "--tasks", str(TOY_TASKS), "--agent", "oracle", "--trials", "4", "--out", str(out))
    result = cli.invoke(app, ["run", "--domain", TOY_REF, "--out", str(out), "--resume",
                              "--trials", "2"])  # fmt: skip
    assert result.exit_code == 1
    assert "plans 4 trials per task" in " ".join(result.output.split())


def test_resume_of_a_missing_directory_is_a_clear_error(cli: CliRunner, tmp_path: Path) -> None:
    result = cli.invoke(app, ["run", "--out", str(tmp_path / "nope"), "--resume"])
    assert result.exit_code == 1
    assert "no such campaign directory" in result.output


@pytest.mark.parametrize("command", ["report", "show"])
def test_missing_campaign_directories_are_named(
    cli: CliRunner, tmp_path: Path, command: str
) -> None:
    args = [command, str(tmp_path / "missing")] + (["x/y/0"] if command == "show" else [])
    result = cli.invoke(app, args)
    assert result.exit_code == 1
    assert "no such campaign directory" in result.output


def test_zero_trials_is_a_usage_error(cli: CliRunner) -> None:
    assert cli.invoke(app, ["run", "--trials", "0"]).exit_code == 2
    assert cli.invoke(app, ["run", "--concurrency", "0"]).exit_code == 2


def test_agent_text_is_printed_verbatim_not_as_markup(cli: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "c"
    _run(cli, "--tasks", str(TOY_TASKS), "--agent", "oracle", "--trials", "1", "--out", str(out))
    # Put rich-markup and emoji-code lookalikes into a stored final message.
    path = out / RESULTS_FILE
    lines = path.read_text().splitlines()
    data = json.loads(lines[0])
    data["transcript"][-1]["text"] = "[/INST] done [bold]x :thumbs_up: results.jsonl:100:"
    lines[0] = json.dumps(data)
    path.write_text("\n".join(lines) + "\n")
    result = cli.invoke(app, ["show", str(out), data["trial_id"]])
    assert result.exit_code == 0, result.output
    assert "[/INST] done [bold]x :thumbs_up: results.jsonl:100:" in result.output


def test_find_trial_reads_the_latest_record_of_one_trial(cli: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "c"
    _run(cli, "--tasks", str(TOY_TASKS), "--agent", "oracle", "--trials", "2", "--out", str(out))
    records = read_results(out)
    target = records[3]
    found = find_trial(out, target.trial_id)
    assert found == target
    assert find_trial(out, "toy.nope/oracle/0") is None


def test_report_says_when_a_campaign_is_incomplete(cli: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "c"
    _run(cli, "--tasks", str(TOY_TASKS), "--agent", "oracle", "--trials", "3", "--out", str(out))
    lines = (out / RESULTS_FILE).read_text().splitlines()
    (out / RESULTS_FILE).write_text("\n".join(lines[:4]) + "\n")
    result = cli.invoke(app, ["report", str(out)])
    assert result.exit_code == 0, result.output
    assert "holds 4 of 9 planned trials" in " ".join(result.output.split())


def test_compare_warns_when_trial_counts_differ(cli: CliRunner, tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    _run(cli, "--tasks", str(TOY_TASKS), "--agent", "fault", "--trials", "4", "--out", str(a))
    _run(cli, "--tasks", str(TOY_TASKS), "--agent", "fault", "--trials", "2", "--out", str(b))
    result = cli.invoke(app, ["compare", str(a), str(b)])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "3 shared tasks ran a different number of trials (A: [4], B: [2])" in text


@pytest.mark.parametrize("content", [None, "", "# only a comment\n", "---\n"])
def test_validating_zero_tasks_fails(cli: CliRunner, tmp_path: Path, content: str | None) -> None:
    target = tmp_path / "tasks"
    target.mkdir()
    if content is not None:
        target = target / "t.yaml"
        target.write_text(content)
    result = cli.invoke(app, ["tasks", "validate", str(target)])
    assert result.exit_code == 1
    assert f"{target}: no tasks found" in " ".join(result.output.split())


def test_report_out_naming_a_directory_is_a_one_line_error(cli: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "c"
    _run(cli, "--tasks", str(TOY_TASKS), "--agent", "oracle", "--trials", "1", "--out", str(out))
    for fmt in ("table", "json", "html"):
        result = cli.invoke(app, ["report", str(out), "--format", fmt, "--out", str(tmp_path)])
        assert result.exit_code == 1, fmt
        assert str(tmp_path) in result.output and "Traceback" not in result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)


def test_run_out_naming_a_file_is_a_one_line_error(cli: CliRunner, tmp_path: Path) -> None:
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    for out in (blocker, blocker / "c"):
        result = cli.invoke(app, ["run", "--domain", TOY_REF, "--tasks", str(TOY_TASKS),
                                  "--agent", "oracle", "--out", str(out)])  # fmt: skip
        assert result.exit_code == 1 and str(out) in result.output
        assert isinstance(result.exception, SystemExit)
