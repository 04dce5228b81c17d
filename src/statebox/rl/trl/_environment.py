"""A TRL ``environment_factory`` class over in-process statebox episodes.

Follows TRL 1.16's ``GRPOTrainer(environment_factory=...)`` contract (read from
``trl/trainer/grpo_trainer.py``): the trainer calls the class with no argument, once
per concurrent rollout, and reuses the instances across batches; before each rollout
it calls ``reset(**row)`` with the dataset row (a returned string is appended to the
row's last user message); every public function of the class but ``reset`` and
``get_reward`` is a tool, rendered into the prompt from its signature and Google-style
docstring and called with the model's arguments as keywords (what the method returns
is shown to the model with ``str()``; what it raises is caught and shown as
``{"error": ...}``); ``get_reward()`` scores the finished rollout.

Here:

- ``reset(task_id=..., **row)`` starts an episode of that task on a fresh world (test
  tasks refused unless the class allows them) and returns the policy and the user's
  opening message.
- Each tool of the suite's domains is a method with the tool's own typed parameters
  and docstring. Its body sends the call, as given, to the `Episode`: bad arguments,
  names outside the task's allowlist and all are structured refusals recorded in the
  transcript, exactly as on statebox's other paths. It returns the result as JSON.
- The simulated user (TRL has no slot for one) is the ``send_message_to_user`` tool:
  the user's reply is its result.
- ``get_reward()`` ends the episode (its final response is the last message sent to
  the user: TRL does not hand an environment the model's last completion), judges it,
  and returns 1.0 iff the verdict passed, else 0.0. A rollout statebox could not run
  raises `TrialSystemError` with the trial id instead: TRL catches what a tool raises,
  not what ``get_reward`` raises, so the batch fails loudly and is refilled.
"""

from __future__ import annotations

import inspect
import itertools
import json
import types
from collections.abc import Callable, Iterable, Mapping
from typing import Annotated, Any, Union, get_args, get_origin

from statebox.domains import Domain
from statebox.episode import (
    CallTool,
    End,
    Episode,
    Limits,
    MessageUser,
    Observation,
    UserSimulator,
)
from statebox.errors import ConfigError
from statebox.judge import Verdict
from statebox.rl import _loop
from statebox.rl._errors import TrialSystemError
from statebox.serve import TaskCatalog
from statebox.tasks import Task
from statebox.tools import ToolCall, ToolResult, ToolSpec
from statebox.users import RuleUser

__all__ = ["USER_TOOL", "StateboxTrlEnvironment", "environment_class"]

USER_TOOL = "send_message_to_user"
"""The tool through which the policy talks to the simulated user."""

_NOT_TOOLS = frozenset({"reset", "get_reward", USER_TOOL})
_COUNTER = itertools.count(1)


def _plain(tp: Any) -> Any:
    """``tp`` without ``Annotated`` metadata (the prompt shows types; statebox validates)."""
    origin, args = get_origin(tp), get_args(tp)
    if origin is Annotated:
        return _plain(args[0])
    if origin in (Union, types.UnionType):
        return Union[tuple(_plain(a) for a in args)]  # noqa: UP007 (built from a tuple)
    if origin in (list, tuple, set, frozenset, dict) and args:
        return origin[tuple(a if a is Ellipsis else _plain(a) for a in args)]
    return tp


def _docstring(spec: ToolSpec) -> str:
    lines = [spec.description.strip() or spec.name, ""]
    fields = spec.params.model_fields
    if fields:
        lines.append("Args:")
        for name, field in fields.items():
            lines.append(f"    {name}: {field.description or name}")
        lines.append("")
    lines += ["Returns:", '    The tool\'s result as JSON, or {"error": {"kind", "message"}}.']
    return "\n".join(lines)


def _tool_method(spec: ToolSpec) -> Callable[..., str]:
    """A method named and typed as the tool, whose body hands the call to the episode."""
    name = spec.name

    def method(self: StateboxTrlEnvironment, **arguments: Any) -> str:
        return self._call(name, arguments)

    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {}
    for arg, field in spec.params.model_fields.items():
        tp = _plain(field.annotation)
        default = inspect.Parameter.empty if field.is_required() else field.default
        params.append(
            inspect.Parameter(arg, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=tp)
        )
        annotations[arg] = tp
    annotations["return"] = str
    method.__name__ = method.__qualname__ = name
    method.__doc__ = _docstring(spec)
    method.__annotations__ = annotations
    method.__signature__ = inspect.Signature(params, return_annotation=str)  # type: ignore[attr-defined]
    return method


