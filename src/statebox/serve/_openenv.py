"""The OpenEnv environment server: statebox episodes as an RL environment.

Built with the ``openenv`` package's `Environment` and `create_fastapi_app`, so its
HTTP routes (``/reset``, ``/step``, ``/state``, ``/schema``, ``/health``) and its
WebSocket session (``/ws``) are OpenEnv's own; statebox adds ``/ready`` (503 until
the tasks are loaded, and every other route but ``/health`` is refused until then).

``reset`` takes ``task_id`` or samples one from ``split`` (``train`` by default;
``test`` tasks are refused unless the server was started with ``allow_test_split``)
with an optional ``seed``. A catalog whose tasks serve evaluation only (a ThinkingBox
dataset: its card forbids training on them) serves every task as an evaluation,
samples from ``test`` by default, and refuses ``split: train`` with the card's reason.
``step`` takes a `StateboxAction`. The terminal step carries ``reward`` 1.0 iff the
verdict passed, else 0.0, and the verdict in ``metadata``; earlier steps carry no
reward. Every observation's ``metadata`` says the episode's ``mode`` (``training`` or
``evaluation``). An environment that fails (a server crash, a timeout, a check that
cannot run) ends the episode as a system error: a terminal step with ``reward`` None
and ``metadata.status == "system_error"``, never a reward of 0.

Episodes live in the server, keyed by an unguessable episode id that reset returns:
a WebSocket session steps its own episode; plain HTTP ``/step`` names it with an
``episode_id`` field beside the action (OpenEnv's HTTP routes build a fresh
`Environment` per request). Ended episodes are dropped at once.

Nobody can crowd out other clients: a client (peer address) holds at most
``max_per_client`` live episodes (its own oldest is dropped beyond that) and as many
WebSockets; episodes and WebSockets idle for ``idle_timeout_s`` are reaped; when
``max_live`` episodes are live a reset is refused (503), never served by evicting
someone else's. With a ``token``, every route but ``/health`` and ``/ready`` needs
``Authorization: Bearer <token>`` (the WebSocket handshake too). Only OpenEnv's
environment routes are served: its ``/mcp`` session routes (which would hold slots
statebox's environments do not use), task listings and docs pages answer 404.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import random
import time
from collections import Counter, OrderedDict
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from openenv.core.env_server import Environment, create_fastapi_app
from openenv.core.env_server.types import ConcurrencyConfig, EnvironmentMetadata
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from statebox.episode import Action as EpisodeAction
from statebox.episode import CallTool, End, MessageUser
from statebox.episode import Observation as EpisodeObservation
from statebox.serve._failures import EpisodeSystemError
from statebox.serve._openenv_types import StateboxAction, StateboxObservation, StateboxState
from statebox.serve._sessions import Session, TaskCatalog, same_secret
from statebox.tasks import Task
from statebox.tools import ToolCall, ToolResult

__all__ = ["EpisodeRequestError", "OpenEnvServer", "StateboxEnvironment"]


class EpisodeRequestError(ValueError):
    """A reset or step the server refuses (unknown task, test split, no live episode).

    OpenEnv's WebSocket session reports it as an error message; HTTP answers
    ``status`` (400, or 503 when the server is full).
    """

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


_OPEN_WHILE_LOADING = frozenset({"/health", "/ready"})
_OPEN_WITHOUT_TOKEN = _OPEN_WHILE_LOADING
_SERVED = frozenset({"/reset", "/step", "/state", "/schema", "/metadata", "/ws"}) | (
    _OPEN_WHILE_LOADING
)
"""OpenEnv's environment routes; the rest of its app (MCP sessions, task API, docs) is off."""

_CLIENT: contextvars.ContextVar[str] = contextvars.ContextVar("statebox_openenv_client")
"""The peer address of the request being served (per-client limits)."""


