"""The human user: a person plays the customer at the terminal.

The person sees the task's persona, goal and facts once, then each agent message, and
types the customer's replies; an empty opening keeps the task's own. A reply of
``/done`` (or one carrying ``<DONE>``) ends the conversation. Input and output are
injectable so the loop can be tested without a terminal.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from statebox.episode import UserReply
from statebox.llm import DONE_MARKER
from statebox.tasks import Task

__all__ = ["HumanUser"]


class HumanUser:
    """A person at the terminal plays the task's user.

    Args:
        task: The task.
        read: Reads one line given a prompt (default: `input`).
        write: Shows one block of text (default: `print`).
    """

    def __init__(
        self,
        task: Task,
        read: Callable[[str], str] = input,
        write: Callable[[str], None] = print,
    ) -> None:
        self._task = task
        self._read = read
        self._write = write

    async def _line(self, prompt: str) -> str:
        return await asyncio.to_thread(self._read, prompt)

    async def opening(self) -> str:
        """Show the brief; read the opening (empty keeps the task's)."""
        spec = self._task.user
        facts = (
            "\n".join(
                f"  {k}: {f.value} (asked as: {', '.join(f.ask)})" for k, f in spec.facts.items()
            )
            or "  (none)"
        )
        b = spec.behaviour
        react = (
            f"{'agree' if b.confirm else 'decline'} when the agent proposes the change; push "
            f"back {b.pushback} time(s) on a refusal; "
            f"{'accept' if b.alternative else 'decline'} an alternative"
        )
        self._write(
            f"You play the customer of task {self._task.id}.\n"
            f"Persona: {spec.persona}\nGoal: {spec.goal}\nFacts (give them only when asked):\n"
            f"{facts}\nReactions: {react}.\nType /done to end the conversation.\n"
            f"Task opening: {spec.opening}"
        )
        text = (await self._line("customer (enter keeps the opening)> ")).strip()
        return text or spec.opening

    async def reply(self, agent_message: str) -> UserReply:
        """Show the agent's message; read the customer's reply."""
        self._write(f"agent: {agent_message}")
        text = (await self._line("customer> ")).strip()
        if text == "/done" or DONE_MARKER in text:
            return UserReply(text.replace("/done", "").replace(DONE_MARKER, "").strip(), True)
        return UserReply(text, False)