def _shown(result: ToolResult) -> str:
    if result.ok:
        return json.dumps(result.output, default=str)
    assert result.error is not None  # a failed result carries its error
    return json.dumps({"error": {"kind": result.error.kind, "message": result.error.message}})


def _ended(message: str) -> str:
    return json.dumps({"error": {"kind": "episode_ended", "message": message}})


class StateboxTrlEnvironment:
    """Base of the classes `environment_class` makes; one rollout at a time per instance.

    Class attributes (set by `environment_class`): ``catalog``, ``allow_test``,
    ``timeout_s`` and ``_users`` (private: every public function is a tool to TRL).
    """

    catalog: TaskCatalog
    allow_test: bool = False
    timeout_s: float = 120.0
    _users: Callable[[Task], UserSimulator] | None = None

    def __init__(self) -> None:
        self._episode: Episode | None = None
        self._task: Task | None = None
        self._final = ""
        self._verdict: Verdict | None = None
        self._fault: str | None = None
        self._start: Observation | None = None
        self.trial_id: str | None = None
        """The current rollout's trial id (``<task id>/<n>``), named by its errors."""

    def reset(self, task_id: str | None = None, **row: Any) -> str:
        """Start an episode of ``task_id`` (the dataset row's) on a fresh world.

        Args:
            task_id: The task to play; the row's other columns (``prompt`` ...) are ignored.
            **row: The rest of the dataset row.

        Returns:
            The policy and the user's opening message, appended to the row's prompt.

        Raises:
            ConfigError: No or unknown task id, or a test task the class does not allow.
            TrialSystemError: The episode could not start.
        """
        self._close()
        if task_id is None:
            raise ConfigError("reset needs the dataset row's task_id (see statebox.rl.trl.rows)")
        task = self.catalog.tasks.get(task_id)
        if task is None:
            raise ConfigError(f"task {task_id!r} is not in this environment's suite")
        if task.split != "train" and not self.allow_test:
            raise ConfigError(
                f"task {task_id}: a {task.split} task; this environment trains on train tasks "
                "only (environment_class(..., allow_test=True) to allow it)"
            )
        self._task = task
        self.trial_id = f"{task.id}/{next(_COUNTER)}"
        cat = self.catalog
        user = RuleUser(task) if self._users is None else self._users(task)
        episode = Episode(
            cat.domains[task.domain],
            task,
            user,
            worlds=cat.worlds,
            limits=cat.limits,
            policy_mode=cat.policy_mode,
        )
        self._episode = episode
        obs = self._run(episode.reset())
        self._start = obs
        return _opening(obs)

    def get_reward(self) -> float:
        """End the episode (if still live), judge it: 1.0 iff the verdict passed, else 0.0.

        Raises:
            RuntimeError: Called before `reset`.
            TrialSystemError: statebox could not run the rollout (no reward exists).
        """
        if self._episode is None or self._task is None:
            raise RuntimeError("get_reward() before reset()")
        if self._verdict is None:
            episode = self._episode
            if self._fault is None and episode.fault is not None:
                self._fault = f"{type(episode.fault).__name__}: {episode.fault}"
            if self._fault is not None:
                raise TrialSystemError(str(self.trial_id), self._fault)
            if not episode.done:
                self._run(episode.step(End(text=self._final)))
            self._verdict = self._run(self.catalog.judge(self._task, episode))
        return 1.0 if self._verdict.passed else 0.0

    def send_message_to_user(self, message: str) -> str:
        """Send a message to the user and wait for their reply.

        Args:
            message: What to tell or ask the user.

        Returns:
            The user's reply, or a note that they have ended the conversation.
        """
        episode = self._live()
        if episode is None:
            return _ended("the conversation has ended")
        self._final = message
        try:
            obs = self._run(episode.step(MessageUser(text=message)))
        except TrialSystemError:
            return _ended("statebox could not reach the user")
        if obs.done:
            return "(The user has ended the conversation.)"
        return obs.user_message or ""

    # Private (every public function is a TRL tool): the other adapters' use of one rollout.

    def _say(self, message: str) -> tuple[str, bool]:
        """Send ``message`` to the user: (their reply, whether the episode has ended)."""
        reply = self.send_message_to_user(message)
        return reply, self._live() is None

    def _finish(self, final: str) -> float:
        """End the episode with ``final`` as its final response and judge it (`get_reward`)."""
        if self._verdict is None and self._fault is None:
            self._final = final
        return self.get_reward()

    @property
    def _over(self) -> bool:
        """The episode has ended (the policy's last action, a limit, or a fault)."""
        return self._live() is None

    @property
    def verdict(self) -> Verdict | None:
        """The last rollout's verdict, once `get_reward` has judged it."""
        return self._verdict

    def _live(self) -> Episode | None:
        episode = self._episode
        if episode is None:
            raise RuntimeError("a tool was called before reset()")
        return None if episode.done or self._fault is not None else episode

    def _call(self, name: str, arguments: dict[str, Any]) -> str:
        episode = self._live()
        if episode is None:
            return _ended("the episode has ended: no more tool calls")
        call = ToolCall(tool=name, args=dict(arguments))
        try:
            self._run(episode.step(CallTool(call=call)))
        except TrialSystemError:
            return _ended("statebox could not run this call")
        return _shown(episode.last_tool_result)

    def _run(self, coro: Any) -> Any:
        try:
            return _loop.run(coro, self.timeout_s)
        except Exception as exc:
            faulted = self._episode is not None and self._episode.fault is not None
            if isinstance(exc, RuntimeError) and not faulted:
                raise  # a misuse (a step after the end), not a broken rollout
            # The episode, its world, its user or its judge broke: not the policy's doing.
            self._fault = f"{type(exc).__name__}: {exc}"
            raise TrialSystemError(str(self.trial_id), self._fault) from exc

    def _close(self) -> None:
        if self._episode is not None:
            self._episode.close()
        self._episode, self._task, self._verdict, self._fault = None, None, None, None
        self._final = ""


