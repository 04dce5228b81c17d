"""Model clients over the official ``openai`` and ``anthropic`` SDKs.

`ModelHub` owns what is shared across a campaign: one SDK client per (provider, base
URL, key variable), one semaphore per (provider, base URL, model) so concurrent trials
never exceed an endpoint's ``max_connections``, the retry policy and the price table.
`ModelClient` is one role's view: it translates the neutral conversation to the wire,
retries, and meters each call. The SDKs are imported lazily (``import statebox`` stays
light) and their own retries are off, so tenacity alone decides.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import SecretStr

from statebox.errors import ConfigError, ModelEndpointError
from statebox.llm._config import ModelConfig, PriceTable, RetryPolicy, Role
from statebox.llm._limits import endpoint_key, endpoint_slot
from statebox.llm._messages import (
    AssistantTurn,
    Completion,
    Message,
    RequestedCall,
    ToolSchema,
    UserText,
)
from statebox.llm._retry import call_with_retry
from statebox.llm._tokens import VLLM_TOKEN_FIELDS, VLLM_VERSION, token_turn
from statebox.llm._usage import ModelCall, record_call

__all__ = ["KeyLookup", "ModelClient", "ModelHub"]

_log = logging.getLogger("statebox.llm")

KeyLookup = Callable[[str], SecretStr | None]
"""Reads an API key from the environment variable of that name (see `Settings.secret`)."""


class ModelHub:
    """Shared SDK clients, endpoint semaphores, retry policy and prices.

    Args:
        keys: Looks up API keys by environment-variable name.
        retry: Retry policy of every call.
        prices: Prices for cost (None: every cost is 0 and calls count as unpriced).
    """

    def __init__(
        self, keys: KeyLookup, retry: RetryPolicy | None = None, prices: PriceTable | None = None
    ) -> None:
        self._keys = keys
        self.retry = retry or RetryPolicy()
        self.prices = prices or PriceTable()
        self._sdk: dict[tuple[str, str | None, str], Any] = {}
        self._limits: dict[tuple[str, str | None, str], asyncio.Semaphore] = {}
        self._untraced: set[tuple[str | None, str]] = set()

    def warn_untraced(self, config: ModelConfig, role: Role, missing: str) -> None:
        """Warn, once per endpoint and model, that a traced call came back without tokens."""
        key = (config.base_url, config.model)
        if key in self._untraced:
            return
        self._untraced.add(key)
        where = f" at {config.base_url}" if config.base_url else ""
        _log.warning(
            "%s model %s%s returned no %s although trace_tokens is on (vLLM >= %s returns "
            "them); recorded as absent in the trial's token_trace",
            role,
            config.label,
            where,
            missing,
            VLLM_VERSION,
        )

    def client(self, config: ModelConfig, role: Role) -> ModelClient:
        """A client for one role.

        Raises:
            ConfigError: No key in the config's variable for a hosted endpoint.
        """
        self._key(config)  # fail at start, not in the first trial
        return ModelClient(self, config, role)

    def _key(self, config: ModelConfig) -> str:
        key = self._keys(config.key_env)
        if key is not None and key.get_secret_value():
            return key.get_secret_value()
        if config.base_url is not None:
            return "not-needed"  # local servers (vLLM, Ollama) ignore the key
        raise ConfigError(
            f"{config.label}: no API key; set the environment variable {config.key_env} "
            "(or api_key_env in the models file), or give a base URL for a local server"
        )

    def semaphore(self, config: ModelConfig) -> asyncio.Semaphore:
        """The semaphore of the config's (provider, base URL, model)."""
        key = (config.provider, config.base_url, config.model)
        sem = self._limits.get(key)
        if sem is None:
            sem = self._limits[key] = asyncio.Semaphore(config.max_connections)
        return sem

    def sdk(self, config: ModelConfig) -> Any:
        """The SDK client of the config's (provider, base URL, key variable)."""
        key = (config.provider, config.base_url, config.key_env)
        client = self._sdk.get(key)
        if client is None:
            if config.provider == "openai":
                import openai

                client = openai.AsyncOpenAI(
                    api_key=self._key(config), base_url=config.base_url, max_retries=0
                )
            else:
                import anthropic

                client = anthropic.AsyncAnthropic(
                    api_key=self._key(config), base_url=config.base_url, max_retries=0
                )
            self._sdk[key] = client
        return client

    async def aclose(self) -> None:
        """Close every SDK client."""
        for client in self._sdk.values():
            await client.close()
        self._sdk.clear()


