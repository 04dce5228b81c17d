"""Token-exact traces of a model's turns, as a vLLM endpoint returns them.

A trainer that owns the rollout loop (PPO/GRPO on its own sampler) needs what the
policy actually saw and sampled: the prompt's token ids, the completion's token ids and
each sampled token's logprob. Re-tokenising the text afterwards is not the same thing
(a chat template, a tool-call parser or a reasoning parser sits between the two).

What is asked for and read follows vLLM's OpenAI-compatible server, `VLLM_VERSION`
(``vllm/entrypoints/openai/protocol.py``; ``return_token_ids`` arrived with vLLM PR
#22587, in 0.10.2):

- request: ``logprobs: true`` (OpenAI's own field) plus, in the body, vLLM's
  ``return_token_ids: true`` and ``return_tokens_as_token_ids: true``;
- response: ``prompt_token_ids`` on the response, ``token_ids`` on each choice (the raw
  generated ids, before tool-call and reasoning parsing) and OpenAI's
  ``choices[i].logprobs.content[j].logprob``, whose ``token`` reads ``token_id:N``.

Nothing is invented: a field the endpoint did not return is recorded as None (and
`TokenTrace.absent_turns` counts the turn). The trace is written with the trial and
never read by the judge.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import Field

from statebox._model import Model

__all__ = ["VLLM_TOKEN_FIELDS", "VLLM_VERSION", "TokenTrace", "TokenTurn", "token_turn"]

VLLM_VERSION = "0.10.2"
"""The first vLLM release whose chat completions return token ids (``return_token_ids``)."""

VLLM_TOKEN_FIELDS: dict[str, Any] = {"return_token_ids": True, "return_tokens_as_token_ids": True}
"""vLLM's request extras (sent in the body beside OpenAI's ``logprobs: true``)."""

_ID_PREFIX = "token_id:"


class TokenTurn(Model):
    """One model call's tokens, exactly as the endpoint returned them.

    The prompt is stored as the number of leading ids it shares with the previous
    turn's prompt plus the ids after them, so a trial's trace grows with the
    conversation, not with its square; `TokenTrace.prompt_token_ids` rebuilds it.
    """

    prompt_shared: int = Field(0, ge=0)
    """Leading prompt ids equal to the previous turn's prompt (0 on the first turn)."""
    prompt_tail: tuple[int, ...] | None = None
    """The prompt's ids after the shared ones (None: the endpoint returned no prompt ids)."""
    completion_token_ids: tuple[int, ...] | None = None
    """The sampled ids, before any tool-call or reasoning parsing (None: not returned)."""
    completion_logprobs: tuple[float, ...] | None = None
    """Each sampled token's logprob, in order (None: not returned)."""
    logprobs_match_ids: bool | None = None
    """Whether the logprobs' ``token_id:N`` tokens are the completion ids (None: cannot
    tell; the endpoint did not return both, or its tokens are not ids)."""
    finish_reason: str | None = None
    """Why the completion stopped, as the endpoint said."""

    @property
    def complete(self) -> bool:
        """The endpoint returned prompt ids, completion ids and logprobs."""
        return (
            self.prompt_tail is not None
            and self.completion_token_ids is not None
            and self.completion_logprobs is not None
        )


class TokenTrace(Model):
    """The token-exact trace of a trial's agent turns (one `TokenTurn` per model call)."""

    model: str
    """``provider:model`` of the traced model."""
    turns: tuple[TokenTurn, ...] = ()
    """Every model call of the agent, in order."""
    absent_turns: int = Field(0, ge=0)
    """Turns where the endpoint returned no token ids or no logprobs (a field is None)."""

    def prompt_token_ids(self) -> list[list[int] | None]:
        """Each turn's whole prompt ids (None where the endpoint returned none)."""
        out: list[list[int] | None] = []
        previous: list[int] = []
        for turn in self.turns:
            if turn.prompt_tail is None:
                out.append(None)
                continue
            ids = previous[: turn.prompt_shared] + list(turn.prompt_tail)
            out.append(ids)
            previous = ids
        return out

    @classmethod
    def of(cls, model: str, turns: Sequence[TokenTurn]) -> TokenTrace:
        """The trace of ``turns`` (each with its whole prompt), prompts stored as tails.

        Args:
            model: ``provider:model``.
            turns: One turn per model call, as `token_turn` made them (``prompt_shared``
                0, ``prompt_tail`` the whole prompt).
        """
        stored: list[TokenTurn] = []
        previous: tuple[int, ...] = ()
        for turn in turns:
            prompt = turn.prompt_tail
            if prompt is not None:
                shared = _shared(previous, prompt)
                turn = turn.model_copy(
                    update={"prompt_shared": shared, "prompt_tail": prompt[shared:]}
                )
                previous = prompt
            stored.append(turn)
        return cls(
            model=model, turns=tuple(stored), absent_turns=sum(1 for t in turns if not t.complete)
        )


def _ints(value: Any) -> tuple[int, ...] | None:
    if not isinstance(value, list) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    ):
        return None  # absent, or not a list of ids: never coerced
    return tuple(value)


def _field(obj: Any, name: str) -> Any:
    """A field of an SDK object or a dict; vLLM's extras are pydantic extras in the SDK."""
    if isinstance(obj, dict):
        return obj.get(name)
    value = getattr(obj, name, None)
    if value is None:
        extra = getattr(obj, "model_extra", None) or {}
        value = extra.get(name)
    return value


def _shared(a: Sequence[int], b: Sequence[int]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def token_turn(resp: Any) -> TokenTurn:
    """The `TokenTurn` of one chat-completions response (its first choice).

    Args:
        resp: The response (the OpenAI SDK's object, or its JSON as a dict).

    Returns:
        The turn, its whole prompt in ``prompt_tail`` (`TokenTrace.of` shortens it).
    """
    choice = (_field(resp, "choices") or [None])[0]
    completion = _ints(_field(choice, "token_ids")) if choice is not None else None
    logprobs: tuple[float, ...] | None = None
    match: bool | None = None
    content = _field(_field(choice, "logprobs"), "content") if choice is not None else None
    if isinstance(content, list):
        values = [_field(c, "logprob") for c in content]
        if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
            logprobs = tuple(float(v) for v in values)
        tokens = [_field(c, "token") for c in content]
        if completion is not None and all(
            isinstance(t, str) and t.startswith(_ID_PREFIX) for t in tokens
        ):
            try:
                match = tuple(int(t[len(_ID_PREFIX) :]) for t in tokens) == completion
            except ValueError:
                match = None
    reason = _field(choice, "finish_reason") if choice is not None else None
    return TokenTurn(
        prompt_tail=_ints(_field(resp, "prompt_token_ids")),
        completion_token_ids=completion,
        completion_logprobs=logprobs,
        logprobs_match_ids=match,
        finish_reason=reason if isinstance(reason, str) else None,
    )
