"""The OpenEnv environment server: statebox episodes as an RL environment.

Built with the ``openenv`` package's `Environment` and `create_fastapi_app`, so its
HTTP routes (``/reset``, ``/step``, ``/state``, ``/schema``, ``/health``) and its
WebSocket session (``/ws``) are OpenEnv's own; statebox adds ``/ready`` (503 until
the tasks are loaded, and every other route but ``/health`` is refused until then).

``reset`` takes ``task_id``, or ``split`` and ``index`` (OpenEnv's task API), or
samples a task from ``split`` (``train`` by default; ``test`` tasks are refused unless
the server was started with ``allow_test_split``) with an optional ``seed``. A catalog
whose tasks serve evaluation only (a ThinkingBox dataset: its card forbids training on
them) serves every task as an evaluation, samples from ``test`` by default, and refuses
``split: train`` with the card's reason. ``step`` takes a `StateboxAction`. The
terminal step carries ``reward`` 1.0 iff the verdict passed, else 0.0, and the verdict
in ``metadata``; earlier steps carry no reward. A step that breaks statebox
(``system_error``) is never a reward: it is refused with an error naming the episode,
and the episode is dropped, so a trainer can re-run it; so is an environment that
fails (a server crash, a timeout, a check that cannot run). Every observation's
``metadata`` says the episode's ``mode`` (``training`` or ``evaluation``).

OpenEnv's whole interface is served: its task API (``/statebox/splits``, ``/tasks``,
``/num_tasks``, ``/task``, ``/task_range``: ids, splits and domains, nothing of the
evaluator's), and its MCP tool-calling interface (``POST /mcp``: ``tools/list`` and
``tools/call`` on an ``openenv/session/create`` session whose WebSocket resets and
ends the episode; see `statebox.serve._openenv_mcp`). Agent-facing start data is also
in each observation's ``metadata`` (``user_message``, ``policy`` ...), since openenv's
MCP client keeps only ``metadata``, ``reward`` and ``done`` of a non-tool step.

Episodes live in the server, keyed by an unguessable episode id that reset returns:
a WebSocket session steps its own episode; plain HTTP ``/step`` names it with an
``episode_id`` field beside the action (OpenEnv's HTTP routes build a fresh
`Environment` per request; statebox answers HTTP ``/reset`` and ``/step`` itself with
openenv's own request models and serialiser, see `_direct`, for speed). Ended episodes
are dropped at once.

Nobody can crowd out other clients: a client (peer address; every loopback address is
one client) holds at most ``max_per_client`` live episodes opened over plain HTTP (its
own oldest is dropped beyond that) and as many WebSockets, each holding its own episode,
never evicted; episodes and WebSockets idle for ``idle_timeout_s`` are reaped; when
``max_live`` episodes are live a reset is refused (503), never served by evicting
someone else's; a client holds at most ``max_per_client`` MCP sessions too, and
OpenEnv's own reaper (``ConcurrencyConfig(session_timeout=idle_timeout_s)``) ends
those left idle. With a ``token``, every route but ``/health`` and ``/ready`` needs
``Authorization: Bearer <token>`` (the WebSocket handshake too). OpenEnv's docs pages
and its MCP WebSocket (``/mcp`` as a WebSocket, which opens a session no reset can
reach) answer 404.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import inspect
import json
import random
import sys
import time
from collections import Counter, OrderedDict
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pydantic_core
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from statebox.episode import Action as EpisodeAction
from statebox.episode import CallTool, End, MessageUser, ToolInfo
from statebox.episode import Observation as EpisodeObservation
from statebox.serve import _openenv_import
from statebox.serve._by_identity import ByIdentity
from statebox.serve._failures import EpisodeSystemError
from statebox.serve._guard import read_body, replayed
from statebox.serve._openenv_mcp import (
    EpisodeToolClient,
    McpSessionOwners,
    call_result,
    list_tools,
    run_call,
)
from statebox.serve._openenv_types import StateboxAction, StateboxObservation, StateboxState
from statebox.serve._sessions import Session, TaskCatalog, is_reserved_name, same_secret
from statebox.serve._unechoable import UnreadableJson, load_json, unechoable
from statebox.tasks import Task
from statebox.tools import ToolCall, ToolResult

_openenv_import.server_side()  # openenv's server side, without gradio or FastMCP

from fastapi import FastAPI  # noqa: E402
from openenv.core.env_server.http_server import HTTPEnvServer  # noqa: E402
from openenv.core.env_server.interfaces import Environment  # noqa: E402
from openenv.core.env_server.mcp_types import (  # noqa: E402
    CallToolAction,
    CallToolObservation,
    ListToolsAction,
    ListToolsObservation,
)
from openenv.core.env_server.serialization import (  # noqa: E402
    deserialize_action,
    serialize_observation,
)
from openenv.core.env_server.types import (  # noqa: E402
    ConcurrencyConfig,
    EnvironmentMetadata,
    ResetRequest,
    StepRequest,
)
from pydantic import ValidationError  # noqa: E402

__all__ = ["EpisodeRequestError", "OpenEnvServer", "StateboxEnvironment"]


class EpisodeRequestError(ValueError):
    """A reset or step the server refuses (unknown task, test split, no live episode).

    OpenEnv's WebSocket session reports it as an error message; HTTP answers
    ``status`` (400, or 503 when the server is full).
    """

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def _typed(**fields: tuple[object, type | tuple[type, ...]]) -> None:
    """Refuse a reset or step argument of the wrong JSON type (400, never a 500).

    openenv's request models allow extra fields, so these arrive unvalidated.
    """
    for name, (value, kind) in fields.items():
        if value is not None and (isinstance(value, bool) or not isinstance(value, kind)):
            raise EpisodeRequestError(f"{name} must be {getattr(kind, '__name__', 'a number')}")


_OPEN_WHILE_LOADING = frozenset({"/health", "/ready"})
_OPEN_WITHOUT_TOKEN = _OPEN_WHILE_LOADING
_TASK_ROUTES = frozenset(
    {"/list_environments"}
    | {f"/statebox/{r}" for r in ("splits", "tasks", "num_tasks", "task", "task_range")}
)
_SERVED = (
    frozenset({"/reset", "/step", "/state", "/schema", "/metadata", "/ws", "/mcp"})
    | _TASK_ROUTES
    | _OPEN_WHILE_LOADING
)
"""OpenEnv's environment, MCP and task routes; the rest of its app (docs) is off."""

