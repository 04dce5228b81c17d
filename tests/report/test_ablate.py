"""``statebox ablate``: offline end to end, figures checked against hand-computed ones."""

from __future__ import annotations

import json
import shutil
from math import comb
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from fixtures.protocol_server import Script, call, serve
from fixtures.support import TOY_REF, TOY_TASKS
from statebox.cli import app
from statebox.llm import Reply
from statebox.records import RESULTS_FILE, TrialStatus, read_results
from statebox.report import welch_t_test

NEVER = "wrong_value=0,extra_write=0,stop_early=0"
CONFIGS = (
    "steady=oracle",
    f"flaky=fault:skip_write=0.4,{NEVER}",
    f"broken=fault:skip_write=1.0,{NEVER}",
)
K = 4


@pytest.fixture(scope="module")
def ablation(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, object], str]:
    out = tmp_path_factory.mktemp("ablate") / "run"
    args = ["ablate", "--tasks", str(TOY_TASKS), "--domain", TOY_REF, "--out", str(out)]
    args += ["--trials", str(K), "--seed", "3", "--resamples", "500"]
    for c in CONFIGS:
        args += ["--config", c]
    cli = CliRunner()
    table = cli.invoke(app, args)
    assert table.exit_code == 0, table.output
    data = json.loads(
        cli.invoke(
            app, ["ablate", "--analyze", str(out), "--json", "--resamples", "500", "--seed", "3"]
        ).stdout
    )
    return out, data, table.stdout


def _counts(out: Path) -> dict[str, dict[str, tuple[int, int]]]:
    """Per configuration name, per task: (trials, passes), straight from results.jsonl."""
    manifest = json.loads((out / "manifest.json").read_text())
    names = {c["agent_id"]: c["name"] for c in manifest["settings"]["ablation"]}
    counts: dict[str, dict[str, list[int]]] = {}
    for line in (out / RESULTS_FILE).read_text().splitlines():
        r = json.loads(line)
        cell = counts.setdefault(names[r["agent_id"]], {}).setdefault(r["task_id"], [0, 0])
        cell[0] += 1
        cell[1] += r["status"] == "passed"
    return {n: {t: (v[0], v[1]) for t, v in ts.items()} for n, ts in counts.items()}


def test_pass_hat_k_per_configuration_matches_hand_computation(
    ablation: tuple[Path, dict[str, object], str],
) -> None:
    out, data, _ = ablation
    counts = _counts(out)
    assert data["k"] == K and data["reference"] == "steady"
    flaky = counts["flaky"]
    # The configurations differ in how often they fail: 0, some, every write.
    assert sum(c for _, c in counts["steady"].values()) == 3 * K
    assert 0 < sum(c for _, c in flaky.values()) < 3 * K
    assert sum(c for _, c in counts["broken"].values()) == K  # only the read-only task
    for name, tasks in counts.items():
        curve = data["pass_hat_k"][name]  # type: ignore[index]
        for k in range(1, K + 1):
            unbiased = sum(comb(c, k) / comb(n, k) for n, c in tasks.values()) / len(tasks)
            plugin = sum((c / n) ** k for n, c in tasks.values()) / len(tasks)
            assert curve[k - 1]["pass_hat_k_unbiased"] == pytest.approx(unbiased), (name, k)
            assert curve[k - 1]["pass_hat_k_plugin"] == pytest.approx(plugin), (name, k)
        p1 = sum(c for _, c in tasks.values()) / sum(n for n, _ in tasks.values())
        assert data["pass_at_1"][name] == pytest.approx(p1)  # type: ignore[index]


