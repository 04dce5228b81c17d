"""The LLM simulated user: persona, goal and private facts, played by a model.

The user opens with the task's opening verbatim (so every agent faces the same first
message), then answers each agent message through the model. The system prompt holds
the persona, the goal and the facts, with the rules: reveal a fact only when asked,
never invent data, stay on the goal, end with ``<DONE>`` when satisfied. After
``max_follow_ups`` replies the user ends the conversation itself.
"""

from __future__ import annotations

from statebox.episode import UserReply
from statebox.llm import (
    DONE_MARKER,
    AssistantTurn,
    Message,
    ModelClient,
    ModelConfig,
    ModelHub,
    UserText,
    task_headers,
)
from statebox.tasks import Task

__all__ = ["LLMUser", "LLMUserFactory", "user_system_prompt"]

_START = "(You are now connected to the agent. Send your first message.)"
_GIVE_UP = "I have to go now. Thanks anyway."


def user_system_prompt(task: Task) -> str:
    """The simulated user's system prompt for a task (persona, goal, facts, rules)."""
    spec = task.user
    facts = "\n".join(f"- {k}: {v}" for k, v in spec.facts.items()) or "- (none)"
    return f"""\
You are playing a customer who contacts a company's customer-service agent. Stay in role.

Who you are: {spec.persona or "a customer"}
Your goal: {spec.goal or "get the issue in your first message resolved"}
Your first message was: {spec.opening}

Facts only you know:
{facts}

Rules:
- Reveal a fact only when the agent asks for it; give exactly the value listed.
- Never invent data: if asked for anything not listed, say you don't know it.
- Stay on your goal; do not ask for anything else. Keep replies short.
- Do not act as the agent and do not make up what the agent did.
- When your goal is met, or the agent says it cannot be met, reply briefly and end your
  message with {DONE_MARKER}."""


class LLMUser:
    """One trial's simulated user.

    Args:
        client: The user's model client.
        task: The task whose user is played.
        max_follow_ups: Replies before the user ends the conversation itself.
    """

    def __init__(self, client: ModelClient, task: Task, max_follow_ups: int = 10) -> None:
        self._client = client
        self._task = task
        self._system = user_system_prompt(task)
        self._max = max_follow_ups
        self._messages: list[Message] = [
            UserText(text=_START),
            AssistantTurn(text=task.user.opening),
        ]
        self._headers = task_headers(task.id, client.config.base_url)
        self.replies = 0
        """Replies given so far."""

    async def opening(self) -> str:
        """The task's opening, verbatim."""
        return self._task.user.opening

    async def reply(self, agent_message: str) -> UserReply:
        """The model's answer to one agent message (or the end at the follow-up limit).

        Raises:
            ModelEndpointError: The user's endpoint kept failing.
        """
        self._messages.append(UserText(text=agent_message or "(no message)"))
        if self.replies >= self._max:
            self._messages.append(AssistantTurn(text=_GIVE_UP))
            return UserReply(_GIVE_UP, True)
        self.replies += 1
        out = await self._client.complete(self._system, self._messages, headers=self._headers)
        done = DONE_MARKER in out.text
        text = out.text.replace(DONE_MARKER, "").strip()
        self._messages.append(AssistantTurn(text=text or "(no reply)"))
        return UserReply(text, done)


class LLMUserFactory:
    """Makes an LLM user per trial (the runner's ``users`` factory).

    Args:
        hub: Shared model clients.
        model: The user's model.
        max_follow_ups: Replies per trial before the user ends the conversation.
    """

    def __init__(self, hub: ModelHub, model: ModelConfig, max_follow_ups: int = 10) -> None:
        self._client = hub.client(model, "user")
        self.model = model
        self.max_follow_ups = max_follow_ups

    def __call__(self, task: Task, trial: int) -> LLMUser:
        """A fresh user for (task, trial)."""
        return LLMUser(self._client, task, self.max_follow_ups)