_DIRECT = frozenset({"/reset", "/step"})
"""OpenEnv's HTTP routes statebox answers itself (`_direct`), not through FastAPI."""

_CLIENT: contextvars.ContextVar[str] = contextvars.ContextVar("statebox_openenv_client")
"""The peer address of the request being served (per-client limits)."""
_OVER_SOCKET: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "statebox_openenv_over_socket", default=False
)
"""Whether the request being served came over a WebSocket (its episode is the socket's)."""


def client_key(address: str) -> str:
    """The client a peer address counts as for the per-client limits.

    Every loopback address is one client: all of 127.0.0.0/8 reaches a server bound to
    loopback, so a local process naming itself 127.0.0.2, 127.0.0.3 ... would otherwise
    hold a share per address.
    """
    if address.startswith(("127.", "::ffff:127.")) or address == "::1":
        return "127.0.0.1"
    return address


def _agent_result(r: ToolResult) -> dict[str, Any]:
    error = None if r.error is None else r.error.agent_view()
    return {"tool": r.tool, "ok": r.ok, "output": r.output, "error": error}


def _to_episode_action(a: StateboxAction) -> EpisodeAction:
    if a.kind == "call_tool":
        if not a.tool:
            raise EpisodeRequestError("call_tool needs a tool name")
        return CallTool(call=ToolCall(tool=a.tool, args=a.args))
    if a.kind == "message_user":
        return MessageUser(text=a.text)
    return End(text=a.text)


