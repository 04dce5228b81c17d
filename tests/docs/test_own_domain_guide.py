"""docs/own-domain.md works as written, and examples/own_domain is a domain that validates.

The guide's ``bash`` blocks are run, command by command and in order, in a temporary
folder, as a new user would type them; the output excerpt shown under a command (a
``text`` block right after it) must appear in what the command printed, line by line.
Each command must exit 0, except one the guide marks ``# exits N`` (a refusal it shows).
The example package is installed once per module, isolated (``pip install --target``
without dependencies, never into the shared virtual environment: test workers run in
parallel), and reached through ``PYTHONPATH`` by the ``statebox`` subprocesses only, so
no other test's registry ever sees the ``vetclinic`` entry point.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from statebox.tasks import load_tasks

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "own-domain.md"
EXAMPLE = ROOT / "examples" / "own_domain"
INPUTS = ROOT / "docs" / "own-domain"
"""Files the guide's stdin-driven commands read, shipped beside it (and shown in it)."""
STATEBOX = str(Path(sys.executable).with_name("statebox"))

ORDER = (
    "statebox domain new",
    "pip install -e",
    "statebox domain check",
    "statebox tasks validate --domain",
    "statebox play",
    "statebox tasks new",
    "statebox tasks show",
    "statebox run --domain",
    "statebox report",
)
"""The order issue 20 asks the guide to walk in."""

_FENCE = re.compile(r"^```([\w-]*)([^\n]*)\n(.*?)^```\s*$", re.S | re.M)


def _blocks() -> list[tuple[str, str, str]]:
    """The guide's fenced blocks: (language, the rest of the info line, body)."""
    return [(m[1], m[2].strip(), m[3]) for m in _FENCE.finditer(GUIDE.read_text("utf-8"))]


def _steps() -> list[tuple[str, str | None]]:
    """Each command of the guide's bash blocks, with the output excerpt shown under it."""
    blocks = _blocks()
    steps: list[tuple[str, str | None]] = []
    for i, (lang, _, body) in enumerate(blocks):
        if lang != "bash":
            continue
        lines = [
            ln.strip()
            for ln in body.replace("\\\n", " ").splitlines()
            if ln.strip() and not ln.lstrip().startswith("#")
        ]
        follows = blocks[i + 1] if i + 1 < len(blocks) else None
        excerpt = follows[2] if follows and follows[0] == "text" and not follows[1] else None
        for j, line in enumerate(lines):
            # An excerpt belongs to the last command of its block.
            steps.append((" ".join(line.split()), excerpt if j == len(lines) - 1 else None))
    return steps


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example, installed into a folder of its own (one install for this module)."""
    root = tmp_path_factory.mktemp("own-domain")
    src = root / "vetclinic"
    shutil.copytree(EXAMPLE, src, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    target = root / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
         "--no-index", "--target", str(target), str(src)],
        check=True, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    return target


def _env(site: Path | None, home: Path) -> dict[str, str]:
    """The subprocesses' environment: the example importable from ``site`` (None: not)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("STATEBOX_") and k not in ("PYTHONPATH", "COLUMNS")
    }
    if site is not None:
        env["PYTHONPATH"] = str(site)
    env.update(XDG_CACHE_HOME=str(home / "cache"), COLUMNS="100")
    return env


