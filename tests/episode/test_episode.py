"""The episode loop: reset/step, limits, trust boundary, isolation of concurrent episodes."""

from __future__ import annotations

import asyncio
import json

import pytest

from fixtures.support import ScriptAgent, call, play, task_from
from statebox.domains import Domain
from statebox.episode import CallTool, End, Episode, Limits, MessageUser, TerminationReason
from statebox.episode._episode import MAX_ARGUMENT_DEPTH
from statebox.tasks import Task, WorldCache
from statebox.users import RuleUser


def episode(domain: Domain, task: Task, **kw: object) -> Episode:
    return Episode(domain, task, RuleUser(task), **kw)  # type: ignore[arg-type]


def test_reset_shows_opening_allowlist_and_policy_only(toy_domain: Domain, task: Task) -> None:
    narrow = task_from(task, tools=["get_account", "transfer"])
    ep = episode(toy_domain, narrow)
    obs = asyncio.run(ep.reset())
    assert obs.kind == "start" and obs.step == 0 and not obs.done
    assert obs.user_message == "Please move 40 dollars from my account to Bo."
    assert [t.name for t in obs.tools] == ["get_account", "transfer"]
    assert obs.tools[1].input_schema["required"] == ["src", "dst", "amount"]
    assert obs.policy.startswith("Be careful with money.")
    # Trust boundary: nothing from the evaluator's side reaches the agent.
    text = obs.model_dump_json()
    for secret in ("golden", "invariant", "Bo got the money", 'account_id": "A1', "facts"):
        assert secret not in text
    assert ep.transcript[0].kind == "user_message"
    ep.close()


def test_steps_record_results_and_end(toy_domain: Domain, task: Task) -> None:
    async def go() -> None:
        ep = episode(toy_domain, task)
        with pytest.raises(RuntimeError):
            await ep.step(End(text="x"))
        await ep.reset()
        obs = await ep.step(call("transfer", src="A1", dst="A2", amount=40))
        assert obs.kind == "tool_result" and obs.step == 1
        assert obs.tool_result is not None and obs.tool_result.ok
        obs = await ep.step(call("transfer", src="A2", dst="A1", amount=1000))
        assert obs.tool_result is not None and obs.tool_result.error is not None
        assert obs.tool_result.error.kind == "invalid_state"
        with pytest.raises(RuntimeError):
            ep.outcome()
        obs = await ep.step(End(text="Moved 40 dollars."))
        assert obs.done and obs.kind == "done" and obs.termination == TerminationReason.AGENT_END
        assert ep.done
        with pytest.raises(RuntimeError):
            await ep.step(End(text="again"))
        out = ep.outcome()
        assert out.final_response == "Moved 40 dollars."
        assert out.termination == TerminationReason.AGENT_END
        assert [e.kind for e in out.transcript] == ["user_message", "tool_call", "tool_call", "end"]
        assert [r.ok for r in ep.tool_results] == [True, False]
        final = out.world.state()
        assert final.rows["accounts"][("A1",)]["balance"] == 60
        assert out.initial.rows["accounts"][("A1",)]["balance"] == 100
        ep.close()

    asyncio.run(go())


def test_last_tool_result_is_the_latest_calls_past_messages(toy_domain: Domain, task: Task) -> None:
    async def go() -> None:
        ep = episode(toy_domain, task)
        await ep.reset()
        with pytest.raises(IndexError):
            _ = ep.last_tool_result
        await ep.step(call("get_account", account_id="A1"))
        await ep.step(call("transfer", src="A2", dst="A1", amount=1000))
        await ep.step(MessageUser(text="What is your account number?"))
        assert ep.last_tool_result is ep.tool_results[-1]
        assert ep.last_tool_result.tool == "transfer" and not ep.last_tool_result.ok
        ep.close()

    asyncio.run(go())


def _nested(depth: int) -> list[object]:
    value: list[object] = []
    for _ in range(depth - 1):
        value = [value]
    return value


def _depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


def test_arguments_nested_too_deep_are_the_agents_invalid_arguments_not_a_system_error(
    toy_domain: Domain, task: Task
) -> None:
    # Found in review: 600 levels (1.3 KB of JSON over OpenEnv's WebSocket) made the
    # recursive argument cleaning raise RecursionError, and the episode a system error.
    async def go() -> None:
        ep = episode(toy_domain, task)
        await ep.reset()
        for levels in (63, 600, 5000):
            obs = await ep.step(call("get_account", account_id=_nested(levels)))
            r = obs.tool_result
            assert r is not None and r.error is not None and r.error.kind == "invalid_arguments"
            deep = levels + 1 > MAX_ARGUMENT_DEPTH  # the arguments object is a level
            assert ("nested deeper than 64 levels" in r.error.message) == deep
        assert not ep.done and ep.fault is None
        kept = [e.call for e in ep.transcript if e.call is not None]
        # What is kept nests one level too deep, no deeper: its record can be written,
        # and the kept call is refused again the same way when replayed.
        assert [_depth(c.args) for c in kept] == [64, 65, 65]
        for c in kept:
            assert json.loads(c.model_dump_json())["tool"] == "get_account"
        obs = await ep.step(CallTool(call=kept[2]))
        assert obs.tool_result is not None and obs.tool_result.error is not None
        assert obs.tool_result.error.message == "arguments nested deeper than 64 levels"
        ep.close()

    asyncio.run(go())


def test_the_user_answers_what_is_asked_then_ends_when_done(toy_domain: Domain, task: Task) -> None:
    async def go() -> None:
        ep = episode(toy_domain, task)
        await ep.reset()
        obs = await ep.step(MessageUser(text="What is your account number?"))
        assert obs.kind == "user_message" and obs.user_message == "My account id is A1."
        obs = await ep.step(MessageUser(text="The money has been moved. Anything else?"))
        assert obs.done and obs.termination == TerminationReason.USER_END
        assert ep.outcome().final_response == "The money has been moved. Anything else?"
        ep.close()

    asyncio.run(go())


