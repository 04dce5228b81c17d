"""``--domain`` everywhere: its forms, the selection rule, and campaigns that remember it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fixtures.support import TOY_DIR, TOY_REF, flat
from statebox.cli import app
from statebox.errors import DomainError
from statebox.records import read_trial_rows
from statebox.registry import default_registry, resolve_domain_ref

TOY_FILE = str(TOY_DIR / "__init__.py")


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.chdir(tmp_path)
    for name in ("STATEBOX_TRIALS", "STATEBOX_AGENT", "STATEBOX_SEED", "STATEBOX_SUITE"):
        monkeypatch.delenv(name, raising=False)
    return CliRunner()


@pytest.mark.parametrize(
    ("ref", "kind", "recorded"),
    [
        (TOY_REF, "attribute", TOY_REF),
        (TOY_FILE, "file", TOY_FILE),
        ("fixtures.toy", "module", "fixtures.toy"),
        ("fixtures.toy:DOMAIN", "attribute", "fixtures.toy:DOMAIN"),
        ("retail", "installed", "retail"),
    ],
)
def test_reference_forms(ref: str, kind: str, recorded: str) -> None:
    d, source = resolve_domain_ref(ref)
    assert (source.kind, source.ref, source.domain) == (kind, recorded, d.name)
    if kind == "installed":
        assert (source.distribution, source.version) == ("statebox", "0.1.0")


def test_a_relative_file_is_recorded_absolute(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(TOY_DIR)
    assert resolve_domain_ref("__init__.py")[1].ref == TOY_FILE


@pytest.mark.parametrize("ref", ["no_such_domain", "nowhere/desk.py", "os"])
def test_an_unknown_reference_is_one_line_listing_the_installed(ref: str) -> None:
    with pytest.raises(DomainError) as caught:
        resolve_domain_ref(ref)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(f"domain reference {ref!r}")
    assert "installed domains: auto_insurance, consulting_hr, neobank_it, retail, travel" in message


def test_domain_alone_selects_its_own_tasks(cli: CliRunner) -> None:
    listed = cli.invoke(app, ["tasks", "list", "--domain", TOY_REF])
    assert listed.exit_code == 0, listed.output
    assert "suite toy@" in listed.stderr and "3 tasks" in listed.stdout
    assert "retail." not in listed.stdout
    validated = cli.invoke(app, ["tasks", "validate", "--domain", TOY_FILE, "--json", "-j", "1"])
    assert validated.exit_code == 0, validated.output
    assert json.loads(validated.stdout)["tasks"] == 3
    registry = default_registry()
    registry.add_domain_ref(TOY_REF)
    assert [str(s) for s in registry.own_suites()] == [f"toy@{registry.default_suite_version()}"]


@pytest.fixture
def campaign(tmp_path: Path, cli: CliRunner) -> Path:
    out = tmp_path / "toy-run"
    args = ["run", "--domain", TOY_REF, "--agent", "oracle", "--trials", "1", "--out", str(out)]
    result = cli.invoke(app, args)
    assert result.exit_code == 0, result.output
    return out


def test_run_with_domain_alone_records_its_suite_and_refs(campaign: Path) -> None:
    manifest = json.loads((campaign / "manifest.json").read_text())
    assert manifest["task_source"].startswith("suite:toy@")
    assert manifest["settings"]["domain_refs"] == [TOY_REF]
    assert manifest["settings"]["domain_provenance"] == [
        {"ref": TOY_REF, "kind": "attribute", "domain": "toy"}
    ]
    assert len(manifest["task_ids"]) == 3


def test_show_names_the_uncompared_columns_from_the_campaigns_domain(
    cli: CliRunner, campaign: Path
) -> None:
    trial = next(r.trial_id for r in read_trial_rows(campaign) if "note" in r.task_id)
    shown = cli.invoke(app, ["show", str(campaign), trial])  # the domain from the manifest
    assert shown.exit_code == 0, shown.output
    line = "not compared (field policy): notes.body: free text"
    assert line in shown.stdout
    given = cli.invoke(app, ["show", str(campaign), trial, "--domain", TOY_REF])
    assert given.exit_code == 0 and line in given.stdout


def test_show_says_when_the_domain_is_gone(cli: CliRunner, campaign: Path) -> None:
    manifest = json.loads((campaign / "manifest.json").read_text())
    manifest["settings"]["domain_refs"] = ["/nowhere/desk.py:DOMAIN"]
    (campaign / "manifest.json").write_text(json.dumps(manifest))
    trial = read_trial_rows(campaign)[0].trial_id
    shown = cli.invoke(app, ["show", str(campaign), trial])
    assert shown.exit_code == 0
    assert "domain 'toy' is not installed; its field policy is unknown" in flat(shown.stderr)


def test_show_names_a_given_domain_that_fails_to_load(
    cli: CliRunner, campaign: Path, tmp_path: Path
) -> None:
    (tmp_path / "raises.py").write_text("raise RuntimeError('boom at import')\n")
    trial = read_trial_rows(campaign)[0].trial_id
    shown = cli.invoke(app, ["show", str(campaign), trial, "--domain", str(tmp_path / "raises.py")])
    assert shown.exit_code == 1
    (line,) = shown.output.strip().splitlines()[-1:]
    assert "RuntimeError: boom at import" in line


def test_compare_takes_domain_and_names_a_changed_package(
    cli: CliRunner, campaign: Path, tmp_path: Path
) -> None:
    other = tmp_path / "toy-run-b"
    args = ["run", "--domain", TOY_REF, "--agent", "oracle", "--trials", "1", "--out", str(other)]
    assert cli.invoke(app, args).exit_code == 0
    for run, version in ((campaign, "1.0"), (other, "2.0")):
        m = json.loads((run / "manifest.json").read_text())
        m["settings"]["domain_provenance"][0].update(distribution="toy-desk", version=version)
        (run / "manifest.json").write_text(json.dumps(m))
    result = cli.invoke(app, ["compare", str(campaign), str(other), "--domain", TOY_REF])
    assert result.exit_code == 0, result.output
    assert "domain toy: A ran toy-desk 1.0, B ran toy-desk 2.0" in flat(result.stderr)
    assert "not installed" not in result.stderr
    gone = cli.invoke(app, ["compare", str(campaign), str(other), "--domain", "retail"])
    assert "domain 'toy' is not installed" in flat(gone.stderr)


def test_tasks_card_takes_domain_alone(cli: CliRunner) -> None:
    result = cli.invoke(app, ["tasks", "card", "--domain", TOY_REF, "--no-validate"])
    assert result.exit_code == 0, result.output
    assert "suite card: toy@" in flat(result.stdout)


def test_two_domains_own_suites_resume_and_verify_from_the_manifest(
    cli: CliRunner, tmp_path: Path
) -> None:
    tasks = tmp_path / "toy2-tasks"
    tasks.mkdir()
    source = (TOY_DIR / "tasks" / "toy.yaml").read_text(encoding="utf-8")
    (tasks / "toy2.yaml").write_text(
        source.replace("id: toy.", "id: toy2.").replace("domain: toy", "domain: toy2"),
        encoding="utf-8",
    )
    module = tmp_path / "toy2.py"
    module.write_text(
        "from pathlib import Path\n"
        "from fixtures.toy import FIELD_POLICY, SCHEMA, SEED, TOOLS\n"
        "from statebox.domains import Domain\n"
        "DOMAIN = Domain(name='toy2', schema_sql=SCHEMA, seed=SEED, tools=TOOLS, policy='p',\n"
        f"    field_policy=FIELD_POLICY, tasks_dir=Path({str(tasks)!r}))\n",
        encoding="utf-8",
    )
    out = tmp_path / "two"
    base = ["run", "--agent", "oracle", "--out", str(out)]
    first = cli.invoke(app, [*base, "--domain", TOY_REF, "--domain", str(module), "--trials", "1"])
    assert first.exit_code == 0, first.output
    manifest = json.loads((out / "manifest.json").read_text())
    version = default_registry().default_suite_version()
    assert manifest["task_source"] == f"suite:toy@{version}, toy2@{version}"
    assert len(manifest["task_ids"]) == 6
    resumed = cli.invoke(app, [*base, "--resume", "--trials", "2"])  # no --domain: the manifest's
    assert resumed.exit_code == 0, resumed.output
    assert len(read_trial_rows(out)) == 12
    verified = cli.invoke(app, ["verify", str(out)])
    assert verified.exit_code == 0, verified.output
    assert "12 of 12 judged trials reproduced exactly" in flat(verified.stdout)


def test_ray_workers_get_a_bare_file_reference_absolute(monkeypatch: pytest.MonkeyPatch) -> None:
    from statebox.cli._scale import _absolute

    monkeypatch.chdir(TOY_DIR)
    assert _absolute("__init__.py") == TOY_FILE
    assert _absolute("__init__.py:DOMAIN") == TOY_REF
    assert _absolute("retail") == "retail"


FAKE_RETAIL = """
from statebox.domains import Domain

