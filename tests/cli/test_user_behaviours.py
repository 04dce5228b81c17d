"""User behaviours as a campaign axis, end to end: run, report, compare, resume.

Offline with the rule-based user and the fault agent, and with the LLM user against the
scripted "perfect model" on a loopback OpenAI-compatible server.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fixtures.support import TOY_REF, TOY_TASKS
from statebox.cli import app
from statebox.llm import USER_HEADER, ProtocolServer
from statebox.llm._scripted_server import GoldenResponder
from statebox.records import TrialStatus, read_manifest, read_results
from statebox.tasks import load_tasks

# Only the conversation fault: a misremembered value goes into the calls unchecked.
TRUSTING = (
    "fault:trust_user=1,repeat_ask=0,no_follow_up=0,"
    "skip_write=0,wrong_value=0,extra_write=0,stop_early=0"
)


def _run(cli: CliRunner, out: Path, *extra: str) -> dict[str, object]:
    args = ["run", "--tasks", str(TOY_TASKS), "--domain", TOY_REF, "--out", str(out)]
    result = cli.invoke(app, [*args, "--trials", "2", "--json", *extra])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict, dict]:  # type: ignore[type-arg]
    cli = CliRunner()
    root = tmp_path_factory.mktemp("behaviours")
    coop = _run(cli, root / "coop", "--agent", TRUSTING)
    wrong = _run(cli, root / "wrong", "--agent", TRUSTING, "--user-behaviour", "misremembers")
    return root / "coop", root / "wrong", coop, wrong


def test_a_behaviour_changes_the_figures_and_is_recorded(runs) -> None:  # type: ignore[no-untyped-def]
    _, wrong_dir, coop, wrong = runs
    assert coop["overall"]["pass_at_1"] == 1.0
    # The agent trusts the user: a misremembered id goes into the writes. Two of the
    # three toy tasks write with a fact's value; the read-only one still passes.
    assert wrong["overall"]["pass_at_1"] == pytest.approx(1 / 3)
    assert read_manifest(wrong_dir).settings["user_behaviour"] == "misremembers"
    records = read_results(wrong_dir)
    assert {r.user.behaviour for r in records if r.user} == {"misremembers"}
    assert all(r.user and r.user.player == "rule" and r.user.misremembered for r in records)
    # The slip is declared by the plan: it is not counted as invented.
    assert all(r.user and r.user.audit.ungrounded_turns == 0 for r in records)
    assert [(b["behaviour"], b["pass_at_1"]) for b in wrong["by_behaviour"]] == [
        ("misremembers", pytest.approx(1 / 3))
    ]


def test_report_and_compare_show_figures_per_behaviour(runs) -> None:  # type: ignore[no-untyped-def]
    coop_dir, wrong_dir, _, _ = runs
    cli = CliRunner()
    report = cli.invoke(app, ["report", str(coop_dir), str(wrong_dir), "--format", "json"])
    assert report.exit_code == 0, report.output
    rows = json.loads(report.stdout)["by_behaviour"]
    assert [(r["behaviour"], r["pass_at_1"], r["observed_k_of_k"]) for r in rows] == [
        ("cooperative", 1.0, 1.0),
        ("misremembers", pytest.approx(1 / 3), pytest.approx(1 / 3)),
    ]
    table = cli.invoke(app, ["report", str(coop_dir), str(wrong_dir)])
    assert "by user behaviour" in table.stdout and "grounding audit" in table.stdout
    compared = cli.invoke(app, ["compare", str(coop_dir), str(wrong_dir), "--format", "json"])
    assert compared.exit_code == 0, compared.output
    data = json.loads(compared.stdout)
    assert (data["a_user_behaviour"], data["b_user_behaviour"]) == ("cooperative", "misremembers")
    assert data["overall"]["pass_at_1"]["lift"] == pytest.approx(-2 / 3)
    text = cli.invoke(app, ["compare", str(coop_dir), str(wrong_dir)]).stdout
    assert "(user: misremembers) against A = coop" in " ".join(text.split())


def test_resume_keeps_the_behaviour_and_a_bad_one_is_one_line(
    runs,  # type: ignore[no-untyped-def]
) -> None:
    _, wrong_dir, _, _ = runs
    cli = CliRunner()
    again = cli.invoke(
        app,
        [
            *["run", "--tasks", str(TOY_TASKS), "--domain", TOY_REF, "--out", str(wrong_dir)],
            *["--resume", "--trials", "3", "--agent", TRUSTING],
        ],
    )
    assert again.exit_code == 0, again.output
    assert {r.user.behaviour for r in read_results(wrong_dir) if r.user} == {"misremembers"}
    toy = ["run", "--tasks", str(TOY_TASKS), "--domain", TOY_REF]
    bad = cli.invoke(app, [*toy, "--user-behaviour", "grumpy"])
    assert bad.exit_code == 1
    assert bad.stderr.strip().count("\n") == 0
    assert "--user-behaviour 'grumpy': choose from cooperative, misremembers" in bad.stderr
    human = cli.invoke(
        app, [*toy, "--user", "human", "--concurrency", "1", "--user-behaviour", "impatient"]
    )
    assert human.exit_code == 1 and "plays a simulated user" in human.stderr


@pytest.mark.parametrize("behaviour", ["misremembers", "uncooperative"])
def test_the_llm_user_plays_a_behaviour_against_a_local_server(
    tmp_path: Path, behaviour: str
) -> None:
    tasks = load_tasks(TOY_TASKS)
    out = tmp_path / "llm"
    with ProtocolServer(GoldenResponder(tasks)) as server:
        result = CliRunner().invoke(
            app,
            [
                "run", "--tasks", str(TOY_TASKS), "--domain", TOY_REF, "--out", str(out),
                "--agent", "openai:scripted", "--user", "openai:scripted",
                "--agent-base-url", server.openai_url, "--user-behaviour", behaviour,
                "--trials", "1", "--json",
            ],
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        user_calls = [r for r in server.requests if not r.tools and "customer" in r.system]
    records = read_results(out)
    # The perfect model asks again or checks values: it passes whatever the behaviour.
    assert all(r.status == TrialStatus.PASSED for r in records)
    assert all(r.user and r.user.player == "openai:scripted" for r in records)
    assert {r.headers[USER_HEADER.lower()] for r in user_calls} == {f"{behaviour};0;0"}
    assert {r.body["temperature"] for r in user_calls} == {0.3}
    transfer = next(r for r in records if r.task_id == "toy.transfer.basic.001")
    said = [e.text or "" for e in transfer.transcript if e.kind == "user_message"]
    if behaviour == "misremembers":
        assert "you misremember it" in user_calls[0].system
        assert any(t.startswith("Sorry, my mistake.") for t in said)
    else:
        assert "at most one fact per reply" in user_calls[0].system
        assert all(t.count(" is ") <= 1 for t in said[1:])  # one fact a reply
