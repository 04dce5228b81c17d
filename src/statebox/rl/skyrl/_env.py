"""statebox episodes as a SkyRL environment (a ``skyrl_gym`` ``BaseTextEnv``).

Follows the contract of skyrl-gym `SKYRL_GYM_VERSION` and of SkyRL's generator
(``skyrl_train/generators/skyrl_gym_generator.py``, ``agent_loop``): the generator makes
one environment per trajectory with ``skyrl_gym.make(env_class, env_config=...,
extras=row)`` (``extras`` is the dataset row without its prompt, plus ``max_turns``),
calls ``init(prompt)`` once and sends each model turn's text to ``step(text)``, which
returns ``{"observations", "reward", "done", "metadata"}``; then ``close()``.

Here:

- ``init`` starts an episode of the row's ``task_id`` on a fresh world (test tasks
  refused unless ``env_config.allow_test``) and appends the policy and the user's
  opening to the prompt's last user message.
- ``step`` reads the text as a Hermes/Qwen tool-calling turn: each
  ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` block is one episode step
  (sent as given: a bad name or argument is the `Episode`'s recorded refusal, shown to
  the model), each answered by a ``tool`` message. A turn without a tool call is a
  message to the user, whose reply is the observation; with `DONE_MARKER` it is the
  final response.
- The reward is 0.0 until the step that ends the episode (the final response, the user
  ending the conversation, a statebox limit, or ``max_turns``), whose reward is the
  verdict: 1.0 iff it passed, else 0.0.
- **An infrastructure error is never a reward.** SkyRL's own OpenEnv adapter turns a
  failed step into reward −1; this one raises `statebox.rl.TrialSystemError` naming
  the trial instead, out of ``step`` and out of SkyRL's ``agent_loop``, so the batch
  fails loudly and is re-run rather than trained on a made-up score.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Mapping
from functools import cache
from typing import Any

from skyrl_gym.envs.base_text_env import BaseTextEnv

from statebox.errors import ConfigError
from statebox.llm import DONE_MARKER
from statebox.rl.trl import StateboxTrlEnvironment, for_suite

__all__ = ["SKYRL_GYM_VERSION", "StateboxSkyRLEnv", "parse_turn"]

SKYRL_GYM_VERSION = "0.4.0"
"""The skyrl-gym release whose ``BaseTextEnv`` contract this environment follows."""

_CALL = re.compile(r"<tool_call>(.*?)</tool_call>", re.DOTALL)
_INVALID = "_invalid_tool_call"


def parse_turn(text: str) -> list[tuple[str, dict[str, Any]]]:
    """The tool calls of one model turn, in order, as (name, arguments).

    A block that is not ``{"name": str, "arguments": object}`` JSON is kept as a call
    no tool accepts (the `Episode` refuses and records it; the model is told why).
    """
    calls: list[tuple[str, dict[str, Any]]] = []
    for raw in _CALL.findall(text):
        try:
            data = json.loads(raw)
        except json.JSONDecodeError:
            data = None
        if isinstance(data, dict) and isinstance(data.get("name"), str):
            args = data.get("arguments", {})
            if isinstance(args, str):  # some templates put the arguments as a JSON string
                with contextlib.suppress(json.JSONDecodeError):
                    args = json.loads(args)
            if isinstance(args, dict):
                calls.append((data["name"], args))
                continue
            calls.append((data["name"], {_INVALID: raw.strip()[:500]}))
            continue
        calls.append(("", {_INVALID: raw.strip()[:500]}))
    return calls


def tools_prompt(tools: list[dict[str, Any]]) -> str:
    """The tools as a Hermes/Qwen system block, and how to call them.

    SkyRL renders the prompt with the chat template but passes no ``tools``, so the
    schemas go in the system message, as Qwen's template would write them.
    """
    schemas = "\n".join(json.dumps(t, sort_keys=True) for t in tools)
    return (
        "# Tools\n\nYou may call one or more functions. Their signatures are within "
        f"<tools></tools>:\n<tools>\n{schemas}\n</tools>\n\nFor each call, write "
        '<tool_call>{"name": <function-name>, "arguments": <args-json-object>}</tool_call>. '
        "A reply without a tool call is sent to the user. When the request is handled, "
        f"write your final message to the user and end it with {DONE_MARKER}."
    )


def _get(config: Any, key: str, default: Any) -> Any:
    """A key of an ``env_config`` (omegaconf ``DictConfig``, a dict, or None)."""
    if config is None:
        return default
    getter = getattr(config, "get", None)
    return getter(key, default) if getter is not None else default


@cache
def _rollout_class(suite: str, split: str | None, allow_test: bool) -> type[StateboxTrlEnvironment]:
    # One class (tasks, domains, world cache) per suite and split, shared by every env.
    cls, _ = for_suite(suite, split, allow_test=allow_test)
    return cls


class StateboxSkyRLEnv(BaseTextEnv):  # type: ignore[misc]  # skyrl_gym is untyped
    """One trajectory of a statebox task as a SkyRL text environment.

    Args:
        env_config: ``environment.skyrl_gym.<env_class>`` of SkyRL's config: ``suite``
            (default ``train``), ``split`` (default: the suite's, else train) and
            ``allow_test`` (default false).
        extras: The dataset row (`statebox.rl.skyrl.rows`): ``task_id``, and SkyRL's
            ``max_turns``.
        rollout_class: The tasks, domains and users to play, as a TRL environment class
            (`statebox.rl.trl.environment_class`; `register` passes it). None: built from
            ``env_config``'s suite.

    Raises:
        ConfigError: No ``task_id`` in the row, or a bad suite.
    """

    def __init__(
        self,
        env_config: Any = None,
        extras: Mapping[str, Any] | None = None,
        rollout_class: type[StateboxTrlEnvironment] | None = None,
    ) -> None:
        super().__init__()
        extras = dict(extras or {})
        task_id = extras.get("task_id") or (extras.get("extra_info") or {}).get("task_id")
        if not isinstance(task_id, str):
            raise ConfigError("the SkyRL dataset row has no task_id (see statebox.rl.skyrl.rows)")
        self.task_id = task_id
        self.max_turns = int(extras.get("max_turns") or 30)
        cls = rollout_class or _rollout_class(
            str(_get(env_config, "suite", "train")),
            _get(env_config, "split", None),
            bool(_get(env_config, "allow_test", False)),
        )
        self._rollout = cls()
        self._reward: float | None = None

    @property
    def trial_id(self) -> str | None:
        """The trajectory's trial id (``<task id>/<n>``), named by its errors."""
        return self._rollout.trial_id

    def init(self, prompt: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """Start the episode; the prompt with the policy and the user's opening added.

        Raises:
            ConfigError: An unknown task, or a test task the config does not allow.
            TrialSystemError: The episode could not start.
        """
        opening = self._rollout.reset(task_id=self.task_id)
        start = self._rollout._start
        tools = [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.input_schema,
                },
            }
            for t in (start.tools if start is not None else ())
        ]
        messages = [dict(m) for m in prompt]
        if messages and messages[0].get("role") == "system":
            messages[0]["content"] = f"{messages[0].get('content') or ''}\n\n{tools_prompt(tools)}"
        else:
            messages.insert(0, {"role": "system", "content": tools_prompt(tools)})
        if messages and messages[-1].get("role") == "user":
            content = str(messages[-1].get("content") or "")
            messages[-1]["content"] = f"{content}\n\n{opening}" if content else opening
        else:
            messages.append({"role": "user", "content": opening})
        return messages, {"task_id": self.task_id, "trial_id": self.trial_id}

    def step(self, action: str) -> dict[str, Any]:
        """One model turn: its tool calls, or a message to the user, or the final answer.

        Raises:
            TrialSystemError: statebox could not run the trajectory (no reward exists).
        """
        self.turns += 1
        rollout = self._rollout
        observations: list[dict[str, str]] = []
        calls = parse_turn(action)
        done = False
        if calls:
            for name, args in calls:
                observations.append({"role": "tool", "content": rollout._call(name, args)})
                if rollout._over:
                    done = True  # a statebox limit, or a fault (raised by _finish)
                    break
        elif DONE_MARKER in action:
            return self._end(action.replace(DONE_MARKER, "").strip(), observations)
        else:
            reply, done = rollout._say(action.strip())
            observations.append({"role": "user", "content": reply})
        if done or self.turns >= self.max_turns:
            return self._end(rollout._final, observations)
        return {"observations": observations, "reward": 0.0, "done": False, "metadata": {}}

    def _end(self, final: str, observations: list[dict[str, str]]) -> dict[str, Any]:
        self._reward = self._rollout._finish(final)  # raises TrialSystemError on a fault
        verdict = self._rollout.verdict
        return {
            "observations": observations,
            "reward": self._reward,
            "done": True,
            "metadata": {
                "trial_id": self.trial_id,
                "passed": bool(verdict and verdict.passed),
                "signature": str(verdict.signature) if verdict and verdict.signature else None,
            },
        }

    def get_metrics(self) -> dict[str, Any]:
        """The trajectory's reward and turns, for SkyRL's logs."""
        return {"statebox_reward": self._reward, "turns": self.turns}

    def close(self) -> None:
        """End the episode and drop its world."""
        self._rollout._close()
