"""``statebox verify`` and ``statebox rejudge``: replayed calls reproduce results exactly,
edits are caught with the trial id and first differing call, changed tasks flip verdicts."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner, Result

from fixtures.protocol_server import config_for, hub
from fixtures.support import TOY_REF, TOY_TASKS
from statebox.agents import LLMAgentFactory
from statebox.cli import app
from statebox.judge import ModelRubricJudge
from statebox.llm import ProtocolServer
from statebox.llm._scripted_server import GoldenResponder
from statebox.records import RESULTS_FILE, TrialStatus, read_results
from statebox.registry import Registry
from statebox.runner import Campaign, run_campaign
from statebox.tasks import load_tasks
from statebox.users import LLMUserFactory

MIXED = "fault:skip_write=0.3,wrong_value=0.3,extra_write=0,stop_early=0"


def flat(text: str) -> str:
    return " ".join(text.split())


def _run(cli: CliRunner, out: Path, tasks: Path, *agents: str, trials: int = 3) -> None:
    args = ["run", "--tasks", str(tasks), "--domain", TOY_REF, "--out", str(out)]
    args += ["--trials", str(trials), "--seed", "7", "--json"]
    for a in agents:
        args += ["--agent", a]
    result = cli.invoke(app, args)
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="module")
def campaigns(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Campaigns of every agent kind the tests use: oracle, fault, an LLM agent and user."""
    root = tmp_path_factory.mktemp("verify")
    tasks = root / "tasks"
    shutil.copytree(TOY_TASKS, tasks)  # a copy, so a test can change it
    cli = CliRunner()
    _run(cli, root / "oracle", tasks, "oracle")
    _run(cli, root / "fault", tasks, MIXED, trials=4)
    _run(cli, root / "both", tasks, "oracle", "fault:skip_write=1.0,wrong_value=0,extra_write=0")
    _run(cli, root / "baselines", tasks, "noop", "refuse", trials=1)
    # The LLM campaign's tasks ask a rubric question too, answered by a judge model.
    llm_tasks = root / "llm_tasks"
    llm_tasks.mkdir()
    docs = yaml.safe_load((tasks / "toy.yaml").read_text())
    docs[2]["checks"]["response"] = {"rubric": ["Did the agent say why it sent nothing?"]}
    (llm_tasks / "toy.yaml").write_text(yaml.safe_dump(docs, sort_keys=False))
    toy = load_tasks(llm_tasks)
    from fixtures.toy import make_domain

    async def llm() -> None:
        h = hub()
        try:
            agent = LLMAgentFactory(h, config_for(server))
            users = LLMUserFactory(h, config_for(server))
            judge = ModelRubricJudge(h, config_for(server))
            c = Campaign(
                toy, [agent], 2, root / "llm", users=users, rubric=judge,
                task_source=str(llm_tasks),
            )  # fmt: skip
            await run_campaign(c, Registry([make_domain()]))
        finally:
            await h.aclose()

    with ProtocolServer(GoldenResponder(toy)) as server:
        asyncio.run(llm())
    # The LLM campaign names the toy domain only through the registry: record the
    # reference a CLI run would have, so verify can load it.
    m = json.loads((root / "llm" / "manifest.json").read_text())
    m["settings"]["domain_refs"] = [TOY_REF]
    (root / "llm" / "manifest.json").write_text(json.dumps(m))
    return {
        "root": root,
        "tasks": tasks,
        **{n: root / n for n in ("oracle", "fault", "both", "baselines", "llm")},
    }


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


@pytest.mark.parametrize("kind", ["oracle", "fault", "baselines", "llm"])
def test_verify_reproduces_every_agent_kind(campaigns: dict[str, Path], kind: str) -> None:
    records = read_results(campaigns[kind])
    if kind == "fault":  # the fault agent's campaign holds failures too
        assert {r.status for r in records} == {TrialStatus.PASSED, TrialStatus.FAILED}
    if kind == "llm":  # a judge model answered the rubric: its answers are the record's
        rubric = [c for r in records if r.verdict for c in r.verdict.checks if c.kind == "rubric"]
        assert len(rubric) == 2 and all(c.passed and not c.skipped for c in rubric)
    result = CliRunner().invoke(app, ["verify", str(campaigns[kind])])
    assert result.exit_code == 0, result.output
    n = len(records)
    assert f"{n} of {n} judged trials reproduced exactly; 0 differ" in flat(result.stdout)
    assert "differs:" not in result.stdout


