"""A loopback HTTP server that speaks OpenAI chat-completions and Anthropic messages.

It answers each request from a `Responder` — a function from the parsed request to a
`Reply` (text, tool calls, usage, or an HTTP failure: status, ``Retry-After``, delay)
— so tests drive the real SDKs over real HTTP with no network, and the scripted
"perfect model" (`statebox.llm.GoldenResponder`) can stand in for a hosted model.
Routes by path suffix: ``.../chat/completions`` (OpenAI) and ``.../messages``
(Anthropic). Binds 127.0.0.1, port 0 by default, and answers only requests whose
``Host`` names a loopback address or the bound one (421 otherwise: no DNS rebinding
from a browser page); stdlib only.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

from statebox._hosts import allowed_hosts, host_name

__all__ = ["ByteTokenizer", "ProtocolRequest", "ProtocolServer", "Reply", "Responder"]


@dataclass(frozen=True)
class Reply:
    """What the server answers to one request.

    Attributes:
        text: Assistant text.
        calls: Tool calls as (name, raw JSON arguments); several make a parallel call.
        input_tokens: Reported input tokens (cached included).
        cached_input_tokens: Reported cached input tokens.
        output_tokens: Reported output tokens.
        reasoning_tokens: Reported reasoning tokens (OpenAI only).
        status: HTTP status; not 200 sends an error body instead of a reply.
        headers: Extra response headers (e.g. ``Retry-After``).
        delay_s: Seconds to wait before answering (to outlast a client timeout).
        thinking: An extended-thinking block's text (Anthropic only; signed ``sig-N``).
    """

    text: str = ""
    calls: tuple[tuple[str, str], ...] = ()
    input_tokens: int = 10
    cached_input_tokens: int = 0
    output_tokens: int = 5
    reasoning_tokens: int = 0
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    thinking: str = ""


@dataclass(frozen=True)
class ProtocolRequest:
    """One parsed request.

    Attributes:
        protocol: Which API was called.
        model: The model name asked for.
        system: The system prompt ('' when none).
        messages: The conversation, neutral: dicts with ``role`` (user, assistant,
            tool), ``text`` and ``calls`` (tool calls the assistant made).
        tools: Names of the tools offered.
        headers: Request headers, lower-cased names.
        body: The raw JSON body.
    """

    protocol: Literal["openai", "anthropic"]
    model: str
    system: str
    messages: list[dict[str, Any]]
    tools: list[str]
    headers: dict[str, str]
    body: dict[str, Any]


Responder = Callable[[ProtocolRequest], Reply]
"""Answers one request."""


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return ""


def _parse(
    protocol: Literal["openai", "anthropic"], body: dict[str, Any], headers: dict[str, str]
) -> ProtocolRequest:
    system, msgs = "", []
    if protocol == "openai":
        for m in body.get("messages", []):
            role = m.get("role")
            if role in ("system", "developer"):
                system += _text(m.get("content"))
            elif role == "tool":
                msgs.append({"role": "tool", "text": _text(m.get("content")), "calls": 0})
            else:
                calls = len(m.get("tool_calls") or [])
                msgs.append({"role": role, "text": _text(m.get("content")), "calls": calls})
        tools = [t["function"]["name"] for t in body.get("tools") or []]
    else:
        system = _text(body.get("system", ""))
        for m in body.get("messages", []):
            content = m.get("content")
            blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
            results = [b for b in blocks if b.get("type") == "tool_result"]
            for b in results:
                msgs.append({"role": "tool", "text": _text(b.get("content")), "calls": 0})
            texts = [b for b in blocks if b.get("type") == "text"]
            uses = [b for b in blocks if b.get("type") == "tool_use"]
            if texts or uses or not results:
                msgs.append({"role": m.get("role"), "text": _text(texts), "calls": len(uses)})
        tools = [t["name"] for t in body.get("tools") or []]
    return ProtocolRequest(protocol, str(body.get("model", "")), system, msgs, tools, headers, body)


class ByteTokenizer:
    """The loopback server's tokenizer: a token id is a UTF-8 byte plus `OFFSET`.

    The prompt renders the tools, then each message in order (so a longer conversation's
    prompt extends the shorter one's, as a chat template's does); the completion renders
    the reply's text and then each tool call as ``<tool_call>{...}</tool_call>`` (vLLM's
    ``token_ids`` are the raw sampled ids, before the tool-call parser).
    """

    OFFSET = 3
    """Ids below it are special tokens (never emitted)."""

    @classmethod
    def encode(cls, text: str) -> list[int]:
        """The ids of ``text``."""
        return [b + cls.OFFSET for b in text.encode("utf-8")]

    @classmethod
    def decode(cls, ids: list[int] | tuple[int, ...]) -> str:
        """The text of ``ids``."""
        return bytes(i - cls.OFFSET for i in ids).decode("utf-8")

    @staticmethod
    def prompt(body: dict[str, Any]) -> str:
        """The rendered prompt of a chat-completions request body."""
        tools = "<|tools|>" + json.dumps(body.get("tools") or [], sort_keys=True) + "\n"
        messages = body.get("messages", [])
        return tools + "".join(f"<|msg|>{json.dumps(m, sort_keys=True)}\n" for m in messages)

    @staticmethod
    def completion(text: str, calls: tuple[tuple[str, str], ...]) -> str:
        """The rendered completion of a reply."""
        rendered = [
            "<tool_call>" + json.dumps({"name": n, "arguments": a}) + "</tool_call>"
            for n, a in calls
        ]
        return text + "".join(rendered)

    @staticmethod
    def logprob(token_id: int, position: int) -> float:
        """A made-up but fixed logprob of the token sampled at ``position``."""
        return -((token_id * 31 + position * 7) % 97) / 64


def _vllm_tokens(body: dict[str, Any], r: Reply, out: dict[str, Any]) -> None:
    """Add vLLM's token fields to ``out`` as far as ``body`` asked for them."""
    tok = ByteTokenizer
    ids = tok.encode(tok.completion(r.text, r.calls))
    choice = out["choices"][0]
    if body.get("return_token_ids"):
        out["prompt_token_ids"] = tok.encode(tok.prompt(body))
        choice["token_ids"] = ids
    if body.get("logprobs"):
        as_ids = bool(body.get("return_tokens_as_token_ids"))
        choice["logprobs"] = {
            "content": [
                {
                    "token": f"token_id:{t}" if as_ids else chr(t - tok.OFFSET),
                    "logprob": tok.logprob(t, i),
                    "bytes": [t - tok.OFFSET],
                    "top_logprobs": [],
                }
                for i, t in enumerate(ids)
            ]
        }


