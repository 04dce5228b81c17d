"""`Episode`: the one environment loop every driver (runner, OpenEnv server, MCP gateway) uses.

``reset()`` clones the task's world and returns the user's opening message with the
allowlisted tool schemas and the policy, served as the policy mode says (the whole text,
or a pointer to the ``search_policy`` tool); ``step(action)`` runs one action. When the
episode is over, `outcome()` hands the judge what it needs: initial and final state,
the live final world (for SQL invariants), transcript, final response and why it ended.

An episode runs on a `Domain` (statebox's SQLite worlds) or on an external `Backend`
(an MCP server process per trial: `statebox.thinkingbox`, `statebox.backends`); the
loop, the limits and the transcript are the same, and the outcome then carries the
live `ToolSession`, plus the initial state and terminal world of a `StateSession`.
"""

from __future__ import annotations

import random
from typing import Any, NamedTuple

from statebox.domains import Domain
from statebox.episode._approval import Approver
from statebox.episode._backend import Backend, StateSession, ToolSession
from statebox.episode._types import (
    Action,
    ApprovalDecision,
    CallTool,
    End,
    Event,
    Limits,
    MessageUser,
    Observation,
    TerminationReason,
    ToolInfo,
    ToolSurface,
    UserSimulator,
)
from statebox.kit import PolicyMode
from statebox.tasks import Task, WorldCache
from statebox.tools import (
    Dispatcher,
    DispatchErrorKind,
    ToolCall,
    ToolFailure,
    ToolResult,
    ToolSpec,
)
from statebox.world import State, World, WorldView

__all__ = ["DEFAULT_DISTRACTORS", "Episode", "EpisodeOutcome", "surface_tools"]

DEFAULT_DISTRACTORS = 3
"""Tools beyond the golden ones a ``minimal`` surface offers."""

# What an agent sees of a tool never changes (ToolInfo is frozen, the schema shared and
# read-only), so each spec's is built once rather than validated anew at every reset.
_TOOL_INFO: dict[int, tuple[ToolSpec, ToolInfo]] = {}


def _tool_info(spec: ToolSpec) -> ToolInfo:
    cached = _TOOL_INFO.get(id(spec))
    if cached is None or cached[0] is not spec:  # the spec is kept, so its id is not reused
        schema = spec.input_schema()
        info = ToolInfo(name=spec.name, description=spec.description, input_schema=schema)
        cached = _TOOL_INFO[id(spec)] = (spec, info)
    return cached[1]


_TOOL_INFOS: dict[tuple[ToolSpec, ...], tuple[ToolInfo, ...]] = {}
_TOOL_INFOS_MAX = 4096


def _tool_infos(specs: list[ToolSpec]) -> tuple[ToolInfo, ...]:
    """What an agent sees of ``specs``, in order; kept per tuple of the specs themselves.

    The key holds the specs (hashed by identity), so it names exactly these objects and
    their `_tool_info`; a task's every reset offers the same ones.
    """
    key = tuple(specs)
    infos = _TOOL_INFOS.get(key)
    if infos is None:
        if len(_TOOL_INFOS) >= _TOOL_INFOS_MAX:
            _TOOL_INFOS.clear()
        infos = _TOOL_INFOS[key] = tuple(_tool_info(s) for s in specs)
    return infos


def surface_tools(
    domain: Domain,
    task: Task,
    surface: ToolSurface,
    *,
    policy_mode: PolicyMode = "prompt",
    distractors: int = DEFAULT_DISTRACTORS,
    served: bool = False,
) -> tuple[str, ...]:
    """The tools an episode offers on a tool surface (docs/mitigations.md), sorted.

    ``task``: the task's allowlist, else the domain's tools (what `Domain.offered`
    gives). ``full``: every domain tool, widening a task's explicit allowlist — except
    where ``served`` (an outside agent reaching the tools through the MCP gateway or
    OpenEnv): there the allowlist is a boundary no surface widens, and ``full`` is
    ``task``. ``minimal``: the tools the task's golden trajectories call plus
    ``distractors`` others drawn from the ``task`` surface, the same for every trial of
    the task (seeded by its id); ``search_policy`` stays wherever the policy is served
    by search. Every surface stays inside the domain; lifecycle operations are never
    tools.
    """
    steps = task.record_steps
    offered = domain.offered(policy_mode=policy_mode, record_steps=steps, allowlist=task.tools)
    if surface == "task" or (surface == "full" and (served or task.tools is None)):
        return offered
    if surface == "full":
        return domain.offered(policy_mode=policy_mode, record_steps=steps)
    golden = {c.tool for trajectory in (task.golden, *task.checks.alternatives) for c in trajectory}
    keep = {n for n in offered if n in golden or (n == "search_policy" and policy_mode != "prompt")}
    pool = sorted(n for n in offered if n not in keep)
    rng = random.Random(f"minimal-surface|{task.id}")
    return tuple(sorted(keep | set(rng.sample(pool, min(distractors, len(pool))))))


