"""The README's examples work as written (issue 17, items 13-15).

Its task example validates and is not a built-in task; its "Your own domain" files are a
domain that validates and runs, and its package commands scaffold, install, lint,
validate and run; its models and pricing files parse; every ``statebox`` command it
shows names real subcommands and options; the design it cites is in the repository; the
MCP Inspector command says ``--transport http``.
"""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
import yaml
from typer.testing import CliRunner

from statebox.cli import app
from statebox.judge import Judge, validate_task
from statebox.llm import load_models_file, load_pricing
from statebox.registry import default_registry
from statebox.tasks import load_tasks, parse_tasks

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCK = re.compile(r"```(\w+)\n(.*?)```", re.S)


def section(title: str) -> str:
    """The README text under a ``##`` or ``###`` heading, up to the next heading."""
    out: list[str] = []
    inside = fenced = False
    for line in README.splitlines(keepends=True):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            if inside:
                break
            inside = line.lstrip("#").strip() == title
            continue
        if inside:
            out.append(line)
    assert out, title
    return "".join(out)


def blocks(text: str, lang: str) -> list[str]:
    return [body for kind, body in BLOCK.findall(text) if kind == lang]


def test_the_task_example_validates_and_is_not_a_built_in_task() -> None:
    (text,) = blocks(section("Tasks"), "yaml")
    (task,) = parse_tasks(yaml.safe_load(text), file="README.md")
    registry = default_registry()
    built_in = {
        t.id
        for v in registry.suite_versions()
        for t in registry.suite(f"all@{v}", both_splits=True)
    }
    assert task.id not in built_in
    domain = registry.domain(task.domain)
    assert task.checks.text and task.checks.reply  # it shows what is judged
    result = asyncio.run(validate_task(domain, task, Judge(domain)))
    assert result.ok, result.problems
    assert result.check_strength == 1.0 and result.text_mutants >= 1
    assert result.baselines == {"noop": False, "refuse": False}


def test_the_own_domain_example_is_a_domain_that_validates_and_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = section("Your own domain")
    (code,) = blocks(text, "python")
    (task,) = blocks(text, "yaml")
    assert "from statebox" in code and "WorldTx" in code  # imports and the transaction API
    (tmp_path / "helpdesk.py").write_text(code)
    (tmp_path / "helpdesk.yaml").write_text(task)
    monkeypatch.chdir(tmp_path)
    commands = [shlex.split(line) for line in blocks(text, "bash")[0].splitlines() if line]
    assert [c[:3] for c in commands] == [
        ["statebox", "tasks", "validate"],
        ["statebox", "run", "--tasks"],
    ]
    for argv in commands:
        args = argv[1:] + (["--out", str(tmp_path / "c")] if argv[1] == "run" else [])
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
    assert "3 of 3 planned trials, 3 passed" in " ".join(result.output.split())


def test_the_authoring_commands_run_as_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = section("Your own domain")
    (code,) = blocks(text, "python")
    (task,) = blocks(text, "yaml")
    (moves,) = blocks(text, "text")
    for name, body in (("helpdesk.py", code), ("helpdesk.yaml", task), ("hold.txt", moves)):
        (tmp_path / name).write_text(body)
    monkeypatch.chdir(tmp_path)
    lines = blocks(text, "bash")[1].replace("\\\n", " ").splitlines()
    commands = [line.partition(" < ") for line in lines if line]
    assert [shlex.split(c)[:3] for c, _, _ in commands] == [
        ["statebox", "play", "helpdesk.hold.carrier.001"],
        ["statebox", "tasks", "validate"],
        ["statebox", "tasks", "show"],
        ["statebox", "tasks", "new"],
    ]
    for command, _, stdin in commands:
        typed = (tmp_path / stdin.strip()).read_text() if stdin else None
        result = CliRunner().invoke(app, shlex.split(command)[1:], input=typed)
        assert result.exit_code == 0, (command, result.output)
    (original,) = parse_tasks(yaml.safe_load(task))
    (recorded,) = load_tasks(tmp_path / "recorded.yaml")
    assert recorded.golden == original.golden and recorded.user == original.user
    assert recorded.reference_response.startswith("Your ticket is on hold")
    (draft,) = yaml.safe_load((tmp_path / "draft.yaml").read_text())
    assert draft["id"] == "helpdesk.new.001" and draft["user"]["opening"].startswith("TODO:")
    assert draft["user"]["facts"]["ticket_id"]["value"] == "20"