class OpenEnvServer:
    """Holds the live RL episodes and the OpenEnv FastAPI app.

    Args:
        catalog: Returns the task catalog, or None while it loads.
        allow_test_split: Serve ``split: test`` tasks too.
        max_live: Most live episodes at once; a reset beyond it is refused (503).
        max_sessions: Most concurrent WebSocket sessions.
        max_per_client: Most live episodes, and WebSockets, of one peer address.
        idle_timeout_s: Episodes and WebSockets unused this long are reaped (None: never).
        token: Bearer token every route but health and readiness needs (None: none).
    """

    def __init__(
        self,
        catalog: Callable[[], TaskCatalog | None],
        allow_test_split: bool = False,
        *,
        max_live: int = 4096,
        max_sessions: int = 1024,
        max_per_client: int = 64,
        idle_timeout_s: float | None = None,
        token: str | None = None,
    ) -> None:
        self.catalog = catalog
        self.allow_test_split = allow_test_split
        self.max_live = max_live
        self.max_per_client = max_per_client
        self.idle_timeout_s = idle_timeout_s
        self.live: OrderedDict[str, Session] = OrderedDict()
        self.owner: dict[str, str] = {}
        """Episode id → the peer address that opened it."""
        self._mine: dict[str, OrderedDict[str, None]] = {}
        """Peer address → its live episode ids, least recently used first (as ``live``):
        a reset finds the client's own oldest without scanning every live episode."""
        self._rng = random.Random(0)
        # OpenEnv's own server and routes, on an app without its docs pages.
        inner = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
        self.http = HTTPEnvServer(
            functools.partial(StateboxEnvironment, self),
            StateboxAction,
            StateboxObservation,
            concurrency_config=ConcurrencyConfig(
                max_concurrent_envs=max_sessions, session_timeout=idle_timeout_s
            ),
            env_name="statebox",
            state_cls=StateboxState,
        )
        self.http.register_routes(inner, mode="simulation")
        self.mcp_sessions = McpSessionOwners(
            max_per_client, lambda sid: self.http.get_session_info(sid) is not None
        )
        self._inner = inner

        async def ready() -> JSONResponse:
            cat = self.catalog()
            if cat is None:
                return JSONResponse({"ready": False, "loading": True}, status_code=503)
            return JSONResponse({"ready": True, "tasks": len(self.servable())})

        async def refused(request: Request, exc: Exception) -> JSONResponse:
            status = exc.status if isinstance(exc, EpisodeRequestError) else 400
            return JSONResponse({"error": str(exc)}, status_code=status)

        inner.add_api_route("/ready", ready, methods=["GET"])

        async def failed(request: Request, exc: Exception) -> JSONResponse:
            # An environment failure that escaped a step: a system error, never a reward.
            return JSONResponse({"status": "system_error", "error": str(exc)}, status_code=502)

        inner.add_exception_handler(EpisodeRequestError, refused)
        inner.add_exception_handler(EpisodeSystemError, failed)
        self.app: ASGIApp = _Gate(self, inner, token)

    @asynccontextmanager
    async def lifespan(self) -> AsyncIterator[None]:
        """Run OpenEnv's start-up and shutdown (its idle reaper); close episodes at the end."""
        try:
            # A mounted app gets no lifespan events of its own: run its router's here.
            async with self._inner.router.lifespan_context(self._inner):
                yield
        finally:
            for s in self.live.values():
                s.close()
            self.live.clear()
            self.owner.clear()
            self._mine.clear()

    def servable(self, split: str | None = None) -> list[Task]:
        """Tasks this server may serve (optionally of one split), in id order."""
        cat = self.catalog()
        if cat is None:
            return []
        test = self._allows_test(cat)
        return [
            t
            for _, t in sorted(cat.tasks.items())
            if (test or t.split == "train") and (split is None or t.split == split)
        ]

    def _allows_test(self, cat: TaskCatalog) -> bool:
        return self.allow_test_split or cat.evaluation_only is not None

    def splits(self) -> list[str]:
        """The splits this server serves that hold tasks, in order (train, then test)."""
        present = {t.split for t in self.servable()}
        return [s for s in ("train", "test") if s in present]

    def split_tasks(self, split: str) -> list[Task]:
        """The tasks of one served split, in id order (OpenEnv's task API indexes them).

        Raises:
            EpisodeRequestError: The split is not served (403) or unknown (404).
        """
        if split not in ("train", "test"):
            raise EpisodeRequestError(f"unknown split {split!r}; splits: train, test", 404)
        cat = self.catalog()
        if cat is not None and cat.evaluation_only is not None and split == "train":
            raise EpisodeRequestError(_training_refused(cat.evaluation_only), 403)
        if split != "train" and not (cat is not None and self._allows_test(cat)):
            raise EpisodeRequestError(
                f"split {split!r} is not served (start with --allow-test-split)", 403
            )
        return self.servable(split)

    def pick(
        self,
        task_id: str | None,
        split: str | None,
        seed: int | None,
        index: int | None = None,
    ) -> Task:
        """The task to reset to.

        Raises:
            EpisodeRequestError: Not loaded, unknown id, a test task without the flag, an
                empty split, or an index outside the split.
        """
        cat = self.catalog()
        if cat is None:
            raise EpisodeRequestError("tasks are still loading; wait for /ready")
        if cat.evaluation_only is not None and split == "train":
            raise EpisodeRequestError(_training_refused(cat.evaluation_only))
        if task_id is not None:
            task = cat.tasks.get(task_id)
            if task is None:
                raise EpisodeRequestError(f"unknown task {task_id!r}")
            if task.split != "train" and not self._allows_test(cat):
                raise EpisodeRequestError(
                    f"task {task_id!r} is a {task.split} task; only train tasks are served "
                    "unless the server runs with --allow-test-split"
                )
            return task
        split = split or ("test" if cat.evaluation_only is not None else "train")
        if split != "train" and not self._allows_test(cat):
            raise EpisodeRequestError(
                f"split {split!r} is not served (start with --allow-test-split)"
            )
        tasks = self.servable(split)
        if not tasks:
            raise EpisodeRequestError(f"no {split} tasks to serve")
        if index is not None:
            if not 0 <= index < len(tasks):
                raise EpisodeRequestError(f"split {split!r} has no task {index} ({len(tasks)})")
            return tasks[index]
        rng = random.Random(seed) if seed is not None else self._rng
        return rng.choice(tasks)

    def open(self, task: Task) -> Session:
        """A new live episode of ``task`` for the current client.

        Beyond ``max_per_client`` episodes opened over plain HTTP the client's oldest
        such episode is dropped. An episode opened over a WebSocket is its socket's (one
        at a time, and a client's sockets are capped) and is never evicted: on loopback
        every local program is one client, and one must not end another's rollout.
        Other clients' episodes are never evicted.

        Raises:
            EpisodeRequestError: ``max_live`` episodes are live (status 503).
        """
        cat = self.catalog()
        assert cat is not None  # pick() checked
        client = _CLIENT.get("")
        over_socket = _OVER_SOCKET.get()
        mine = None if over_socket else self._mine.get(client)
        # Oldest first; only the excess is visited (a copy of every id would cost each
        # reset the client's whole episode count).
        while mine and len(mine) >= self.max_per_client:
            eid = next(iter(mine))
            self.drop(eid)
            mine.pop(eid, None)  # gone from it whatever drop found
        if len(self.live) >= self.max_live and self.idle_timeout_s is not None:
            self.reap(self.idle_timeout_s)
        if len(self.live) >= self.max_live:
            raise EpisodeRequestError(
                f"{self.max_live} live episodes already; try again later", status=503
            )
        session = Session(cat.episode(task), cat)
        self.live[session.id] = session
        self.owner[session.id] = client
        if not over_socket:
            self._mine.setdefault(client, OrderedDict())[session.id] = None
        return session

    def used(self, episode_id: str) -> None:
        """Mark a live episode as the most recently used (of all, and of its client's)."""
        self.live.move_to_end(episode_id)
        mine = self._mine.get(self.owner.get(episode_id, ""))
        if mine is not None and episode_id in mine:
            mine.move_to_end(episode_id)

    def drop(self, episode_id: str) -> None:
        """Forget an episode and close its world."""
        s = self.live.pop(episode_id, None)
        client = self.owner.pop(episode_id, "")
        mine = self._mine.get(client)
        if mine is not None:
            mine.pop(episode_id, None)
            if not mine:
                del self._mine[client]
        if s is not None:
            s.close()

    def reap(self, idle_s: float) -> list[str]:
        """Drop the live episodes unused for more than ``idle_s`` seconds.

        Returns:
            The episode ids dropped.
        """
        cutoff = time.monotonic() - idle_s
        idle = [eid for eid, s in self.live.items() if s.last_active < cutoff]
        for eid in idle:
            self.drop(eid)
        return idle