MAX_ARGUMENT_DEPTH = 64
"""Deepest tool arguments a call may nest (objects and arrays; the arguments object is 1).

As deep as the served surfaces' request guard lets a whole request nest: deeper
arguments are refused as the agent's ``invalid_arguments`` before anything walks them
recursively (a deeper value could exhaust Python's recursion, or the record's
serialiser, and turn the agent's call into a system error)."""


def _clean_text(value: str) -> str:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return value.encode("utf-8", "replace").decode("utf-8")
    return value


class _TooDeep:
    """Set when `_clean` met a container nested deeper than `MAX_ARGUMENT_DEPTH`."""

    found = False


def _clean(value: Any, depth: int = 1, deep: _TooDeep | None = None) -> Any:
    """Replace lone surrogates (not encodable as UTF-8) in strings, recursively.

    A list or object at ``MAX_ARGUMENT_DEPTH + 1`` is replaced by an empty one of its
    kind (and ``deep.found`` set): what is kept nests one level too deep, no deeper, so
    the kept call is refused again the same way when replayed.
    """
    if isinstance(value, str):
        return _clean_text(value)
    if isinstance(value, dict | list | tuple) and depth > MAX_ARGUMENT_DEPTH:
        if deep is not None:
            deep.found = True
        return type(value)()
    if isinstance(value, dict):
        return {_clean(k): _clean(v, depth + 1, deep) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_clean(v, depth + 1, deep) for v in value)
    return value


def _failed(call: ToolCall, kind: DispatchErrorKind, message: str) -> ToolResult:
    return ToolResult(
        tool=call.tool, call_id=call.id, ok=False, error=ToolFailure.of(kind, message)
    )


def _clean_action(action: Action) -> tuple[Action, bool]:
    """The action as it is recorded, and whether its tool arguments nest too deep.

    Agent text becomes JSON records: a lone surrogate would make the trial unwritable.
    """
    if isinstance(action, CallTool):
        call, deep = action.call, _TooDeep()
        args = _clean(call.args, 1, deep)
        if deep.found or args != call.args or _clean_text(call.tool) != call.tool:
            update = {"args": args, "tool": _clean_text(call.tool)}
            return CallTool(call=call.model_copy(update=update)), deep.found
        return action, False
    text = _clean_text(action.text)
    return (action if text == action.text else action.model_copy(update={"text": text})), False


class EpisodeOutcome(NamedTuple):
    """What an ended episode leaves for the judge."""

    initial: State | None
    """Canonical state at reset (None on an external backend that keeps its own state)."""
    world: WorldView | None
    """The live final world, closed by `Episode.close` (None on an external backend that
    keeps its own state)."""
    transcript: tuple[Event, ...]
    """Every event in order."""
    final_response: str
    """The agent's last words to the user ('' when none)."""
    termination: TerminationReason
    """Why the episode ended."""
    session: ToolSession | None = None
    """The live tool session of an external backend, closed by `Episode.close` (its
    judge reads the server's effects from it); None on a domain."""


