"""``statebox play``: a person acts as the agent; the trial is judged as usual."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from fixtures.support import TOY_REF, TOY_TASKS
from statebox.cli import app


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.chdir(tmp_path)
    return CliRunner()


def test_play_a_task_by_hand_and_pass(cli: CliRunner) -> None:
    keys = "\n".join(
        [
            "tools",
            'call transfer {"src": "A1", "dst": "A2", "amount": 40',  # bad JSON: asked again
            "say What is your account number?",
            'call transfer {"src": "A1", "dst": "A2", "amount": 40}',
            "done Moved 40 dollars to Bo.",
        ]
    )
    args = ["play", "toy.transfer.basic.001", "--tasks", str(TOY_TASKS), "--domain", TOY_REF]
    result = cli.invoke(app, args, input=keys + "\n")
    assert result.exit_code == 0, result.output
    assert "customer: Please move 40 dollars from my account to Bo." in result.output
    assert "arguments are not JSON" in result.output
    assert "customer: My account id is A1." in result.output
    assert "transfer(src, dst, amount)" in result.output
    assert "PASSED: toy.transfer.basic.001" in result.output
    assert "[ok] invariant[0]: Bo got the money: 65" in result.output


def test_play_unknown_task_names_near_ids(cli: CliRunner) -> None:
    args = ["play", "toy.transfer", "--tasks", str(TOY_TASKS), "--domain", TOY_REF]
    result = cli.invoke(app, args)
    assert result.exit_code == 1
    assert "did you mean toy.transfer.basic.001" in result.output


def test_play_takes_a_suite_so_a_task_of_an_older_version_can_be_played(
    cli: CliRunner,
) -> None:
    # Found by a new user: the README's `statebox play retail.returns.approve.001` names a
    # 1.0 task, and play had no --suite to reach it (its help spoke of one).
    args = ["play", "retail.returns.approve.001"]
    missing = cli.invoke(app, args, input="done Nothing to do.\n")
    assert missing.exit_code == 1 and "suite retail@2.0" in missing.output
    played = cli.invoke(app, [*args, "--suite", "retail@1.0"], input="done Nothing to do.\n")
    assert played.exit_code == 0, played.output
    assert "FAILED: retail.returns.approve.001" in played.output
