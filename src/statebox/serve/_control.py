"""The control API: operators create, inspect, reset, judge and tear down sessions.

Mounted under ``/control``, separate from the MCP gateway and the OpenEnv routes, and
protected by one operator bearer token (constant-time comparison). Lifecycle
operations live here and only here — reset, effects, verdict, teardown — so an
agent holding a session's MCP URL and token can reach none of them.

Routes (JSON; every one needs ``Authorization: Bearer <control token>``):

- ``POST /sessions`` ``{"task_id": ...}`` → 201: session id, MCP URL and token, start
  observation;
- ``GET /sessions`` → live sessions; ``GET /sessions/{id}`` → one, with its transcript;
- ``POST /sessions/{id}/message`` ``{"text": ...}`` → the simulated user's answer;
- ``POST /sessions/{id}/reset`` → a fresh world, same id and token;
- ``POST /sessions/{id}/verdict`` ``{"text": final}`` → ends the episode, judges it
  (502 ``{"status": "system_error"}`` when its environment failed: no verdict);
- ``GET /sessions/{id}/effects`` → golden-free actual effects of an ended episode;
- ``DELETE /sessions/{id}`` → teardown.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from statebox._model import Model, validation_line
from statebox.domains import Domain
from statebox.episode import MessageUser
from statebox.errors import StateboxError
from statebox.serve._failures import EpisodeSystemError
from statebox.serve._sessions import Session, SessionStore, TaskCatalog, same_secret
from statebox.world import effects

__all__ = ["CreateSession", "SendMessage", "build_control_app"]

Handler = Callable[[Request], Awaitable[Response]]


class CreateSession(Model):
    """Body of ``POST /control/sessions``."""

    task_id: str
    """The task to start."""


class SendMessage(Model):
    """Body of ``POST /control/sessions/{id}/message`` and ``/verdict``."""

    text: str = ""
    """The agent's words to the user (or its final response)."""


def build_control_app(
    store: SessionStore,
    catalog: Callable[[], TaskCatalog | None],
    token: str,
    mcp_url: Callable[[Request, Session], str],
) -> Starlette:
    """The control API as a Starlette app (mount it under ``/control``).

    Args:
        store: Live sessions (shared with the gateway).
        catalog: Returns the loaded task catalog, or None while loading (→ 503).
        token: The operator token.
        mcp_url: Builds a session's MCP URL from the request that created it.

    Returns:
        The app.
    """

    def guarded(fn: Handler) -> Handler:
        async def wrapper(request: Request) -> Response:
            auth = request.headers.get("authorization", "")
            given = auth[7:].strip() if auth[:7].lower() == "bearer " else None
            if not same_secret(given, token):
                return JSONResponse(
                    {"error": "missing or wrong control token"},
                    status_code=401,
                    headers={"WWW-Authenticate": "Bearer"},
                )
            try:
                return await fn(request)
            except EpisodeSystemError as exc:
                # The environment failed, not the request: no verdict, HTTP 502.
                body = {"status": "system_error", "passed": None, "error": str(exc)}
                return JSONResponse(body, status_code=502)
            except StateboxError as exc:
                return JSONResponse({"error": str(exc)}, status_code=400)

        return wrapper

    async def body(request: Request, model: type[Model]) -> Any:
        try:
            return model.model_validate(json.loads(await request.body() or b"{}"))
        except ValidationError as exc:
            raise _BadRequest(validation_line(exc)) from exc
        except ValueError as exc:
            raise _BadRequest(str(exc)) from exc

    def session_or_404(request: Request) -> Session:
        s = store.get(request.path_params["sid"])
        if s is None:
            raise _NotFound()
        return s

    async def create(request: Request) -> Response:
        cat = catalog()
        if cat is None:
            return JSONResponse({"error": "tasks are still loading"}, status_code=503)
        req = await body(request, CreateSession)
        task = cat.task(req.task_id)
        session = store.add(Session(cat.episode(task), cat))
        try:
            obs = await session.reset()
        except BaseException:
            store.remove(session.id)  # never started: nothing to inspect or end
            raise
        return JSONResponse(
            {
                "session_id": session.id,
                "mcp_url": mcp_url(request, session),
                "mcp_token": session.token,
                "observation": obs.model_dump(mode="json"),
                "mode": cat.mode(task),
            },
            status_code=201,
        )

    async def list_sessions(request: Request) -> Response:
        return JSONResponse({"sessions": [s.info() for s in store.sessions()]})

    async def inspect(request: Request) -> Response:
        s = session_or_404(request)
        transcript = [e.model_dump(mode="json") for e in s.episode.transcript]
        return JSONResponse({**s.info(), "transcript": transcript})

    async def message(request: Request) -> Response:
        s = session_or_404(request)
        req = await body(request, SendMessage)
        if s.episode.done:
            return JSONResponse({"error": "the episode has ended"}, status_code=409)
        obs = await s.step(MessageUser(text=req.text))
        return JSONResponse({"observation": obs.model_dump(mode="json")})

    async def reset(request: Request) -> Response:
        s = session_or_404(request)
        obs = await s.reset()
        return JSONResponse({"observation": obs.model_dump(mode="json")})

    async def verdict(request: Request) -> Response:
        s = session_or_404(request)
        req = await body(request, SendMessage)
        v = await s.finish(req.text)
        return JSONResponse({"passed": v.passed, "verdict": v.model_dump(mode="json")})

    async def get_effects(request: Request) -> Response:
        s = session_or_404(request)
        if not s.episode.done:
            return JSONResponse({"error": "end the episode first (POST .../verdict)"}, 409)
        out = s.episode.outcome()
        domain = s.episode.domain
        if not isinstance(domain, Domain) or out.world is None or out.initial is None:
            # An external environment's effects come with golden data: only in the verdict.
            return JSONResponse(
                {"error": "effects are served for statebox's own domains; see the verdict"}, 409
            )
        rows = effects(out.initial, out.world.state(out.initial), domain.field_policy)
        return JSONResponse({"effects": [r.model_dump(mode="json") for r in rows]})

    async def teardown(request: Request) -> Response:
        if not store.remove(request.path_params["sid"]):
            raise _NotFound()
        return Response(status_code=204)

    def route(path: str, fn: Handler, method: str) -> Route:
        async def endpoint(request: Request) -> Response:
            try:
                return await guarded(fn)(request)
            except _NotFound:
                return JSONResponse({"error": "unknown session"}, status_code=404)
            except _BadRequest as exc:
                return JSONResponse({"error": f"bad request: {exc}"}, status_code=400)

        return Route(path, endpoint, methods=[method])

    return Starlette(
        routes=[
            route("/sessions", create, "POST"),
            route("/sessions", list_sessions, "GET"),
            route("/sessions/{sid}", inspect, "GET"),
            route("/sessions/{sid}", teardown, "DELETE"),
            route("/sessions/{sid}/message", message, "POST"),
            route("/sessions/{sid}/reset", reset, "POST"),
            route("/sessions/{sid}/verdict", verdict, "POST"),
            route("/sessions/{sid}/effects", get_effects, "GET"),
        ]
    )


class _NotFound(Exception):
    """Unknown session id."""


class _BadRequest(Exception):
    """A body that is not the expected JSON."""