def test_verify_catches_a_hand_edited_tool_result(
    campaigns: dict[str, Path], tmp_path: Path
) -> None:
    run = _copy(campaigns["oracle"], tmp_path / "edited")
    path = run / RESULTS_FILE
    lines = path.read_text().splitlines()
    record = json.loads(lines[1])
    calls = [e for e in record["transcript"] if e["kind"] == "tool_call"]
    calls[0]["result"]["output"] = {"forged": True}
    lines[1] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")
    result = CliRunner().invoke(app, ["verify", str(run), "--json"])
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert [m["trial_id"] for m in data["mismatches"]] == [record["trial_id"]]
    tool = calls[0]["call"]["tool"]
    assert data["mismatches"][0]["problem"].startswith(f"call 1 ({tool}): result differs")
    assert data["reproduced"] == data["trials"] - 1


def test_verify_catches_an_edited_status(campaigns: dict[str, Path], tmp_path: Path) -> None:
    run = _copy(campaigns["both"], tmp_path / "status")
    path = run / RESULTS_FILE
    lines = path.read_text().splitlines()
    i, record = next(
        (i, r) for i, r in enumerate(map(json.loads, lines)) if r["status"] == "failed"
    )
    record["status"] = "passed"  # a failure dressed as a pass
    lines[i] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")
    result = CliRunner().invoke(app, ["verify", str(run)])
    assert result.exit_code == 1
    assert (
        f"mismatch: {record['trial_id']}: status: recorded passed, the verdict says failed"
        in flat(result.stdout)
    )


@pytest.mark.parametrize("edit", ["delete", "duplicate", "conflict", "disguise", "unplanned"])
def test_verify_catches_missing_repeated_and_disguised_records(
    campaigns: dict[str, Path], tmp_path: Path, edit: str
) -> None:
    # Each edit leaves every remaining record replayable: only the records' set betrays it.
    run = _copy(campaigns["both"], tmp_path / edit)
    path = run / RESULTS_FILE
    lines = path.read_text().splitlines()
    records = [json.loads(x) for x in lines]
    failed = next(r for r in records if r["status"] == "failed")
    passed = next(r for r in records if r["status"] == "passed")
    if edit == "delete":  # a failure dropped (it could be re-run until it passes)
        lines = [x for x, r in zip(lines, records, strict=True) if r is not failed]
        key, problem = failed["trial_id"], "planned but has no record"
    elif edit == "duplicate":
        lines.append(lines[0])
        key, problem = records[0]["trial_id"], "recorded again after a judged record"
    elif edit == "conflict":  # a passing record under a failed trial's id, appended
        lines.append(json.dumps(passed | {"trial_id": failed["trial_id"],
                                          "task_id": failed["task_id"],
                                          "agent_id": failed["agent_id"],
                                          "trial": failed["trial"]}))  # fmt: skip
        key, problem = failed["trial_id"], "recorded again after a judged record"
    elif edit == "disguise":  # a judged failure moved out of the judged figure
        failed["status"] = "system_error"
        lines = [json.dumps(r) for r in records]
        key, problem = failed["trial_id"], "recorded as a system error, but its verdict"
    else:
        key = f"{passed['task_id']}/{passed['agent_id']}/99"
        lines.append(json.dumps(passed | {"trial": 99, "trial_id": key}))
        problem = "a record of a trial the manifest never planned"
    path.write_text("\n".join(lines) + "\n")
    result = CliRunner().invoke(app, ["verify", str(run), "--json"])
    assert result.exit_code == 1, result.output
    found = [(m["trial_id"], m["problem"]) for m in json.loads(result.stdout)["mismatches"]]
    assert any(k == key and p.startswith(problem) for k, p in found), found