def test_paired_lift_welch_and_complexity_match_hand_computation(
    ablation: tuple[Path, dict[str, object], str],
) -> None:
    out, data, table = ablation
    counts = _counts(out)
    p1 = {n: sum(c for _, c in ts.values()) / (3 * K) for n, ts in counts.items()}
    for name in ("flaky", "broken"):
        pair = data["paired"][name]  # type: ignore[index]
        assert pair["tasks"] == 3
        assert pair["pass_at_1"]["lift"] == pytest.approx(p1[name] - p1["steady"])
        lo, hi = pair["pass_at_1"]["interval"]
        assert lo <= pair["pass_at_1"]["lift"] <= hi
        assert pair["pass_at_1"]["test"]["name"].startswith("Wilcoxon signed-rank")
        assert pair["observed_k_of_k"]["test"]["name"].startswith("exact McNemar")
    # Welch's t on per-trial passes, by the textbook formula.
    a = [1.0] * (3 * K)
    b_pass = sum(c for _, c in counts["broken"].values())
    b = [1.0] * b_pass + [0.0] * (3 * K - b_pass)
    mb = b_pass / (3 * K)
    vb = sum((x - mb) ** 2 for x in b) / (3 * K - 1)
    t = (mb - 1.0) / (vb / (3 * K)) ** 0.5
    welch = data["welch"]["broken"]  # type: ignore[index]
    assert welch["t"] == pytest.approx(t) and welch["df"] == pytest.approx(3 * K - 1)
    assert welch["name"].startswith("Welch's t-test (unpaired")
    assert welch == pytest.approx(welch_t_test(a, b))
    # Complexity: the read-only refusal passes everywhere; writes carry the whole lift.
    ro = data["by_complexity"]["read-only"]  # type: ignore[index]
    assert ro["read-only"]["tasks"] == 1 and ro["writes"]["tasks"] == 2
    assert ro["read-only"]["lift"]["broken"]["lift"] == pytest.approx(0.0)
    assert ro["writes"]["lift"]["broken"]["lift"] == pytest.approx(-1.0)
    chain = data["by_complexity"]["golden chain length"]  # type: ignore[index]
    assert set(chain) == {"1 call", "2-3 calls"}
    # The printed table names both estimators and shows the hand-computed figures.
    flat = " ".join(table.split())
    assert "pass^k unbiased (tau-bench)" in flat and "pass^k plug-in (ThinkingBox)" in flat
    assert f"broken │ {p1['broken']:.3f} │ {p1['broken'] - 1:+.3f}" in flat
    assert (out / "ablation.json").is_file()


