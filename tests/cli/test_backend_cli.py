"""``statebox run --backend`` and ``statebox tasks validate --backend``: the README's commands.

On the shop example's refund task (one task keeps the server starts few): a campaign
over a throwaway PostgreSQL of its own that passes and resumes; validation over the
SQLite file that prints a check strength; bad backend files named in one line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fixtures.backend_support import BACKEND_FILES, EXAMPLE
from statebox.cli import app
from statebox.records import read_manifest, read_results

pytestmark = pytest.mark.slow

REFUND = EXAMPLE / "tasks" / "refund.yaml"


def test_run_backend_oracle_passes_and_resumes(tmp_path: Path) -> None:
    # No --postgres-url: the run starts (and stops) a throwaway PostgreSQL of its own.
    out = tmp_path / "camp"
    args = ["run", "--backend", str(BACKEND_FILES["postgres"]), "--tasks", str(REFUND)]
    result = CliRunner().invoke(
        app, [*args, "--agent", "oracle", "--trials", "1", "--out", str(out), "--json"]
    )
    assert result.exit_code == 0, result.output
    records = read_results(out)
    assert [(r.task_id, r.status.value) for r in records] == [("shop.refund.damaged.001", "passed")]
    manifest = read_manifest(out)
    assert manifest.settings["backends"]["files"] == [str(BACKEND_FILES["postgres"])]
    assert "postgresql://" not in json.dumps(manifest.settings)
    summary = json.loads(result.stdout)
    assert summary["field_policy"][0]["column"] == "body"  # the backend file's policy
    again = CliRunner().invoke(app, ["run", "--out", str(out), "--resume"])
    assert again.exit_code == 0, again.output
    assert "nothing left to run: all 1 trials are done" in again.output


def test_tasks_validate_backend_prints_check_strength() -> None:
    # The README's command, on one task, over the SQLite file.
    result = CliRunner().invoke(
        app,
        ["tasks", "validate", str(REFUND), "--backend", str(BACKEND_FILES["sqlite"]), "--json"],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["tasks"] == 1 and data["invalid"] == 0
    assert data["check_strength"] == 1.0 and data["caught"] >= 6 and data["survived"] == 0


def test_postgres_url_is_for_backend_files(postgres: Any) -> None:
    result = CliRunner().invoke(app, ["tasks", "validate", "--postgres-url", postgres.url])
    assert result.exit_code == 1 and "--postgres-url is for --backend files" in result.output
    assert postgres.url not in result.output


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name: shop\n", "database: Field required"),
        (
            "name: shop\ndatabase: {kind: mysql, schema: s.sql}\nserver: {command: [x]}\n",
            "database.kind",
        ),
        (
            "name: shop\ndatabase: {kind: sqlite, schema: s.sql}\nserver: {command: [x]}\n",
            "{database_url}",
        ),
    ],
)
def test_a_bad_backend_file_is_one_line_naming_file_and_field(
    tmp_path: Path, text: str, message: str
) -> None:
    bad = tmp_path / "backend.yaml"
    bad.write_text(text)
    result = CliRunner().invoke(app, ["tasks", "validate", "--backend", str(bad)])
    assert result.exit_code == 1
    assert str(bad) in result.output and message in result.output
    assert "Traceback" not in result.output
