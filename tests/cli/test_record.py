"""Authoring by demonstration: ``statebox play --record`` and ``statebox tasks new``.

The round trip (issue 20): playing a task's golden calls at the terminal and recording
them gives a task file that validates and that the oracle passes; a recording with a
wrong call gives a task whose golden state differs from the original's, and validation
says so. ``tasks new`` writes a draft that validation refuses until its ``TODO:`` texts
are written.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from fixtures.support import TOY_DIR, TOY_V2_REF, flat
from fixtures.toy import DOMAIN_V2
from statebox.cli import app
from statebox.cli._play import NO_USER
from statebox.cli._record import write_task_file
from statebox.judge import Judge, golden_changes
from statebox.tasks import GoldenCall, Task, load_tasks

TOY_V2 = TOY_DIR / "tasks_v2"
REPO = Path(__file__).resolve().parents[2]
PAY = "toy.pay.unfreeze-then-pay.001"
NOW = "2025-10-01T13:00:00+00:00"
CONTACT = REPO / "src/statebox/domains/auto_insurance/tasks_v2/test/contact.yaml"


def keys(calls: tuple[GoldenCall, ...], done: str) -> str:
    """What an author types to make ``calls`` and end with ``done``."""
    return "".join(f"call {c.tool} {json.dumps(c.args)}\n" for c in calls) + f"done {done}\n"


def toy_task(task_id: str) -> Task:
    (task,) = [t for t in load_tasks(TOY_V2) if t.id == task_id]
    return task


def play(cli: CliRunner, out: Path, typed: str, *extra: str) -> object:
    args = ["play", PAY, "--tasks", str(TOY_V2), "--domain", TOY_V2_REF, "--record", str(out)]
    return cli.invoke(app, [*args, *extra], input=typed)


def validate(cli: CliRunner, path: Path, ref: str | None = TOY_V2_REF) -> tuple[int, dict]:
    args = ["tasks", "validate", str(path), "--json", "--no-cache", "-j", "1"]
    result = cli.invoke(app, args + (["--domain", ref] if ref else []))
    return result.exit_code, json.loads(result.stdout) if result.stdout.strip() else {}


@pytest.fixture(scope="module")
def cli() -> CliRunner:
    return CliRunner()


@pytest.fixture(scope="module")
def toy_recorded(cli: CliRunner, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The toy task's golden calls played (plus a call to no tool) and recorded."""
    task = toy_task(PAY)
    out = tmp_path_factory.mktemp("play") / "recorded.yaml"
    typed = keys(task.golden[:3], "").replace("done \n", "")  # the first three calls
    typed += 'call no_such_tool {"x": 1}\n' + keys(task.golden[3:], "Done: reopened and paid.")
    result = play(cli, out, typed)
    assert result.exit_code == 0, result.output
    return out, result.output


def test_a_recorded_toy_task_is_the_task_and_round_trips(
    cli: CliRunner, toy_recorded: tuple[Path, str]
) -> None:
    out, output = toy_recorded
    original = toy_task(PAY)
    (recorded,) = load_tasks(out)
    # The golden calls (the refused first transfer kept with its kind), user, checks and
    # world are the original's; the `done` text is the reference reply.
    assert recorded.golden[1].fails == "invalid_state"
    assert recorded.reference_response == "Done: reopened and paid."
    assert recorded.model_copy(update={"reference_response": ""}) == original
    text = out.read_text(encoding="utf-8")
    assert "call 4 no_such_tool: refused with unknown_tool" in text  # left out, named
    assert "#   accounts: 2 changed" in text and "status: frozen → active" in text
    assert f"accepted end state of {PAY}" in text
    assert "wrote" in output and "1 refused (kept as fails), 1 left out" in flat(output)

    code, report = validate(cli, out)
    assert code == 0, report
    (v,) = report["results"]
    assert v["ok"] and v["check_strength"] == 1.0 and v["survived"] == 0
    run = cli.invoke(
        app,
        ["run", "--tasks", str(out), "--domain", TOY_V2_REF, "--agent", "oracle",
         "--trials", "1", "--out", str(out.parent / "c")],
    )  # fmt: skip
    assert run.exit_code == 0, run.output
    assert "1 of 1 planned trials, 1 passed" in flat(run.output)


