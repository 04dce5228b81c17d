"""`statebox domain new`: a package that installs, lints, validates and runs at once.

The package is installed into a folder of its own (``pip install --target``) and the
``statebox`` commands run with it on ``PYTHONPATH``: installing into the shared venv
would add a ``demo`` domain to other test workers' entry points mid-run. Removing it
is deleting that folder.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from statebox.cli import app

BIN = Path(sys.executable).parent


def _run(
    args: list[str], site: Path | None, cwd: Path, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("STATEBOX_")}
    env["PYTHONPATH"] = str(site) if site else ""
    env["COLUMNS"] = "200"
    return subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


def _statebox(*args: str, site: Path | None, cwd: Path) -> subprocess.CompletedProcess[str]:
    return _run([str(BIN / "statebox"), *args], site, cwd)


class Installed:
    """The scaffolded project and the folder it is installed in."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.project = root / "demo"
        self.site = root / "site"
        self.cwd = root / "work"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    box = Installed(tmp_path_factory.mktemp("scaffold"))
    box.cwd.mkdir()
    made = CliRunner().invoke(app, ["domain", "new", "demo", "--dir", str(box.project)])
    assert made.exit_code == 0, made.output
    pip = _run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
         "--no-index", "--target", str(box.site), str(box.project)],
        None, box.root,
    )  # fmt: skip
    assert pip.returncode == 0, pip.stderr
    yield box
    shutil.rmtree(box.site, ignore_errors=True)


def test_domain_new_writes_the_package(demo: Installed) -> None:
    files = sorted(p.relative_to(demo.project).as_posix() for p in demo.project.rglob("*.*"))
    assert files == [
        "README.md",
        "pyproject.toml",
        "src/demo/__init__.py",
        "src/demo/fields.py",
        "src/demo/policy.md",
        "src/demo/schema.sql",
        "src/demo/seed.py",
        "src/demo/tasks/tasks.yaml",
        "src/demo/tools.py",
        "tests/test_tasks.py",
        "tests/test_tools.py",
    ]
    assert 'demo = "demo:DOMAIN"' in (demo.project / "pyproject.toml").read_text()
    entry = (demo.site / "demo-0.1.0.dist-info" / "entry_points.txt").read_text()
    assert "[statebox.domains]" in entry and "demo = demo:DOMAIN" in entry


def test_installed_scaffold_lints_validates_and_runs(demo: Installed) -> None:
    check = _statebox("domain", "check", "demo", site=demo.site, cwd=demo.cwd)
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout == ""
    assert "domain demo: 0 findings, 0 notes" in check.stderr

    validated = _statebox(
        "tasks", "validate", "--domain", "demo", "--json", "--no-cache", "-j", "1",
        site=demo.site, cwd=demo.cwd,
    )  # fmt: skip
    assert validated.returncode == 0, validated.stderr
    # An outside domain's tasks are its own, never labelled as the benchmark.
    assert "suite demo@2.0: 3 tasks (demo's own tasks)" in validated.stderr
    assert "statebox-bench" not in validated.stderr
    data = json.loads(validated.stdout)
    assert (data["tasks"], data["invalid"]) == (3, 0)
    assert data["check_strength"] == 1.0 and data["caught"] > 20
    assert data["probes"] >= 1 and data["false_rejection_rate"] == 0.0
    assert all(f["passed"] == 0 for f in data["floors"]), data["floors"]
    kinds = {r["task_id"].split(".")[1] for r in data["results"]}
    assert kinds == {"pause", "ticket"}

    out = demo.root / "run"
    ran = _statebox(
        "run", "--domain", "demo", "--agent", "oracle", "--trials", "1", "--out", str(out),
        "--json", site=demo.site, cwd=demo.cwd,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["overall"]["pass_at_1"] == 1.0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["task_source"] == "suite:demo@2.0"
    assert manifest["settings"]["domain_refs"] == ["demo"]
    assert manifest["settings"]["domain_provenance"] == [
        {
            "ref": "demo",
            "kind": "installed",
            "domain": "demo",
            "distribution": "demo",
            "version": "0.1.0",
        }
    ]
    card = _statebox("report", str(out), "--format", "card", site=demo.site, cwd=demo.cwd)
    assert card.returncode == 0, card.stderr
    assert "from `suite:demo@2.0` (demo: own tasks, not statebox-bench)" in card.stdout
    # The campaign finds its domain from the manifest: no --domain again.
    verified = _statebox("verify", str(out), site=demo.site, cwd=demo.cwd)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "3 of 3 judged trials reproduced exactly" in verified.stdout

    tests = _run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        demo.site, demo.project,
    )  # fmt: skip
    assert tests.returncode == 0, tests.stdout + tests.stderr
    assert "5 passed" in tests.stdout  # 3 tasks validated, 2 tool tests