def _openai_body(req: ProtocolRequest, r: Reply, n: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": r.text or None}
    if r.calls:
        message["tool_calls"] = [
            {
                "id": f"call_{n}_{i}",
                "type": "function",
                "function": {"name": name, "arguments": args},
            }
            for i, (name, args) in enumerate(r.calls)
        ]
    return {
        "id": f"chatcmpl-{n}",
        "object": "chat.completion",
        "created": 0,
        "model": req.model,
        "choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls" if r.calls else "stop"}
        ],
        "usage": {
            "prompt_tokens": r.input_tokens,
            "completion_tokens": r.output_tokens,
            "total_tokens": r.input_tokens + r.output_tokens,
            "prompt_tokens_details": {"cached_tokens": r.cached_input_tokens},
            "completion_tokens_details": {"reasoning_tokens": r.reasoning_tokens},
        },
    }


def _anthropic_body(req: ProtocolRequest, r: Reply, n: int) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if r.thinking:
        content.append({"type": "thinking", "thinking": r.thinking, "signature": f"sig-{n}"})
    if r.text:
        content.append({"type": "text", "text": r.text})
    for i, (name, args) in enumerate(r.calls):
        try:
            value: Any = json.loads(args)
        except ValueError:
            value = args  # malformed: passed on as a string, which the agent rejects
        content.append({"type": "tool_use", "id": f"toolu_{n}_{i}", "name": name, "input": value})
    return {
        "id": f"msg_{n}",
        "type": "message",
        "role": "assistant",
        "model": req.model,
        "content": content,
        "stop_reason": "tool_use" if r.calls else "end_turn",
        "stop_sequence": None,
        "usage": {
            # Anthropic reports uncached input apart from cache reads.
            "input_tokens": r.input_tokens - r.cached_input_tokens,
            "cache_read_input_tokens": r.cached_input_tokens,
            "output_tokens": r.output_tokens,
        },
    }


