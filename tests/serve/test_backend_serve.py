"""`statebox serve --backend FILE`: your MCP server over a SQLite file, served as episodes
through the MCP gateway (official ``mcp`` client) and judged by the database they leave."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from serving import mcp_session, text_of

from fixtures.backend_support import BACKEND_FILES, EXAMPLE
from statebox.tasks import load_tasks

pytestmark = pytest.mark.slow

CANCEL = "shop.cancel.placed.001"


def test_statebox_serve_backend_judges_mcp_episodes_by_the_database(tmp_path: Path) -> None:
    task = next(t for t in load_tasks(EXAMPLE / "tasks") if t.id == CANCEL)
    token_file = tmp_path / "token"
    statebox = Path(sys.executable).with_name("statebox")
    proc = subprocess.Popen(
        [str(statebox), "serve", "--backend", str(BACKEND_FILES["sqlite"]), "--warm-pool", "1",
         "--no-openenv", "--port", "0", "--token-file", str(token_file)],
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip

    async def episode(http: httpx.AsyncClient, calls: int) -> dict[str, Any]:
        r = await http.post("/control/sessions", json={"task_id": CANCEL})
        assert r.status_code == 201, r.text
        info = r.json()
        assert info["mode"] == "evaluation"  # a test task
        async with mcp_session(info["mcp_url"], info["mcp_token"]) as m:
            for call in task.golden[:calls]:
                out = await m.call_tool(call.tool, call.args)
                assert not out.isError, text_of(out)
        sid = info["session_id"]
        end = {"text": task.reference_response}
        r = await http.post(f"/control/sessions/{sid}/verdict", json=end)
        assert r.status_code == 200, r.text
        data: dict[str, Any] = r.json()
        return data

    async def go(url: str, token: str) -> tuple[dict[str, Any], dict[str, Any]]:
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx.AsyncClient(base_url=url, headers=headers, timeout=60) as http:
            return await episode(http, len(task.golden)), await episode(http, 2)

    try:
        assert proc.stderr is not None
        first = proc.stderr.readline()
        assert first.startswith("statebox serve on http://127.0.0.1:"), first
        url = first.split()[-1]
        for _ in range(600):
            if httpx.get(url + "/ready").status_code == 200:
                break
            time.sleep(0.05)
        assert httpx.get(url + "/ready").json() == {"ready": True, "tasks": 3}
        golden, skipped = asyncio.run(go(url, token_file.read_text().strip()))
        assert golden["passed"] is True
        # The cancel never happened: the database says so.
        assert skipped["passed"] is False
        assert skipped["verdict"]["signature"] == "no_state_change"
    finally:
        proc.terminate()
        proc.wait(30)