def _agent_result(r: ToolResult) -> dict[str, Any]:
    error = None if r.error is None else {"kind": r.error.kind, "message": r.error.message}
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
        self._rng = random.Random(0)
        inner = create_fastapi_app(
            functools.partial(StateboxEnvironment, self),
            StateboxAction,
            StateboxObservation,
            concurrency_config=ConcurrencyConfig(max_concurrent_envs=max_sessions),
            env_name="statebox",
            state_cls=StateboxState,
            mode="simulation",
        )

        async def ready() -> JSONResponse:
            cat = self.catalog()
            if cat is None:
                return JSONResponse({"ready": False, "loading": True}, status_code=503)
            return JSONResponse({"ready": True, "tasks": len(self.servable())})

        async def refused(request: Request, exc: Exception) -> JSONResponse:
            status = exc.status if isinstance(exc, EpisodeRequestError) else 400
            return JSONResponse({"error": str(exc)}, status_code=status)

        async def failed(request: Request, exc: Exception) -> JSONResponse:
            return JSONResponse({"status": "system_error", "error": str(exc)}, status_code=502)

        inner.add_api_route("/ready", ready, methods=["GET"])
        inner.add_exception_handler(EpisodeRequestError, refused)
        inner.add_exception_handler(EpisodeSystemError, failed)
        self.app: ASGIApp = _Gate(self, inner, token)

    @asynccontextmanager
    async def lifespan(self) -> AsyncIterator[None]:
        """Close every live episode when the server stops."""
        try:
            yield
        finally:
            for s in self.live.values():
                s.close()
            self.live.clear()
            self.owner.clear()

    def _allows_test(self, cat: TaskCatalog) -> bool:
        return self.allow_test_split or cat.evaluation_only is not None

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

    def pick(self, task_id: str | None, split: str | None, seed: int | None) -> Task:
        """The task to reset to.

        Raises:
            EpisodeRequestError: Not loaded, unknown id, a test task without the flag, or an
                empty split.
        """
        cat = self.catalog()
        if cat is None:
            raise EpisodeRequestError("tasks are still loading; wait for /ready")
        if cat.evaluation_only is not None and split == "train":
            raise EpisodeRequestError(
                f"refused: these tasks are served for evaluation only, never as training "
                f"tasks: {cat.evaluation_only}"
            )
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
        rng = random.Random(seed) if seed is not None else self._rng
        return rng.choice(tasks)

    def open(self, task: Task) -> Session:
        """A new live episode of ``task`` for the current client.

        Beyond ``max_per_client`` the client's own oldest episode is dropped; other
        clients' episodes are never evicted.

        Raises:
            EpisodeRequestError: ``max_live`` episodes are live (status 503).
        """
        cat = self.catalog()
        assert cat is not None  # pick() checked
        client = _CLIENT.get("")
        mine = [eid for eid in self.live if self.owner.get(eid) == client]
        for eid in mine[: max(0, len(mine) - self.max_per_client + 1)]:
            self.drop(eid)
        if len(self.live) >= self.max_live and self.idle_timeout_s is not None:
            self.reap(self.idle_timeout_s)
        if len(self.live) >= self.max_live:
            raise EpisodeRequestError(
                f"{self.max_live} live episodes already; try again later", status=503
            )
        session = Session(cat.episode(task), cat)
        self.live[session.id] = session
        self.owner[session.id] = client
        return session

    def drop(self, episode_id: str) -> None:
        """Forget an episode and close its world."""
        s = self.live.pop(episode_id, None)
        self.owner.pop(episode_id, None)
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


def _mode(s: Session) -> dict[str, Any]:
    """What every observation's metadata says the episode is for."""
    cat = s.catalog
    assert cat is not None  # the server's sessions are judged by its catalog
    out: dict[str, Any] = {"mode": cat.mode(s.task)}
    if cat.evaluation_only is not None:
        out["terms"] = cat.evaluation_only
    return out


def _system_error(s: Session, exc: EpisodeSystemError) -> StateboxObservation:
    """The terminal step of an episode whose environment failed: no reward."""
    return StateboxObservation(
        kind="done",
        episode_id=s.id,
        task_id=s.task.id,
        step=len(s.episode.transcript),
        termination="system_error",
        done=True,
        reward=None,
        metadata={**_mode(s), "status": "system_error", "error": str(exc)},
    )


def _observation(
    s: Session, obs: EpisodeObservation, result: ToolResult | None = None
) -> StateboxObservation:
    result = result or obs.tool_result
    return StateboxObservation(
        metadata=_mode(s),
        kind=obs.kind,
        episode_id=s.id,
        task_id=s.task.id,
        step=obs.step,
        user_message=obs.user_message,
        tool_result=None if result is None else _agent_result(result),
        tools=[t.model_dump(mode="json") for t in obs.tools],
        policy=obs.policy,
        policy_mode=obs.policy_mode,
        termination=None if obs.termination is None else str(obs.termination),
        done=obs.done,
    )