@pytest.fixture(scope="module")
def named(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any], Script]:
    """An offline ablation of two named configurations against a scripted model."""
    tmp_path = tmp_path_factory.mktemp("named")
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    docs = yaml.safe_load((TOY_TASKS / "toy.yaml").read_text())
    (tasks / "toy.yaml").write_text(yaml.safe_dump(docs[:1], sort_keys=False))
    transfer = call("transfer", src="A1", dst="A2", amount=40)
    look = call("get_account", account_id="A1")
    done = Reply(text="I moved the money. <DONE>")
    script = Script(
        [
            # baseline, trial 0: passes; trial 1: claims success without acting.
            Reply(calls=(look,)),
            Reply(calls=(transfer,)),
            done,
            done,
            # think, trial 0: thinks before looking and before writing; passes.
            Reply(calls=(call("think", thought="Check A1 first."),)),
            Reply(calls=(look,)),
            Reply(calls=(call("think", thought="40 fits the balance."),)),
            Reply(calls=(transfer,)),
            done,
            # think, trial 1: looks, thinks, stops without writing: fails.
            Reply(calls=(look,)),
            Reply(calls=(call("think", thought="Hmm."),)),
            done,
        ]
    )
    out = tmp_path / "run"
    with serve(script) as server:
        result = CliRunner().invoke(
            app,
            [
                "ablate", "--tasks", str(tasks), "--domain", TOY_REF, "--out", str(out),
                "--agent", "openai:scripted", "--agent-base-url", server.openai_url,
                "--config", "baseline", "--config", "think", "--trials", "2",
                "--concurrency", "1", "--json", "--resamples", "200",
            ],
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    return out, json.loads(result.stdout), script


def test_named_llm_configurations_offline_with_think_usage(
    named: tuple[Path, dict[str, Any], Script],
) -> None:
    out, data, script = named
    tools = [[t["function"]["name"] for t in r.body.get("tools", [])] for r in script.seen]
    assert "think" not in tools[0] and "think" in tools[4]
    assert data["pass_at_1"] == {"baseline": 0.5, "think": 0.5}
    base, think = data["think_usage"]["baseline"], data["think_usage"]["think"]
    assert base["trials_with_thought"] == 0.0 and base["mutating_calls_after_thought"] == 0.0
    assert think["trials_with_thought"] == 1.0
    assert think["thoughts_per_trial"] == 1.5
    assert think["mutating_calls_after_thought"] == 1.0  # the one write came right after one
    assert think["trials_that_wrote"] == 1
    assert think["pass_at_1_thought_before_first_write"] == 1.0
    assert think["pass_at_1_no_thought_before_first_write"] is None
    records = {r.trial_id: r for r in read_results(out)}
    think_id = data["configurations"][1]["agent_id"]
    t0 = records[f"toy.transfer.basic.001/{think_id}/0"]
    assert t0.status == TrialStatus.PASSED and t0.thought_steps == (0, 1)
    assert t0.thoughts == ("Check A1 first.", "40 fits the balance.")
    shown = CliRunner().invoke(app, ["show", str(out), t0.trial_id]).stdout
    order = [
        shown.index("think: Check A1 first."),
        shown.index("tool get_account("),
        shown.index("think: 40 fits the balance."),
        shown.index("tool transfer("),
    ]
    assert order == sorted(order)  # each thought where the agent had it
    manifest = json.loads((out / "manifest.json").read_text())
    assert [c["name"] for c in manifest["settings"]["ablation"]] == ["baseline", "think"]
    card = CliRunner().invoke(app, ["report", str(out), "--format", "card", "--resamples", "50"])
    assert f"`{think_id}` (openai, ablation configuration `think`)" in card.stdout
    assert manifest["agents"][1]["config"]["think_tool"] == "tau-bench"


def test_bad_ablation_input_is_one_line(tmp_path: Path) -> None:
    cli = CliRunner()
    unknown = cli.invoke(app, ["ablate", "--out", str(tmp_path / "x"), "--config", "thinkk"])
    assert unknown.exit_code == 1 and "unknown configuration 'thinkk'" in unknown.output
    assert len(unknown.output.strip().splitlines()) == 1
    missing = cli.invoke(app, ["ablate", "--analyze", str(tmp_path / "nope")])
    assert missing.exit_code == 1 and "no such campaign directory" in missing.output
    plain = tmp_path / "plain"
    args = ["run", "--tasks", str(TOY_TASKS), "--domain", TOY_REF, "--out", str(plain)]
    assert cli.invoke(app, [*args, "--agent", "oracle", "--trials", "1"]).exit_code == 0
    not_one = cli.invoke(app, ["ablate", "--analyze", str(plain)])
    assert not_one.exit_code == 1 and "not an ablation" in not_one.output
    same = cli.invoke(
        app,
        ["ablate", "--tasks", str(TOY_TASKS), "--domain", TOY_REF, "--out", str(tmp_path / "s"),
         "--config", "a=oracle", "--config", "b=oracle"],
    )  # fmt: skip
    assert same.exit_code == 1 and "are the same agent (oracle)" in same.output
    assert "Traceback" not in unknown.output + missing.output + not_one.output + same.output
    shutil.rmtree(plain)


@pytest.mark.slow
def test_html_report_shows_the_ablation_and_thoughts_in_place(
    named: tuple[Path, dict[str, Any], Script], tmp_path: Path
) -> None:
    from urllib.parse import quote

    from test_html_browser import dump_dom, section

    out, data, _ = named
    page = tmp_path / "r.html"
    result = CliRunner().invoke(
        app, ["report", str(out), "--format", "html", "--out", str(page), "--resamples", "200"]
    )
    assert result.exit_code == 0, result.output
    think_id = data["configurations"][1]["agent_id"]
    key = f"{out.name}|toy.transfer.basic.001/{think_id}/0"
    dom, log = dump_dom(f"{page.as_uri()}#trial={quote(key, safe='')}", tmp_path / "profile")
    assert 'data-ready="1"' in dom and "Uncaught" not in log
    ablation = section(dom, "ablation")
    assert "hidden" not in ablation[: ablation.index(">")]
    assert "pass^k unbiased (tau-bench)" in ablation and "Welch's t (unpaired) p" in ablation
    assert 'class="main-svg"' in section(dom, "chart-ablation")
    detail = section(dom, "trial-detail")
    order = [
        detail.index("think: Check A1 first."),
        detail.index("get_account("),
        detail.index("think: 40 fits the balance."),
        detail.index("transfer("),
    ]
    assert order == sorted(order)


def test_a_resumed_ablation_continues_as_planned_without_its_flags(tmp_path: Path) -> None:
    # Found by a new user: `ablate --resume` asked for --agent and --config again, and a
    # resume without --trials made a 2-trial ablation a 5-trial one, manifest rewritten.
    cli = CliRunner()
    out = tmp_path / "abl"
    first = cli.invoke(
        app,
        ["ablate", "--tasks", str(TOY_TASKS), "--domain", TOY_REF, "--out", str(out),
         "--agent", "fault", "--config", "baseline", "--config", "approval-gate",
         "--trials", "2", "--seed", "3"],
    )  # fmt: skip
    assert first.exit_code == 0, first.output
    results = out / "results.jsonl"
    lines = results.read_text().splitlines()
    results.write_text("\n".join(lines[: len(lines) // 2]) + "\n")  # as if killed midway
    again = cli.invoke(app, ["ablate", "--out", str(out), "--resume"])
    assert again.exit_code == 0, again.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert (manifest["trials"], manifest["seed"]) == (2, 3)
    written = [json.loads(x)["trial_id"] for x in results.read_text().splitlines()]
    assert len(written) == len(set(written)) == len(lines)  # nothing lost, nothing run twice
    assert {r.trial_id for r in read_results(out)} == set(written)
    names = [c["name"] for c in manifest["settings"]["ablation"]]
    assert names == ["baseline", "approval-gate"]