class ProtocolServer:
    """A threaded loopback server answering from a `Responder`.

    Args:
        responder: Answers each request.
        host: Interface to bind (loopback by default).
        port: Port (0: any free one).
        vllm_tokens: Answer vLLM's token fields (``return_token_ids``, ``logprobs``) on
            chat completions; off, they are ignored, as an endpoint without them does.

    Example:
        >>> with ProtocolServer(lambda req: Reply(text="hi <DONE>")) as server:
        ...     url = server.openai_url  # http://127.0.0.1:PORT/v1
    """

    def __init__(
        self,
        responder: Responder,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        vllm_tokens: bool = False,
    ) -> None:
        self.responder = responder
        self.vllm_tokens = vllm_tokens
        self.requests: list[ProtocolRequest] = []
        self._lock = threading.Lock()
        hosts = allowed_hosts(host)
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body go out as two writes; without this, Nagle's algorithm
            # and the client's delayed ACK add ~40 ms to every response.
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: Any) -> None:
                pass  # quiet: tests and the CLI read their own output

            def do_POST(self) -> None:
                if host_name(self.headers.get("host") or "") not in hosts:
                    self._send(421, {"error": {"message": "this host name is not served"}})
                    return
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                path = self.path.split("?")[0].rstrip("/")
                if path.endswith("/chat/completions"):
                    protocol: Literal["openai", "anthropic"] = "openai"
                elif path.endswith("/messages"):
                    protocol = "anthropic"
                else:
                    self._send(404, {"error": {"message": f"no route {path}"}})
                    return
                headers = {k.lower(): v for k, v in self.headers.items()}
                req = _parse(protocol, body, headers)
                with outer._lock:
                    outer.requests.append(req)
                    n = len(outer.requests)
                try:
                    reply = outer.responder(req)
                except Exception as exc:  # answered as a 400 the client reports
                    self._send(
                        400, {"error": {"type": "invalid_request_error", "message": str(exc)}}
                    )
                    return
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                if reply.status != 200:
                    kind = "rate_limit_error" if reply.status == 429 else "api_error"
                    self._send(
                        reply.status,
                        {"type": "error", "error": {"type": kind, "message": reply.text or kind}},
                        reply.headers,
                    )
                    return
                make = _openai_body if protocol == "openai" else _anthropic_body
                out = make(req, reply, n)
                if protocol == "openai" and outer.vllm_tokens:
                    _vllm_tokens(body, reply, out)
                self._send(200, out, reply.headers)

            def _send(
                self, status: int, data: dict[str, Any], headers: dict[str, str] | None = None
            ) -> None:
                raw = json.dumps(data).encode()
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(raw)))
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(raw)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (its timeout); nothing to answer

        self._httpd = ThreadingHTTPServer((host, port), Handler)
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        """The bound port."""
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """``http://HOST:PORT`` (the Anthropic SDK's base URL)."""
        host = self._httpd.server_address[0]
        return f"http://{host if isinstance(host, str) else host.decode()}:{self.port}"

    @property
    def openai_url(self) -> str:
        """``http://HOST:PORT/v1`` (the OpenAI SDK's base URL)."""
        return self.base_url + "/v1"

    def start(self) -> ProtocolServer:
        """Serve in a daemon thread."""
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Serve in this thread until interrupted."""
        self._httpd.serve_forever()

    def stop(self) -> None:
        """Stop serving and close the socket."""
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> ProtocolServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
