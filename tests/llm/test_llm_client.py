"""Model clients against the loopback protocol server: wire shapes, retries, usage, cost."""

from __future__ import annotations

import asyncio
import time
from datetime import date

import pytest

from fixtures.protocol_server import (
    Script,
    call,
    config_for,
    hub,
    rate_limited,
    serve,
    server_error,
    slow,
)
from statebox.errors import ModelEndpointError
from statebox.llm import (
    AssistantTurn,
    ModelCall,
    Price,
    PriceTable,
    Reply,
    RequestedCall,
    RetryPolicy,
    ToolOutput,
    ToolSchema,
    UserText,
    metering,
)

TOOL = ToolSchema("get_account", "Read an account.", {"type": "object", "properties": {}})


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_text_tool_calls_and_usage_round_trip(provider: str) -> None:
    script = Script(
        [
            Reply(
                calls=(call("get_account", account_id="A1"), call("get_account", account_id="A2")),
                input_tokens=120,
                cached_input_tokens=20,
                output_tokens=30,
            ),
            Reply(text="All done <DONE>", input_tokens=200, output_tokens=10),
        ]
    )

    async def go() -> tuple[list[ModelCall], list[str], str]:
        h = hub()
        client = h.client(config_for(server, provider), "agent")
        with metering() as meter:
            first = await client.complete("sys", [UserText(text="hi")], [TOOL])
            history = [
                UserText(text="hi"),
                AssistantTurn(calls=first.calls),
                *(ToolOutput(call_id=c.id, name=c.name, content="{}") for c in first.calls),
            ]
            second = await client.complete("sys", history, [TOOL])
        await h.aclose()
        return meter.calls, [c.arguments for c in first.calls], second.text

    with serve(script) as server:
        calls, args, text = asyncio.run(go())
    assert [a.replace(" ", "") for a in args] == ['{"account_id":"A1"}', '{"account_id":"A2"}']
    assert text == "All done <DONE>"
    assert [(c.input_tokens, c.cached_input_tokens, c.output_tokens) for c in calls] == [
        (120, 20, 30),
        (200, 0, 10),
    ]
    assert calls[0].role == "agent" and calls[0].model == f"{provider}:scripted"
    second = script.seen[1]
    assert second.system == "sys" and second.tools == ["get_account"]
    assert [m["role"] for m in second.messages] == ["user", "assistant", "tool", "tool"]


def test_rate_limit_waits_for_retry_after_then_succeeds() -> None:
    script = Script([rate_limited(0.4), Reply(text="ok")])

    async def go() -> tuple[str, list[ModelCall], float]:
        h = hub()
        client = h.client(config_for(server), "user")
        t0 = time.perf_counter()
        with metering() as meter:
            out = await client.complete("", [UserText(text="x")])
        await h.aclose()
        return out.text, meter.calls, time.perf_counter() - t0

    with serve(script) as server:
        text, calls, elapsed = asyncio.run(go())
    assert text == "ok"
    assert calls[0].attempts == 2
    assert elapsed >= 0.4  # zero backoff, so the wait is the server's Retry-After
    assert len(script.seen) == 2


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_500_then_timeout_are_retried(provider: str) -> None:
    script = Script([server_error(), slow(1.5), Reply(text="third time")])

    async def go() -> tuple[str, int]:
        h = hub()
        client = h.client(config_for(server, provider, timeout_s=0.3), "agent")
        with metering() as meter:
            out = await client.complete("", [UserText(text="x")])
        await h.aclose()
        return out.text, meter.calls[0].attempts

    with serve(script) as server:
        assert asyncio.run(go()) == ("third time", 3)


def test_exhausted_retries_raise_model_endpoint_error() -> None:
    script = Script([server_error()] * 5)

    async def go() -> None:
        h = hub(RetryPolicy(max_attempts=2, initial_wait_s=0, max_wait_s=0))
        try:
            await h.client(config_for(server), "agent").complete("", [UserText(text="x")])
        finally:
            await h.aclose()

    with serve(script) as server, pytest.raises(ModelEndpointError, match="after 2 attempts"):
        asyncio.run(go())
    assert len(script.seen) == 2


def test_client_error_is_not_retried() -> None:
    script = Script([Reply(status=400, text="bad request")] * 3)

    async def go() -> None:
        h = hub()
        try:
            await h.client(config_for(server), "agent").complete("", [UserText(text="x")])
        finally:
            await h.aclose()

    with serve(script) as server, pytest.raises(ModelEndpointError, match="HTTP 400"):
        asyncio.run(go())
    assert len(script.seen) == 1


def test_unreachable_endpoint_is_a_model_endpoint_error() -> None:
    with serve(Script([])) as server:
        cfg = config_for(server)  # the port is free again once the server stops

    async def go() -> None:
        h = hub(RetryPolicy(max_attempts=2, initial_wait_s=0, max_wait_s=0))
        try:
            await h.client(cfg, "agent").complete("", [UserText(text="x")])
        finally:
            await h.aclose()

    with pytest.raises(ModelEndpointError, match="APIConnectionError"):
        asyncio.run(go())


def test_cost_arithmetic_per_call() -> None:
    price = Price(
        input_usd_per_mtok=2.5,
        cached_input_usd_per_mtok=1.25,
        output_usd_per_mtok=10.0,
        as_of=date(2026, 11, 30),
    )
    # 1e6 input of which 4e5 cached, 2e5 output: 0.6*2.5 + 0.4*1.25 + 0.2*10 = 4.0
    assert price.cost_usd(1_000_000, 400_000, 200_000) == pytest.approx(4.0)
    table = PriceTable(models={"openai:scripted": price})
    script = Script(
        [Reply(text="a", input_tokens=1000, cached_input_tokens=400, output_tokens=100)]
    )

    async def go() -> list[ModelCall]:
        h = hub(prices=table)
        with metering() as meter:
            await h.client(config_for(server), "judge").complete("", [UserText(text="x")])
        await h.aclose()
        return meter.calls

    with serve(script) as server:
        (c,) = asyncio.run(go())
    # (600 * 2.5 + 400 * 1.25 + 100 * 10) / 1e6 = 0.003
    assert c.cost_usd == pytest.approx(0.003)
    assert c.priced


def test_semaphore_caps_calls_in_flight_per_endpoint() -> None:
    in_flight, peak = [0], [0]
    lock = asyncio.Lock()
    script = Script([], then=slow(0.2, "x"))

    async def go() -> None:
        h = hub()
        client = h.client(config_for(server, max_connections=2), "agent")
        sem = h.semaphore(client.config)

        async def one() -> None:
            await client.complete("", [UserText(text="x")])

        async def watch() -> None:
            for _ in range(20):
                async with lock:
                    peak[0] = max(peak[0], 2 - sem._value)
                await asyncio.sleep(0.02)

        await asyncio.gather(watch(), *(one() for _ in range(6)))
        await h.aclose()

    with serve(script) as server:
        asyncio.run(go())
    assert peak[0] == 2
    assert in_flight == [0]


def test_anthropic_malformed_arguments_reach_the_caller_unparsed() -> None:
    script = Script([Reply(calls=(("get_account", '{"account_id": '),))])

    async def go() -> RequestedCall:
        h = hub()
        out = await h.client(config_for(server, "anthropic"), "agent").complete(
            "", [UserText(text="x")], [TOOL]
        )
        await h.aclose()
        return out.calls[0]

    with serve(script) as server:
        c = asyncio.run(go())
    assert c.name == "get_account"
    assert c.arguments == '"{\\"account_id\\": "'  # a JSON string, not an object