def _statebox(line: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    argv = shlex.split(line)
    stdin = None
    if "<" in argv:
        at = argv.index("<")
        stdin, argv = (cwd / argv[at + 1]).read_text("utf-8"), argv[:at]
    assert argv[0] == "statebox", line
    return subprocess.run(
        [STATEBOX, *argv[1:]], cwd=cwd, env=env, input=stdin, capture_output=True,
        text=True, timeout=240,
    )  # fmt: skip


def test_the_guide_walks_in_the_order_of_the_issue_and_shows_its_inputs() -> None:
    commands = [c for c, _ in _steps()]
    firsts = [next(i for i, c in enumerate(commands) if c.startswith(p)) for p in ORDER]
    assert firsts == sorted(firsts), list(zip(ORDER, firsts, strict=True))
    shown = {title.removeprefix("file="): body for lang, title, body in _blocks() if title}
    for name in ("play-renewed.txt", "new-surgery.txt"):
        assert shown[name] == (INPUTS / name).read_text("utf-8"), name  # the guide shows it
    assert {lang for lang, _, _ in _blocks()} <= {"bash", "text", "python", "yaml", "toml",
                                                  "sql", "markdown"}  # fmt: skip


def test_the_files_the_guide_shows_are_the_examples() -> None:
    # Every line of a code excerpt is a line of the example package (comments may abridge).
    lines = {
        ln.strip()
        for f in EXAMPLE.rglob("*")
        if f.is_file() and f.suffix in (".py", ".sql", ".toml", ".yaml", ".md")
        for ln in f.read_text("utf-8").splitlines()
    }
    for lang, _, body in _blocks():
        if lang not in ("python", "sql", "toml", "yaml", "markdown"):
            continue
        for ln in body.splitlines():
            shown = ln.strip()
            if shown and not (lang != "markdown" and shown.startswith("#")):
                assert shown in lines, f"{lang} excerpt not in examples/own_domain: {shown!r}"


def test_every_command_of_the_guide_runs(site: Path, tmp_path: Path) -> None:
    # Before the guide's install step the example is not importable (as for a new user:
    # `domain new` refuses a name that shadows an importable module).
    env = _env(None, tmp_path)
    for name in ("play-renewed.txt", "new-surgery.txt"):
        shutil.copy(INPUTS / name, tmp_path / name)
    ran: list[str] = []
    for command, excerpt in _steps():
        if command.startswith("pip install -e "):
            # The editable install of the guide, made isolated: the module's one install of
            # the same files (the example) stands for it.
            assert (tmp_path / command.split()[-1] / "pyproject.toml").is_file(), command
            assert (site / "vetclinic" / "__init__.py").is_file()
            env = _env(site, tmp_path)
            ran.append(command)
            continue
        command, _, note = command.partition(" # ")
        expected = int(m[1]) if (m := re.match(r"exits (\d+)", note)) else 0
        result = _statebox(command, tmp_path, env)
        assert result.returncode == expected, f"{command}\n{result.stdout}\n{result.stderr}"
        ran.append(command)
        if excerpt is not None:
            out = _flat(result.stdout + "\n" + result.stderr)
            for shown in excerpt.splitlines():
                if shown.strip() and shown.strip() not in ("…", "..."):
                    assert _flat(shown) in out, f"{command}: not in its output: {shown!r}"
        if command.startswith("statebox domain new "):
            # The guide's edits (its "Edit" section) turn the new project into the example.
            shutil.rmtree(tmp_path / "vetclinic", ignore_errors=True)
            shutil.copytree(EXAMPLE, tmp_path / "vetclinic")
    assert any(r.startswith("statebox report") for r in ran), ran
    assert (tmp_path / "runs" / "oracle" / "results.jsonl").is_file()


def test_the_example_installs_and_its_tasks_validate_with_their_figures(
    site: Path, tmp_path: Path
) -> None:
    result = subprocess.run(
        [STATEBOX, "tasks", "validate", "--suite", "vetclinic", "--json", "-j", "1", "--no-cache"],
        cwd=tmp_path, env=_env(site, tmp_path), capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    summary = json.loads(result.stdout)
    assert summary["tasks"] == 9 and summary["invalid"] == 0
    assert summary["check_strength"] == 1.0 and summary["caught"] >= 100
    assert summary["text_mutants"] >= 1  # a fact swapped in written text is caught
    assert summary["probes"] >= 8 and summary["false_rejection_rate"] == 0.0
    assert {f["agent"]: f["pass_at_1"] for f in summary["floors"]} == {"noop": 0.0, "refuse": 0.0}


def test_the_examples_own_test_passes_once_installed(site: Path, tmp_path: Path) -> None:
    # What an author runs in their project: its tests/test_tasks.py validates every task.
    shutil.copytree(EXAMPLE / "tests", tmp_path / "tests")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=tmp_path, env=_env(site, tmp_path), capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "9 passed" in result.stdout


def test_the_readme_links_the_guide() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    section = readme.split("## Your own domain", 1)[1].split("\n## ", 1)[0]
    assert "(docs/own-domain.md)" in section and "examples/own_domain/" in section


def test_the_example_tasks_exercise_what_the_guide_teaches() -> None:
    tasks = load_tasks(EXAMPLE / "src" / "vetclinic" / "tasks")
    assert 6 <= len(tasks) <= 10 and {t.domain for t in tasks} == {"vetclinic"}
    default = type(tasks[0].user.behaviour)()
    assert any(t.checks.reply and "refusal" in t.tags for t in tasks)  # a refusal, told why
    assert any(t.read_only and t.checks.reply for t in tasks)  # the reply is all it judges
    assert any(t.checks.text for t in tasks)  # free text read by its facts
    assert any(t.checks.alternatives for t in tasks)  # another right way
    assert any(t.user.behaviour != default for t in tasks)  # a behaviour
    assert any(sum(g.startswith("intent:") for g in t.tags) >= 2 for t in tasks)  # two requests
    assert any(c.fails for t in tasks for c in t.golden)  # a recovery
    assert any(t.record_steps for t in tasks)  # a mandatory step made to leave a row
    facts = {n for t in tasks for n in t.user.facts}
    assert facts - {"email"}  # a fact beyond the identity proof