def test_verify_catches_a_changed_task(campaigns: dict[str, Path], tmp_path: Path) -> None:
    tasks = _copy(campaigns["tasks"], tmp_path / "tasks")
    run = _copy(campaigns["oracle"], tmp_path / "run")
    m = json.loads((run / "manifest.json").read_text())
    m["task_source"] = str(tasks)
    (run / "manifest.json").write_text(json.dumps(m))
    f = tasks / "toy.yaml"
    f.write_text(f.read_text().replace("equals: 65", "equals: 66"))
    result = CliRunner().invoke(app, ["verify", str(run)])
    assert result.exit_code == 1, result.output
    out = flat(result.stdout)
    assert "differs: task bundle hash differs" in out
    assert "environment parts differ: tasks" in out
    assert "mismatch: toy.transfer.basic.001/oracle/0: verdict differs: check invariant[0]" in out
    assert "6 of 9 judged trials reproduced exactly; 3 differ" in out


def test_verify_finds_moved_tasks_with_tasks(campaigns: dict[str, Path], tmp_path: Path) -> None:
    run = _copy(campaigns["oracle"], tmp_path / "moved")
    m = json.loads((run / "manifest.json").read_text())
    m["task_source"] = str(tmp_path / "gone")
    (run / "manifest.json").write_text(json.dumps(m))
    lost = CliRunner().invoke(app, ["verify", str(run)])
    assert lost.exit_code == 1 and "give --tasks where they are now" in flat(lost.output)
    found = CliRunner().invoke(app, ["verify", str(run), "--tasks", str(campaigns["tasks"])])
    assert found.exit_code == 0, found.output


def test_verify_bad_input_is_one_line(campaigns: dict[str, Path], tmp_path: Path) -> None:
    cli = CliRunner()
    missing = cli.invoke(app, ["verify", str(tmp_path / "nope")])
    assert missing.exit_code == 1 and "no such campaign directory" in missing.output
    assert "Traceback" not in missing.output
    run = _copy(campaigns["oracle"], tmp_path / "torn")
    path = run / RESULTS_FILE
    lines = path.read_text().splitlines()
    lines[2] = lines[2][:40]  # a cut line in the middle: not a torn tail
    path.write_text("\n".join(lines) + "\n")
    torn = cli.invoke(app, ["verify", str(run)])
    assert torn.exit_code == 1 and "not JSON" in torn.output and "results.jsonl" in torn.output
    assert "Traceback" not in torn.output and len(torn.output.strip().splitlines()) == 1
    external = _copy(campaigns["oracle"], tmp_path / "external")
    m = json.loads((external / "manifest.json").read_text())
    m["settings"]["thinkingbox"] = {"dataset": "/nowhere"}
    (external / "manifest.json").write_text(json.dumps(m))
    tb = cli.invoke(app, ["verify", str(external)])
    assert tb.exit_code == 1 and "cannot be replayed offline" in flat(tb.output)
    assert len(tb.output.strip().splitlines()) == 1


def _transfer_edited(
    campaigns: dict[str, Path], folder: Path, edit: Callable[[dict[str, Any]], None]
) -> Path:
    """A copy of the campaigns' tasks in ``folder``, the transfer task changed by ``edit``."""
    tasks = _copy(campaigns["tasks"], folder)
    docs = yaml.safe_load((tasks / "toy.yaml").read_text())
    assert docs[0]["id"] == "toy.transfer.basic.001"
    edit(docs[0])
    (tasks / "toy.yaml").write_text(yaml.safe_dump(docs, sort_keys=False))
    return tasks


def _rejudge(campaign: Path, tasks: Path, out: Path) -> Result:
    return CliRunner().invoke(
        app, ["rejudge", str(campaign), "--out", str(out), "--tasks", str(tasks)]
    )