def test_a_built_in_task_played_through_a_pipe_records_itself(tmp_path: Path) -> None:
    # As a user would: the moves in a file, piped into the installed command.
    tid = "auto_insurance.contact.email-change.001"
    (original,) = [t for t in load_tasks(CONTACT) if t.id == tid]
    moves = tmp_path / "moves.txt"
    moves.write_text(keys(original.golden, original.reference_response), encoding="utf-8")
    out = tmp_path / "email.yaml"
    statebox = Path(sys.executable).with_name("statebox")
    with moves.open("rb") as stdin:
        done = subprocess.run(
            [str(statebox), "play", tid, "--record", str(out)],
            stdin=stdin, capture_output=True, text=True, timeout=120, cwd=tmp_path,
            env={**os.environ, "COLUMNS": "200"},
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"PASSED: {tid}" in done.stdout
    (recorded,) = load_tasks(out)
    assert recorded == original  # every field, the reference reply included
    assert "#   customers: 1 changed" in out.read_text(encoding="utf-8")
    code, report = validate(CliRunner(), out, None)
    assert code == 0, report
    assert report["results"][0]["check_strength"] == 1.0


def test_a_wrong_call_records_a_task_whose_golden_state_differs(
    cli: CliRunner, tmp_path: Path
) -> None:
    original = toy_task(PAY)
    wrong = [
        c.model_copy(update={"args": {**c.args, "amount": 40}}) if i == 3 else c
        for i, c in enumerate(original.golden)
    ]
    out = tmp_path / "wrong.yaml"
    result = play(cli, out, keys(tuple(wrong), "Done."))
    assert result.exit_code == 0, result.output
    assert f"FAILED: {PAY}" in result.output  # judged against the original task
    assert "differs from every accepted end state" in flat(result.output)
    (recorded,) = load_tasks(out)
    judge = Judge(DOMAIN_V2)
    before = asyncio.run(golden_changes(judge, original))
    after = asyncio.run(golden_changes(judge, recorded))
    balance = {
        (t.table, r.key["id"]): c.after
        for changes in (after,)
        for t in changes
        for r in t.changed
        for c in r.columns
        if c.column == "balance"
    }
    assert balance[("accounts", "A3")] == 40 and before != after
    # Its own golden state is the wrong one, so its carried-over checks fail the oracle.
    code, report = validate(cli, out)
    assert code == 1
    (v,) = report["results"]
    assert not v["ok"]
    assert any(
        "the oracle fails its own checks" in p and "invariant[0]: Cy got the money: 40" in p
        for p in v["problems"]
    ), v["problems"]


def test_recording_never_replaces_a_file_unless_forced(cli: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "kept.yaml"
    out.write_text("mine\n", encoding="utf-8")
    result = play(cli, out, "done\n")
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"error: --record {out}: the file exists; pass --force to replace it"
    ]  # refused before anything is played
    assert out.read_text(encoding="utf-8") == "mine\n"
    forced = play(cli, out, "done\n", "--force")  # input that ends without a call
    assert forced.exit_code == 0, forced.output
    (task,) = load_tasks(out)
    assert task.golden == () and task.read_only
    folder = play(cli, tmp_path, "done\n")
    assert folder.exit_code == 1 and "is a folder" in folder.output


def test_input_that_ends_ends_the_episode_and_keeps_the_calls(
    cli: CliRunner, tmp_path: Path
) -> None:
    out = tmp_path / "eof.yaml"
    result = play(cli, out, 'call get_account {"account_id": "A3"}\n')  # no `done`
    assert result.exit_code == 0, result.output
    assert "input ended" in result.output
    (task,) = load_tasks(out)
    assert [c.tool for c in task.golden] == ["get_account"] and task.reference_response == ""


def test_a_file_that_appears_meanwhile_is_kept_and_so_is_the_recording(tmp_path: Path) -> None:
    out = tmp_path / "t.yaml"
    out.write_text("theirs\n", encoding="utf-8")
    written = write_task_file(out, "ours\n", force=False)
    assert written != out and written.parent == tmp_path
    assert out.read_text(encoding="utf-8") == "theirs\n"
    assert written.read_text(encoding="utf-8") == "ours\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temp left
    assert write_task_file(out, "ours\n", force=True) == out
    assert out.read_text(encoding="utf-8") == "ours\n"


# --- tasks new ------------------------------------------------------------------------

MOVES = (
    "say Hello, how can I help?\n"
    'call get_account {"account_id": "A2"}\n'
    'call set_status {"account_id": "A2", "status": "frozen"}\n'
    'call add_note {"account_id": "A2", "body": "card lost, frozen at the owner\'s request"}\n'
    "done Your account is frozen.\n"
)


def new(cli: CliRunner, out: Path, *extra: str, typed: str = MOVES) -> object:
    args = ["tasks", "new", "--domain", TOY_V2_REF, "--record", str(out), "--now", NOW]
    return cli.invoke(app, [*args, *extra], input=typed)


@pytest.fixture(scope="module")
def draft(cli: CliRunner, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("new") / "freeze.yaml"
    result = new(cli, out)
    assert result.exit_code == 0, result.output
    return out, result.output


def test_tasks_new_records_a_draft_with_no_user(draft: tuple[Path, str]) -> None:
    out, output = draft
    assert flat(NO_USER) in flat(output)  # told at the start, and again on `say`
    assert flat(output).count("There is no user yet") == 2
    (data,) = yaml.safe_load(out.read_text(encoding="utf-8"))
    assert data["id"] == "toy.new.001" and data["now"] == NOW
    assert data["user"]["opening"].startswith("TODO:")
    # A2 is the one value the calls needed that no call returned: a suggested fact.
    assert list(data["user"]["facts"]) == ["account_id"]
    assert data["user"]["facts"]["account_id"]["value"] == "A2"
    assert [c["tool"] for c in data["golden"]] == ["get_account", "set_status", "add_note"]
    (text,) = data["checks"]["text"]  # the free-text column written, to be checked
    assert (text["table"], text["column"], text["key"]) == ("notes", "body", {"id": "N-002"})
    assert data["reference_response"] == "Your account is frozen."
    assert "next: write the 3 TODO: text(s)" in flat(output)


def test_a_draft_is_refused_until_filled_in_then_validates(
    cli: CliRunner, draft: tuple[Path, str], tmp_path: Path
) -> None:
    out, _ = draft
    refused = cli.invoke(app, ["tasks", "validate", str(out), "--domain", TOY_V2_REF])
    assert refused.exit_code == 1
    line = flat(refused.output.strip().split("error: ")[-1])
    assert ("error: " + line).startswith(
        f"error: file {out}, task toy.new.001, field user.opening: "
    )
    assert "TODO:" in line and "2 more after it" in line
    run = cli.invoke(app, ["run", "--tasks", str(out), "--domain", TOY_V2_REF, "--agent", "oracle"])
    assert run.exit_code == 1 and "field user.opening" in run.output  # never run as done

    (data,) = yaml.safe_load(out.read_text(encoding="utf-8"))
    data["user"]["opening"] = "I lost my card: please freeze my account."
    del data["user"]["facts"]["account_id"]["label"]
    data["checks"]["text"][0]["must_contain"] = ["lost"]
    filled = tmp_path / "filled.yaml"
    filled.write_text(yaml.safe_dump([data], sort_keys=False), encoding="utf-8")
    code, report = validate(cli, filled)
    assert code == 0, report
    assert report["results"][0]["check_strength"] == 1.0
    # Without the suggested text check the note's wording goes unchecked: a mutant survives.
    del data["checks"]
    filled.write_text(yaml.safe_dump([data], sort_keys=False), encoding="utf-8")
    code, report = validate(cli, filled)
    assert code == 1 and report["results"][0]["survived"] == 1


def test_tasks_new_takes_the_next_free_id_and_refuses_an_existing_file(
    cli: CliRunner, draft: tuple[Path, str]
) -> None:
    out, _ = draft
    again = new(cli, out)
    assert again.exit_code == 1
    assert (
        again.output.strip()
        == f"error: --record {out}: the file exists; pass --force to replace it"
    )
    second = out.with_name("second.yaml")
    result = new(cli, second, typed="done Nothing to do.\n")
    assert result.exit_code == 0, result.output
    (data,) = yaml.safe_load(second.read_text(encoding="utf-8"))
    assert data["id"] == "toy.new.002" and data["read_only"] is True
    assert data["checks"]["reply"]["must_contain"][0].startswith("TODO:")  # read-only: reply


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--now", "yesterday"], "--now 'yesterday': not an ISO 8601 time"),
        (["--now", "2025-10-01T13:00:00"], "--now '2025-10-01T13:00:00': give its timezone"),
        (["--id", "Toy new"], "--id 'Toy new': "),
        (["--id", "other.new.001"], "must start with the domain name 'toy'"),
    ],
)
def test_tasks_new_bad_options_are_one_line(
    cli: CliRunner, tmp_path: Path, extra: list[str], message: str
) -> None:
    result = new(cli, tmp_path / "t.yaml", *extra)
    assert result.exit_code == 1
    (line,) = result.output.strip().splitlines()
    assert line.startswith("error: ") and message in line
    assert not (tmp_path / "t.yaml").exists()


