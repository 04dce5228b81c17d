"""`McpProcess` against the real Tiny Shop stdio server (official SDK on both ends).

Each process start costs about a second (the server imports the SDK), so tests start
the processes they need concurrently and make several checks on each where the
fresh-process rule allows.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from fixtures.tb_support import gone, tiny_shop
from statebox.errors import BackendError
from statebox.thinkingbox._process import McpProcess
from statebox.thinkingbox._servers import ServerSpec

BUSINESS = ["get_order", "cancel_order", "update_order", "list_orders", "delete_customer"]
RESERVED = ["__reserved__init", "__reserved__geteffects", "__reserved__teardown"]


async def get_note(p: McpProcess, order_id: str) -> Any:
    out = await p.call_tool("get_order", {"order_id": order_id})
    return out.payload["note"]


def test_lifecycle_nulls_and_fresh_process_rule(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    async def main() -> None:
        log = tmp_path / "tiny.log"
        p = await McpProcess.start(tiny_shop(), stderr_path=log)
        try:
            assert p.alive and p.pid is not None
            assert [t.name for t in p.tools] == [*BUSINESS, "search_policy", "fail_hard", *RESERVED]
            init = await p.reserved_init({"data_patch": {}, "golden_test_case": {}})
            assert init == {"status": "ok", "pid": p.pid, "inits": 1}
            assert p.initialised

            # Omitted note: unchanged. Explicit null: cleared — the null reaches the server.
            out = await p.call_tool("update_order", {"order_id": "O1"})
            assert (out.is_error, out.payload["note"]) == (False, "gift")
            assert await get_note(p, "O1") == "gift"
            out = await p.call_tool("update_order", {"order_id": "O1", "note": None})
            assert out.payload["note"] is None
            assert await get_note(p, "O1") is None

            failed = await p.call_tool("fail_hard", {})
            assert failed.is_error
            assert failed.text == "Error executing tool fail_hard: tiny shop exploded"

            effects = await p.geteffects()
            assert effects["initial_db_state"]["orders"][0]["note"] == "gift"
            assert effects["result_db_state"]["orders"][0]["note"] is None
            assert effects["diff"] == [
                {
                    "path": "root.orders[O1].note",
                    "type": "value changed",
                    "result": None,
                    "golden": "gift",
                }
            ]
            assert effects["result_db_hash"] != effects["golden_db_hash"]

            # The fresh-process rule: a second init is refused here, never sent.
            with pytest.raises(BackendError, match="fresh process per trial"):
                await p.reserved_init({})
            assert (await p.geteffects())["initial_db_state"] == effects["initial_db_state"]
            await p.teardown()
        finally:
            await p.aclose()
        assert not p.alive and gone(p.pid)
        with pytest.raises(BackendError, match="is closed"):
            await p.call_tool("get_order", {"order_id": "O1"})
        # The server's stderr (it logs each request) went to the log, not to ours.
        captured = capfd.readouterr()
        assert "Processing request" not in captured.out + captured.err
        assert "Processing request of type" in log.read_text()

    asyncio.run(main())


def test_init_errors_crash_and_time_limit() -> None:
    async def main() -> None:
        slow = tiny_shop(TINY_SHOP_CALL_DELAY_S="30")  # get_order sleeps; nothing else does
        # c has the default call limit: its rejected init imports the Typesense client
        # first, which can take longer than a's deliberately short limit.
        a, b, c = await asyncio.gather(
            McpProcess.start(slow, call_timeout_s=0.5),
            McpProcess.start(slow),
            McpProcess.start(slow),
        )
        try:
            # An init the server rejects: its message, and the process is spent anyway.
            with pytest.raises(BackendError, match="search service unavailable"):
                await c.reserved_init({"sources": [{"name": "faq.md"}]})
            with pytest.raises(BackendError, match="fresh process per trial"):
                await c.reserved_init({})
            with pytest.raises(BackendError, match="__reserved__geteffects failed: not init"):
                await c.geteffects()
            await a.reserved_init({})
            await b.reserved_init({})

            async def time_limit() -> None:
                # A call past its limit fails, and the process (state unknown) is spent.
                t0 = time.monotonic()
                with pytest.raises(BackendError, match="Timed out"):
                    await a.call_tool("get_order", {"order_id": "O1"})
                assert time.monotonic() - t0 < 2.0
                with pytest.raises(BackendError, match="Timed out"):
                    await a.call_tool("list_orders", {"customer_id": "C1"})

            async def crash() -> None:
                # Kill the server while it works on a call: that call and later ones fail.
                in_flight = asyncio.create_task(b.call_tool("get_order", {"order_id": "O1"}))
                await asyncio.sleep(0.3)
                assert b.pid is not None
                os.kill(b.pid, signal.SIGKILL)
                t0 = time.monotonic()
                with pytest.raises(BackendError, match="exited"):
                    await in_flight
                with pytest.raises(BackendError, match="exited"):
                    await b.call_tool("list_orders", {"customer_id": "C1"})
                assert time.monotonic() - t0 < 2.0
                assert not b.alive

            await asyncio.gather(time_limit(), crash())
        finally:
            a.close()
            a.close()  # idempotent
            await asyncio.gather(a.aclose(), b.aclose(), c.aclose())
        assert gone(a.pid) and gone(b.pid) and gone(c.pid)

    asyncio.run(main())


def test_start_failures(tmp_path: Path) -> None:
    crash = ServerSpec(
        name="crash",
        command=(sys.executable, "-c", "import sys; sys.stderr.write('boom-marker'); sys.exit(3)"),
    )
    missing = ServerSpec(name="missing", command=(str(tmp_path / "no-such-binary"),))
    slow = ServerSpec(name="slow", command=(sys.executable, "-c", "import time; time.sleep(30)"))

    async def main() -> None:
        with pytest.raises(BackendError, match=r"'crash' could not start.*boom-marker"):
            await McpProcess.start(crash, stderr_path=tmp_path / "crash.log")
        with pytest.raises(BackendError, match=r"'missing' could not start"):
            await McpProcess.start(missing)
        t0 = time.monotonic()
        with pytest.raises(BackendError, match=r"'slow' did not start within 0.3 s"):
            await McpProcess.start(slow, start_timeout_s=0.3)
        assert time.monotonic() - t0 < 3.0

    asyncio.run(main())
