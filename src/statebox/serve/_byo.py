"""Bring your own agent: ``statebox run --agent http://HOST/PATH``.

For each user turn statebox POSTs an `AgentTurnRequest` (protocol
``statebox.agent/v1``) to the outside agent's URL: the conversation so far, the
policy, and the episode's MCP endpoint (URL plus bearer header). The agent calls
tools through that MCP endpoint — each call is a step of the same `Episode` the
runner drives — and answers with an `AgentTurnResponse`: ``reply`` (a message to the
user; statebox answers with the user's next turn) or ``end`` (its final response).

The gateway runs in-process on 127.0.0.1 (port 0) on the campaign's event loop,
started on the first turn and stopped by `HttpAgentFactory.aclose` (the runner calls
it when the campaign ends). Turn requests are never retried: a retry could repeat the
agent's tool calls.

Whatever the agent sends is the agent's doing: an HTTP error status, an answer outside
the protocol, one larger than ``max_answer_bytes``, or no answer within the turn's time
limit raises `AgentError` — the trial ends with ``agent_error`` and fails, so an agent
cannot turn a trial it is losing into a re-run. Only an agent that cannot be reached
at all (no connection) raises `ModelEndpointError`, a system error; so does a server
that failed under one of the agent's tool calls (`BackendError`, after the turn).
"""

from __future__ import annotations

import asyncio
from typing import Any, Literal

import httpx
from pydantic import ValidationError

from statebox._model import Model
from statebox.agents import Agent, AgentError, TrialContext
from statebox.episode import Action, End, Episode, MessageUser, Observation
from statebox.errors import BackendError, ConfigError, ModelEndpointError
from statebox.serve._app import BackgroundServer, ServeApp
from statebox.serve._sessions import Session

__all__ = ["PROTOCOL", "AgentTurnRequest", "AgentTurnResponse", "HttpAgentFactory", "McpEndpoint"]

PROTOCOL: Literal["statebox.agent/v1"] = "statebox.agent/v1"
"""Protocol name sent in every turn request."""

MAX_ANSWER_BYTES = 1024 * 1024
"""Default cap on one turn answer of an outside agent, in bytes."""


class ChatMessage(Model):
    """One message of the conversation."""

    role: Literal["user", "assistant"]
    """``user`` (the simulated user) or ``assistant`` (the agent)."""
    content: str
    """The words."""


class McpEndpoint(Model):
    """Where the agent reaches the episode's tools."""

    url: str
    """Streamable-HTTP MCP endpoint of this episode."""
    headers: dict[str, str]
    """Headers to send with every MCP request (the session's bearer token)."""


class AgentTurnRequest(Model):
    """What statebox POSTs to the outside agent, once per user turn."""

    protocol: Literal["statebox.agent/v1"] = PROTOCOL
    """Protocol name and version."""
    episode_id: str
    """Stable id of this episode (same on every turn of it)."""
    turn: int
    """Zero-based user turn."""
    messages: tuple[ChatMessage, ...]
    """The conversation so far, ending with the user's latest message."""
    policy: str
    """The domain policy the agent must follow."""
    mcp: McpEndpoint
    """The episode's MCP endpoint."""


class AgentTurnResponse(Model):
    """What the outside agent answers."""

    action: Literal["reply", "end"]
    """``reply``: say ``text`` to the user and wait; ``end``: ``text`` is the final response."""
    text: str = ""
    """The message to the user."""


class _HttpAgent:
    name = "http"

    def __init__(self, factory: HttpAgentFactory, episode: Episode) -> None:
        self._factory = factory
        self._episode = episode
        self._session: Session | None = None
        self._messages: list[ChatMessage] = []
        self._policy = ""

    @property
    def config(self) -> dict[str, Any]:
        return self._factory.config

    async def act(self, obs: Observation) -> Action:
        if self._session is None:
            self._session = await self._factory.attach(self._episode, obs)
            self._policy = obs.policy
        if obs.user_message is not None:
            self._messages.append(ChatMessage(role="user", content=obs.user_message))
        request = AgentTurnRequest(
            episode_id=self._session.id,
            turn=sum(m.role == "user" for m in self._messages) - 1,
            messages=tuple(self._messages),
            policy=self._policy,
            mcp=McpEndpoint(
                url=self._factory.mcp_url(self._session),
                headers={"Authorization": f"Bearer {self._session.token}"},
            ),
        )
        answer = await self._factory.send(request)
        if self._session.system_error is not None:
            # A server failed under one of the agent's calls: the trial is a system error.
            self._factory.detach(self._session)
            if self._episode.fault is not None:  # a tool that crashed: record its own error
                raise self._episode.fault
            raise BackendError(self._session.system_error)
        self._messages.append(ChatMessage(role="assistant", content=answer.text))
        if answer.action == "end" or self._episode.done:
            self._factory.detach(self._session)
        if answer.action == "end":
            return End(text=answer.text)
        return MessageUser(text=answer.text)