def _training_refused(terms: str) -> str:
    return "refused: these tasks are served for evaluation only, never as training tasks: " + terms


def _mode(s: Session) -> dict[str, Any]:
    """What every observation's metadata says the episode is for."""
    cat = s.catalog
    assert cat is not None  # the server's sessions are judged by its catalog
    out: dict[str, Any] = {"mode": cat.mode(s.task)}
    if cat.evaluation_only is not None:
        out["terms"] = cat.evaluation_only
    return out


_TOOL_JSON: ByIdentity[bytes] = ByIdentity(4096)


def _tool_json(info: ToolInfo) -> dict[str, Any]:
    """A tool's wire form, its JSON text kept per `ToolInfo` object.

    Each call decodes the text afresh (in C, cheaper than `model_dump`): an
    observation's tools are its own, so editing one episode's tool schema cannot reach
    another's.
    """
    text = _TOOL_JSON.get((info,), lambda: pydantic_core.to_json(info.model_dump(mode="json")))
    out: dict[str, Any] = pydantic_core.from_json(text)
    return out


def _observation(
    s: Session, obs: EpisodeObservation, result: ToolResult | None = None
) -> StateboxObservation:
    result = result or obs.tool_result
    metadata = _mode(s)
    if obs.kind == "start":
        metadata |= {
            "episode_id": s.id,
            "task_id": s.task.id,
            "user_message": obs.user_message,
            "policy": obs.policy,
            "policy_mode": obs.policy_mode,
        }
    elif obs.user_message is not None:
        metadata["user_message"] = obs.user_message
    # Passed in, not assigned after: the model validates each assignment again.
    return StateboxObservation(
        kind=obs.kind,
        episode_id=s.id,
        task_id=s.task.id,
        step=obs.step,
        user_message=obs.user_message,
        tool_result=None if result is None else _agent_result(result),
        tools=[_tool_json(t) for t in obs.tools],
        policy=obs.policy,
        policy_mode=obs.policy_mode,
        termination=None if obs.termination is None else str(obs.termination),
        done=obs.done,
        metadata=metadata,
    )


async def _refuse(s: Session, call: ToolCall) -> EpisodeObservation:
    s.touch()
    async with s.lock:
        return s.episode.refuse(
            call, "not_allowed", f"{call.tool!r} is a lifecycle name, not a tool"
        )


def _system_error(s: Session, exc: BaseException) -> EpisodeRequestError:
    return EpisodeRequestError(
        f"system_error in episode {s.id} (task {s.task.id}): the step could not be run "
        f"({type(exc).__name__}: {exc}); the episode is dropped, no reward is given: "
        "reset to run it again",
        status=500,
    )


