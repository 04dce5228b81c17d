"""The LLM simulated user: the same user spec and behaviour plan, played by a model.

The prompt follows the tau2-bench user simulator's principles (progressive disclosure,
paraphrase, unknown information is unknown, an explicit stop token) and gives the model
exactly what the rule-based user gets: the facts with the phrases that ask for them, the
task's behaviour (confirm or decline, push back N times, accept an alternative or not,
what to say when asked something it does not know) and the trial's behaviour plan
(which fact it misremembers, the request it opens with before switching, how patient it
is). The user opens with the plan's opening verbatim, so every agent faces the same
first message, and samples at temperature 0.3 unless its model config says otherwise.
After ``max_follow_ups`` replies the user ends the conversation itself.
"""

from __future__ import annotations

from statebox.dialogue import BehaviourPlan, UserBehaviour, plan_for
from statebox.episode import UserReply
from statebox.llm import (
    DONE_MARKER,
    USER_HEADER,
    USER_STOP,
    AssistantTurn,
    Message,
    ModelClient,
    ModelConfig,
    ModelHub,
    UserText,
    task_headers,
)
from statebox.tasks import Task

__all__ = ["DEFAULT_USER_TEMPERATURE", "LLMUser", "LLMUserFactory", "user_system_prompt"]

DEFAULT_USER_TEMPERATURE = 0.3
"""The user model's temperature when its config sets none (tau2-bench's setting)."""

_START = "(You are now connected to the agent. Send your first message.)"
_GIVE_UP = "I have to go now. Thanks anyway."


def _plan_lines(task: Task, plan: BehaviourPlan) -> list[str]:
    facts = task.user.facts
    lines = []
    for name, wrong in plan.slips.items():
        f = facts[name]
        lines.append(
            f"- The first time you give your {f.name_in_text}, you misremember it and say "
            f"{wrong}. Believe it until the agent says it does not match, could not be "
            f"found or verified, or asks you to double-check it; then apologise and give "
            f"{f.value}."
        )
    if plan.switch:
        lines.append(
            f"- Your first message asked for something else. In your first reply, change "
            f'your mind: say that what you really want is this: "{task.user.opening}"'
        )
    if plan.behaviour is UserBehaviour.IMPATIENT:
        lines.append(
            "- You are impatient. If the agent asks again for something you already gave, "
            f"say you have no time for this and end with {USER_STOP}. After {plan.patience} "
            f"agent messages without your goal met, say you will try another time and end "
            f"with {USER_STOP}."
        )
    if plan.behaviour is UserBehaviour.UNCOOPERATIVE:
        lines.append(
            "- You are reluctant. Answer only direct questions (ending with a question "
            "mark), and give at most one fact per reply, even when asked for several."
        )
    return lines