class HttpAgentFactory:
    """Makes agents that delegate each turn to an outside agent over HTTP.

    Args:
        url: The outside agent's endpoint (``http(s)://HOST/PATH``).
        timeout_s: Limit of one turn request in seconds (tool calls included).
        max_answer_bytes: Largest turn answer accepted; a longer one is an agent error.
    """

    name = "http"
    serves_tools = True
    """Its tools are served (the MCP gateway): a ``full`` tool surface does not widen a
    task's allowlist (docs/mitigations.md)."""

    def __init__(
        self, url: str, timeout_s: float = 300.0, max_answer_bytes: int = MAX_ANSWER_BYTES
    ) -> None:
        if not url.startswith(("http://", "https://")):
            raise ConfigError(f"agent URL {url!r} must start with http:// or https://")
        self.url = url
        self.timeout_s = timeout_s
        self.max_answer_bytes = max_answer_bytes
        self._serve: ServeApp | None = None
        self._server: BackgroundServer | None = None
        self._client: httpx.AsyncClient | None = None
        self._start = asyncio.Lock()

    @property
    def agent_id(self) -> str:
        """``http-`` plus the endpoint's host and path, e.g. ``http-127.0.0.1:9000/agent``."""
        return "http-" + self.url.split("://", 1)[1].rstrip("/")

    @property
    def config(self) -> dict[str, Any]:
        """The endpoint URL and timeout."""
        return {"url": self.url, "timeout_s": self.timeout_s}

    def __call__(self, ctx: TrialContext) -> Agent:
        """An agent for one trial; it needs the trial's episode.

        Raises:
            ConfigError: The runner gave no episode.
        """
        if ctx.episode is None:
            raise ConfigError("the http agent needs the trial's episode (TrialContext.episode)")
        return _HttpAgent(self, ctx.episode)

    async def attach(self, episode: Episode, start: Observation) -> Session:
        """Serve ``episode`` through the gateway (starting the gateway on first use)."""
        async with self._start:
            if self._server is None:
                self._serve = ServeApp()  # a fresh app per start: its lifespan runs once
                self._server = BackgroundServer(self._serve.app)
                await self._server.start()
                self._client = httpx.AsyncClient(timeout=self.timeout_s)
        assert self._serve is not None
        for s in self._serve.store.sessions():  # drop sessions of ended trials
            if s.episode.done:
                self._serve.store.remove(s.id, close=False)
        session = Session(episode)
        session.adopt(start)
        return self._serve.store.add(session)

    def detach(self, session: Session) -> None:
        """Stop serving a session (the runner closes its world)."""
        if self._serve is not None:
            self._serve.store.remove(session.id, close=False)

    def mcp_url(self, session: Session) -> str:
        """The session's MCP URL."""
        assert self._server is not None and self._serve is not None  # attach() started them
        return self._server.url + "/mcp" + self._serve.gateway.url_path(session)

    async def send(self, request: AgentTurnRequest) -> AgentTurnResponse:
        """POST one turn and parse the answer.

        Raises:
            ModelEndpointError: The agent cannot be reached (no connection).
            AgentError: The agent answered an HTTP error, outside the protocol, more than
                ``max_answer_bytes``, or not within ``timeout_s``.
        """
        assert self._client is not None  # attach() started it
        where = f"agent {self.url}"
        try:
            async with self._client.stream(
                "POST", self.url, json=request.model_dump(mode="json")
            ) as r:
                if r.status_code // 100 != 2:
                    raise AgentError(f"{where} answered HTTP {r.status_code}")
                body = bytearray()
                async for chunk in r.aiter_bytes():
                    body += chunk
                    if len(body) > self.max_answer_bytes:
                        raise AgentError(
                            f"{where} answered more than {self.max_answer_bytes} bytes "
                            f"(the cap on one turn answer of protocol {PROTOCOL})"
                        )
        except (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout) as exc:
            raise ModelEndpointError(f"{where}: {type(exc).__name__}: {exc}") from exc
        except httpx.HTTPError as exc:  # it took the request, then failed to answer
            raise AgentError(f"{where}: {type(exc).__name__}: {exc}") from exc
        try:
            return AgentTurnResponse.model_validate_json(bytes(body))
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            where_in = ".".join(str(x) for x in first["loc"]) or "(answer)"
            raise AgentError(
                f"{where} answered outside protocol {PROTOCOL}: {where_in}: {first['msg']}"
                + (f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else "")
            ) from exc

    async def aclose(self) -> None:
        """Stop the gateway and the HTTP client (the runner calls this at the end)."""
        if self._client is not None:
            await self._client.aclose()
            self._client = None
        if self._server is not None:
            await self._server.stop()
            self._server = self._serve = None