def test_installing_a_domain_leaves_the_benchmark_suite_as_it_was(demo: Installed) -> None:
    # `all` is statebox-bench: the built-in domains' tasks, whatever else is installed.
    listed = _statebox("tasks", "list", "--suite", "all", site=demo.site, cwd=demo.cwd)
    assert listed.returncode == 0, listed.stderr
    assert "suite all@2.0: 563 tasks (statebox-bench 2.0)" in listed.stderr
    assert "demo." not in listed.stdout
    named = _statebox("tasks", "list", "--suite", "demo", site=demo.site, cwd=demo.cwd)
    assert named.returncode == 0 and named.stdout.count("demo.") == 3, named.stderr


def test_the_source_file_shadows_its_installed_copy(demo: Installed) -> None:
    # The package's own file given while its installed copy is on the path: the explicit
    # --domain wins, instead of "two domains are named 'demo'".
    source = demo.project / "src/demo/__init__.py"
    listed = _statebox("tasks", "list", "--domain", str(source), site=demo.site, cwd=demo.cwd)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.count("demo.") == 3


def test_generated_code_passes_ruff(demo: Installed) -> None:
    for args in (["check", "."], ["format", "--check", "."]):
        done = _run([str(BIN / "ruff"), *args], None, demo.project)
        assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
def test_generated_code_passes_strict_mypy(demo: Installed) -> None:
    done = _run(
        [str(BIN / "mypy"), "--cache-dir", str(demo.root / "mypy-cache")], demo.site, demo.project
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_removed_domain_is_one_line_naming_the_installed_ones(
    demo: Installed, tmp_path: Path
) -> None:
    gone = _statebox("tasks", "validate", "--domain", "demo", site=tmp_path, cwd=demo.cwd)
    assert gone.returncode == 1
    (line,) = gone.stderr.splitlines()
    assert line.startswith("error: domain reference 'demo': no such module, file or installed")
    assert "installed domains: auto_insurance, consulting_hr, neobank_it, retail, travel" in line


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("Demo", "use a lowercase identifier"),
        ("my-desk", "use a lowercase identifier"),
        ("class", "use a lowercase identifier"),
        ("json", "a module of that name is importable already"),
        ("statebox", "a module of that name is importable already"),
        ("retail", "an installed domain has that name already"),
        ("pytest_xdist", "the installed distribution 'pytest-xdist' has that name"),
        ("import_linter", "the installed distribution 'import-linter' has that name"),
        ("a" * 65, "use a lowercase identifier"),
    ],
)
def test_bad_names_are_refused(name: str, message: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["domain", "new", name, "--dir", str(tmp_path / "x")])
    assert result.exit_code == 1
    assert message in result.stderr and len(result.stderr.splitlines()) == 1
    assert not (tmp_path / "x").exists()


def test_a_non_empty_directory_is_refused(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("mine", encoding="utf-8")
    result = CliRunner().invoke(app, ["domain", "new", "fresh_desk", "--dir", str(tmp_path)])
    assert result.exit_code == 1
    assert "exists and is not empty" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]


@pytest.mark.slow
def test_an_editable_install_sees_edits_without_reinstalling(tmp_path: Path) -> None:
    # A venv of its own that sees this one's packages (statebox) through a .pth line,
    # so the editable install touches no other worker's site-packages.
    project, venv = tmp_path / "edesk", tmp_path / "venv"
    assert CliRunner().invoke(app, ["domain", "new", "edesk", "--dir", str(project)]).exit_code == 0
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    inner = _run([str(python), "-c", PURELIB], None, tmp_path).stdout.strip()
    outer = _run([sys.executable, "-c", PURELIB], None, tmp_path).stdout.strip()
    Path(inner, "outer.pth").write_text(f"import site; site.addsitedir({outer!r})\n")
    pip = _run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "-e",
         str(project), "--no-deps", "--no-build-isolation", "--no-index"],
        None, tmp_path,
    )  # fmt: skip
    assert pip.returncode == 0, pip.stderr
    tasks = project / "src" / "edesk" / "tasks" / "tasks.yaml"
    listing = [str(python), "-c", CLI, "tasks", "list", "--domain", "edesk"]
    assert "3 tasks" in _run(listing, None, tmp_path).stdout
    text = tasks.read_text(encoding="utf-8")
    tasks.write_text(text[: text.index("# A refusal")], encoding="utf-8")  # the write task only
    again = _run(listing, None, tmp_path)
    assert "1 tasks" in again.stdout, again.stdout + again.stderr


PURELIB = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
CLI = "import sys; from statebox.cli import main; sys.argv[0] = 'statebox'; main()"
