"""The rule-based user (the offline default): answers what the agent asks, nothing more.

A thin async wrapper around `statebox.dialogue.RuleEngine`: deterministic, so the same
task, behaviour, seed, trial and agent messages give the same replies (docs/users.md).
"""

from __future__ import annotations

from statebox.dialogue import BehaviourPlan, RuleEngine, UserBehaviour, plan_for
from statebox.episode import UserReply
from statebox.tasks import Task

__all__ = ["RuleUser", "RuleUserFactory"]


class RuleUser:
    """One trial's rule-based user.

    Args:
        task: The task whose user spec is played.
        behaviour: The campaign's user behaviour.
        seed: The campaign seed.
        trial: The trial index (with the seed, picks e.g. the misremembered fact).
    """

    def __init__(
        self,
        task: Task,
        behaviour: UserBehaviour | str = UserBehaviour.COOPERATIVE,
        seed: int = 0,
        trial: int = 0,
    ) -> None:
        self.plan: BehaviourPlan = plan_for(task, behaviour, seed, trial)
        """The behaviour plan it follows."""
        self._engine = RuleEngine(task.user, self.plan)

    async def opening(self) -> str:
        """The opening (the task's, or the related request of changes-goal)."""
        return self._engine.opening()

    async def reply(self, agent_message: str) -> UserReply:
        """The answer to one agent message."""
        text, done = self._engine.reply(agent_message)
        return UserReply(text, done)


class RuleUserFactory:
    """Makes a rule-based user per trial (the runner's default ``users`` factory).

    Args:
        behaviour: The campaign's user behaviour.
        seed: The campaign seed.
    """

    label = "rule"

    def __init__(self, behaviour: UserBehaviour | str = UserBehaviour.COOPERATIVE, seed: int = 0):
        self.behaviour = UserBehaviour(behaviour)
        self.seed = seed

    def __call__(self, task: Task, trial: int) -> RuleUser:
        """A fresh user for (task, trial)."""
        return RuleUser(task, self.behaviour, self.seed, trial)