def _openai_messages(system: str, messages: Sequence[Message]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    for m in messages:
        if isinstance(m, UserText):
            out.append({"role": "user", "content": m.text})
        elif isinstance(m, AssistantTurn):
            # OpenAI accepts a null content only beside tool calls.
            msg: dict[str, Any] = {"role": "assistant", "content": m.text or None}
            if not m.calls:
                msg["content"] = m.text
            if m.calls:
                msg["tool_calls"] = [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.name, "arguments": c.arguments},
                    }
                    for c in m.calls
                ]
            out.append(msg)
        else:
            out.append({"role": "tool", "tool_call_id": m.call_id, "content": m.content})
    return out


def _anthropic_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []

    def add(role: str, block: dict[str, Any]) -> None:
        # Anthropic wants alternating roles: consecutive blocks of one role merge.
        if out and out[-1]["role"] == role:
            out[-1]["content"].append(block)
        else:
            out.append({"role": role, "content": [block]})

    for m in messages:
        if isinstance(m, UserText):
            add("user", {"type": "text", "text": m.text or "(empty)"})
        elif isinstance(m, AssistantTurn):
            for block in m.reasoning:  # thinking first, as it came
                add("assistant", dict(block))
            if m.text:
                add("assistant", {"type": "text", "text": m.text})
            for c in m.calls:
                try:
                    args = json.loads(c.arguments)
                except ValueError:
                    args = {}
                add(
                    "assistant",
                    {
                        "type": "tool_use",
                        "id": c.id,
                        "name": c.name,
                        "input": args if isinstance(args, dict) else {},
                    },
                )
        else:
            add(
                "user",
                {
                    "type": "tool_result",
                    "tool_use_id": m.call_id,
                    "content": m.content,
                    "is_error": m.is_error,
                },
            )
    return out


def _int(value: Any) -> int:
    # A token count is never negative: a broken endpoint's -1000000 must not reach totals.
    return max(value, 0) if isinstance(value, int) and not isinstance(value, bool) else 0


