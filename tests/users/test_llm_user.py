"""The LLM simulated user and the human user."""

from __future__ import annotations

import asyncio

from fixtures.protocol_server import Script, config_for, hub, serve
from statebox.dialogue import plan_for
from statebox.episode import UserReply
from statebox.llm import Reply
from statebox.tasks import Task
from statebox.users import HumanUser, LLMUserFactory, user_system_prompt


def test_llm_user_opens_verbatim_holds_facts_and_ends_on_the_stop_token(task: Task) -> None:
    script = Script([Reply(text="It is A1."), Reply(text="Great, thanks! ###STOP###")])

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
    assert '- account id: A1 (the agent may ask for it as: "account id"' in first.system
    assert "Disclose information progressively" in first.system
    assert first.body["temperature"] == 0.3  # no temperature in the config: tau2's 0.3
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
    assert "Never make up an id, an email, a date, an amount, a name" in prompt
    assert "Paraphrase" in prompt and "###STOP###" in prompt
    assert "accept it" in prompt  # no pushback in the spec: a refusal is accepted


def test_the_prompt_carries_the_behaviour_spec_and_the_trials_plan(task: Task) -> None:
    spec = task.user.model_validate(
        {
            **task.user.model_dump(),
            "behaviour": {
                "confirm": False,
                "decline": "No, leave it.",
                "pushback": 2,
                "push": "Really?",
                "unknown": "No idea, sorry.",
                "changed_from": "Hi, I'd like to close my account.",
            },
        }
    )
    t = task.model_copy(update={"user": spec})
    plain = user_system_prompt(t)
    assert 'decline and keep things as they are (for example: "No, leave it.")' in plain
    assert 'push back 2 time(s) (for example: "Really?")' in plain
    assert '"No idea, sorry."' in plain
    wrong = user_system_prompt(t, plan_for(t, "misremembers", 0, 0))
    slip = plan_for(t, "misremembers", 0, 0).slips
    assert slip and all(f"you misremember it and say {v}" in wrong for v in slip.values())
    switch = user_system_prompt(t, plan_for(t, "changes-goal"))
    assert "Your first message (already sent): Hi, I'd like to close my account." in switch
    assert "change your mind" in switch
    assert "at most one fact per reply" in user_system_prompt(t, plan_for(t, "uncooperative"))
    assert "You are impatient" in user_system_prompt(t, plan_for(t, "impatient"))


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