def test_the_package_commands_scaffold_install_lint_validate_and_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Run as written. The install is made isolated (`--target` and PYTHONPATH, as
    # tests/scaffold/test_new.py does), never into the shared venv, where other test
    # workers would see the new entry point mid-run; so what needs it runs in subprocesses.
    text = section("Your own domain")
    commands = [shlex.split(ln, comments=True) for ln in blocks(text, "bash")[2].splitlines()]
    assert [c[:3] for c in commands if c] == [
        ["statebox", "domain", "new"],
        ["pip", "install", "-e"],
        ["statebox", "domain", "check"],
        ["statebox", "tasks", "validate"],
        ["statebox", "run", "--domain"],
    ]
    site = tmp_path / "site"
    env = {k: v for k, v in os.environ.items() if not k.startswith("STATEBOX_")}
    env.update(PYTHONPATH="", XDG_CACHE_HOME=str(tmp_path / "cache"))
    outputs: list[str] = []
    monkeypatch.chdir(tmp_path)
    for argv in filter(None, commands):
        if argv[1:3] == ["domain", "new"]:  # needs no install: in-process, cheaper
            made = CliRunner().invoke(app, argv[1:])
            assert made.exit_code == 0, made.output
            outputs.append(made.output)
            continue
        if argv[0] == "pip":
            argv = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                    "--no-build-isolation", "--target", str(site), f"./{argv[-1]}"]  # fmt: skip
        else:
            argv = [str(Path(sys.executable).with_name("statebox")), *argv[1:]]
            argv += ["--out", "campaign"] if argv[1] == "run" else []
        done = subprocess.run(
            argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, (argv, done.stdout, done.stderr)
        outputs.append(" ".join((done.stdout + done.stderr).split()))
        env["PYTHONPATH"] = str(site) if site.is_dir() else ""
    assert "domain my_desk: 0 findings, 0 notes" in outputs[2]
    assert "invalid tasks: 0" in outputs[3]
    assert "15 of 15 planned trials, 15 passed" in outputs[4]


def test_the_models_and_pricing_files_parse(tmp_path: Path) -> None:
    models, pricing = blocks(section("Models"), "yaml")
    (tmp_path / "models.yaml").write_text(models)
    (tmp_path / "pricing.yaml").write_text(pricing)
    assert load_models_file(tmp_path / "models.yaml").agent is not None
    assert load_pricing(tmp_path / "pricing.yaml").models


def _commands() -> list[list[str]]:
    out = []
    for kind, body in BLOCK.findall(README):
        if kind not in ("bash", "text"):
            continue
        for line in body.replace("\\\n", " ").splitlines():
            line = line.strip().removeprefix("$ ")
            if line.startswith("statebox "):
                out.append(shlex.split(line.replace("<", "_").replace(">", "_"), comments=True))
    return out


def test_every_statebox_command_in_the_readme_names_real_options() -> None:
    root = typer.main.get_command(app)
    commands = _commands()
    assert len(commands) > 20
    for argv in commands:
        cmd: Any = root  # typer's own click classes: duck-typed
        rest = argv[1:]
        while hasattr(cmd, "commands") and rest and rest[0] in cmd.commands:
            cmd, rest = cmd.commands[rest[0]], rest[1:]
        assert not hasattr(cmd, "commands"), argv
        known = {o for p in cmd.params for o in (*p.opts, *p.secondary_opts)}
        for token in rest:
            if token.startswith("--"):
                assert token.split("=")[0] in known, (argv, token)


def test_the_design_the_code_cites_is_in_the_repository() -> None:
    design = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    sections = set(re.findall(r"^## (\d+)\. ", design, re.M))
    cited: set[str] = set()
    for path in [*ROOT.glob("src/**/*.py"), *ROOT.glob("tests/**/*.py"), *ROOT.glob("docs/*.md")]:
        text = path.read_text(encoding="utf-8")
        if path.name != "test_readme.py":
            assert "DESIGN" not in text, path  # the reference outside the repository
        cited |= set(re.findall(r"docs/design\.md §(\d+)", text))
    assert cited and cited <= sections, cited - sections
    assert "(docs/design.md)" in README


def test_the_mcp_inspector_command_gives_the_transport_and_the_token() -> None:
    text = section("Serving episodes")
    inspector = [c for c in _commands() if "inspector" in " ".join(c)] or [
        shlex.split(line.replace("\\", " "))
        for body in blocks(text, "bash")
        for line in body.replace("\\\n", " ").splitlines()
        if "inspector" in line
    ]
    assert inspector
    for argv in inspector:
        assert "--cli" in argv and "--transport" in argv
        assert argv[argv.index("--transport") + 1] == "http"
        assert any(a.startswith("Authorization: Bearer ") for a in argv)