class StateboxEnvironment(Environment[StateboxAction, StateboxObservation, StateboxState]):
    """One OpenEnv environment handle over the server's live episodes.

    Args:
        server: The server holding the catalog and the live episodes.
    """

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, server: OpenEnvServer) -> None:
        super().__init__()
        self._server = server
        self._episode_id: str | None = None

    async def reset_async(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        task_id: str | None = None,
        split: str | None = None,
    ) -> StateboxObservation:
        """Start an episode of ``task_id``, or of a task sampled from ``split`` by ``seed``.

        ``episode_id`` is ignored: ids are chosen by the server (they are credentials).

        Raises:
            EpisodeRequestError: See `OpenEnvServer.pick`.
        """
        if self._episode_id is not None:
            self._server.drop(self._episode_id)
            self._episode_id = None
        task = self._server.pick(task_id, split, seed)
        s = self._server.open(task)
        try:
            obs = await s.reset()
        except BaseException:
            self._server.drop(s.id)  # it never started: a reset error, nothing to step
            raise
        self._episode_id = s.id
        return _observation(s, obs)

    async def step_async(
        self,
        action: StateboxAction,
        timeout_s: float | None = None,
        episode_id: str | None = None,
    ) -> StateboxObservation:
        """Take one action in this session's episode (or in ``episode_id`` over HTTP).

        Raises:
            EpisodeRequestError: No such live episode (never reset, ended, or evicted).
        """
        eid = episode_id or self._episode_id
        s = self._server.live.get(eid) if eid else None
        if s is None:
            raise EpisodeRequestError("no live episode: reset first (an ended episode cannot step)")
        self._server.live.move_to_end(s.id)
        act = _to_episode_action(action)
        try:
            obs = await s.step(act)
            result = s.episode.tool_results[-1] if isinstance(act, CallTool) else None
            out = _observation(s, obs, result)
            if obs.done:
                verdict = await s.finish()
                self._server.drop(s.id)
                out.reward = 1.0 if verdict.passed else 0.0
                out.metadata = {**out.metadata, "verdict": verdict.model_dump(mode="json")}
        except EpisodeSystemError as exc:
            self._server.drop(s.id)
            return _system_error(s, exc)
        return out

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        task_id: str | None = None,
        split: str | None = None,
    ) -> StateboxObservation:
        """Synchronous `reset_async` (only where no event loop is running)."""
        return asyncio.run(self.reset_async(seed, episode_id, task_id, split))

    def step(
        self, action: StateboxAction, timeout_s: float | None = None, episode_id: str | None = None
    ) -> StateboxObservation:
        """Synchronous `step_async` (only where no event loop is running)."""
        return asyncio.run(self.step_async(action, timeout_s, episode_id))

    def get_metadata(self) -> EnvironmentMetadata:
        """What ``/metadata`` says: statebox, and evaluation only where the tasks' terms say so."""
        cat = self._server.catalog()
        terms = cat.evaluation_only if cat is not None else None
        description = "statebox episodes: tasks judged by the state their tool calls leave behind"
        if terms is not None:
            description += f". Mode: evaluation only ({terms})"
        return EnvironmentMetadata(name="statebox", description=description)

    @property
    def state(self) -> StateboxState:
        """The session's episode id, task and step count."""
        s = self._server.live.get(self._episode_id) if self._episode_id else None
        if s is None:
            return StateboxState(episode_id=self._episode_id, done=self._episode_id is not None)
        return StateboxState(
            episode_id=s.id,
            step_count=len(s.episode.transcript),
            task_id=s.task.id,
            done=s.episode.done,
        )


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
        if path not in _SERVED:
            problem = (404, "not found")
        elif self.token is not None and path not in _OPEN_WITHOUT_TOKEN:
            auth = Headers(scope=scope).get("authorization", "")
            given = auth[7:].strip() if auth[:7].lower() == "bearer " else None
            if not same_secret(given, self.token):
                problem = (401, "missing or wrong OpenEnv token")
        if problem is None and path not in _OPEN_WHILE_LOADING and self.server.catalog() is None:
            problem = (503, "tasks are still loading")
        client = (scope.get("client") or ("", 0))[0]
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
        token = _CLIENT.set(client)
        try:
            if kind == "websocket":
                self.sockets[client] += 1
                try:
                    await self._socket(scope, receive, send)
                finally:
                    self.sockets[client] -= 1
                    if self.sockets[client] <= 0:
                        del self.sockets[client]
            else:
                await self.app(scope, receive, send)
        finally:
            _CLIENT.reset(token)

    async def _socket(self, scope: Scope, receive: Receive, send: Send) -> None:
        idle = self.server.idle_timeout_s
        if idle is None:
            await self.app(scope, receive, send)
            return
        gone = False

        async def timed_receive() -> Message:
            nonlocal gone
            if gone:
                return {"type": "websocket.disconnect", "code": 1001}
            try:
                async with asyncio.timeout(idle):
                    return await receive()
            except TimeoutError:
                # Idle: close it for the client, and tell OpenEnv's handler it left so it
                # frees the session slot.
                gone = True
                await send({"type": "websocket.close", "code": 1001, "reason": "idle"})
                return {"type": "websocket.disconnect", "code": 1001}

        async def guarded_send(message: Message) -> None:
            if not gone:
                await send(message)

        await self.app(scope, timed_receive, guarded_send)
