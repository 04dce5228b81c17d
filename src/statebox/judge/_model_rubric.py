"""The rubric judge over a real model: one yes/no question at a time, temperature 0.

The judge model reasons briefly, then ends with one line ``ANSWER: yes`` or
``ANSWER: no``. The parse is strict: exactly one ANSWER line whose value
`parse_yes_no` accepts, else `JudgeError` (recorded as a judge error on the check,
never a yes). The reasoning is returned with the answer and kept in the check's
detail. An endpoint that keeps failing raises `ModelEndpointError` (a system error).
"""

from __future__ import annotations

from statebox.errors import JudgeError
from statebox.judge._rubric import RubricAnswer, parse_yes_no
from statebox.llm import JUDGE_PROMPT_HEAD, ModelClient, ModelConfig, ModelHub, UserText

__all__ = ["JUDGE_SYSTEM_PROMPT", "ModelRubricJudge", "parse_judgement"]

JUDGE_SYSTEM_PROMPT = f"""\
{JUDGE_PROMPT_HEAD}
You answer one yes/no question about the agent's final response, using the conversation
for context. Judge only what the question asks. Explain your reasoning in at most three
sentences, then end with one line that is exactly `ANSWER: yes` or `ANSWER: no`."""
"""The judge's system prompt."""


def parse_judgement(text: str) -> RubricAnswer:
    """Split a judge reply into its strict answer and its reasoning.

    Args:
        text: The judge model's reply.

    Returns:
        The answer and the reasoning (every line but the ANSWER line).

    Raises:
        JudgeError: No ANSWER line, more than one, or a value that is not exactly yes/no.
    """
    lines = text.strip().splitlines()
    marked = [i for i, line in enumerate(lines) if line.strip().upper().startswith("ANSWER:")]
    if len(marked) != 1:
        raise JudgeError(
            f"judge reply has {len(marked)} ANSWER lines, expected exactly one: {text[:120]!r}"
        )
    line = lines[marked[0]].strip()
    answer = parse_yes_no(line.split(":", 1)[1])
    reasoning = " ".join(x.strip() for i, x in enumerate(lines) if i != marked[0] and x.strip())
    return RubricAnswer(answer, reasoning)


class ModelRubricJudge:
    """A `RubricJudge` backed by a model at temperature 0.

    Args:
        hub: Shared model clients.
        model: The judge's model (its temperature is ignored: always 0).
    """

    def __init__(self, hub: ModelHub, model: ModelConfig) -> None:
        self.model = model
        self._client: ModelClient = hub.client(model, "judge")

    async def ask(self, question: str, response: str, conversation: str) -> RubricAnswer:
        """Ask one rubric question.

        Raises:
            JudgeError: The reply is not a clear yes or no.
            ModelEndpointError: The endpoint kept failing.
        """
        prompt = (
            f"Conversation:\n{conversation}\n\nAgent's final response:\n{response}\n\n"
            f"Question: {question}"
        )
        reply = await self._client.complete(
            JUDGE_SYSTEM_PROMPT, [UserText(text=prompt)], temperature=0.0
        )
        return parse_judgement(reply.text)