def _golden_changed(campaigns: dict[str, Path], tmp_path: Path) -> Path:
    def edit(transfer: dict[str, Any]) -> None:
        transfer["golden"][1]["args"]["amount"] = 30  # the fixed task moves 30, not 40
        transfer["checks"]["invariants"][0]["equals"] = 55

    return _transfer_edited(campaigns, tmp_path / "tasks2", edit)


def test_rejudge_flips_exactly_the_trials_a_changed_golden_should(
    campaigns: dict[str, Path], tmp_path: Path
) -> None:
    tasks = _golden_changed(campaigns, tmp_path)
    out = tmp_path / "rejudged"
    old = read_results(campaigns["both"])
    result = _rejudge(campaigns["both"], tasks, out)
    assert result.exit_code == 0, result.output
    new = {r.trial_id: r for r in read_results(out)}
    assert set(new) == {r.trial_id for r in old}
    # Exactly the oracle's transfers (they moved 40) flip; the skipped writes failed
    # before and still fail; the other tasks keep their verdicts.
    should = {
        r.trial_id
        for r in old
        if r.task_id == "toy.transfer.basic.001" and r.status == TrialStatus.PASSED
    }
    assert len(should) == 3
    flipped = {
        tid for tid, r in new.items() if r.status != {o.trial_id: o for o in old}[tid].status
    }
    assert flipped == should
    out_text = flat(result.stdout)
    for tid in should:
        assert f"flipped: {tid}: passed -> failed (" in out_text
    assert "invariant[0] now fails" in out_text
    assert "rejudged 18 trials" in out_text and "3 verdicts flipped" in out_text
    manifest = json.loads((out / "manifest.json").read_text())
    assert (
        manifest["settings"]["rejudged_from"]["campaign_id"]
        == json.loads((campaigns["both"] / "manifest.json").read_text())["campaign_id"]
    )
    # The new campaign is a campaign: it verifies against the tasks it was judged on.
    check = CliRunner().invoke(app, ["verify", str(out)])
    assert check.exit_code == 0, check.output


def test_rejudge_names_a_check_added_to_a_task(campaigns: dict[str, Path], tmp_path: Path) -> None:
    # Found by a new user: a flip caused by a newly added failing check was explained as
    # "the checks are the same; the status differed" (an absent check counted as failing).
    def edit(transfer: dict[str, Any]) -> None:
        transfer["checks"]["invariants"].append({"sql": "select 1", "equals": 2})

    tasks = _transfer_edited(campaigns, tmp_path / "tasks4", edit)
    result = _rejudge(campaigns["oracle"], tasks, tmp_path / "added")
    assert result.exit_code == 0, result.output
    out_text = flat(result.stdout)
    assert "invariant[1] added, fails: select 1: 1 != 2" in out_text
    assert "the checks are the same" not in out_text


def test_rejudge_lists_trials_whose_calls_no_longer_apply(
    campaigns: dict[str, Path], tmp_path: Path
) -> None:
    def edit(transfer: dict[str, Any]) -> None:
        # transfer is no longer offered (the task now freezes the account instead)
        transfer["tools"] = ["get_account", "set_status"]
        freeze = {"tool": "set_status", "args": {"account_id": "A1", "status": "frozen"}}
        transfer["golden"][1] = freeze
        del transfer["checks"]

    tasks = _transfer_edited(campaigns, tmp_path / "tasks3", edit)
    out = tmp_path / "gone"
    result = _rejudge(campaigns["oracle"], tasks, out)
    assert result.exit_code == 0, result.output
    text = flat(result.stdout)
    for i in range(3):
        assert (
            f"left out: toy.transfer.basic.001/oracle/{i}: call 2 (transfer) no longer "
            "applies: unknown_tool" in text
        )
    assert "3 left out" in text
    assert len(read_results(out)) == 6


def test_rejudge_refuses_its_own_directory(campaigns: dict[str, Path]) -> None:
    run = campaigns["oracle"]
    result = CliRunner().invoke(app, ["rejudge", str(run), "--out", str(run)])
    assert result.exit_code == 1 and "--out must be a new directory" in result.output


