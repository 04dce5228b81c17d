"""``statebox tasks show``: a task's spec, checks, golden calls and their effects by table."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from fixtures.support import INVALID_TASKS, TOY_DIR, TOY_REF, TOY_TASKS, flat
from fixtures.toy import DOMAIN
from statebox.cli import app
from statebox.cli._task_view import print_task
from statebox.judge import Judge, golden_changes
from statebox.tasks import load_tasks, parse_tasks

NOTE = "toy.freeze.note.001"


@pytest.fixture(scope="module")
def cli() -> CliRunner:
    return CliRunner()


def show(cli: CliRunner, *args: str) -> object:
    return cli.invoke(app, ["tasks", "show", *args, "--domain", TOY_REF])


def test_show_prints_spec_checks_golden_and_effects_by_table(cli: CliRunner) -> None:
    result = show(cli, NOTE, str(TOY_TASKS))
    assert result.exit_code == 0, result.output
    out = flat(result.output)
    assert "opening: I lost my card, freeze my account A2 and note why." in out
    assert "note_id │ N-001" in out  # the fact, as the user tells it
    assert "behaviour: confirms the change" in out
    assert "text[0]: notes.body where" in out and 'must contain ["lost"]' in out
    assert "0 set_status(account_id=A2, status=frozen)" in out
    # initial → golden: A2 frozen, a note added, the old note removed; the note's body is
    # excluded from the comparison, with the field policy's reason beside it.
    assert "accounts: 1 changed" in out and "~ │ id=A2 │ status │ active │ frozen" in out
    assert "notes: 1 added, 1 removed" in out
    assert "body │ │ card lost │ free text: wording not" in out
    assert "- │ id=N-001" in out and "welcome" in out


def test_show_is_readable_at_100_columns() -> None:
    (task,) = [t for t in load_tasks(TOY_TASKS) if t.id == NOTE]
    changes = asyncio.run(golden_changes(Judge(DOMAIN), task))
    console = Console(width=100, record=True, markup=False, emoji=False, highlight=False)
    print_task(task, changes, None, console)
    lines = console.export_text().splitlines()
    assert max(len(line) for line in lines) <= 100
    assert any("free text: wording not" in line for line in lines)  # folded, not cut


def test_show_json_is_the_task_and_its_effects(cli: CliRunner) -> None:
    result = show(cli, NOTE, str(TOY_TASKS), "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    (task,) = [t for t in load_tasks(TOY_TASKS) if t.id == NOTE]
    assert parse_tasks(data["task"]) == [task]
    by_table = {t["table"]: t for t in data["effects"]}
    assert sorted(by_table) == ["accounts", "notes"]
    (added,) = by_table["notes"]["added"]
    body = next(c for c in added["columns"] if c["column"] == "body")
    assert body["after"] == "card lost" and body["excluded"].startswith("free text")
    (changed,) = by_table["accounts"]["changed"]
    assert changed["columns"] == [
        {"column": "status", "before": "active", "after": "frozen", "excluded": None}
    ]
    assert data["effects_error"] is None


def test_show_finds_an_id_in_its_domains_tasks(cli: CliRunner) -> None:
    # No PATH and no --suite: the toy domain's own tasks, both splits (its 1.0 folder).
    result = cli.invoke(
        app, ["tasks", "show", "toy.refuse.closed.001", "--domain", f"{TOY_DIR}/__init__.py:DOMAIN"]
    )
    assert result.exit_code == 0, result.output
    assert "no change: the state is left as it was" in result.output


def test_show_unknown_id_is_one_line_with_close_ids(cli: CliRunner) -> None:
    result = show(cli, "toy.freeze.note.01", str(TOY_TASKS))
    assert result.exit_code == 1
    (line,) = result.output.strip().splitlines()
    assert line == (
        f"error: no task 'toy.freeze.note.01' in {TOY_TASKS}; did you mean toy.freeze.note.001"
    )


def test_show_a_task_whose_golden_fails_says_why_and_exits_1(cli: CliRunner) -> None:
    result = show(cli, "toy.transfer.overdraw.001", str(INVALID_TASKS))
    assert result.exit_code == 1
    out = flat(result.output)
    assert "not computed: task toy.transfer.overdraw.001: golden call 1 (transfer)" in out
    assert "opening: Move 500 dollars from A2 to A1." in out  # the spec is still shown


def test_show_refuses_a_suite_and_a_path_together(cli: CliRunner, tmp_path: Path) -> None:
    result = show(cli, NOTE, str(TOY_TASKS), "--suite", "toy")
    assert result.exit_code == 1 and "not both" in result.output