def test_tasks_new_needs_one_known_domain(cli: CliRunner, tmp_path: Path) -> None:
    out = ["--record", str(tmp_path / "t.yaml")]
    unknown = cli.invoke(app, ["tasks", "new", "--domain", "nosuch", *out], input="done\n")
    assert unknown.exit_code == 1
    (line,) = unknown.output.strip().splitlines()
    assert "domain reference 'nosuch': no such module, file or installed domain" in line
    assert "installed domains: auto_insurance" in line and "retail" in line
    none = cli.invoke(app, ["tasks", "new", *out])
    assert none.exit_code == 1 and "name the domain with --domain" in none.output
    both = cli.invoke(app, ["tasks", "new", *out, "--domain", "retail", "--domain", "travel"])
    assert both.exit_code == 1 and "give one --domain" in both.output


# --- what a recording keeps of the original -------------------------------------------


def with_other_states(tmp_path: Path) -> Path:
    """The toy task with an alternative trajectory and a declared end state, both
    reaching its golden state (another order; a row upserted as it already is)."""
    from statebox.tasks import dump_tasks, task_data

    data = task_data(toy_task(PAY))
    golden = data["golden"]
    data["checks"] = {
        **data["checks"],
        "alternatives": [[golden[2], golden[3], golden[4]]],
        "end_states": [{"accounts": [{"id": "A3", "status": "active"}]}],
    }
    path = tmp_path / "tasks.yaml"
    path.write_text(dump_tasks([data]), encoding="utf-8")
    return path