def _opening(obs: Observation) -> str:
    parts = []
    if obs.policy:
        parts.append(f"Policy:\n{obs.policy}")
    parts.append(f"User: {obs.user_message or ''}")
    return "\n\n".join(parts)


def environment_class(
    tasks: Iterable[Task],
    domains: Mapping[str, Any],
    *,
    allow_test: bool = False,
    users: Callable[[Task], UserSimulator] | None = None,
    limits: Limits | None = None,
    timeout_s: float = 120.0,
    name: str = "StateboxEnvironment",
) -> type[StateboxTrlEnvironment]:
    """A TRL ``environment_factory`` class for ``tasks`` (``GRPOTrainer(environment_factory=cls)``).

    Args:
        tasks: The tasks rollouts may reset to (by the dataset row's ``task_id``).
        domains: Their domains by name.
        allow_test: Let ``reset`` start ``split: test`` tasks (refused by default).
        users: The simulated user of each rollout (default: the task's rule-based user).
        limits: Per-episode step and turn limits.
        timeout_s: Longest one step may take before the rollout is a system error.
        name: The class's name (TRL logs the reward under it).

    Returns:
        The class: every tool of the domains is a method, plus ``send_message_to_user``.

    Raises:
        ConfigError: Two domains define one tool name differently, or a tool is named
            ``reset``, ``get_reward`` or ``send_message_to_user``.
    """
    catalog = TaskCatalog(tasks, domains, limits)
    specs: dict[str, ToolSpec] = {}
    for domain_name in sorted({t.domain for t in catalog.tasks.values()}):
        domain = catalog.domains[domain_name]
        if not isinstance(domain, Domain):
            # An outside environment's tools are only known once its servers run.
            raise ConfigError(
                f"domain {domain_name}: the TRL adapter takes statebox domains, "
                "not an outside environment's tasks"
            )
        for spec in domain.tools.values():
            if spec.name in _NOT_TOOLS or spec.name.startswith("_"):
                raise ConfigError(f"domain {domain_name}: tool {spec.name!r} cannot be a method")
            seen = specs.get(spec.name)
            if seen is not None and seen.input_schema() != spec.input_schema():
                raise ConfigError(
                    f"domain {domain_name}: tool {spec.name!r} differs from another domain's "
                    "(make one environment class per domain)"
                )
            specs[spec.name] = spec
    namespace: dict[str, Any] = {n: _tool_method(s) for n, s in sorted(specs.items())}
    namespace.update(
        catalog=catalog,
        allow_test=allow_test,
        _users=None if users is None else staticmethod(users),
        timeout_s=timeout_s,
        __module__=__name__,
        __doc__=f"statebox episodes of {len(catalog.tasks)} tasks as a TRL environment.",
    )
    return type(name, (StateboxTrlEnvironment,), namespace)
