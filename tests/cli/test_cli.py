"""The command line: validate, run, report, show, schema; exit codes and messages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fixtures.support import INVALID_TASKS, TOY_REF, TOY_TASKS
from statebox import domains as _domains
from statebox.cli import app
from statebox.episode import Event
from statebox.records import read_results
from statebox.tools import ToolCall

REPO = Path(__file__).resolve().parents[2]

METRICS = ("pass_at_1", "pass_at_k", "pass_hat_k_unbiased", "pass_hat_k_plugin", "observed_k_of_k")
TASK_FIXTURES = Path(__file__).resolve().parents[1] / "tasks" / "fixtures"


def flat(text: str) -> str:
    """Text with rich's line wrapping undone (stderr is 80 columns off a terminal)."""
    return " ".join(text.split())


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    # Run from an empty folder: no statebox.toml, no STATEBOX_* settings leak in.
    monkeypatch.chdir(tmp_path)
    for name in ("STATEBOX_TRIALS", "STATEBOX_AGENT", "STATEBOX_SEED", "STATEBOX_CONCURRENCY"):
        monkeypatch.delenv(name, raising=False)
    return CliRunner()


def run_campaign(
    cli: CliRunner, out: Path, *extra: str, agents: tuple[str, ...] = ("oracle",)
) -> None:
    args = [
        "run",
        "--tasks",
        str(TOY_TASKS),
        "--domain",
        TOY_REF,
        "--out",
        str(out),
        "--trials",
        "3",
    ]
    for a in agents:
        args += ["--agent", a]
    result = cli.invoke(app, [*args, *extra])
    assert result.exit_code == 0, result.output


# --- tasks validate / list -------------------------------------------------------------