class StateboxEnvironment(Environment[StateboxAction, StateboxObservation, StateboxState]):
    """One OpenEnv environment handle over the server's live episodes.

    Besides reset and step it implements OpenEnv's MCP tool-calling interface
    (``ListToolsAction`` / ``CallToolAction``, and ``mcp_client`` for ``POST /mcp``) and
    its `TaskProvider` methods, over the same `Session`.

    Args:
        server: The server holding the catalog and the live episodes.
    """

    SUPPORTS_CONCURRENT_SESSIONS = True
    REQUIRES_SINGLE_THREAD_EXECUTOR = True
    """Tells OpenEnv to build and close handles on one shared thread, not a thread per
    session: the episodes themselves run on the event loop."""

    def __init__(self, server: OpenEnvServer) -> None:
        super().__init__()
        self._server = server
        self._episode_id: str | None = None
        self.mcp_client = EpisodeToolClient(self)
        """What openenv's ``/mcp`` handler lists and calls tools through."""
        self.mcp_server = None

    @asynccontextmanager
    async def mcp_session(self) -> AsyncIterator[EpisodeToolClient]:
        """OpenEnv holds this open for a session's life: its end drops the episode.

        OpenEnv enters it for every session (WebSocket or ``openenv/session/create``)
        and exits it on the event loop when the session ends (client gone, closed,
        reaped as idle). Plain HTTP ``/reset`` handles never enter it: their episode
        outlives the handle and is stepped by id.
        """
        try:
            yield self.mcp_client
        finally:
            if self._episode_id is not None:
                self._server.drop(self._episode_id)
                self._episode_id = None

    def live_session(self) -> Session | None:
        """The handle's live episode, if any."""
        return self._server.live.get(self._episode_id) if self._episode_id else None

    async def reset_async(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        task_id: str | None = None,
        split: str | None = None,
        index: int | None = None,
    ) -> StateboxObservation:
        """Start an episode: of ``task_id``, of ``split``'s task ``index``, or sampled by ``seed``.

        ``episode_id`` is ignored: ids are chosen by the server (they are credentials).

        Raises:
            EpisodeRequestError: See `OpenEnvServer.pick`.
        """
        _typed(seed=(seed, int), episode_id=(episode_id, str), task_id=(task_id, str))
        _typed(split=(split, str), index=(index, int))
        if self._episode_id is not None:
            self._server.drop(self._episode_id)
            self._episode_id = None
        task = self._server.pick(task_id, split, seed, index)
        s = self._server.open(task)
        try:
            obs = await s.reset()
        except EpisodeSystemError as exc:
            self._server.drop(s.id)  # it never started: nothing to step
            raise _system_error(s, exc) from exc
        except BaseException:
            self._server.drop(s.id)
            raise
        self._episode_id = s.id
        return _observation(s, obs)

    def _session(self, episode_id: str | None = None) -> Session:
        eid = episode_id or self._episode_id
        s = self._server.live.get(eid) if eid else None
        if s is None:
            raise EpisodeRequestError("no live episode: reset first (an ended episode cannot step)")
        self._server.used(s.id)
        return s

    async def _ended(self, s: Session, out: Any) -> Any:
        """Judge an ended episode onto its last observation: reward and verdict."""
        if s.episode.fault is not None:
            self._server.drop(s.id)
            raise _system_error(s, s.episode.fault)
        try:
            verdict = await s.finish()
        except EpisodeSystemError as exc:
            self._server.drop(s.id)
            raise _system_error(s, exc) from exc
        self._server.drop(s.id)
        out.done = True
        out.reward = 1.0 if verdict.passed else 0.0
        out.metadata = {**out.metadata, "verdict": verdict.model_dump(mode="json")}
        return out

    async def step_async(
        self,
        action: StateboxAction | ListToolsAction | CallToolAction,
        timeout_s: float | None = None,
        episode_id: str | None = None,
    ) -> StateboxObservation | ListToolsObservation | CallToolObservation:
        """Take one action in this session's episode (or in ``episode_id`` over HTTP).

        ``ListToolsAction`` and ``CallToolAction`` are OpenEnv's MCP actions: the
        allowlisted tools, and one call as an episode step.

        Raises:
            EpisodeRequestError: No such live episode (never reset, ended, or evicted), or
                a system error (status 500; the episode is dropped).
        """
        _typed(timeout_s=(timeout_s, (int, float)), episode_id=(episode_id, str))
        if isinstance(action, ListToolsAction):
            return ListToolsObservation(tools=list_tools(self.live_session()))
        s = self._session(episode_id)
        if isinstance(action, CallToolAction):
            result = await self._call(s, action.tool_name, action.arguments)
            out = CallToolObservation(tool_name=action.tool_name, result=result)
            return await self._ended(s, out) if s.episode.done else out
        if s.episode.done:
            # Ended by a tool call over /mcp (a step limit): this step collects the reward.
            done = StateboxObservation(
                kind="done", episode_id=s.id, task_id=s.task.id, done=True, metadata=_mode(s)
            )
            return await self._ended(s, done)
        act = _to_episode_action(action)
        try:
            if isinstance(act, CallTool) and is_reserved_name(act.call.tool):
                obs = await _refuse(s, act.call)  # by name, as the MCP surfaces do
            else:
                obs = await s.step(act)
        except Exception as exc:
            self._server.drop(s.id)
            raise _system_error(s, exc) from exc
        last = s.episode.last_tool_result if isinstance(act, CallTool) else None
        shown = _observation(s, obs, last)
        return await self._ended(s, shown) if obs.done else shown

    async def _call(self, s: Session, name: Any, arguments: Any) -> dict[str, Any]:
        if s.episode.done:
            raise EpisodeRequestError("the episode has ended: no more tool calls")
        try:
            return call_result(await run_call(s, name, arguments))
        except Exception as exc:
            if s.episode.fault is None and s.episode.done:  # ended by a concurrent step
                raise EpisodeRequestError("the episode has ended: no more tool calls") from exc
            self._server.drop(s.id)
            raise _system_error(s, exc) from exc

    async def tool_call(self, name: Any, arguments: Any) -> dict[str, Any]:
        """One tool call from ``POST /mcp`` ``tools/call`` (its result, FastMCP-shaped).

        Raises:
            EpisodeRequestError: No live episode, the episode has ended, or a system error.
        """
        s = self._session()
        if s.episode.done:
            raise EpisodeRequestError("the episode has ended: step the WebSocket for its reward")
        return await self._call(s, name, arguments)

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        task_id: str | None = None,
        split: str | None = None,
        index: int | None = None,
    ) -> StateboxObservation:
        """Synchronous `reset_async` (only where no event loop is running)."""
        return asyncio.run(self.reset_async(seed, episode_id, task_id, split, index))

    def step(
        self,
        action: StateboxAction | ListToolsAction | CallToolAction,
        timeout_s: float | None = None,
        episode_id: str | None = None,
    ) -> StateboxObservation | ListToolsObservation | CallToolObservation:
        """Synchronous `step_async` (only where no event loop is running)."""
        return asyncio.run(self.step_async(action, timeout_s, episode_id))

    @property
    def state(self) -> StateboxState:
        """The session's episode id, task and step count."""
        s = self.live_session()
        if s is None:
            return StateboxState(episode_id=self._episode_id, done=self._episode_id is not None)
        return StateboxState(
            episode_id=s.id,
            step_count=len(s.episode.transcript),
            task_id=s.task.id,
            done=s.episode.done,
        )

    # OpenEnv's TaskProvider: discovery only (ids, splits, domains), never evaluator data.

    def get_metadata(self) -> EnvironmentMetadata:
        """What ``/metadata`` says: statebox, and evaluation only where the tasks' terms say so."""
        cat = self._server.catalog()
        terms = cat.evaluation_only if cat is not None else None
        description = "statebox episodes: tasks judged by the state their tool calls leave behind"
        if terms is not None:
            description += f". Mode: evaluation only ({terms})"
        return EnvironmentMetadata(name="statebox", description=description)

    def list_splits(self) -> list[dict[str, str]]:
        """The served splits with tasks: ``{"name", "type"}``."""
        return [{"name": s, "type": s} for s in self._server.splits()]

    def list_tasks(self, split: str) -> list[dict[str, Any]]:
        """Every task of a served split: id, index, split, domain.

        Raises:
            EpisodeRequestError: The split is not served.
        """
        return [_task_spec(t, i) for i, t in enumerate(self._server.split_tasks(split))]

    def num_tasks(self, split: str) -> int:
        """How many tasks a served split holds.

        Raises:
            EpisodeRequestError: The split is not served.
        """
        return len(self._server.split_tasks(split))

    def get_task(self, split: str, index: int) -> dict[str, Any]:
        """One task of a served split by index (``reset(split=..., index=...)`` plays it).

        Raises:
            EpisodeRequestError: The split is not served.
            IndexError: No such index (400).
        """
        tasks = self._server.split_tasks(split)
        if not 0 <= index < len(tasks):
            raise IndexError(index)
        return _task_spec(tasks[index], index)

    def get_task_range(self, split: str, start: int, stop: int) -> list[dict[str, Any]]:
        """Tasks ``start``..``stop - 1`` of a served split.

        Raises:
            EpisodeRequestError: The split is not served.
        """
        tasks = self._server.split_tasks(split)
        return [_task_spec(t, i) for i, t in enumerate(tasks) if start <= i < stop]


