"""Run one ThinkingBox check function in this process; the parent is `_checks.run_check`.

Run by path (``python -I _check_main.py``), so it imports nothing from statebox: the
subprocess starts fast and a test file cannot reach statebox's internals. Standard
library only.

Protocol (one JSON object per line):

- parent → child, first line: ``{"file", "function", "shim", "pycache", "context"}``;
- child → parent: ``{"op": "yesno", "text", "question"}`` for each ``judge.text_yesno``;
  the parent answers ``{"answer": true|false}`` or ``{"error": "..."}``;
- child → parent, last: ``{"op": "result", "status": "pass"|"fail"|"error", "message"}``.

The protocol has a private copy of the original stdout; file descriptor 1 and
``sys.stdout`` are pointed at stderr before the test file loads, so whatever a check
prints (or a C extension writes to fd 1) never corrupts the protocol.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import os
import sys
import traceback
import uuid
from pathlib import Path
from typing import IO, Any

MESSAGE_CHARS = 4000
"""Longest message kept from an assertion or an exception."""


def _truncate(text: str, limit: int = MESSAGE_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 20] + f"... [{len(text)} chars]"


class _Channel:
    """The protocol: JSON lines out on a private fd, answers in on stdin."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out

    def send(self, message: dict[str, Any]) -> None:
        self.out.write(json.dumps(message) + "\n")
        self.out.flush()

    def ask(self, text: str, question: str) -> bool:
        self.send({"op": "yesno", "text": text, "question": question})
        line = sys.stdin.readline()
        if not line:
            raise RuntimeError("the check runner closed the judge channel")
        reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError(f"rubric judge failed: {reply['error']}")
        return bool(reply["answer"])


def _outcome(exc: BaseException | None, file: str) -> tuple[str, str]:
    if exc is None:
        return "pass", ""
    if isinstance(exc, AssertionError):
        message = str(exc)
        if not message:
            frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == file]
            where = f" at line {frames[-1].lineno}: {frames[-1].line}" if frames else ""
            message = f"assertion failed{where}"
        return "fail", _truncate(message)
    short = "".join(traceback.format_exception(exc, limit=-4))
    return "error", _truncate(f"{type(exc).__name__}: {exc}\n{short}")


def main() -> int:
    """Read the request, run the check, report the result; the exit code is always 0."""
    proto = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    channel = _Channel(proto)
    request = json.loads(sys.stdin.readline())
    file = str(request["file"])
    if request.get("pycache"):
        sys.pycache_prefix = str(request["pycache"])
    here = str(Path(__file__).resolve().parent)
    sys.path[:] = [p for p in sys.path if p and str(Path(p).resolve()) != here]
    sys.path[0:0] = [str(request["shim"]), str(Path(file).parent)]
    error: BaseException | None = None
    try:
        from thinkingbox.common import (  # type: ignore[import-not-found]
            Judge,
            TestContext,
            ToolCall,
            ToolCallRecord,
        )

        context = dict(request["context"])
        context["tool_calls"] = [
            ToolCallRecord(
                tool_call=ToolCall(
                    name=c["name"], arguments=c.get("arguments") or {}, id=c.get("id", "")
                ),
                tool_response=c.get("response"),
            )
            for c in context.get("tool_calls") or []
        ]
        name = f"_statebox_tb_check_{uuid.uuid4().hex}"
        spec = importlib.util.spec_from_file_location(name, file)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {file}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        function = getattr(module, request["function"])
        judge = Judge(channel.ask)
        x = TestContext(**context)
        n_args = len(inspect.signature(function).parameters)
        function(*(x, judge)[: max(1, min(n_args, 2))])
    except BaseException as exc:  # the outcome of the check, reported to the parent
        error = exc
    status, message = _outcome(error, file)
    channel.send({"op": "result", "status": status, "message": message})
    return 0


if __name__ == "__main__":
    sys.exit(main())
