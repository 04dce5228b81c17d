"""`import statebox` and the CLI module load no SDKs and no heavy libraries."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("openai", "anthropic", "mcp", "fastapi", "numpy", "ray")

_SCRIPT = f"""
import json, sys
import statebox, statebox.cli
heavy = {HEAVY!r}
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in heavy)))
"""


def test_import_loads_no_heavy_modules() -> None:
    out = subprocess.run(
        [sys.executable, "-c", _SCRIPT], capture_output=True, text=True, check=True, timeout=60
    )
    assert json.loads(out.stdout) == []


def test_import_does_no_domain_work() -> None:
    # Importing the CLI must not load a domain (entry points are read on first lookup).
    script = (
        "import sys, statebox.cli; "
        "print(sorted(m for m in sys.modules if m.startswith('statebox.domains.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60
    )
    assert "statebox.domains.retail" not in out.stdout