DOMAIN = Domain(
    name="retail",
    schema_sql="create table t (id text primary key);",
    seed={},
    tools=[],
    policy="Anything goes.",
)
"""


@pytest.mark.parametrize("command", [["tasks", "list", "--suite", "retail"], ["tasks", "list"]])
def test_a_domain_of_your_own_cannot_take_a_built_in_name(
    cli: CliRunner, tmp_path: Path, command: list[str]
) -> None:
    # It would be reported as statebox-bench's retail: refused, never a silent shadow.
    (tmp_path / "fake_retail.py").write_text(FAKE_RETAIL)
    result = cli.invoke(app, [*command, "--domain", "fake_retail.py"])
    assert result.exit_code == 1
    (line,) = result.output.strip().splitlines()
    assert "its domain is named 'retail', the name of statebox's built-in domain" in line


def test_verify_and_rejudge_take_a_domain_file_that_moved(cli: CliRunner, tmp_path: Path) -> None:
    module = tmp_path / "mine.py"
    module.write_text(
        "from fixtures.toy import FIELD_POLICY, SCHEMA, SEED, TOOLS\n"
        "from statebox.domains import Domain\n"
        "DOMAIN = Domain(name='toy', schema_sql=SCHEMA, seed=SEED, tools=TOOLS, policy='p',\n"
        "    field_policy=FIELD_POLICY)\n",
        encoding="utf-8",
    )
    out = tmp_path / "run"
    ran = cli.invoke(
        app,
        ["run", "--tasks", str(TOY_DIR / "tasks"), "--domain", str(module), "--agent", "oracle",
         "--trials", "1", "--out", str(out)],
    )  # fmt: skip
    assert ran.exit_code == 0, ran.output
    moved = tmp_path / "moved"
    moved.mkdir()
    module.rename(moved / "mine.py")
    lost = cli.invoke(app, ["verify", str(out)])
    assert lost.exit_code == 1
    assert "give --domain to say where it is now" in flat(lost.output)
    here = ["--domain", str(moved / "mine.py")]
    verified = cli.invoke(app, ["verify", str(out), *here])
    assert verified.exit_code == 0, verified.output
    assert "judged trials reproduced exactly" in flat(verified.stdout)
    rejudged = cli.invoke(app, ["rejudge", str(out), "--out", str(tmp_path / "rj"), *here])
    assert rejudged.exit_code == 0, rejudged.output