class Episode:
    """One run of one task from a clean world.

    Args:
        domain: The task's domain, or an external backend that opens a tool session
            per trial.
        task: The task.
        user: The user simulator.
        worlds: Template cache shared by the trials of a campaign.
        limits: Step and turn limits.
        policy_mode: How the policy is served, for every task (a campaign's choice);
            None: the task's ``policy_mode``, else ``prompt``. An external backend serves
            its own policy text in every mode.
        tool_surface: Which tools are offered (`surface_tools`); an external backend
            offers its own tools on every surface.
        distractors: Tools beyond the golden ones on the ``minimal`` surface.
        served: The tools reach an outside agent through a served surface (MCP gateway,
            OpenEnv): ``full`` does not widen a task's allowlist.
        approver: Holds calls to the domain's irreversible tools until it decides (an
            approval gate, `statebox.episode.Approver`); None: no gate.
    """

    def __init__(
        self,
        domain: Domain | Backend,
        task: Task,
        user: UserSimulator,
        *,
        worlds: WorldCache | None = None,
        limits: Limits | None = None,
        policy_mode: PolicyMode | None = None,
        tool_surface: ToolSurface = "task",
        distractors: int = DEFAULT_DISTRACTORS,
        served: bool = False,
        approver: Approver | None = None,
    ) -> None:
        self.domain = domain
        self.tool_surface: ToolSurface = tool_surface
        """The tool surface this episode offers."""
        self.distractors = distractors
        self.served = served
        self.approver = approver
        """The approval gate's approver (None: no gate)."""
        self.task = task
        self.policy_mode: PolicyMode = policy_mode or task.policy_mode or "prompt"
        """The policy mode this episode serves."""
        self.user = user
        self.worlds = worlds or WorldCache()
        self.limits = limits or Limits()
        self._world: World | None = None
        self._dispatcher: Dispatcher | None = None
        self._session: ToolSession | None = None
        self._events: list[Event] = []
        self._steps = 0
        self._turns = 0
        self._final = ""
        self._termination: TerminationReason | None = None
        self._fault: Exception | None = None

    @property
    def fault(self) -> Exception | None:
        """What a tool call raised (a statebox bug, a backend that died), if one did.

        The episode then ended with ``system_error``. Drivers that do not see the
        exception themselves (an outside agent calling through the MCP gateway) check
        it: the trial is a system error, not the agent's failure.
        """
        return self._fault

    @property
    def done(self) -> bool:
        """Whether the episode has ended."""
        return self._termination is not None

    @property
    def transcript(self) -> tuple[Event, ...]:
        """Events so far."""
        return tuple(self._events)

    @property
    def tool_results(self) -> list[ToolResult]:
        """Results of every tool call so far, in order."""
        return [e.result for e in self._events if e.result is not None]

    @property
    def last_tool_result(self) -> ToolResult:
        """The latest call's result: ``tool_results[-1]``, read from the end.

        Drivers read it after every call, so it must not list all the calls before.

        Raises:
            IndexError: No call has a result yet.
        """
        for e in reversed(self._events):
            if e.result is not None:
                return e.result
        raise IndexError("no tool call has a result yet")

    async def reset(self) -> Observation:
        """Start the episode on a fresh clone of the task's world.

        Returns:
            The start observation: the user's opening, the allowlisted tools, the policy.

        Raises:
            TaskSpecError: The task's initial state cannot be built.
        """
        self.close()
        tools: tuple[ToolInfo, ...]
        if isinstance(self.domain, Domain):
            d, steps = self.domain, self.task.record_steps
            self._world = self.worlds.clone(d, self.task)
            offered = surface_tools(
                d,
                self.task,
                self.tool_surface,
                policy_mode=self.policy_mode,
                distractors=self.distractors,
                served=self.served,
            )
            self._dispatcher = Dispatcher(self._world, d.toolset(record_steps=steps), offered)
            tools = _tool_infos(self._dispatcher.specs())
            policy = d.served_policy(policy_mode=self.policy_mode, record_steps=steps)
        else:
            self._session = await self.domain.open(self.task)
            tools = self._session.tools()
            policy = self.domain.task_policy(self.task)
        self._events, self._steps, self._turns = [], 0, 0
        self._final, self._termination, self._fault = "", None, None
        opening = await self.user.opening()
        self._events.append(Event(kind="user_message", text=opening))
        return Observation(
            kind="start",
            step=0,
            user_message=opening,
            tools=tools,
            policy=policy,
            policy_mode=self.policy_mode if isinstance(self.domain, Domain) else "prompt",
        )

    def _finish(self, reason: TerminationReason) -> Observation:
        self._termination = reason
        return Observation(kind="done", step=self._steps, done=True, termination=reason)

    async def step(self, action: Action) -> Observation:
        """Take one action.

        Returns:
            ``tool_result`` after a call, ``user_message`` after a message the user
            answered, ``done`` once the episode ends (by the agent, the user or a limit).

        Raises:
            RuntimeError: Stepping before `reset` or after the end.
        """
        if (self._dispatcher is None and self._session is None) or self._termination is not None:
            raise RuntimeError("step() needs a reset() episode that has not ended")
        action, too_deep = _clean_action(action)
        self._steps += 1
        if isinstance(action, CallTool):
            call = action.call
            if too_deep:
                message = f"arguments nested deeper than {MAX_ARGUMENT_DEPTH} levels"
                return self._called(call, _failed(call, "invalid_arguments", message))
            decision = await self._hold(call)
            if decision is not None and not decision.approved:
                message = (
                    f"an approver ({decision.approver}) refused this call; the change was not "
                    f"made: {decision.reason}"
                )
                refused = ToolResult(
                    tool=call.tool,
                    call_id=call.id,
                    ok=False,
                    error=ToolFailure.of("approval_refused", message),
                    mutating=True,
                )
                return self._called(call, refused, decision)
            return self._called(call, await self._run(call, decision), decision)
        if isinstance(action, End):
            self._final = action.text
            self._events.append(Event(kind="end", text=action.text))
            return self._finish(TerminationReason.AGENT_END)
        assert isinstance(action, MessageUser)  # the Action union is closed
        self._final = action.text
        self._turns += 1
        self._events.append(Event(kind="agent_message", text=action.text))
        if self._turns >= self.limits.max_turns:
            return self._finish(TerminationReason.MAX_TURNS)
        reply = await self.user.reply(action.text)
        self._events.append(Event(kind="user_message", text=reply.text))
        if reply.done:
            return self._finish(TerminationReason.USER_END)
        if self._steps >= self.limits.max_steps:
            return self._finish(TerminationReason.MAX_STEPS)
        return Observation(kind="user_message", step=self._steps, user_message=reply.text)

    async def _hold(self, call: ToolCall) -> ApprovalDecision | None:
        """The approver's decision when the gate holds ``call``, else None.

        Held: a call to an irreversible tool of the domain that would reach the tool
        (one the dispatcher would refuse anyway gets its own refusal, unheld).
        """
        if self.approver is None or not isinstance(self.domain, Domain):
            return None
        if call.tool not in self.domain.irreversible or self._dispatcher is None:
            return None
        if self._dispatcher.refusal(call) is not None:
            return None
        return await self.approver.decide(call)

    async def _run(self, call: ToolCall, decision: ApprovalDecision | None = None) -> ToolResult:
        try:
            if self._session is not None:
                return await self._session.call(call)
            assert self._dispatcher is not None  # one of the two is open (step checked)
            return self._dispatcher.call(call)
        except Exception as exc:
            # Every call the agent made stays in the transcript with what became of it;
            # this one broke statebox or its backend, so the trial is a system error.
            text = f"statebox could not run this call: {type(exc).__name__}: {exc}"[:500]
            failed = _failed(call, "internal_error", text)
            self._events.append(
                Event(kind="tool_call", call=call, result=failed, approval=decision)
            )
            self._fault = exc
            self._termination = TerminationReason.SYSTEM_ERROR
            raise
        except BaseException:
            # Cancelled mid-call (the trial's time limit): the call has no result.
            self._events.append(Event(kind="tool_call", call=call, approval=decision))
            raise

    def _called(
        self, call: ToolCall, result: ToolResult, decision: ApprovalDecision | None = None
    ) -> Observation:
        self._events.append(Event(kind="tool_call", call=call, result=result, approval=decision))
        if self._steps >= self.limits.max_steps:
            return self._finish(TerminationReason.MAX_STEPS)
        return Observation(kind="tool_result", step=self._steps, tool_result=result)

    def refuse(self, call: ToolCall, kind: DispatchErrorKind, message: str) -> Observation:
        """Record a call a driver refused before it reached the tools, as a step.

        The MCP gateway refuses lifecycle names this way: the refusal is in the
        transcript like any other failed call, and the world is untouched.

        Raises:
            RuntimeError: Before `reset` or after the end.
        """
        if (self._dispatcher is None and self._session is None) or self._termination is not None:
            raise RuntimeError("refuse() needs a reset() episode that has not ended")
        action, _ = _clean_action(CallTool(call=call))
        assert isinstance(action, CallTool)  # cleaning keeps the action's kind
        self._steps += 1
        return self._called(action.call, _failed(action.call, kind, message))

    def stop(self, reason: TerminationReason) -> None:
        """End the episode from outside (timeout, system error)."""
        if self._termination is None:
            self._termination = reason

    def outcome(self) -> EpisodeOutcome:
        """What the judge needs; the world stays open until `close`.

        Raises:
            RuntimeError: Before the episode has ended.
        """
        if (self._world is None and self._session is None) or self._termination is None:
            raise RuntimeError("outcome() needs an ended episode")
        initial: State | None = None
        world: WorldView | None = self._world
        if isinstance(self.domain, Domain):
            initial = self.worlds.initial_state(self.domain, self.task)
        elif isinstance(self._session, StateSession):
            initial, world = self._session.initial_state(), self._session.world()
        return EpisodeOutcome(
            initial=initial,
            world=world,
            transcript=tuple(self._events),
            final_response=self._final,
            termination=self._termination,
            session=self._session,
        )

    def close(self) -> None:
        """Release the world or the tool session.

        A session finishes closing in the background: its owner stops the server.
        """
        if self._world is not None:
            self._world.close()
            self._world = None
            self._dispatcher = None
        if self._session is not None:
            self._session.close()
            self._session = None
