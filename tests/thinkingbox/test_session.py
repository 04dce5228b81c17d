"""`TbSession` over real Tiny Shop processes: what an agent sees and reaches, results, close."""

from __future__ import annotations

import asyncio

import pytest

from fixtures.tb_support import gone, tiny_shop
from statebox.domains import Domain
from statebox.episode import ToolSession
from statebox.errors import BackendError
from statebox.thinkingbox._process import McpProcess
from statebox.thinkingbox._session import TbSession, is_reserved
from statebox.tools import Dispatcher, ToolCall, ToolFailure, ToolResult
from statebox.world import World

ALLOWLIST = ("get_order", "cancel_order", "update_order", "list_orders", "fail_hard")
PATCH = {
    "orders": [
        {"id": "O1", "customer_id": "C1", "status": "open", "total": 40, "note": "gift"},
        {"id": "O2", "customer_id": "C1", "status": "shipped", "total": 15, "note": None},
    ]
}


def test_is_reserved() -> None:
    assert is_reserved("__reserved__init") and is_reserved("__RESERVED__geteffects")
    assert not is_reserved("get_order") and not is_reserved("reserved_seats")


def test_agent_surface_results_and_close(toy_domain: Domain, world: World) -> None:
    dispatcher = Dispatcher(world, toy_domain.tools, allowlist=())

    async def main() -> None:
        shop, flaky = await asyncio.gather(
            McpProcess.start(tiny_shop()),
            McpProcess.start(tiny_shop(TINY_SHOP_TEARDOWN_FAILS="1")),
        )
        await shop.reserved_init({"data_patch": PATCH})
        session = TbSession({"tiny_shop": shop}, allowlist=(*ALLOWLIST, "refund_order"))
        assert isinstance(session, ToolSession)

        # What the agent sees: the allowlisted business tools, never the lifecycle.
        assert [t.name for t in session.tools()] == sorted(ALLOWLIST)
        get_order = next(t for t in session.tools() if t.name == "get_order")
        assert get_order.description == "Look up one order by id."
        assert get_order.input_schema["required"] == ["order_id"]
        assert session.missing == ("refund_order",)

        # Lifecycle, off-allowlist and unknown names: the Dispatcher's own refusal,
        # and the server never hears of them.
        for name in [
            "__reserved__init",
            "__reserved__geteffects",
            "__reserved__teardown",
            "delete_customer",
            "search_policy",
            "no_such_tool",
        ]:
            call = ToolCall(tool=name, args={"config": {}, "customer_id": "C1"}, id="c9")
            result = await session.call(call)
            assert result == dispatcher.call(call)
            assert result == ToolResult(
                tool=name,
                call_id="c9",
                ok=False,
                error=ToolFailure.of("unknown_tool", f"no tool named {name!r}"),
            )
        effects = await session.effects()
        assert list(effects) == ["tiny_shop"]
        assert effects["tiny_shop"]["result_db_state"] == effects["tiny_shop"]["initial_db_state"]
        assert effects["tiny_shop"]["result_db_state"]["customers"][0]["id"] == "C1"

        # Results: the JSON-decoded text; a null argument reaches the server verbatim.
        ok = await session.call(ToolCall(tool="get_order", args={"order_id": "O2"}, id="c1"))
        assert ok == ToolResult(
            tool="get_order",
            call_id="c1",
            ok=True,
            output={
                "id": "O2",
                "customer_id": "C1",
                "status": "shipped",
                "total": 15,
                "note": None,
            },
        )
        cleared = await session.call(
            ToolCall(tool="update_order", args={"order_id": "O1", "note": None})
        )
        assert cleared.ok and cleared.output["note"] is None
        refusal = await session.call(
            ToolCall(tool="cancel_order", args={"order_id": "O2", "reason": "x"})
        )
        assert refusal.ok and refusal.output == {
            "error": "order O2 is shipped, only open orders cancel"
        }
        failed = await session.call(ToolCall(tool="fail_hard", args={}))
        assert failed.model_dump(exclude={"error"}) == {
            "tool": "fail_hard",
            "call_id": "",
            "ok": False,
            "output": None,
            "mutating": False,
            "wrote": False,
        }
        # The kind is what it always was; the class is the kind's default (no words say).
        assert failed.error == ToolFailure.of(
            "invalid_state", "Error executing tool fail_hard: tiny shop exploded"
        )
        # Found by a new user: a FastMCP server refusing the arguments themselves was
        # classed precondition_failed ("the record is not in a state ..."). The kind
        # stays as recorded before; the class and its hint say what to fix.
        bad = await session.call(ToolCall(tool="get_order", args={"bogus": 1}))
        assert bad.error is not None and not bad.ok
        assert bad.error.message.startswith("Error executing tool get_order: ")
        assert (bad.error.kind, bad.error.classified()) == ("invalid_state", "invalid_arguments")
        assert bad.error.agent_view()["hint"] == ToolFailure.of("invalid_arguments", "").hint
        effects = await session.effects()
        assert effects["tiny_shop"]["result_db_state"]["orders"][0]["note"] is None

        # Hidden names are refused like unknown ones; no allowlist shows every business tool.
        hidden = TbSession({"tiny_shop": shop}, allowlist=ALLOWLIST, hidden={"fail_hard"})
        assert "fail_hard" not in [t.name for t in hidden.tools()]
        hidden_call = await hidden.call(ToolCall(tool="fail_hard"))
        assert hidden_call.error is not None and hidden_call.error.kind == "unknown_tool"
        everything = TbSession({"tiny_shop": shop})
        assert [t.name for t in everything.tools()] == sorted(
            [*ALLOWLIST, "delete_customer", "search_policy"]
        )
        with pytest.raises(BackendError, match="both list tool 'get_order'"):
            TbSession({"a": shop, "b": flaky}, allowlist=("get_order",))

        # Close: teardown then stop, in the background; a failing teardown changes nothing.
        for s in (session, TbSession({"tiny_shop": flaky})):
            s.close()
            s.close()
            await s.aclose()
        assert not shop.alive and not flaky.alive
        assert gone(shop.pid) and gone(flaky.pid)
        after = await session.call(ToolCall(tool="get_order", args={"order_id": "O1"}))
        assert after.error is not None and after.error.kind == "unknown_tool"

    asyncio.run(main())
