"""The LLM agent: a model behind any OpenAI-compatible or Anthropic endpoint.

System prompt = agent instructions + the domain policy as the episode serves it (the
whole text; or, in ``search`` mode, a pointer, with guidance to read the policy through
the ``search_policy`` tool); the allowlisted tools become function schemas. The model's
tool calls — several in one reply are a parallel call — run one by one through the
Episode, in the order the model wrote them, and each result goes back to the model. A
call whose arguments are not a JSON object still goes through the Episode (as a call the
dispatcher rejects, so the transcript and the failure signature see it) and the model is
told its JSON was malformed; an unknown tool gets the dispatcher's ``unknown_tool`` error.
A reply without tool calls is a message to the user, or the final response when it
carries ``<DONE>``.

Limits: the Episode's turn and step limits and the trial's wall clock end the trial
with ``max_turns``, ``max_steps`` and ``timeout``; this agent's own tool-call limit
raises `AgentLimitReached`, which the runner turns into ``max_tool_calls``.

The optional ``think`` tool records the thought in `LLMAgent.thoughts` (kept in the
trial record with the number of tool calls made before each, `LLMAgent.thought_steps`),
changes nothing, and never reaches the world. Two versions exist: statebox's own
(``statebox``: a one-line description plus `THINK_GUIDANCE` in the instructions) and
the one the τ-bench study published (``tau-bench``: its description verbatim, no
guidance). A think prompt per domain (`statebox.domains.Domain.think_prompt`: worked
examples of how to reason on that policy) can be placed in the system prompt too.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any, Literal, TypeAlias

from statebox.agents._protocol import Agent, TrialContext
from statebox.episode import (
    Action,
    CallTool,
    End,
    MessageUser,
    Observation,
    TerminationReason,
)
from statebox.llm import (
    DONE_MARKER,
    AssistantTurn,
    Message,
    ModelConfig,
    ModelHub,
    RequestedCall,
    TokenTrace,
    TokenTurn,
    ToolOutput,
    ToolSchema,
    UserText,
    task_headers,
)
from statebox.tools import ToolCall, ToolResult

__all__ = [
    "AGENT_INSTRUCTIONS",
    "ERROR_GUIDANCE",
    "SEARCH_GUIDANCE",
    "TAU_BENCH_THINK_DESCRIPTION",
    "THINK_GUIDANCE",
    "AgentLimitReached",
    "LLMAgent",
    "LLMAgentFactory",
    "ThinkTool",
]

AGENT_INSTRUCTIONS = f"""\
You are a customer-service agent. Help the customer by following the policy below exactly.
- Use the tools to look things up and to make changes; never invent ids, amounts or dates.
- Ask the customer for any information you need and do not have.
- Make only the changes the customer asked for and the policy allows.
- Reply to the customer in plain text. When the request is fully handled (or refused under
  the policy), write your final message to the customer and end it with {DONE_MARKER}."""
"""Default instructions, placed before the domain policy."""

THINK_GUIDANCE = """\
You have a `think` tool. Before any change to the customer's records, use it to check the
policy rules that apply and the facts you have; it changes nothing and nobody sees it."""
"""Added to the instructions with ``--think``."""

ERROR_GUIDANCE = """\
A tool error comes with a class and a hint; act on the class:
- invalid_arguments: fix the arguments (names, types, formats) and call again.
- not_found: the id or name is wrong; look it up or ask the customer, do not repeat the call.
- precondition_failed: the record is not in a state that allows this; read it, follow the
  policy, and only then try again or explain why it cannot be done.
- conflict: it is already done or clashes with an existing record; do not repeat it.
- transient: a temporary failure; retrying the same call may succeed.
- forbidden: the policy or an approver refused it; do not retry; tell the customer."""
"""Added to the instructions by the ``retry-classified`` configuration (docs/mitigations.md)."""

SEARCH_GUIDANCE = """\
The policy is not in this prompt: its rules are articles in a knowledge base that you read
with the `search_policy` tool. Search it before you act on any request; what the articles say
is the policy you must follow."""
"""Added to the instructions when the policy is served by search only."""

_THINK = ToolSchema(
    name="think",
    description="Think through the next step. Records a thought; changes nothing.",
    parameters={
        "type": "object",
        "properties": {"thought": {"type": "string", "description": "Your reasoning."}},
        "required": ["thought"],
        "additionalProperties": False,
    },
)
TAU_BENCH_THINK_DESCRIPTION = (
    "Use the tool to think about something. It will not obtain new information or change "
    "the database, but just append the thought to the log. Use it when complex reasoning "
    "or some cache memory is needed."
)
"""The think tool's description as the τ-bench study published it."""

_TAU_THINK = ToolSchema(
    name="think",
    description=TAU_BENCH_THINK_DESCRIPTION,
    parameters={
        "type": "object",
        "properties": {"thought": {"type": "string", "description": "A thought to think about."}},
        "required": ["thought"],
    },
)

ThinkTool: TypeAlias = Literal["statebox", "tau-bench"]
"""Which think tool an agent is offered: statebox's own, or the published τ-bench one."""