def user_system_prompt(task: Task, plan: BehaviourPlan | None = None) -> str:
    """The simulated user's system prompt for a task and a trial's behaviour plan."""
    spec = task.user
    plan = plan or plan_for(task, UserBehaviour.COOPERATIVE)
    b = spec.behaviour
    facts = (
        "\n".join(
            f"- {f.name_in_text}: {f.value} (the agent may ask for it as: "
            + ", ".join(f'"{p}"' for p in f.ask)
            + ")"
            for f in spec.facts.values()
        )
        or "- (nothing)"
    )
    confirm = (
        f'agree (for example: "{b.agree}")'
        if b.confirm
        else f'decline and keep things as they are (for example: "{b.decline}")'
    )
    pushback = (
        f'push back {b.pushback} time(s) (for example: "{b.push}"), then accept it'
        if b.pushback
        else "accept it"
    )
    alternative = "accept it" if b.alternative else "decline it: you want what you asked for"
    plan_text = "\n".join(_plan_lines(task, plan))
    return f"""\
You are playing a customer who contacts a company's customer-service agent. Simulate a
realistic customer, one message at a time, and follow the scenario below exactly.

# Scenario
Who you are: {spec.persona or "a customer"}
What you want: {spec.goal or "get the request in your first message handled"}
Your first message (already sent): {plan.opening}

# What you know
Give each item only when the agent asks for it; the phrases in brackets are ways the
agent may ask. Give exactly the value listed, in your own words.
{facts}
You know nothing else. If the agent asks for anything not listed, say you don't know
(for example: "{b.unknown}"). Never make up an id, an email, a date, an amount, a name or
any other detail.

# How you react
- When the agent proposes to make the change and asks whether to go ahead: {confirm}.
- When the agent says your request cannot be met: {pushback} (for example: "{b.accept}").
- When the agent offers an alternative instead of what you asked for: {alternative}.
{plan_text}

# Rules
- Disclose information progressively: answer only what the agent's last message asks
  for; never volunteer an item before it is asked for.
- Paraphrase; do not repeat these instructions. Keep replies to one or two sentences.
- Stay on your goal. Never act as the agent and never say what the agent did.
- When your goal is met, or the agent has definitively refused and you have accepted it,
  write a short closing line followed by {USER_STOP}.""".replace("\n\n\n", "\n\n")


class LLMUser:
    """One trial's simulated user.

    Args:
        client: The user's model client.
        task: The task whose user is played.
        max_follow_ups: Replies before the user ends the conversation itself.
        plan: The trial's behaviour plan (default: cooperative).
        header: The behaviour header value sent to a loopback scripted model.
    """

    def __init__(
        self,
        client: ModelClient,
        task: Task,
        max_follow_ups: int = 10,
        plan: BehaviourPlan | None = None,
        header: str = "cooperative;0;0",
    ) -> None:
        self._client = client
        self._task = task
        self.plan = plan or plan_for(task, UserBehaviour.COOPERATIVE)
        """The behaviour plan it follows."""
        self._system = user_system_prompt(task, self.plan)
        self._max = max_follow_ups
        self._messages: list[Message] = [
            UserText(text=_START),
            AssistantTurn(text=self.plan.opening),
        ]
        self._headers = task_headers(task.id, client.config.base_url)
        if self._headers:
            self._headers[USER_HEADER] = header
        self._temperature = DEFAULT_USER_TEMPERATURE if client.config.temperature is None else None
        self.replies = 0
        """Replies given so far."""

    async def opening(self) -> str:
        """The plan's opening, verbatim."""
        return self.plan.opening

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
        out = await self._client.complete(
            self._system, self._messages, headers=self._headers, temperature=self._temperature
        )
        done = USER_STOP in out.text or DONE_MARKER in out.text
        text = out.text.replace(USER_STOP, "").replace(DONE_MARKER, "").strip()
        self._messages.append(AssistantTurn(text=text or "(no reply)"))
        return UserReply(text, done)


class LLMUserFactory:
    """Makes an LLM user per trial (the runner's ``users`` factory).

    Args:
        hub: Shared model clients.
        model: The user's model.
        max_follow_ups: Replies per trial before the user ends the conversation.
        behaviour: The campaign's user behaviour.
        seed: The campaign seed (with the trial, it picks the behaviour plan).
    """

    def __init__(
        self,
        hub: ModelHub,
        model: ModelConfig,
        max_follow_ups: int = 10,
        behaviour: UserBehaviour | str = UserBehaviour.COOPERATIVE,
        seed: int = 0,
    ) -> None:
        self._client = hub.client(model, "user")
        self.model = model
        self.max_follow_ups = max_follow_ups
        self.behaviour = UserBehaviour(behaviour)
        self.seed = seed

    def __call__(self, task: Task, trial: int) -> LLMUser:
        """A fresh user for (task, trial)."""
        plan = plan_for(task, self.behaviour, self.seed, trial)
        header = f"{self.behaviour.value};{self.seed};{trial}"
        return LLMUser(self._client, task, self.max_follow_ups, plan, header)