class ModelClient:
    """One role's model: complete a conversation, with retries, limits and metering.

    Args:
        hub: Shared clients, limits, retry policy and prices.
        config: The model.
        role: Who it plays (for usage per role).
    """

    def __init__(self, hub: ModelHub, config: ModelConfig, role: Role) -> None:
        self.hub = hub
        self.config = config
        self.role: Role = role

    async def complete(
        self,
        system: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSchema] = (),
        *,
        temperature: float | None = None,
        headers: dict[str, str] | None = None,
    ) -> Completion:
        """One model reply.

        Args:
            system: System prompt.
            messages: The conversation so far.
            tools: Functions the model may call.
            temperature: Overrides the config's temperature (the judge passes 0).
            headers: Extra HTTP headers (``X-Statebox-Task`` lets a scripted model find
                its task; the model never sees headers).

        Returns:
            The reply's text and tool calls.

        Raises:
            ModelEndpointError: The endpoint rejected the call or kept failing.
        """
        c = self.config
        temp = c.temperature if temperature is None else temperature
        sdk = self.hub.sdk(c)
        label = f"{self.role} model {c.label}" + (f" at {c.base_url}" if c.base_url else "")

        async def once() -> Any:
            if c.provider == "openai":
                kwargs: dict[str, Any] = {
                    "model": c.model,
                    "messages": _openai_messages(system, messages),
                    "max_completion_tokens": c.max_tokens,
                    "timeout": c.timeout_s,
                }
                if tools:
                    kwargs["tools"] = [
                        {
                            "type": "function",
                            "function": {
                                "name": t.name,
                                "description": t.description,
                                "parameters": t.parameters,
                            },
                        }
                        for t in tools
                    ]
                if temp is not None:
                    kwargs["temperature"] = temp
                if c.seed is not None:
                    kwargs["seed"] = c.seed
                if c.reasoning_effort is not None:
                    kwargs["reasoning_effort"] = c.reasoning_effort
                if headers:
                    kwargs["extra_headers"] = headers
                if c.trace_tokens:
                    kwargs["logprobs"] = True
                    kwargs["extra_body"] = dict(VLLM_TOKEN_FIELDS)
                return await sdk.chat.completions.create(**kwargs)
            akw: dict[str, Any] = {
                "model": c.model,
                "messages": _anthropic_messages(messages),
                "max_tokens": c.max_tokens + (c.thinking_budget_tokens or 0),
                "timeout": c.timeout_s,
            }
            if c.thinking_budget_tokens is not None:
                akw["thinking"] = {"type": "enabled", "budget_tokens": c.thinking_budget_tokens}
            if system:
                akw["system"] = system
            if tools:
                akw["tools"] = [
                    {"name": t.name, "description": t.description, "input_schema": t.parameters}
                    for t in tools
                ]
            if temp is not None and c.thinking_budget_tokens is None:
                akw["temperature"] = temp
            if headers:
                akw["extra_headers"] = headers
            return await sdk.messages.create(**akw)

        t0 = time.perf_counter()
        # Under a distributed executor the endpoint's limit spans every worker.
        key = endpoint_key(c.provider, c.base_url, c.model)
        async with endpoint_slot(key, c.max_connections, self.hub.semaphore(c)):
            done = await call_with_retry(once, self.hub.retry, label)
        latency = time.perf_counter() - t0
        if c.provider == "openai":
            completion, tokens = self._from_openai(done.value)
            if c.trace_tokens:
                turn = token_turn(done.value)
                if not turn.complete:
                    missing = [
                        name
                        for name, value in (
                            ("prompt token ids", turn.prompt_tail),
                            ("completion token ids", turn.completion_token_ids),
                            ("logprobs", turn.completion_logprobs),
                        )
                        if value is None
                    ]
                    self.hub.warn_untraced(c, self.role, ", ".join(missing))
                completion = completion._replace(tokens=turn)
        else:
            completion, tokens = self._from_anthropic(done.value)
        price = self.hub.prices.price(c.provider, c.model)
        record_call(
            ModelCall(
                role=self.role,
                model=c.label,
                input_tokens=tokens[0],
                cached_input_tokens=tokens[1],
                output_tokens=tokens[2],
                reasoning_tokens=tokens[3],
                cost_usd=price.cost_usd(tokens[0], tokens[1], tokens[2]) if price else 0.0,
                priced=price is not None,
                attempts=done.attempts,
                latency_s=latency,
            )
        )
        return completion

    @staticmethod
    def _from_openai(resp: Any) -> tuple[Completion, tuple[int, int, int, int]]:
        if not getattr(resp, "choices", None):
            # An empty reply is the endpoint failing, not the agent saying nothing: it must
            # become a system error that --retry-errors re-runs, not a failed trial.
            raise ModelEndpointError("the model endpoint replied without choices")
        choice = resp.choices[0].message
        text = choice.content or ""
        calls = tuple(
            RequestedCall(
                id=tc.id or f"call_{i}",
                name=tc.function.name,
                arguments=tc.function.arguments or "",
            )
            for i, tc in enumerate(choice.tool_calls or [])
            if getattr(tc, "function", None) is not None
        )
        u = resp.usage
        details = getattr(u, "prompt_tokens_details", None)
        out_details = getattr(u, "completion_tokens_details", None)
        tokens = (
            _int(getattr(u, "prompt_tokens", 0)),
            _int(getattr(details, "cached_tokens", 0)),
            _int(getattr(u, "completion_tokens", 0)),
            _int(getattr(out_details, "reasoning_tokens", 0)),
        )
        return Completion(text, calls), tokens

    @staticmethod
    def _from_anthropic(resp: Any) -> tuple[Completion, tuple[int, int, int, int]]:
        texts, calls, reasoning = [], [], []
        for block in resp.content:
            if block.type in ("thinking", "redacted_thinking"):
                reasoning.append(block.model_dump(mode="json", exclude_none=True))
            elif block.type == "text":
                texts.append(block.text)
            elif block.type == "tool_use":
                calls.append(
                    RequestedCall(id=block.id, name=block.name, arguments=json.dumps(block.input))
                )
        u = resp.usage
        cached = _int(getattr(u, "cache_read_input_tokens", 0))
        created = _int(getattr(u, "cache_creation_input_tokens", 0))
        # Anthropic's input_tokens leaves out cache reads and writes; ours include them.
        tokens = (_int(u.input_tokens) + cached + created, cached, _int(u.output_tokens), 0)
        return Completion("\n".join(texts), tuple(calls), tuple(reasoning)), tokens