def play_file(cli: CliRunner, tasks: Path, out: Path, typed: str) -> object:
    args = ["play", PAY, "--tasks", str(tasks), "--domain", TOY_V2_REF, "--record", str(out)]
    return cli.invoke(app, args, input=typed)


def test_a_different_end_state_drops_the_originals_alternatives(
    cli: CliRunner, tmp_path: Path
) -> None:
    tasks = with_other_states(tmp_path)
    (original,) = load_tasks(tasks)
    assert len(original.checks.alternatives) == 1 and len(original.checks.end_states) == 1
    wrong = [
        c.model_copy(update={"args": {**c.args, "amount": 40}}) if i == 3 else c
        for i, c in enumerate(original.golden)
    ]
    out = tmp_path / "wrong.yaml"
    result = play_file(cli, tasks, out, keys(tuple(wrong), "Done."))
    assert result.exit_code == 0, result.output
    line = (
        "1 alternative trajectory(ies) and 1 declared end state(s) of the original dropped: "
        "they reached the old golden state"
    )
    assert line in flat(result.output)
    (recorded,) = load_tasks(out)
    # Kept, they would accept both the old golden state (30 paid) and the new one (40).
    assert recorded.checks.alternatives == () and recorded.checks.end_states == ()
    assert recorded.checks.invariants == original.checks.invariants
    assert line in flat(out.read_text(encoding="utf-8").replace("#", ""))


def test_the_same_end_state_keeps_the_originals_alternatives(
    cli: CliRunner, tmp_path: Path
) -> None:
    tasks = with_other_states(tmp_path)
    (original,) = load_tasks(tasks)
    out = tmp_path / "same.yaml"
    result = play_file(cli, tasks, out, keys(original.golden, "Done: reopened and paid."))
    assert result.exit_code == 0, result.output
    assert "dropped" not in result.output
    (recorded,) = load_tasks(out)
    assert recorded.checks == original.checks


@pytest.mark.parametrize(
    ("where", "why"),
    [
        ("missing/t.yaml", "does not exist"),
        ("afile/t.yaml", "is a file, not a folder"),
        ("locked/t.yaml", "is not writable"),
    ],
)
def test_an_unwritable_record_path_is_refused_before_playing(
    cli: CliRunner, tmp_path: Path, where: str, why: str
) -> None:
    (tmp_path / "afile").write_text("x\n", encoding="utf-8")
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked").chmod(0o500)
    if why == "is not writable" and os.access(tmp_path / "locked", os.W_OK):
        pytest.skip("running as root: every folder is writable")
    out = tmp_path / where
    try:
        result = play(cli, out, "done\n")
    finally:
        (tmp_path / "locked").chmod(0o700)
    assert result.exit_code == 1
    (line,) = result.output.strip().splitlines()  # nothing played: one line only
    assert line.startswith(f"error: --record {out}: cannot write it: ") and why in line
    assert "File exists" not in line and not out.exists()


def test_a_folder_that_becomes_a_file_is_named_not_file_exists(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("x\n", encoding="utf-8")
    out = tmp_path / "afile" / "t.yaml"
    with pytest.raises(Exception, match="is a file, not a folder") as err:
        write_task_file(out, "ours\n", force=False)
    assert "File exists" not in str(err.value)


def test_a_failed_reply_check_is_not_called_accepted(cli: CliRunner, tmp_path: Path) -> None:
    from statebox.tasks import dump_tasks, task_data

    data = task_data(toy_task(PAY))
    data["checks"] = {**data["checks"], "reply": {"must_contain": ["paid"]}}
    tasks = tmp_path / "tasks.yaml"
    tasks.write_text(dump_tasks([data]), encoding="utf-8")
    out = tmp_path / "t.yaml"
    result = play_file(cli, tasks, out, keys(toy_task(PAY).golden, "All sorted."))
    assert result.exit_code == 0, result.output
    said = flat(result.output)
    assert f"FAILED: {PAY}" in said
    assert f"Its end state is an accepted end state of {PAY} as it was." not in said
    assert "as it was, but check(s) reply.must_contain[0] failed" in said
    assert "validation will refuse the task" in said