# openenv's WebSocket loop reads the reset handle's signature on every reset (to pick the
# arguments it passes); a function's own ``__signature__`` is what `inspect.signature`
# returns first, so it is worked out once here, not per message.
StateboxEnvironment.reset_async.__dict__["__signature__"] = inspect.signature(
    StateboxEnvironment.reset_async
)


def _task_spec(task: Task, index: int) -> dict[str, Any]:
    return {"id": task.id, "index": index, "split": task.split, "domain": task.domain}


class _Gate:
    """ASGI wrapper in front of OpenEnv's app: routes, token, readiness, per-client limits.

    Sets the client context (peer address) for `OpenEnvServer.open`, answers 404 for
    routes statebox does not serve, 401 without the token, 503 until the tasks are
    loaded; a client's WebSockets beyond ``max_per_client`` are refused (1013) and one
    idle for ``idle_timeout_s`` is closed (1001) as if its client had left.
    """

    def __init__(self, server: OpenEnvServer, app: ASGIApp, token: str | None) -> None:
        self.server = server
        self.app = app
        self.token = token
        self.sockets: Counter[str] = Counter()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "").removeprefix(scope.get("root_path", ""))
        problem: tuple[int, str] | None = None
        if path not in _SERVED or (path == "/mcp" and kind == "websocket"):
            problem = (404, "not found")
        elif self.token is not None and path not in _OPEN_WITHOUT_TOKEN:
            auth = Headers(scope=scope).get("authorization", "")
            given = auth[7:].strip() if auth[:7].lower() == "bearer " else None
            if not same_secret(given, self.token):
                problem = (401, "missing or wrong OpenEnv token")
        if problem is None and path not in _OPEN_WHILE_LOADING and self.server.catalog() is None:
            problem = (503, "tasks are still loading")
        client = client_key((scope.get("client") or ("", 0))[0])
        crowded = kind == "websocket" and self.sockets[client] >= self.server.max_per_client
        if problem is None and crowded:
            problem = (429, f"{self.server.max_per_client} WebSockets of this client open")
        if problem is not None:
            if kind == "websocket":
                code = {404: 1008, 401: 1008, 503: 1013, 429: 1013}[problem[0]]
                await send({"type": "websocket.close", "code": code, "reason": problem[1]})
                return
            headers = {"WWW-Authenticate": "Bearer"} if problem[0] == 401 else None
            response = JSONResponse({"error": problem[1]}, problem[0], headers=headers)
            await response(scope, receive, send)
            return
        token, socket_token = _CLIENT.set(client), _OVER_SOCKET.set(kind == "websocket")
        try:
            if kind == "websocket":
                self.sockets[client] += 1
                try:
                    await self._socket(scope, receive, send)
                finally:
                    self.sockets[client] -= 1
                    if self.sockets[client] <= 0:
                        del self.sockets[client]
            elif path == "/mcp" and scope.get("method") == "POST":
                await self.server.mcp_sessions(self.app, client, scope, receive, send)
            elif path in _DIRECT and scope.get("method") == "POST":
                await _direct(self.server, path, receive, send)
            elif scope.get("method") == "POST":
                await _readable_post(self.app, scope, receive, send)
            else:
                await self.app(scope, receive, send)
        finally:
            _CLIENT.reset(token)
            _OVER_SOCKET.reset(socket_token)

    async def _socket(self, scope: Scope, receive: Receive, send: Send) -> None:
        left = False
        """Whether the client is known gone (a disconnect received, or a send failed)."""

        async def watched_receive() -> Message:
            nonlocal left
            message = await receive()
            left = left or message["type"] == "websocket.disconnect"
            return message

        async def watched_send(message: Message) -> None:
            nonlocal left
            try:
                await send(message)
            except Exception:
                left = True
                raise

        try:
            await self._idle_timed(scope, watched_receive, watched_send)
        except Exception:
            # openenv's handler answers a failure by sending an error, which fails again
            # once its client has left: that is the client leaving, not a server fault
            # (logged whole by uvicorn, a log any client could fill).
            if not left:
                raise

    async def _idle_timed(self, scope: Scope, receive: Receive, send: Send) -> None:
        idle = self.server.idle_timeout_s
        if idle is None:
            await self.app(scope, receive, send)
            return
        loop = asyncio.get_running_loop()
        waiting_since: float | None = None
        """When the pending receive began (None while the app works on a message)."""
        gone = False
        timer: asyncio.TimerHandle | None = None
        closing: set[asyncio.Task[None]] = set()

        async def close() -> None:
            with contextlib.suppress(Exception):  # the client may be gone already
                await send({"type": "websocket.close", "code": 1001, "reason": "idle"})

        def watch() -> None:
            # One timer per socket, re-armed only when it fires early: a timer per
            # receive (asyncio.timeout) costs each message its scheduling and cancelling.
            nonlocal timer, gone
            timer = None
            if waiting_since is None or gone:
                return  # the next receive arms it again
            due = waiting_since + idle
            if loop.time() < due:
                timer = loop.call_at(due, watch)
                return
            # Idle: close it for the client. The server's close also hands OpenEnv's
            # handler its disconnect, so it frees the session slot.
            gone = True
            task = loop.create_task(close())
            closing.add(task)
            task.add_done_callback(closing.discard)

        async def timed_receive() -> Message:
            nonlocal waiting_since, timer
            if gone:
                return {"type": "websocket.disconnect", "code": 1001}
            waiting_since = loop.time()
            if timer is None:
                timer = loop.call_at(waiting_since + idle, watch)
            try:
                return await receive()
            finally:
                waiting_since = None

        async def guarded_send(message: Message) -> None:
            if not gone:
                await send(message)

        try:
            await self.app(scope, timed_receive, guarded_send)
        finally:
            if timer is not None:
                timer.cancel()