def test_max_steps_and_max_turns(toy_domain: Domain, task: Task) -> None:
    async def go() -> None:
        ep = episode(toy_domain, task, limits=Limits(max_steps=2))
        await ep.reset()
        assert not (await ep.step(call("get_account", account_id="A1"))).done
        obs = await ep.step(call("get_account", account_id="A1"))
        assert obs.done and obs.termination == TerminationReason.MAX_STEPS
        ep.close()

        chatty = task_from(task, user={"opening": "hi"})
        ep = episode(toy_domain, chatty, limits=Limits(max_turns=2))
        await ep.reset()
        assert not (await ep.step(MessageUser(text="1"))).done
        obs = await ep.step(MessageUser(text="2"))
        assert obs.done and obs.termination == TerminationReason.MAX_TURNS
        ep.close()

    asyncio.run(go())


def test_stop_from_outside_keeps_the_first_reason(toy_domain: Domain, task: Task) -> None:
    async def go() -> None:
        ep = episode(toy_domain, task)
        await ep.reset()
        ep.stop(TerminationReason.TIMEOUT)
        ep.stop(TerminationReason.SYSTEM_ERROR)
        assert ep.outcome().termination == TerminationReason.TIMEOUT
        ep.close()

    asyncio.run(go())


def test_reset_again_starts_from_a_clean_world(toy_domain: Domain, task: Task) -> None:
    async def go() -> None:
        ep = episode(toy_domain, task)
        await ep.reset()
        await ep.step(call("set_status", account_id="A1", status="closed"))
        await ep.reset()
        assert ep.transcript[-1].kind == "user_message" and len(ep.transcript) == 1
        await ep.step(End(text="bye"))
        state = ep.outcome().world.state()
        assert state.rows["accounts"][("A1",)]["status"] == "active"
        ep.close()

    asyncio.run(go())


def test_clock_does_not_move_with_the_number_of_calls(
    toy_domain: Domain, toy_tasks: list[Task]
) -> None:
    freeze = toy_tasks[1]
    many_reads = [call("get_account", account_id="A1") for _ in range(25)]
    played = asyncio.run(
        play(
            toy_domain,
            freeze,
            ScriptAgent([*many_reads, call("add_note", account_id="A2", body="x")]),
        )
    )
    note = played.final.rows["notes"][("N-002",)]
    assert note["created_at"] == "2025-10-01T13:00:00+00:00"


# --- isolation (invariant 1) -----------------------------------------------------------


def test_interleaved_episodes_of_one_task_never_see_each_other(
    toy_domain: Domain, task: Task
) -> None:
    async def go() -> None:
        worlds = WorldCache()
        a = episode(toy_domain, task, worlds=worlds)
        b = episode(toy_domain, task, worlds=worlds)
        await a.reset()
        await b.reset()
        assert (await a.step(call("transfer", src="A1", dst="A2", amount=40))).tool_result.ok  # type: ignore[union-attr]
        seen = (await b.step(call("get_account", account_id="A1"))).tool_result
        assert seen is not None and seen.output["balance"] == 100
        await b.step(call("set_status", account_id="A1", status="frozen"))
        seen = (await a.step(call("get_account", account_id="A1"))).tool_result
        assert seen is not None and seen.output == {
            "id": "A1",
            "owner": "Ada Example",
            "balance": 60,
            "status": "active",
        }
        # Both draw the same first transfer id from their own sequence.
        out = (await b.step(call("transfer", src="A1", dst="A2", amount=1))).tool_result
        assert out is not None and out.output["id"] == "T-0001"
        await a.step(End(text="a"))
        await b.step(End(text="b"))
        fa, fb = a.outcome().world.state(), b.outcome().world.state()
        assert fa.rows["transfers"][("T-0001",)]["amount"] == 40
        assert fb.rows["transfers"][("T-0001",)]["amount"] == 1
        assert fb.rows["accounts"][("A1",)]["status"] == "frozen"
        assert fa.rows["accounts"][("A1",)]["status"] == "active"
        a.close()
        b.close()

    asyncio.run(go())


class _YieldingAgent(ScriptAgent):
    async def act(self, obs):  # type: ignore[no-untyped-def]
        await asyncio.sleep(0)  # hand the loop to the other episodes between steps
        return await super().act(obs)


def test_concurrent_episodes_in_one_loop_keep_their_own_writes(
    toy_domain: Domain, task: Task
) -> None:
    amounts = [1, 2, 3, 4, 5, 6]

    async def go() -> list:
        worlds = WorldCache()
        agents = [
            _YieldingAgent(
                [
                    call("get_account", account_id="A1"),
                    call("transfer", src="A1", dst="A2", amount=n),
                    call("get_account", account_id="A1"),
                ]
            )
            for n in amounts
        ]
        return await asyncio.gather(*(play(toy_domain, task, ag, worlds=worlds) for ag in agents))

    results = asyncio.run(go())
    for n, played in zip(amounts, results, strict=True):
        accounts = played.final.rows["accounts"]
        assert accounts[("A1",)]["balance"] == 100 - n
        assert accounts[("A2",)]["balance"] == 25 + n
        assert list(played.final.rows["transfers"]) == [("T-0001",)]
        first_read, _, last_read = (e.result for e in played.transcript if e.result)
        assert first_read.output["balance"] == 100  # type: ignore[union-attr]
        assert last_read.output["balance"] == 100 - n  # type: ignore[union-attr]