def test_campaign_card_pins_the_environment_and_the_figures(
    campaigns: dict[str, Path], tmp_path: Path
) -> None:
    run = campaigns["fault"]
    cli = CliRunner()
    target = tmp_path / "card.md"
    result = cli.invoke(app, ["report", str(run), "--format", "card", "--out", str(target)])
    assert result.exit_code == 0, result.output
    card = target.read_text()
    m = json.loads((run / "manifest.json").read_text())
    assert f"statebox {m['statebox_version']}, git revision `{m['git_revision']}`" in card
    assert f"Environment hash: `{m['environment_hash']}`" in card
    assert f"task bundle hash `{m['task_bundle_hash']}`" in card
    agent = m["agents"][0]
    assert f"`{agent['agent_id']}` (fault): " in card and '"skip_write": 0.3' in card
    report = json.loads(cli.invoke(app, ["report", str(run), "--format", "json"]).stdout)
    figures = report["agents"][agent["agent_id"]]
    lo, hi = figures["ci"]["overall"]["pass_at_1"]
    assert f"| pass@1 | {figures['overall']['pass_at_1']:.3f} | [{lo:.3f}, {hi:.3f}] |" in card
    unbiased = figures["overall"]["pass_hat_k_unbiased"]
    assert f"| pass^k (unbiased estimator, tau-bench) | {unbiased:.3f} |" in card
    assert "pass^k (plug-in estimator, ThinkingBox)" in card
    assert "System errors: 0" in card and "Trials: 12 recorded of 12 planned" in card
    # The user behaviour changes verdicts: the card names it.
    assert "- Simulated user: rule, behaviour cooperative; " in card
    # The command the card gives a reader works as printed.
    (command,) = [line for line in card.splitlines() if line.startswith("statebox verify ")]
    check = cli.invoke(app, command.split()[1:])
    assert check.exit_code == 0, check.output


def test_the_card_of_a_campaign_no_one_can_replay_offers_no_verify(
    campaigns: dict[str, Path], tmp_path: Path
) -> None:
    # Found by a new user: a --backend campaign's card said "Check it: ... statebox
    # verify", which refuses every such campaign.
    run = _copy(campaigns["oracle"], tmp_path / "backend")
    m = json.loads((run / "manifest.json").read_text())
    m["settings"]["backends"] = {"orders": "backend.yaml"}
    (run / "manifest.json").write_text(json.dumps(m))
    cli = CliRunner()
    card = cli.invoke(app, ["report", str(run), "--format", "card"]).stdout
    assert "statebox verify runs" not in card and "Check it" not in card
    assert "cannot be replayed offline: it ran on --backend files" in flat(card)
    assert cli.invoke(app, ["verify", str(run)]).exit_code == 1  # as the card says


def test_rejudge_asks_rubric_questions_only_with_judge(
    campaigns: dict[str, Path], tmp_path: Path
) -> None:
    run = campaigns["llm"]
    cli = CliRunner()
    plain = cli.invoke(app, ["rejudge", str(run), "--out", str(tmp_path / "plain")])
    assert plain.exit_code == 0, plain.output
    # No judge model: the rubric question is unjudged, and fail-closed flips both trials.
    text = flat(plain.stdout)
    assert text.count("flipped: toy.refuse.closed.001/") == 2
    assert "passed -> failed (rubric[0] now unjudged" in text
    toy = load_tasks(campaigns["root"] / "llm_tasks")
    with ProtocolServer(GoldenResponder(toy)) as server:
        judged = cli.invoke(
            app,
            [
                "rejudge", str(run), "--out", str(tmp_path / "judged"),
                "--judge", "openai:scripted", "--judge-base-url", server.openai_url,
            ],
        )  # fmt: skip
        asked = [r for r in server.requests if "grader" in json.dumps(r.body)[:2000]]
    assert judged.exit_code == 0, judged.output
    assert "0 verdicts flipped" in flat(judged.stdout)
    assert len(server.requests) == len(asked) == 2  # one rubric question per trial; no agent
    manifest = json.loads((tmp_path / "judged" / "manifest.json").read_text())
    assert manifest["verdict_settings"]["judge_model"] == "openai:scripted"