async def _readable_post(app: ASGIApp, scope: Scope, receive: Receive, send: Send) -> None:
    """Pass a POST on to openenv's routes unless its JSON is what they would answer 500.

    Their validation errors quote the input: a NaN or a lone surrogate in it cannot be
    written as JSON. Such a body is the client's bad input: 400, as any other.
    """
    # The request guard has bounded the body already: no second limit here.
    messages, body, ended = await read_body(receive, sys.maxsize)
    if not ended:
        return  # the client left
    try:
        problem = unechoable(load_json(body))
    except json.JSONDecodeError:
        problem = None  # not JSON (or no body): openenv's route answers it
    except UnreadableJson as exc:
        problem = str(exc)
    if problem is not None:
        await JSONResponse({"error": f"bad request: {problem}"}, 400)(scope, receive, send)
        return
    await app(scope, replayed(messages, receive), send)


_RESET_ARGS = frozenset({"seed", "episode_id", "task_id", "split", "index"})
_STEP_ARGS = frozenset({"timeout_s", "episode_id"})
_JSON_HEADERS = [(b"content-type", b"application/json")]


async def _direct(server: OpenEnvServer, path: str, receive: Receive, send: Send) -> None:
    """OpenEnv's HTTP ``/reset`` and ``/step``, answered here rather than by its FastAPI route.

    The same models validate the same request (openenv's `ResetRequest` / `StepRequest`
    and `deserialize_action`), the same `StateboxEnvironment` methods run, and the
    answer is openenv's `serialize_observation`, so every client sees what openenv's
    route would send. What is skipped is FastAPI's per-request machinery (dependency
    solving, response-model validation, its middleware stack) and openenv's
    ``inspect.signature`` of the handle on every request: about two thirds of the
    server's CPU per step (bench/transport.py prints the figure).
    """
    body = bytearray()
    while True:  # the request guard has bounded the body already
        message = await receive()
        if message["type"] != "http.request":
            return  # the client left
        body += message.get("body", b"")
        if not message.get("more_body", False):
            break
    status, answer = await _direct_answer(server, path, bytes(body))
    try:
        content = json.dumps(answer, separators=(",", ":"), ensure_ascii=False).encode()
    except UnicodeEncodeError:  # a lone surrogate the client sent, echoed: escaped
        content = json.dumps(answer, separators=(",", ":")).encode()
    headers = [*_JSON_HEADERS, (b"content-length", str(len(content)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": content})


def _errors(exc: ValidationError) -> list[dict[str, Any]]:
    """A validation error's details as FastAPI's 422 gives them.

    Without their input when it cannot be written as JSON (a lone surrogate, NaN): the
    422 is the client's, never a 500 of the server's.
    """
    try:
        detail: list[dict[str, Any]] = json.loads(exc.json())
    except (ValueError, pydantic_core.PydanticSerializationError):
        detail = json.loads(exc.json(include_input=False, include_context=False))
    return detail


async def _direct_answer(server: OpenEnvServer, path: str, body: bytes) -> tuple[int, Any]:
    try:
        data = json.loads(body) if body.strip() else {}
        if path == "/reset":
            args = ResetRequest.model_validate(data).model_dump(exclude_unset=True)
            kwargs = {k: v for k, v in args.items() if k in _RESET_ARGS}
        else:
            step = StepRequest.model_validate(data)
            args = step.model_dump(exclude_unset=True, exclude={"action"})
            kwargs = {k: v for k, v in args.items() if k in _STEP_ARGS}
    except ValidationError as exc:  # the request model (FastAPI's 422, located in the body)
        detail = _errors(exc)
        for e in detail:
            e["loc"] = ["body", *e.get("loc", [])]
        return 422, {"detail": detail}
    except ValueError as exc:
        return 422, {"detail": [{"type": "json_invalid", "loc": ["body"], "msg": str(exc)}]}
    env = StateboxEnvironment(server)
    try:
        if path == "/reset":
            obs: Any = await env.reset_async(**kwargs)
        else:
            try:
                action = deserialize_action(step.action, StateboxAction)
            except ValidationError as exc:  # openenv's route: 422 with the action's errors
                return 422, {"detail": _errors(exc)}
            obs = await env.step_async(action, **kwargs)
    except EpisodeRequestError as exc:
        return exc.status, {"error": str(exc)}
    except EpisodeSystemError as exc:
        return 502, {"status": "system_error", "error": str(exc)}
    finally:
        env.close()
    return 200, serialize_observation(obs)
