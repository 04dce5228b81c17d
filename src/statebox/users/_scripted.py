"""The scripted user: deterministic replies from the task's ``user.script``."""

from __future__ import annotations

from statebox.episode import UserReply
from statebox.tasks import Task

__all__ = ["ScriptedUser"]


class ScriptedUser:
    """Says the task's opening, then each scripted reply in turn, then ends.

    Args:
        task: The task whose ``user`` spec is played.
    """

    def __init__(self, task: Task) -> None:
        self._spec = task.user
        self._i = 0

    async def opening(self) -> str:
        """The task's opening message."""
        return self._spec.opening

    async def reply(self, agent_message: str) -> UserReply:
        """The next scripted line; once the script is spent, the user ends the conversation."""
        if self._i < len(self._spec.script):
            self._i += 1
            return UserReply(self._spec.script[self._i - 1], False)
        return UserReply("Thanks, that's all.", True)
