"""The model-backed rubric judge: temperature 0, strict parse, reasoning kept."""

from __future__ import annotations

import asyncio

import pytest

from fixtures.protocol_server import Script, config_for, hub, serve
from statebox.errors import JudgeError
from statebox.judge import ModelRubricJudge, RubricAnswer, parse_judgement
from statebox.llm import JUDGE_PROMPT_HEAD, Reply


def test_judge_asks_at_temperature_zero_and_keeps_reasoning() -> None:
    script = Script([Reply(text="The reply says the ticket is on hold.\nANSWER: yes")])

    async def go() -> RubricAnswer:
        h = hub()
        judge = ModelRubricJudge(h, config_for(server, temperature=0.9))
        out = await judge.ask("Does it say on hold?", "Your ticket is on hold.", "user: hi")
        await h.aclose()
        return out

    with serve(script) as server:
        answer = asyncio.run(go())
    assert answer == RubricAnswer("yes", "The reply says the ticket is on hold.")
    req = script.seen[0]
    assert req.body["temperature"] == 0.0
    assert req.system.startswith(JUDGE_PROMPT_HEAD)
    assert "Question: Does it say on hold?" in req.messages[0]["text"]


@pytest.mark.parametrize(
    "text",
    [
        "No ... yes",
        "ANSWER: maybe",
        "ANSWER: no\nANSWER: yes",
        "The answer is yes.",
        "ANSWER: No, but yes",
    ],
)
def test_anything_but_one_clear_answer_is_a_judge_error(text: str) -> None:
    with pytest.raises(JudgeError):
        parse_judgement(text)


def test_answer_line_is_parsed_case_and_punctuation_aside() -> None:
    assert parse_judgement("short reason\nanswer: No.") == RubricAnswer("no", "short reason")
