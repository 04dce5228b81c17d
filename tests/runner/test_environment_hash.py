"""One environment hash: resume refuses a change, report and compare name it (issue 13,
finding 5), and trial records carry the state hashes."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fixtures.toy import FIELD_POLICY, SCHEMA, SEED, TOOLS, make_domain
from statebox.agents import NoopFactory, OracleFactory
from statebox.cli import app
from statebox.domains import Domain
from statebox.errors import ConfigError
from statebox.judge import JUDGE_VERSION, environment_diff, environment_hash, environment_parts
from statebox.records import read_manifest, read_results
from statebox.registry import Registry
from statebox.runner import Campaign, run_campaign
from statebox.tasks import Task
from statebox.world import ExcludedField, FieldPolicy


def toy(**changes: object) -> Domain:
    base = {
        "name": "toy",
        "schema_sql": SCHEMA,
        "seed": SEED,
        "tools": TOOLS,
        "policy": make_domain().policy,
        "field_policy": FIELD_POLICY,
    }
    return Domain(**{**base, **changes})  # type: ignore[arg-type]


def test_every_part_of_the_environment_is_hashed(toy_tasks: list[Task]) -> None:
    # Finding 5: the bundle hash covered the task JSON only.
    base = environment_parts(toy_tasks, {"toy": toy()})
    assert base["judge"] == JUDGE_VERSION
    assert environment_parts(toy_tasks, {"toy": toy()}) == base  # deterministic
    changed = {
        "toy.policy": toy(policy="Freeze nothing."),
        "toy.schema": toy(schema_sql=SCHEMA + "\nCREATE TABLE extra (id TEXT PRIMARY KEY);"),
        "toy.seed": toy(seed={**SEED, "notes": []}),
        "toy.tools": toy(tools=TOOLS[:-1]),
        "toy.field_policy": toy(
            field_policy=FieldPolicy(
                excluded=(
                    *FIELD_POLICY.excluded,
                    ExcludedField(table="notes", column="created_at", reason="r"),
                )
            )
        ),
    }
    for part, domain in changed.items():
        parts = environment_parts(toy_tasks, {"toy": domain})
        assert environment_diff(base, parts) == [part]
        assert environment_hash(parts) != environment_hash(base)
    assert environment_diff(base, environment_parts(toy_tasks[:2], {"toy": toy()})) == ["tasks"]


def _run(tasks: list[Task], domain: Domain, out: Path, resume: bool = False) -> None:
    c = Campaign(tasks=tasks, agents=[OracleFactory()], trials=1, out=out, resume=resume)
    asyncio.run(run_campaign(c, Registry([domain])))


def test_resume_refuses_a_changed_environment(toy_tasks: list[Task], tmp_path: Path) -> None:
    out = tmp_path / "run"
    _run(toy_tasks, toy(), out)
    m = read_manifest(out)
    assert m.environment_hash == environment_hash(m.environment)
    assert set(m.environment) >= {"tasks", "judge", "toy.policy", "toy.seed", "toy.tools"}
    assert m.baselines["noop"] == {"tasks": 3, "passed": 0, "test_tasks": 3, "passed_test": 0}
    _run(toy_tasks, toy(), out, resume=True)  # unchanged: fine
    with pytest.raises(ConfigError, match=r"environment differs .*\(toy\.policy changed\)"):
        _run(toy_tasks, toy(policy="Freeze nothing."), out, resume=True)


def test_records_carry_the_state_hashes(toy_tasks: list[Task], tmp_path: Path) -> None:
    out = tmp_path / "run"
    _run(toy_tasks, toy(), out)
    for r in read_results(out):
        h = r.verdict.hashes if r.verdict else None
        assert h is not None and h.initial and h.final and h.golden
        assert h.final == h.golden  # the oracle leaves the golden state
        assert (h.initial == h.final) == (r.task_id == "toy.refuse.closed.001")


def test_report_and_compare_name_what_differs(
    toy_tasks: list[Task], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    _run(toy_tasks, toy(), a)
    c = Campaign(tasks=toy_tasks, agents=[NoopFactory()], trials=1, out=b)
    asyncio.run(run_campaign(c, Registry([toy(policy="Freeze nothing.")])))
    monkeypatch.chdir(tmp_path)
    cli = CliRunner()
    result = cli.invoke(app, ["compare", str(a), str(b)])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "ran different environments (toy.policy differ)" in text
    result = cli.invoke(app, ["report", str(a), str(b), "--format", "json"])
    assert result.exit_code == 0, result.output
    assert "ran a different environment from a (toy.policy differ)" in " ".join(
        result.output.split()
    )
    same = cli.invoke(app, ["compare", str(a), str(a)])
    assert "different environments" not in same.output


def test_a_domain_only_one_campaign_ran_is_not_named_as_differing() -> None:
    # Found by a new user: a retail campaign beside an all-domain one was said to differ
    # in every other domain's seed, tools and policy, none of whose tasks are compared.
    from statebox.report import compared_environment_diff

    retail = {"judge": "1", "tasks": "t1", "retail.policy": "p", "retail.seed": "s"}
    everything = {**retail, "tasks": "t2", "travel.policy": "q", "travel.seed": "r"}
    assert compared_environment_diff(retail, everything) == ["tasks"]
    changed = {**everything, "retail.policy": "p2"}
    assert compared_environment_diff(retail, changed) == ["retail.policy", "tasks"]
    assert compared_environment_diff(retail, retail) == []


def test_hashes_that_differ_with_no_part_named_are_still_a_difference(
    toy_tasks: list[Task], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found re-reading the change that leaves out domains one campaign did not run: a
    # campaign whose environment hash differs while none of its recorded parts does (its
    # manifest edited, or hashed by another version) was no longer named at all.
    a, b = tmp_path / "a", tmp_path / "b"
    _run(toy_tasks, toy(), a)
    _run(toy_tasks, toy(), b)
    path = b / "manifest.json"
    m = json.loads(path.read_text())
    m["environment_hash"] = "0" * 64
    path.write_text(json.dumps(m))
    monkeypatch.chdir(tmp_path)
    cli = CliRunner()
    compared = cli.invoke(app, ["compare", str(a), str(b)])
    assert compared.exit_code == 0, compared.output
    assert "ran different environments (parts unknown differ)" in " ".join(compared.output.split())
    reported = cli.invoke(app, ["report", str(a), str(b), "--format", "json"])
    assert reported.exit_code == 0, reported.output
    assert "ran a different environment from a (parts unknown differ)" in " ".join(
        reported.output.split()
    )
