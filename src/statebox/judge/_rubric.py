"""Rubric questions: the judge-model protocol and the strict yes/no parse.

A rubric answer counts as yes only when the answer is exactly "yes" (case and
surrounding whitespace/punctuation aside); exactly "no" is no; anything else is a
`JudgeError` — never a yes (the ThinkingBox parser read "No ... yes" as yes).
"""

from __future__ import annotations

from typing import Literal, NamedTuple, Protocol

from statebox.errors import JudgeError

__all__ = ["RubricAnswer", "RubricJudge", "parse_yes_no"]


class RubricAnswer(NamedTuple):
    """One judged rubric question."""

    answer: Literal["yes", "no"]
    reasoning: str


class RubricJudge(Protocol):
    """A fixed judge model answering one yes/no question about a response."""

    async def ask(self, question: str, response: str, conversation: str) -> RubricAnswer:
        """Answer ``question`` about the agent's final ``response``.

        Raises:
            JudgeError: The model's answer is not exactly yes or no.
        """
        ...


def parse_yes_no(text: str) -> Literal["yes", "no"]:
    """Strictly parse a yes/no answer.

    Args:
        text: The judge model's answer.

    Returns:
        "yes" or "no".

    Raises:
        JudgeError: Anything that is not exactly one of the two words.
    """
    word = text.strip().strip(".!\"'`*").strip().lower()
    if word in ("yes", "no"):
        return "yes" if word == "yes" else "no"
    raise JudgeError(f"rubric answer is not exactly yes or no: {text[:80]!r}")
