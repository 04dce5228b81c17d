"""The ``statebox serve`` application and an in-process server to run it on a loop.

One Starlette app, four separate route prefixes:

- ``/health`` (always 200) and ``/ready`` (503 until the tasks are loaded and the
  catalog's readiness probes pass, `Readiness`; ``/openenv/ready`` and
  ``/control/health`` answer the same);
- ``/mcp/<session id>/`` — the MCP gateway (per-session bearer token);
- ``/control/...`` — the control API (operator token);
- ``/openenv/...`` — the OpenEnv environment server (optional).

Every request first passes the `RequestGuard`: an allowed ``Host`` (and ``Origin``,
when a browser sends one), a JSON body of at most ``max_body_bytes`` (413) nested at
most 64 deep (400). Sessions and RL episodes unused for ``idle_timeout_s`` are reaped.
Tasks load (golden replay included) in a worker thread after start-up so health
answers at once and readiness flips when the catalog is complete and its external
environments' checks pass (retried until they do); at shutdown every live episode's
servers are stopped, then those environments. `BackgroundServer` runs any ASGI app
with uvicorn on the *current* event loop — the loop the episodes live on — bound to
127.0.0.1 and port 0 unless told otherwise.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator, Callable, Collection, Iterator
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.middleware.errors import ServerErrorMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Match, Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from statebox.errors import ConfigError
from statebox.serve._control import build_control_app
from statebox.serve._gateway import MAX_BODY_BYTES, McpGateway
from statebox.serve._guard import LOOPBACK_HOSTS, RequestGuard
from statebox.serve._http import OneSendProtocol
from statebox.serve._readiness import Readiness
from statebox.serve._sessions import Session, SessionStore, TaskCatalog, new_secret

__all__ = ["GC_YOUNG_THRESHOLD", "BackgroundServer", "ServeApp"]

GC_YOUNG_THRESHOLD = 7000
"""Allocations between two collections of the youngest generation in ``statebox serve``
(Python's default: 700)."""


class ServeApp:
    """Everything ``statebox serve`` hosts, around one session store.

    Args:
        load: Builds the task catalog (run in a worker thread at start-up); None
            serves the gateway alone (bring-your-own-agent runs).
        control_token: Operator token of the control API; None generates one.
        openenv: Mount the OpenEnv server under ``/openenv``.
        allow_test_split: Let the OpenEnv server serve ``split: test`` tasks.
        max_body_bytes: Request body limit in bytes.
        max_sessions: Most live control/gateway sessions at once.
        hosts: Host names accepted in ``Host`` and ``Origin`` headers (``*``: any).
        idle_timeout_s: Sessions and RL episodes unused this long are reaped (None:
            never; bring-your-own-agent runs, whose sessions the runner owns).
        openenv_token: Bearer token of the OpenEnv routes (None: none, loopback only).
        max_per_client: Most live RL episodes, and WebSockets, of one peer address.
        freeze_gc: Once the catalog is loaded, move every object then alive out of the
            garbage collector's reach (`gc.freeze`) and collect the youngest generation
            every `GC_YOUNG_THRESHOLD` allocations: a server process's own choice
            (``statebox serve``), not an embedding program's.
        on_load_error: Called with the error when the catalog fails to load (``/ready``
            reports it too): ``statebox serve`` prints it, so a bad task file is not
            left to be found by polling.
    """

    def __init__(
        self,
        load: Callable[[], TaskCatalog] | None = None,
        *,
        control_token: str | None = None,
        openenv: bool = False,
        allow_test_split: bool = False,
        max_body_bytes: int = MAX_BODY_BYTES,
        max_sessions: int = 10_000,
        hosts: Collection[str] = LOOPBACK_HOSTS,
        idle_timeout_s: float | None = None,
        openenv_token: str | None = None,
        max_per_client: int = 64,
        freeze_gc: bool = False,
        on_load_error: Callable[[str], None] | None = None,
    ) -> None:
        self._freeze_gc = freeze_gc
        self._on_load_error = on_load_error
        self.idle_timeout_s = idle_timeout_s
        self.store = SessionStore(max_sessions)
        self.control_token = control_token or new_secret()
        self.catalog: TaskCatalog | None = None
        self.load_error: str | None = None
        self.readiness = Readiness()
        self._load = load
        self._built: TaskCatalog | None = None  # once built, ready or not: closed at shutdown
        self.gateway = McpGateway(self.store, max_body_bytes=max_body_bytes)
        self._openenv: Any = None
        routes: list[Route | Mount] = [
            Route("/health", self._health, methods=["GET"]),
            Route("/ready", self._ready, methods=["GET"]),
        ]
        # The gateway and the control API: every episode's requests (see `_Routed`).
        direct = [Mount("/mcp", app=self.gateway)]
        routes += direct
        if load is not None:
            control = build_control_app(
                self.store, lambda: self.catalog, self.control_token, self._mcp_url
            )
            # Before the mount: a probe needs no control token.
            routes.append(Route("/control/health", self._control_health, methods=["GET"]))
            direct.append(Mount("/control", app=control))
            routes.append(direct[-1])
        if openenv:
            from statebox.serve._openenv import OpenEnvServer

            self._openenv = OpenEnvServer(
                lambda: self.catalog,
                allow_test_split,
                idle_timeout_s=idle_timeout_s,
                token=openenv_token,
                max_per_client=max_per_client,
            )
            # Before the mount: OpenEnv's readiness is this app's (the probes included).
            routes.append(Route("/openenv/ready", self._openenv_ready, methods=["GET"]))
            routes.append(Mount("/openenv", app=self._openenv.app))
        self.app: ASGIApp = RequestGuard(
            _Routed(Starlette(routes=routes, lifespan=self._lifespan), direct),
            hosts,
            max_body_bytes=max_body_bytes,
        )

    @property
    def ready(self) -> bool:
        """Whether the tasks are loaded (always True for a gateway-only app)."""
        return self._load is None or self.catalog is not None

    def _mcp_url(self, request: Request, session: Session) -> str:
        return str(request.base_url).rstrip("/") + "/mcp" + self.gateway.url_path(session)

    async def _health(self, request: Request) -> JSONResponse:
        return JSONResponse({"status": "healthy"})

    def _not_ready(self) -> JSONResponse | None:
        """The 503 answer of every readiness route, or None when ready."""
        if self.load_error is not None:
            failed = {"ready": False, "failed": "load", "error": self.load_error}
            return JSONResponse(failed, status_code=503)
        if not self.ready:
            body: dict[str, Any] = {"ready": False, **self.readiness.body()}
            if not self.readiness.attempts:
                body["loading"] = True
            return JSONResponse(body, status_code=503)
        return None

    def _ready_body(self, tasks: int) -> dict[str, Any]:
        body: dict[str, Any] = {"ready": True, "tasks": tasks, **self.readiness.body()}
        if self.catalog is not None and self.catalog.evaluation_only is not None:
            body |= {"mode": "evaluation", "terms": self.catalog.evaluation_only}
        return body

    async def _ready(self, request: Request) -> JSONResponse:
        refused = self._not_ready()
        if refused is not None:
            return refused
        n = len(self.catalog.tasks) if self.catalog is not None else 0
        return JSONResponse(self._ready_body(n))

    async def _openenv_ready(self, request: Request) -> JSONResponse:
        refused = self._not_ready()
        if refused is not None:
            return refused
        return JSONResponse(self._ready_body(len(self._openenv.servable())))

    async def _control_health(self, request: Request) -> JSONResponse:
        refused = self._not_ready()
        if refused is not None:
            return refused
        n = len(self.catalog.tasks) if self.catalog is not None else 0
        return JSONResponse({"status": "healthy", **self._ready_body(n)})

    def reap_idle(self) -> int:
        """Drop the sessions and RL episodes idle beyond ``idle_timeout_s``.

        Returns:
            How many were dropped (0 with no timeout).
        """
        if self.idle_timeout_s is None:
            return 0
        n = len(self.store.reap(self.idle_timeout_s))
        if self._openenv is not None:
            n += len(self._openenv.reap(self.idle_timeout_s))
        return n

    async def _reaper(self) -> None:
        assert self.idle_timeout_s is not None  # started only with a timeout
        while True:
            await asyncio.sleep(min(max(self.idle_timeout_s / 4, 0.05), 30.0))
            self.reap_idle()

    async def load(self) -> None:
        """Load the catalog off the loop, then settle its readiness probes.

        The probes run on the loop (the episodes' servers live there), retried until
        they pass; a load failure is reported by ``/ready``.
        """
        if self._load is None:
            return
        try:
            catalog = self._built = await asyncio.to_thread(self._load)
            await asyncio.to_thread(catalog.preload)
        except Exception as exc:  # reported on /ready, and raised for the log
            self.load_error = f"{type(exc).__name__}: {exc}"
            if self._on_load_error is not None:
                self._on_load_error(self.load_error)
            raise
        if catalog.readiness:
            await self.readiness.settle(catalog.readiness)
        if self._freeze_gc:
            # The modules, schemas and catalog live as long as the process: left in
            # the collector's oldest generation, every full collection traverses them
            # all again (tens of ms each, under load every few hundred episodes).
            gc.collect()
            gc.freeze()
            # Each request allocates hundreds of objects and frees nearly all of them
            # itself; at 700 a collection ran every few requests, and promoted what
            # was in flight to be traversed again by the older generations.
            gc.set_threshold(GC_YOUNG_THRESHOLD, *gc.get_threshold()[1:])
        self.catalog = catalog

    @asynccontextmanager
    async def _lifespan(self, app: Starlette) -> AsyncIterator[None]:
        loading: asyncio.Task[None] | None = None
        try:
            async with AsyncExitStack() as stack:
                await stack.enter_async_context(self.gateway.lifespan())
                if self._openenv is not None:
                    await stack.enter_async_context(self._openenv.lifespan())
                loading = asyncio.create_task(self.load())
                reaper = asyncio.create_task(self._reaper()) if self.idle_timeout_s else None
                try:
                    yield
                finally:
                    loading.cancel()
                    if reaper is not None:
                        reaper.cancel()
                    self.store.close()
        finally:
            if loading is not None:  # its error, if any, was /ready's to report
                await asyncio.gather(loading, return_exceptions=True)
            if self._built is not None:
                await self._built.aclose()


class _Routed:
    """A Starlette app whose router's pick among ``direct`` mounts is called directly.

    An HTTP request goes to the route the app's router would pick — the first whose
    `matches` is a full match, with the child scope it gives — and when that route is
    one of ``direct``, to that mount's app with only Starlette's server-error
    middleware around it (a failure is still a 500), not the app's whole middleware
    stack and router (about 10 µs a request, every gateway and control request of an
    episode). Everything else (other routes, no or partial matches, lifespan,
    WebSockets) is the Starlette app's, as before.
    """

    def __init__(self, app: Starlette, direct: Collection[Mount]) -> None:
        self.app = app
        self._routes = app.router.routes
        self._direct = {id(mount): ServerErrorMiddleware(mount.app) for mount in direct}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            for route in self._routes:
                match, child = route.matches(scope)
                if match is Match.FULL:
                    app = self._direct.get(id(route))
                    if app is not None:
                        await app({**scope, **child}, receive, send)
                        return
                    break
        await self.app(scope, receive, send)


KEEP_ALIVE_S = 75
"""How long the server keeps an idle HTTP connection open (nginx's default).

Longer than clients keep theirs pooled (httpx 5 s, aiohttp 15 s): with uvicorn's
default of 5 s, a client reusing a connection the server is just closing gets
``httpx.ReadError`` instead of an answer, which a loaded server makes likely.
"""


def _ws_protocol() -> type[asyncio.Protocol] | str:
    """The WebSocket protocol to serve with: `WebSocketProtocol`, else uvicorn's choice."""
    try:
        from statebox.serve._websocket import WebSocketProtocol
    except ImportError:  # a uvicorn without the sans-I/O protocol, or no websockets
        return "auto"
    return WebSocketProtocol


class _EmbeddedServer(uvicorn.Server):
    """uvicorn without its signal handlers: the embedding program owns Ctrl-C."""

    @contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class BackgroundServer:
    """Runs an ASGI app with uvicorn as a task on the running event loop.

    Args:
        app: The app.
        host: Interface to bind (loopback by default).
        port: Port; 0 picks a free one.
    """

    def __init__(self, app: ASGIApp, host: str = "127.0.0.1", port: int = 0) -> None:
        config = uvicorn.Config(
            app,
            host=host,
            port=port,
            log_level="warning",
            lifespan="on",
            http=OneSendProtocol,  # each response in one send(), not head and body apart
            ws=_ws_protocol(),
            # No X-Forwarded-For: the server binds loopback with no proxy in front, and
            # uvicorn trusts that header from 127.0.0.1, so any local client could name
            # itself another peer and step around the per-client limits.
            proxy_headers=False,
            ws_max_size=MAX_BODY_BYTES,
            # Small JSON frames on loopback: compressing each costs both ends more CPU
            # than it saves (bench/transport.py's OpenEnv WebSocket row).
            ws_per_message_deflate=False,
            timeout_keep_alive=KEEP_ALIVE_S,
            timeout_graceful_shutdown=5,
        )
        self._server = _EmbeddedServer(config)
        self._task: asyncio.Task[None] | None = None
        self.host = host
        self.port = port

    @property
    def url(self) -> str:
        """``http://HOST:PORT`` once started."""
        return f"http://{self.host}:{self.port}"

    async def start(self) -> str:
        """Start serving and wait until the socket is bound.

        Returns:
            The base URL.

        Raises:
            ConfigError: The server could not start (port taken, lifespan failure).
        """
        failed: list[str] = []

        async def serve() -> None:
            try:
                await self._server.serve()
            except (SystemExit, OSError, OverflowError) as exc:
                # uvicorn logs a bind error and exits the process (SystemExit); a port
                # out of range fails in bind: either is this server not starting.
                failed.append(str(exc) if not isinstance(exc, SystemExit) else "")

        self._task = asyncio.create_task(serve())
        while not self._server.started:
            if self._task.done():
                why = next(iter(failed), "") or "the address is in use or not this machine's"
                raise ConfigError(f"cannot serve on {self.host}:{self.port}: {why}")
            await asyncio.sleep(0.01)
        sockets = [s for srv in self._server.servers for s in srv.sockets]
        self.port = int(sockets[0].getsockname()[1])
        return self.url

    async def stop(self) -> None:
        """Stop serving and wait for the server task to end."""
        if self._task is None:
            return
        self._server.should_exit = True
        await self._task
        self._task = None

    async def __aenter__(self) -> BackgroundServer:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()