def test_validate_toy_tasks(cli: CliRunner) -> None:
    result = cli.invoke(app, ["tasks", "validate", str(TOY_TASKS), "--domain", TOY_REF, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["tasks"] == 3 and data["invalid"] == 0
    assert data["check_strength"] == 1.0
    assert data["survived"] == 0 and data["excluded_only"] == 2 and data["text_mutants"] == 1
    assert data["false_rejection_rate"] == 0.0
    assert [(f["agent"], f["passed_test"]) for f in data["floors"]] == [("noop", 0), ("refuse", 0)]
    by_id = {r["task_id"]: r for r in data["results"]}
    note = by_id["toy.freeze.note.001"]
    assert note["excluded_only"] == 2
    assert [m["caught_by"] for m in note["mutants"] if m["excluded_only"]] == [
        ["text[0]"],
        ["text[0]"],
    ]


def test_validate_table_prints_strength_and_exclusions(cli: CliRunner) -> None:
    result = cli.invoke(app, ["tasks", "validate", str(TOY_TASKS), "--domain", TOY_REF])
    assert result.exit_code == 0, result.output
    out = " ".join(result.stdout.split())
    assert "check strength: 100.0% (17/17) of real mutants caught" in out
    assert "2 mutants touch only columns left out of exact comparison" in out
    assert "false-rejection rate: 0.0% (0/3)" in out
    assert "noop passes 0/3 test tasks" in out and "refuse passes 0/3 test tasks" in out


def test_validate_failing_golden_exits_1(cli: CliRunner) -> None:
    result = cli.invoke(
        app, ["tasks", "validate", str(INVALID_TASKS), "--domain", TOY_REF, "--json"]
    )
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    (bad,) = data["results"]
    assert bad["task_id"] == "toy.transfer.overdraw.001" and bad["ok"] is False
    assert "golden call 1 (transfer) failed" in bad["problems"][0]
    assert "1 of 1 task(s) invalid" in flat(result.stderr)


def test_validate_with_repo_relative_paths(cli: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    # The documented invocation, from the repository root.
    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    ref = "tests/fixtures/toy/__init__.py:DOMAIN"
    bad = cli.invoke(app, ["tasks", "validate", "tests/fixtures/toy_invalid", "--domain", ref])
    assert bad.exit_code == 1
    good = cli.invoke(app, ["tasks", "validate", "tests/fixtures/toy/tasks", "--domain", ref])
    assert good.exit_code == 0, good.output


def test_validate_failing_golden_table_names_step_and_tool(cli: CliRunner) -> None:
    result = cli.invoke(app, ["tasks", "validate", str(INVALID_TASKS), "--domain", TOY_REF])
    assert result.exit_code == 1
    assert "golden call 1" in result.stdout and "(transfer)" in result.stdout


def test_malformed_task_file_is_a_clean_error(cli: CliRunner) -> None:
    path = TASK_FIXTURES / "bad_now.yaml"
    result = cli.invoke(app, ["tasks", "validate", str(path), "--domain", TOY_REF])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    err = flat(result.stderr)  # rich may wrap long lines
    assert err.startswith("error: file ")
    assert "bad_now.yaml, task toy.clock.naive.001, field now" in err


def test_bad_domain_reference(cli: CliRunner) -> None:
    result = cli.invoke(app, ["tasks", "validate", str(TOY_TASKS), "--domain", "no_such_module:X"])
    assert result.exit_code == 1
    assert "domain reference 'no_such_module:X'" in flat(result.stderr)


def test_tasks_list(cli: CliRunner) -> None:
    result = cli.invoke(app, ["tasks", "list", str(TOY_TASKS)])
    assert result.exit_code == 0
    for task_id in ("toy.transfer.basic.001", "toy.freeze.note.001", "toy.refuse.closed.001"):
        assert task_id in result.stdout


# --- run / report ----------------------------------------------------------------------


def test_run_then_report_json_for_the_oracle(cli: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "oracle"
    run_campaign(cli, out, "--json")
    assert len(read_results(out)) == 9
    result = cli.invoke(app, ["report", str(out), "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["tasks"] == 3 and data["trials"] == 9 and data["k"] == 3
    for key in ("tasks", "trials", "overall", "by_domain"):
        assert key in data
    assert list(data["by_domain"]) == ["toy"]
    for figures in (data["overall"], data["by_domain"]["toy"]):
        for metric in METRICS:
            assert figures[metric] == 1.0, metric
    assert data["system_errors"] == 0
    assert data["failures"]["failed_trials"] == 0
    assert list(data["agents"]) == ["oracle"]


def test_run_json_summary_and_k(cli: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "skip"
    args = ["run", "--tasks", str(TOY_TASKS), "--domain", TOY_REF, "--out", str(out)]
    args += [
        "--trials",
        "2",
        "--agent",
        "fault:skip_write=1.0,wrong_value=0,extra_write=0,stop_early=0",
        "--json",
    ]
    result = cli.invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    # Two write tasks always fail, the read-only one always passes.
    assert data["overall"]["pass_at_1"] == pytest.approx(1 / 3)
    assert data["overall"]["observed_k_of_k"] == pytest.approx(1 / 3)
    assert data["failures"]["signatures"] == {"no_state_change": 4}
    assert data["failures"]["with_missing"] == 1.0
    report = cli.invoke(app, ["report", str(out), "--format", "json", "--k", "1"])
    assert json.loads(report.stdout)["k"] == 1
    too_big = cli.invoke(app, ["report", str(out), "--k", "3"])
    assert too_big.exit_code == 1
    assert "error: domain 'toy': no task has at least k=3 trials" in flat(too_big.stderr)


def test_report_of_two_agents_keeps_them_apart(cli: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "two"
    run_campaign(cli, out, agents=("oracle", "fault:skip_write=1.0"))
    data = json.loads(cli.invoke(app, ["report", str(out), "--format", "json"]).stdout)
    assert len(data["agents"]) == 2
    assert "overall" not in data  # no single agent to lift to the top level
    assert data["agents"]["oracle"]["overall"]["pass_at_1"] == 1.0
    fault = next(v for k, v in data["agents"].items() if k.startswith("fault-"))
    assert fault["overall"]["pass_at_1"] < 1.0


def test_report_table_names_every_figure(cli: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "table"
    run_campaign(cli, out)
    result = cli.invoke(app, ["report", str(out)])
    assert result.exit_code == 0
    for label in ("pass@1", "pass@3", "pass^3 (unbiased", "pass^3 (plug-in", "observed"):
        assert label in result.stdout


def test_run_into_an_existing_campaign_needs_resume(cli: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "again"
    run_campaign(cli, out)
    result = cli.invoke(
        app,
        [
            "run",
            "--tasks",
            str(TOY_TASKS),
            "--domain",
            TOY_REF,
            "--out",
            str(out),
            "--agent",
            "oracle",
            "--trials",
            "3",
        ],
    )
    assert result.exit_code == 1
    assert "already holds a campaign; pass --resume" in flat(result.stderr)
    resumed = cli.invoke(
        app,
        [
            "run",
            "--tasks",
            str(TOY_TASKS),
            "--domain",
            TOY_REF,
            "--out",
            str(out),
            "--agent",
            "oracle",
            "--trials",
            "3",
            "--resume",
        ],
    )
    assert resumed.exit_code == 0
    assert "9 of 9 planned trials, 9 passed" in flat(resumed.stderr)
    assert "(nothing left to run)" in flat(resumed.stderr)


def test_run_policy_mode_reaches_the_manifest_and_a_resume_keeps_it(
    cli: CliRunner, tmp_path: Path
) -> None:
    out = tmp_path / "search"
    run_campaign(cli, out, "--policy-mode", "search")
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["settings"]["policy_mode"] == "search"
    base = ["run", "--out", str(out), "--domain", TOY_REF, "--resume"]
    kept = cli.invoke(app, base)
    assert kept.exit_code == 0, kept.output
    assert "nothing left to run: all 9 trials are done" in flat(kept.stderr)
    changed = cli.invoke(app, [*base, "--policy-mode", "prompt"])
    assert changed.exit_code == 1
    assert "policy mode prompt differs from the campaign's search" in flat(changed.stderr)
    bad = cli.invoke(app, ["run", "--tasks", str(TOY_TASKS), "--policy-mode", "index"])
    assert bad.exit_code == 2
    tb = cli.invoke(app, ["run", "--thinkingbox", str(tmp_path), "--policy-mode", "search"])
    assert tb.exit_code == 1
    assert "a ThinkingBox dataset's servers serve their own" in flat(tb.stderr)


@pytest.mark.slow
def test_the_readme_search_mode_command_runs_the_retail_suite(
    cli: CliRunner, tmp_path: Path
) -> None:
    out = tmp_path / "readme"
    command = "run --suite retail --agent oracle --trials 1 --policy-mode search"
    result = cli.invoke(app, [*command.split(), "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    assert f"statebox {command}" in (REPO / "README.md").read_text()
    assert json.loads((out / "manifest.json").read_text())["settings"]["policy_mode"] == "search"
    assert json.loads(result.stdout)["overall"]["pass_at_1"] == 1.0


def test_run_with_invalid_task_exits_1_and_writes_nothing(cli: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "invalid"
    args = ["run", "--tasks", str(TOY_TASKS), "--tasks", str(INVALID_TASKS), "--domain", TOY_REF]
    result = cli.invoke(app, [*args, "--out", str(out), "--agent", "oracle"])
    assert result.exit_code == 1
    assert "invalid task" in flat(result.stderr)
    assert not out.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--suite", "toy", "--tasks", "x.yaml"], "give one of --suite, --tasks and --thinkingbox"),
        (["--resume"], "--resume needs --out"),
        (["--agent", "gpt-9"], "unknown agent 'gpt-9'"),
    ],
)
def test_run_usage_errors(cli: CliRunner, args: list[str], message: str) -> None:
    base = ["run", "--domain", TOY_REF]
    if "--suite" not in args:
        base += ["--tasks", str(TOY_TASKS)]
    result = cli.invoke(app, [*base, *args])
    assert result.exit_code == 1
    assert message in flat(result.stderr)


def test_report_of_an_empty_folder(cli: CliRunner, tmp_path: Path) -> None:
    result = cli.invoke(app, ["report", str(tmp_path)])
    assert result.exit_code == 1
    assert "no trial records yet" in flat(result.stderr)


# --- show ------------------------------------------------------------------------------


def test_show_prints_transcript_and_effect_diff(cli: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "show"
    run_campaign(
        cli, out, agents=("fault:skip_write=1.0,wrong_value=0,extra_write=0,stop_early=0",)
    )
    record = next(r for r in read_results(out) if r.task_id == "toy.transfer.basic.001")
    result = cli.invoke(app, ["show", str(out), record.trial_id])
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert record.trial_id in text
    assert "status: failed" in text and "signature: no_state_change" in text
    assert "transcript" in text
    assert "user: Please move 40 dollars from my account to Bo." in text
    assert "user: rule, cooperative; " in text
    assert "follow-up turns; no ungrounded value, no volunteered fact" in text
    assert "user: My account id is A1. Bo's account is A2." in text
    assert 'tool get_account({"account_id": "A1"})' in text
    assert "agent (end): All done: your request has been handled." in text
    assert "effects: golden vs actual" in text
    assert "missing" in text and "transfers" in text
    assert "golden effects: 3 rows; actual effects: 0 rows" in text
    assert 'golden update accounts {"id": "A1"}: {"balance": 60}' in text


def test_show_of_a_passing_trial(cli: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "pass"
    run_campaign(cli, out)
    result = cli.invoke(app, ["show", str(out), "toy.freeze.note.001/oracle/0"])
    assert result.exit_code == 0
    assert "terminal state equals the golden state" in result.stdout
    assert "tool set_status(" in result.stdout


def test_show_unknown_trial_exits_1(cli: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "unknown"
    run_campaign(cli, out)
    result = cli.invoke(app, ["show", str(out), "no-such-trial"])
    assert result.exit_code == 1
    assert "no trial 'no-such-trial'" in flat(result.stderr)
    near = cli.invoke(app, ["show", str(out), "toy.freeze.note.001/oracle"])
    assert near.exit_code == 1
    assert "did you mean toy.freeze.note.001/oracle/0" in flat(near.stderr)


# --- schema ----------------------------------------------------------------------------


def test_schema(cli: CliRunner) -> None:
    result = cli.invoke(app, ["schema", "task"])
    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    assert {"id", "domain", "now", "user", "golden", "checks"} <= set(schema["properties"])
    results = json.loads(cli.invoke(app, ["schema", "results"]).stdout)
    assert "trial_id" in results["properties"]
    bad = cli.invoke(app, ["schema", "verdicts"])
    assert bad.exit_code == 1
    assert "unknown schema 'verdicts'" in flat(bad.stderr)


def test_the_schemas_validate_what_statebox_writes_and_reads(
    cli: CliRunner, tmp_path: Path
) -> None:
    # Found by a new user: every real results line failed `schema results` (a verdict's
    # derived `passed` and `tool_grader_fooled` were "additional properties"), and most
    # task files failed `schema task` (table keys under initial_state, a plain fact).
    import jsonschema
    import yaml

    def validator(what: str) -> Any:
        schema = json.loads(cli.invoke(app, ["schema", what]).stdout)
        return jsonschema.Draft202012Validator(schema)

    out = tmp_path / "run"
    run_campaign(cli, out, agents=("oracle", "fault"))
    results = validator("results")
    lines = (out / "results.jsonl").read_text().splitlines()
    assert lines and all(not list(results.iter_errors(json.loads(x))) for x in lines)
    manifest = json.loads((out / "manifest.json").read_text())
    assert not list(validator("manifest").iter_errors(manifest))
    tasks = validator("task")
    # The toy tasks and one file of each built-in domain's task folders (parsing every
    # built-in file would cost this test seconds).
    suites = Path(_domains.__file__).parent
    files = sorted(TOY_TASKS.rglob("*.yaml")) + [
        min(folder.rglob("*.yaml")) for folder in sorted(suites.glob("*/tasks*"))
    ]
    items = [t for f in files for t in yaml.safe_load(f.read_text()) or [] if isinstance(t, dict)]
    assert len(items) > 20
    assert [t["id"] for t in items if list(tasks.iter_errors(t))] == []
    shorthand = {**items[0], "initial_state": {"accounts": [{"id": "A9"}], "delete": {}}}
    assert not list(tasks.iter_errors(shorthand))
    assert list(tasks.iter_errors({**items[0], "initial_state": {"accounts": "A9"}}))


def test_show_of_a_call_that_broke_the_backend(cli: CliRunner, tmp_path: Path) -> None:
    # A server that dies during a call leaves the call without a result; show used to
    # fail on it with a KeyError.
    out = tmp_path / "broken"
    run_campaign(cli, out)
    record = read_results(out)[0]
    broken = record.model_copy(
        update={
            "transcript": (
                *record.transcript,
                Event(kind="tool_call", call=ToolCall(tool="set_status", args={"x": 1})),
            )
        }
    )
    (out / "results.jsonl").write_text(broken.model_dump_json() + "\n")
    result = cli.invoke(app, ["show", str(out), record.trial_id])
    assert result.exit_code == 0, result.output
    assert 'tool set_status({"x": 1}) → no result: the backend failed' in result.stdout


def test_resume_keeps_the_campaigns_concurrency(cli: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "conc"
    run_campaign(cli, out, "--concurrency", "3")
    result = cli.invoke(
        app, ["run", "--out", str(out), "--resume", "--trials", "4", "--domain", TOY_REF]
    )
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["settings"]["concurrency"] == 3  # not the default 8


def test_ray_refusals_come_before_any_directory(cli: CliRunner, tmp_path: Path) -> None:
    pytest.importorskip("ray")
    base = ["run", "--tasks", str(TOY_TASKS), "--domain", TOY_REF, "--executor", "ray"]
    # Nothing listens on port 1: refused at once, not after minutes of Ray retrying.
    out = tmp_path / "nowhere"
    result = cli.invoke(app, [*base, "--ray-address", "127.0.0.1:1", "--out", str(out)])
    assert result.exit_code == 1
    assert "no Ray cluster answers at 127.0.0.1:1" in flat(result.stderr)
    assert not out.exists()
    out = tmp_path / "tb"
    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "thinkingbox"
    result = cli.invoke(
        app,
        ["run", "--thinkingbox", str(fixture / "dataset"), "--tb-servers",
         str(fixture / "servers.yaml"), "--executor", "ray", "--ray-address", "127.0.0.1:1",
         "--out", str(out)],
    )  # fmt: skip
    assert result.exit_code == 1
    assert "no Ray cluster answers at 127.0.0.1:1" in flat(result.stderr)
    assert not out.exists()  # nor a search service left running (none starts on a driver)


def test_the_readme_suite_name_command_lists_a_versioned_split(cli: CliRunner) -> None:
    command = "tasks list --suite retail:train@1.0"
    assert f"statebox {command}" in (REPO / "README.md").read_text()
    result = cli.invoke(app, command.split())
    assert result.exit_code == 0, result.output
    assert "suite retail:train@1.0: 15 tasks (statebox-bench 1.0)" in flat(result.stderr)
    assert "retail.cancellation." in result.stdout and "| test " not in result.stdout
    bad = cli.invoke(app, ["tasks", "list", "--suite", "retail@9.0"])
    assert bad.exit_code == 1
    assert "domain retail does not ship statebox-bench 9.0; it ships 1.0" in flat(bad.stderr)


def test_a_campaign_records_its_suite_with_the_resolved_version(
    cli: CliRunner, tmp_path: Path
) -> None:
    out = tmp_path / "c"
    args = ["run", "--suite", "toy", "--domain", TOY_REF, "--agent", "oracle", "--trials", "1"]
    result = cli.invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    from statebox.cli._resume import read_planned
    from statebox.registry import default_registry

    # The toy is unversioned: it runs under the default version, which the name records.
    version = default_registry().default_suite_version()
    assert manifest["task_source"] == f"suite:toy@{version}"
    assert read_planned(out).suite == f"toy@{version}"
    # A manifest from before versions: its suite meant 1.0, whatever the default is now.
    (out / "manifest.json").write_text(json.dumps({**manifest, "task_source": "suite:toy"}))
    assert read_planned(out).suite == "toy@1.0"


@pytest.mark.parametrize(
    ("extra", "files", "said"),
    [
        (
            ["--agent", "fault:skip_write=2"],
            {},
            "skip_write: Input should be less than or equal to 1",
        ),
        (
            ["--agent", "sleepy:latency_s=-1"],
            {},
            "latency_s: Input should be greater than or equal",
        ),
        (
            ["--agent", "openai:m", "--models", "models.yaml"],
            {"models.yaml": "agent:\n  provider: openai\n  model: m\n  temprature: 0.3\n"},
            "models file models.yaml: agent.temprature: Extra inputs are not permitted",
        ),
        (
            ["--agent", "openai:m", "--models", "models.yaml"],
            {"models.yaml": "agent: [\n"},
            "models file models.yaml: not valid YAML at line 2, column 1",
        ),
        (
            ["--agent", "oracle", "--pricing", "prices.yaml"],
            {"prices.yaml": "models:\n  m: {input: abc}\n"},
            "pricing file prices.yaml: models.m.input_usd_per_mtok: Field required",
        ),
        (
            ["--agent", "oracle", "--pricing", "missing.yaml"],
            {},
            "pricing file missing.yaml: No such",
        ),
    ],
)
def test_a_bad_agent_option_models_or_pricing_file_is_one_line(
    cli: CliRunner, tmp_path: Path, extra: list[str], files: dict[str, str], said: str
) -> None:
    # Found by a new user: raw multi-line pydantic text with links to its docs, YAML
    # errors naming "<unicode string>", and a pricing file never read by offline agents.
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    args = ["run", "--tasks", str(TOY_TASKS), "--domain", TOY_REF, "--trials", "1"]
    result = cli.invoke(app, [*args, *extra, "--out", str(tmp_path / "run")])
    assert result.exit_code == 1, result.output
    error = result.stderr.strip()
    assert said in flat(error)
    assert "pydantic.dev" not in error and "<unicode string>" not in error
    assert not (tmp_path / "run" / "results.jsonl").exists()


def test_an_empty_task_folder_and_an_unknown_domain_name_where(
    cli: CliRunner, tmp_path: Path
) -> None:
    # Found by a new user: "no tasks to run" without the folder, and "unknown domain"
    # without the task that named it.
    empty = tmp_path / "empty"
    empty.mkdir()
    none = cli.invoke(app, ["run", "--tasks", str(empty), "--out", str(tmp_path / "a")])
    assert none.exit_code == 1 and f"no tasks to run in {empty}" in flat(none.stderr)
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "- id: nodomain.x.001\n  domain: nodomain\n  split: test\n"
        "  now: '2025-01-01T00:00:00+00:00'\n  user: {opening: hi}\n"
        "  golden: [{tool: a, args: {}}]\n"
    )
    unknown = cli.invoke(app, ["run", "--tasks", str(bad), "--out", str(tmp_path / "b")])
    assert unknown.exit_code == 1
    assert "task nodomain.x.001, field domain: unknown domain 'nodomain'" in flat(unknown.stderr)


def test_a_campaign_run_with_relative_task_paths_verifies_from_another_folder(
    cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found by a new user: the manifest kept --tasks as given (relative to where the
    # run started), so verify from elsewhere said the tasks "are not here".
    import shutil

    work = tmp_path / "work"
    shutil.copytree(TOY_TASKS, work / "tasks")
    monkeypatch.chdir(work)
    args = ["run", "--tasks", "tasks", "--domain", TOY_REF, "--agent", "oracle"]
    assert cli.invoke(app, [*args, "--trials", "1", "--out", "out"]).exit_code == 0
    manifest = json.loads((work / "out" / "manifest.json").read_text())
    assert manifest["task_source"] == str(work / "tasks")
    monkeypatch.chdir(tmp_path)
    check = cli.invoke(app, ["verify", str(work / "out")])
    assert check.exit_code == 0, check.output
