"""``statebox run --resume`` keeps every verdict-changing setting (issue 17, items 4, 13).

Not given: it comes back from the manifest. Given differently: refused, naming it.
Never ignored, never a secret in the manifest.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from fixtures.support import TOY_REF, TOY_TASKS
from statebox.cli import app
from statebox.cli._commands import _resumed_dataset
from statebox.cli._thinkingbox import TbOptions
from statebox.errors import ConfigError
from statebox.records import MANIFEST_FILE, read_manifest, read_results


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.chdir(tmp_path)
    for name in ("STATEBOX_TRIALS", "STATEBOX_AGENT", "STATEBOX_SEED", "STATEBOX_USER"):
        monkeypatch.delenv(name, raising=False)
    return CliRunner()


def _start(cli: CliRunner, out: Path, *extra: str) -> None:
    args = ["run", "--tasks", str(TOY_TASKS), "--domain", TOY_REF, "--agent", "oracle"]
    result = cli.invoke(app, [*args, "--trials", "1", "--out", str(out), *extra])
    assert result.exit_code == 0, result.output


def _resume(cli: CliRunner, out: Path, *extra: str) -> tuple[int, str]:
    result = cli.invoke(app, ["run", "--out", str(out), "--resume", *extra])
    return result.exit_code, " ".join(result.output.split())


def test_a_resume_restores_settings_it_is_not_given_and_refuses_changed_ones(
    cli: CliRunner, tmp_path: Path
) -> None:
    out = tmp_path / "c"
    models = tmp_path / "models.yaml"
    models.write_text("schema_version: 1\n")
    _start(cli, out, "--agent-base-url", "http://127.0.0.1:9/v1", "--models", str(models))
    settings = read_manifest(out).verdict_settings
    assert settings["agent_base_url"] == "http://127.0.0.1:9/v1"
    assert settings["models_file"]["path"] == str(models.resolve())
    # Nothing given: the campaign's own come back (and --domain is remembered, item 13).
    code, text = _resume(cli, out, "--trials", "2")
    assert code == 0, text
    assert read_manifest(out).verdict_settings == settings
    assert len(read_results(out)) == 6
    before = (out / MANIFEST_FILE).read_text()
    for flags, named in [
        (["--user-base-url", "http://127.0.0.1:7/v1"], "user_base_url"),
        (["--agent-base-url", "http://127.0.0.1:8/v1"], "agent_base_url"),
        (["--user", "human", "--concurrency", "1"], "user"),
        (["--think"], "think"),
    ]:
        code, text = _resume(cli, out, "--trials", "3", *flags)
        assert code == 1 and named + " (campaign:" in text, (flags, text)
        assert "Traceback" not in text
    models.write_text("schema_version: 1\nretry: {max_attempts: 2}\n")  # edited
    code, text = _resume(cli, out, "--trials", "3")
    assert code == 1 and "models_file (campaign:" in text
    assert (out / MANIFEST_FILE).read_text() == before


def test_a_resume_keeps_the_user_behaviour_and_refuses_another(
    cli: CliRunner, tmp_path: Path
) -> None:
    out = tmp_path / "c"
    _start(cli, out, "--user-behaviour", "misremembers")
    assert read_manifest(out).verdict_settings["user_behaviour"] == "misremembers"
    # Not given: the campaign's behaviour plays the new trials (never the default).
    code, text = _resume(cli, out, "--trials", "2")
    assert code == 0, text
    assert {r.user.behaviour for r in read_results(out) if r.user} == {"misremembers"}
    before = (out / MANIFEST_FILE).read_text()
    code, text = _resume(cli, out, "--trials", "3", "--user-behaviour", "cooperative")
    assert code == 1 and "user_behaviour (campaign:" in text, text
    assert (out / MANIFEST_FILE).read_text() == before
    code, text = _resume(cli, out, "--trials", "3", "--user-behaviour", "misremembers")
    assert code == 0, text


def test_credentials_in_a_base_url_never_reach_the_manifest_and_must_be_given_again(
    cli: CliRunner, tmp_path: Path
) -> None:
    out = tmp_path / "c"
    url = "http://alice:s3cr3t-pass@127.0.0.1:9/v1?api-key=k3y-value"
    _start(cli, out, "--agent-base-url", url)
    text = (out / MANIFEST_FILE).read_text()
    assert "s3cr3t-pass" not in text and "k3y-value" not in text
    code, message = _resume(cli, out, "--trials", "2")
    assert code == 1 and "give --agent-base-url again" in message
    code, message = _resume(cli, out, "--trials", "2", "--agent-base-url", url)
    assert code == 0, message


def _tb(tmp_path: Path, **kw: object) -> TbOptions:
    fields = {
        "dataset": tmp_path,
        "test_list": None,
        "names": (),
        "servers": tmp_path / "servers.yaml",
        "server_python": "python3",
        "drop_sources": True,
        "hidden_tools": (),
        "warm": 2,
        "check_timeout_s": 60.0,
    }
    return TbOptions(**{**fields, **kw})  # type: ignore[arg-type]


def test_a_thinkingbox_resume_refuses_or_applies_its_options_never_ignores(
    tmp_path: Path,
) -> None:
    planned = _tb(tmp_path)
    none = {"--test-list": None, "--test": None}
    same = _resumed_dataset(planned, none, drop_sources=True, check_timeout=60.0, warm_pool=None)
    assert same == planned
    applied = _resumed_dataset(planned, none, drop_sources=None, check_timeout=None, warm_pool=5)
    assert applied.warm == 5
    for kw, flag in [
        ({"drop_sources": False}, "--keep-sources"),
        ({"check_timeout": 5.0}, "--check-timeout 5"),
    ]:
        args = {"drop_sources": None, "check_timeout": None, "warm_pool": None, **kw}
        with pytest.raises(ConfigError, match=flag):
            _resumed_dataset(planned, none, **args)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="--test-list"):
        _resumed_dataset(
            planned,
            {"--test-list": tmp_path / "l.yaml"},
            drop_sources=None,
            check_timeout=None,
            warm_pool=None,
        )


def test_report_takes_domain_and_remembers_the_campaigns_own(
    cli: CliRunner, tmp_path: Path
) -> None:
    out = tmp_path / "c"
    _start(cli, out)
    for args in (["report", str(out)], ["report", str(out), "--domain", TOY_REF]):
        result = cli.invoke(app, [*args, "--resamples", "20"])
        assert result.exit_code == 0, result.output
        text = " ".join(result.output.split())
        assert "notes.body" in text and "field policy is unknown" not in text