_INVALID_JSON_KEY = "_invalid_json_arguments"
_NOT_IDENTITY = frozenset({"base_url", "timeout_s", "max_connections", "trace_tokens"})
"""Where and how fast the model is reached, and what is recorded of it (token traces
ask for logprobs, which change no sample), not which agent it is: left out of the id."""


class AgentLimitReached(Exception):
    """An agent stopped itself at one of its limits; the runner ends the episode.

    Attributes:
        reason: The termination reason to record.
    """

    def __init__(self, reason: TerminationReason, message: str) -> None:
        self.reason = reason
        super().__init__(message)


def _digest(prompts: Mapping[str, str]) -> str:
    return hashlib.sha256(json.dumps(dict(prompts), sort_keys=True).encode()).hexdigest()[:12]


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "model"


def _result_text(result: ToolResult) -> tuple[str, bool]:
    if result.ok:
        return json.dumps(result.output, default=str), False
    err = result.error
    body = {"error": err.agent_view()} if err else {"error": {}}
    return json.dumps(body), True


class LLMAgent:
    """One trial's LLM agent (made by `LLMAgentFactory`)."""

    def __init__(self, factory: LLMAgentFactory, ctx: TrialContext) -> None:
        self.name: str = factory.name
        self._factory = factory
        self._client = factory.hub.client(factory.model, "agent")
        self._headers = task_headers(ctx.task.id, self._client.config.base_url)
        self._system = ""
        self._tools: list[ToolSchema] = []
        self._messages: list[Message] = []
        self._queue: list[RequestedCall] = []
        self._pending: tuple[RequestedCall, str | None] | None = None
        self.tool_calls = 0
        """Tool calls sent to the Episode so far."""
        self.thoughts: list[str] = []
        """Thoughts recorded by the ``think`` tool, in order."""
        self.thought_steps: list[int] = []
        """Per thought, the tool calls sent to the Episode before it."""
        self._think_prompt = factory.think_prompts.get(ctx.task.domain)
        self._token_turns: list[TokenTurn] = []

    @property
    def token_trace(self) -> TokenTrace | None:
        """The token ids and logprobs of every model turn (None: not traced).

        Kept in the trial record; never read by the judge.
        """
        config = self._client.config
        if not config.trace_tokens:
            return None
        return TokenTrace.of(config.label, self._token_turns)

    @property
    def config(self) -> dict[str, Any]:
        """The factory's configuration."""
        return self._factory.config

    def _start(self, obs: Observation) -> None:
        f = self._factory
        parts = [f.instructions]
        if f.error_guidance:
            parts.append(ERROR_GUIDANCE)
        if f.think_tool == "statebox":
            parts.append(THINK_GUIDANCE)
        if f.think_tool is not None and self._think_prompt:
            parts.append(self._think_prompt.strip())
        if obs.policy_mode == "search":
            parts.append(SEARCH_GUIDANCE)
        if obs.policy:
            parts.append("# Policy\n\n" + obs.policy)
        self._system = "\n\n".join(parts)
        self._tools = [ToolSchema(t.name, t.description, t.input_schema) for t in obs.tools]
        if f.think_tool is not None:
            self._tools.append(_THINK if f.think_tool == "statebox" else _TAU_THINK)
        self._messages = [UserText(text=obs.user_message or "")]

    def _observe(self, obs: Observation) -> None:
        if obs.kind == "start":
            self._start(obs)
        elif obs.kind == "tool_result" and self._pending is not None:
            call, override = self._pending
            self._pending = None
            content, is_error = _result_text(obs.tool_result) if obs.tool_result else ("", True)
            if override is not None:
                content, is_error = override, True
            self._messages.append(
                ToolOutput(call_id=call.id, name=call.name, content=content, is_error=is_error)
            )
        elif obs.kind == "user_message":
            self._messages.append(UserText(text=obs.user_message or ""))

    def _next_call(self) -> CallTool | None:
        """The next queued call as an action, or None after handling a ``think`` locally."""
        call = self._queue.pop(0)
        problem: str | None
        try:
            args = json.loads(call.arguments or "{}")
        except json.JSONDecodeError as exc:
            args, problem = None, f"not valid JSON ({exc.msg} at char {exc.pos})"
        except (ValueError, RecursionError) as exc:
            # JSON Python will not read (an integer of thousands of digits, nesting past
            # the recursion limit): the model's doing, refused like any other bad JSON.
            args, problem = None, f"not valid JSON ({type(exc).__name__}: {str(exc)[:120]})"
        else:
            problem = None if isinstance(args, dict) else "not a JSON object"
        if self._factory.think_tool and call.name == "think" and isinstance(args, dict):
            self.thoughts.append(str(args.get("thought", "")))
            self.thought_steps.append(self.tool_calls)
            self._messages.append(ToolOutput(call_id=call.id, name="think", content='"noted"'))
            return None
        self.tool_calls += 1
        limit = self._factory.max_tool_calls
        if self.tool_calls > limit:
            raise AgentLimitReached(
                TerminationReason.MAX_TOOL_CALLS, f"the agent made more than {limit} tool calls"
            )
        override = None
        if not isinstance(args, dict):
            # Sent on as an argument no tool accepts: the dispatcher refuses it and the
            # transcript records a failed call; the model is told what was wrong.
            args = {_INVALID_JSON_KEY: (call.arguments or "")[:500]}
            override = json.dumps(
                {"error": {"kind": "invalid_arguments", "message": f"arguments are {problem}"}}
            )
        self._pending = (call, override)
        return CallTool(call=ToolCall(tool=call.name, args=args, id=call.id))

    async def act(self, obs: Observation) -> Action:
        """The next action: a queued tool call, else the model's next reply.

        Raises:
            AgentLimitReached: More tool calls than the factory's ``max_tool_calls``.
            ModelEndpointError: The model endpoint kept failing.
        """
        self._observe(obs)
        while True:
            while self._queue:
                action = self._next_call()
                if action is not None:
                    return action
            reply = await self._client.complete(
                self._system, self._messages, self._tools, headers=self._headers
            )
            if reply.tokens is not None:
                self._token_turns.append(reply.tokens)
            self._messages.append(
                AssistantTurn(text=reply.text, calls=reply.calls, reasoning=reply.reasoning)
            )
            if reply.calls:
                self._queue = list(reply.calls)
                continue
            if DONE_MARKER in reply.text:
                return End(text=reply.text.replace(DONE_MARKER, "").strip())
            return MessageUser(text=reply.text.strip())


