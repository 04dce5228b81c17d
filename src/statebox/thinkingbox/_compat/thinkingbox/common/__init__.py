"""``TestContext`` and ``Judge`` as ThinkingBox check functions use them.

`TestContext` carries what the trial left behind: ``effects`` (server → the server's
``__reserved__geteffects`` object), ``response`` (the agent's final message) and
``tool_calls`` (items with ``.tool_call.name``, ``.tool_call.arguments`` and
``.tool_response``). `Judge.text_yesno` asks statebox's strict yes/no judge through the
callable the check runner passes in; Judge methods that need a scored or free-text
model are not offered (they raise `NotImplementedError`, which makes the check a
system error, never a silent pass).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .chat_types import Text

__all__ = ["Judge", "TestContext", "Text", "ToolCall", "ToolCallRecord"]


@dataclass
class ToolCall:
    """One call the agent made."""

    name: str
    """Tool name."""
    arguments: dict[str, Any] = field(default_factory=dict)
    """Arguments as sent."""
    id: str = ""
    """The call's id."""


@dataclass
class ToolCallRecord:
    """A call and what the tool answered."""

    tool_call: ToolCall
    """The call."""
    tool_response: Any = None
    """The tool's output (decoded JSON when it parsed), or its error."""


class TestContext:
    """What a check reads: effects by server, the final response, the tool calls.

    Args:
        effects: server → its effects object.
        response: The agent's final response.
        tool_calls: The agent's calls, in order.
        tool_direct_responses: Fixed tool answers shown to the user (none in statebox).
        **extra: Further attributes, kept as given.
    """

    __test__ = False  # not a pytest test class

    def __init__(
        self,
        effects: dict[str, Any] | None = None,
        response: str = "",
        tool_calls: Sequence[ToolCallRecord] = (),
        tool_direct_responses: Sequence[str] = (),
        **extra: Any,
    ) -> None:
        self.effects: dict[str, Any] = dict(effects or {})
        self.response = response
        self.tool_calls = list(tool_calls)
        self.tool_direct_responses = list(tool_direct_responses)
        for key, value in extra.items():
            setattr(self, key, value)


class Judge:
    """The judge a check function receives.

    Args:
        ask: Answers one yes/no question about a text (statebox's strict judge).
    """

    def __init__(self, ask: Callable[[str, str], bool]) -> None:
        self._ask = ask

    def text_yesno(self, text: str, question: str) -> bool:
        """Ask one yes/no question about ``text``.

        Args:
            text: The text judged (usually the agent's final response).
            question: The yes/no question.

        Returns:
            True for yes, False for no.

        Raises:
            RuntimeError: The judge could not give a strict yes or no.
        """
        return self._ask(text, question)

    @staticmethod
    def numerical_threshold(score_list: Sequence[dict[str, Any]]) -> bool:
        """Whether scores reach 70% of the positive totals (False when there are none).

        Args:
            score_list: Items with ``score`` and ``total_score``.

        Returns:
            True when the scores' sum is at least 0.7 times the sum of positive totals.
        """
        total = sum(item["total_score"] for item in score_list if item["total_score"] > 0)
        if total == 0:
            return False
        return bool(sum(item["score"] for item in score_list) >= 0.7 * total)

    def custom_rubric_score(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """Not offered: statebox judges rubrics with strict yes/no questions only.

        Raises:
            NotImplementedError: Always.
        """
        raise NotImplementedError(
            "Judge.custom_rubric_score (scored rubrics) is not supported by statebox; "
            "use rubrics_yesno"
        )

    def no_repeat(self, *args: Any, **kwargs: Any) -> bool:
        """Not offered (statebox servers give no direct tool responses).

        Raises:
            NotImplementedError: Always.
        """
        raise NotImplementedError("Judge.no_repeat is not supported by statebox")

    def _get_text_completion(self, messages: Sequence[Text], **kwargs: Any) -> Text:
        raise NotImplementedError(
            "Judge._get_text_completion (free-text judge calls) is not supported by statebox"
        )
