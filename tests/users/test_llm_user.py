"""The LLM simulated user and the human user."""

from __future__ import annotations

import asyncio

from fixtures.protocol_server import Script, config_for, hub, serve
from statebox.episode import UserReply
from statebox.llm import Reply
from statebox.tasks import Task
from statebox.users import HumanUser, LLMUserFactory, user_system_prompt


def test_llm_user_opens_verbatim_holds_facts_and_ends_on_marker(task: Task) -> None:
    script = Script([Reply(text="It is A1."), Reply(text="Great, thanks! <DONE>")])

    async def go() -> tuple[str, list[UserReply]]:
        h = hub()
        user = LLMUserFactory(h, config_for(server), max_follow_ups=10)(task, 0)
        opening = await user.opening()
        replies = [await user.reply("Which account?"), await user.reply("Moved 40.")]
        await h.aclose()
        return opening, replies

    with serve(script) as server:
        opening, replies = asyncio.run(go())
    assert opening == task.user.opening
    assert replies == [UserReply("It is A1.", False), UserReply("Great, thanks!", True)]
    first = script.seen[0]
    assert first.tools == []
    assert "- account_id: A1" in first.system
    assert "Reveal a fact only when the agent asks" in first.system
    assert [m["role"] for m in first.messages] == ["user", "assistant", "user"]
    assert first.messages[1]["text"] == task.user.opening
    assert script.seen[1].messages[-1]["text"] == "Moved 40."


def test_follow_up_limit_ends_the_conversation_without_a_call(task: Task) -> None:
    script = Script([], then=Reply(text="Hm?"))

    async def go() -> list[UserReply]:
        h = hub()
        user = LLMUserFactory(h, config_for(server), max_follow_ups=2)(task, 0)
        out = [await user.reply(f"question {i}") for i in range(3)]
        await h.aclose()
        return out

    with serve(script) as server:
        replies = asyncio.run(go())
    assert [r.done for r in replies] == [False, False, True]
    assert len(script.seen) == 2


def test_system_prompt_names_persona_goal_and_rules(task: Task) -> None:
    prompt = user_system_prompt(task)
    assert task.user.persona in prompt
    assert "Never invent data" in prompt
    assert "<DONE>" in prompt


def test_human_user_reads_the_terminal(task: Task) -> None:
    lines = iter(["", "my account is A1", "/done"])
    shown: list[str] = []
    user = HumanUser(task, read=lambda prompt: next(lines), write=shown.append)

    async def go() -> tuple[str, UserReply, UserReply]:
        return await user.opening(), await user.reply("Which?"), await user.reply("Done.")

    opening, first, last = asyncio.run(go())
    assert opening == task.user.opening  # an empty line keeps the task's opening
    assert first == UserReply("my account is A1", False)
    assert last == UserReply("", True)
    assert "account_id: A1" in shown[0] and shown[1] == "agent: Which?"