class LLMAgentFactory:
    """Makes LLM agents for one model configuration.

    Args:
        hub: Shared model clients, limits, retries and prices.
        model: The agent's model.
        think: Offer statebox's ``think`` tool and its guidance (``think_tool="statebox"``).
        max_tool_calls: Tool calls per trial before the trial ends (``max_tool_calls``).
        instructions: Instructions before the policy (default `AGENT_INSTRUCTIONS`).
        think_tool: Which think tool to offer (None: ``statebox`` when ``think``, else none).
        think_prompts: Domain name → think prompt placed in the system prompt (with a
            think tool only); a domain without one gets none.
        error_guidance: Explain the tool error classes in the instructions
            (`ERROR_GUIDANCE`, the ``retry-classified`` configuration).
    """

    def __init__(
        self,
        hub: ModelHub,
        model: ModelConfig,
        *,
        think: bool = False,
        max_tool_calls: int = 100,
        instructions: str = AGENT_INSTRUCTIONS,
        think_tool: ThinkTool | None = None,
        think_prompts: Mapping[str, str] | None = None,
        error_guidance: bool = False,
    ) -> None:
        self.hub = hub
        self.error_guidance = error_guidance
        self.model = model
        self.name: str = model.provider
        self.think_tool: ThinkTool | None = think_tool or ("statebox" if think else None)
        self.think = self.think_tool is not None
        self.think_prompts: dict[str, str] = dict(think_prompts or {})
        self.max_tool_calls = max_tool_calls
        self.instructions = instructions
        hub.client(model, "agent")  # a missing key fails now, not in the first trial

    @property
    def config(self) -> dict[str, Any]:
        """Model, sampling parameters and agent options (never a key)."""
        m = self.model
        return {
            "provider": m.provider,
            "model": m.model,
            "base_url": m.base_url,
            "temperature": m.temperature,
            "max_tokens": m.max_tokens,
            "seed": m.seed,
            "timeout_s": m.timeout_s,
            "max_connections": m.max_connections,
            "think": self.think,
            "max_tool_calls": self.max_tool_calls,
            "instructions_sha256": hashlib.sha256(self.instructions.encode()).hexdigest()[:12],
            # Only when set: the ids of agents configured before these existed stay put.
            **({"think_tool": self.think_tool} if self.think_tool == "tau-bench" else {}),
            **(
                {"think_prompts_sha256": _digest(self.think_prompts)}
                if self.think_prompts and self.think
                else {}
            ),
            **(
                {"thinking_budget_tokens": m.thinking_budget_tokens}
                if m.thinking_budget_tokens is not None
                else {}
            ),
            **({"reasoning_effort": m.reasoning_effort} if m.reasoning_effort else {}),
            **({"error_guidance": True} if self.error_guidance else {}),
            **({"trace_tokens": True} if m.trace_tokens else {}),
        }

    @property
    def agent_id(self) -> str:
        """``provider-model-<hash>``, e.g. ``openai-gpt-4o-1a2b3c4d``.

        The base URL, timeout and connection limit are left out, so a local server
        restarted on another port resumes the same campaign.
        """
        ident = {k: v for k, v in self.config.items() if k not in _NOT_IDENTITY}
        digest = hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:8]
        return f"{self.name}-{_safe(self.model.model)}-{digest}"

    def __call__(self, ctx: TrialContext) -> Agent:
        """A fresh agent for one trial."""
        return LLMAgent(self, ctx)
