"""Run a ThinkingBox check function in a subprocess, answering its yes/no questions.

Each check gets its own Python process (``_check_main.py``, run by path): statebox's
compatibility module (``_compat/``) first on ``sys.path``, then the test file's folder;
the test file imported by path under a unique module name. The context (effects,
final response, tool calls) goes in as one JSON line on stdin. Each
``judge.text_yesno`` comes back as a request line, answered here by ``yesno`` — so the
strict judge and its model clients stay in this process. No exception is a pass, an
``AssertionError`` a fail, anything else (and a timeout, which kills the process) an
error.

A process per check costs about the interpreter's start plus importing the test file;
compiled test files are cached under ``pycache_dir`` (the datasets are often
read-only), which is what keeps a 1 MB test file's import cheap after the first check.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from statebox._model import Model
from statebox.errors import ConfigError, StateboxError
from statebox.thinkingbox._format import TbCase

__all__ = ["SHIM_DIR", "AskedQuestion", "CheckOutcome", "YesNo", "run_check"]

SHIM_DIR = Path(__file__).resolve().parent / "_compat"
"""The folder put first on a check's ``sys.path`` (it holds the ``thinkingbox`` shim)."""

_MAIN = Path(__file__).resolve().parent / "_check_main.py"
_STDERR_CHARS = 4000
_LINE_LIMIT_BYTES = 64 * 1024 * 1024

YesNo = Callable[[str, str], Awaitable[bool]]
"""Answers ``(text, question)`` with True for yes; raises `StateboxError` (a
`JudgeError`, say) when it cannot answer strictly."""


class AskedQuestion(Model):
    """One ``judge.text_yesno`` call a check made."""

    question: str
    """The yes/no question."""
    answer: bool | None
    """True/False as answered; None when not judged (skipped, or the judge failed)."""
    skipped: bool = False
    """No judge was configured: the check was told yes so later assertions still ran."""
    error: str = ""
    """The judge's error, when it could not answer."""


class CheckOutcome(Model):
    """The result of one check function."""

    status: Literal["pass", "fail", "error"]
    """``pass`` (no exception), ``fail`` (an AssertionError) or ``error`` (anything else,
    a timeout, or a crashed check process)."""
    message: str = ""
    """The assertion text, or the exception's type, message and short traceback."""
    rubrics: tuple[AskedQuestion, ...] = ()
    """The yes/no questions asked, in order."""
    output: str = ""
    """The tail of what the check printed (stdout and stderr)."""
    duration_s: float = 0.0
    """Wall-clock time of the check, judge calls included."""


async def _drain(stream: asyncio.StreamReader, sink: list[str]) -> None:
    size = 0
    while chunk := await stream.read(65536):
        sink.append(chunk.decode("utf-8", "replace"))
        size += len(sink[-1])
        while size > 2 * _STDERR_CHARS and len(sink) > 1:
            size -= len(sink.pop(0))


async def run_check(
    case: TbCase,
    context: Mapping[str, Any],
    *,
    yesno: YesNo | None,
    timeout_s: float,
    python: str | None = None,
    pycache_dir: Path | None = None,
) -> CheckOutcome:
    """Run ``case``'s check function on ``context`` in a fresh subprocess.

    Args:
        case: The case; its file is imported in the subprocess, never here.
        context: ``effects`` (server → effects object), ``response`` (str),
            ``tool_calls`` (list of ``{name, arguments, id, response}``); JSON-able.
        yesno: Answers the check's yes/no questions. None: no judge — each question is
            recorded as skipped and answered yes, so the check's other assertions run.
        timeout_s: Limit on the check's own run time (time spent in ``yesno`` is not
            counted); past it the process is killed and the outcome is an error.
        python: The interpreter to run the check with (default: statebox's own).
        pycache_dir: Where compiled test files are cached (default: a folder in the
            system temp dir).

    Returns:
        The `CheckOutcome`.

    Raises:
        ConfigError: ``python`` cannot be started.
    """
    started = time.perf_counter()
    cache = pycache_dir or Path(tempfile.gettempdir()) / "statebox-tb-pycache"
    request = {
        "file": str(case.file.resolve()),
        "function": case.function,
        "shim": str(SHIM_DIR),
        "pycache": str(cache),
        "context": dict(context),
    }
    interpreter = python or sys.executable
    try:
        proc = await asyncio.create_subprocess_exec(
            interpreter,
            "-I",
            str(_MAIN),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            limit=_LINE_LIMIT_BYTES,
        )
    except OSError as exc:
        raise ConfigError(f"cannot start the check interpreter {interpreter!r}: {exc}") from exc
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    printed: list[str] = []
    drain = asyncio.create_task(_drain(proc.stderr, printed))
    asked: list[AskedQuestion] = []
    deadline = time.monotonic() + timeout_s
    result: dict[str, Any] | None = None
    timed_out = False
    try:
        proc.stdin.write(json.dumps(request).encode() + b"\n")
        with contextlib.suppress(ConnectionError):
            await proc.stdin.drain()
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            line = await asyncio.wait_for(proc.stdout.readline(), remaining)
            if not line:
                break
            try:
                message = json.loads(line)
            except json.JSONDecodeError:
                result = {"status": "error", "message": f"bad protocol line: {line[:200]!r}"}
                break
            if message.get("op") == "result":
                result = message
                break
            judged_at = time.monotonic()
            reply = await _answer(message, yesno, asked)
            deadline += time.monotonic() - judged_at
            proc.stdin.write(json.dumps(reply).encode() + b"\n")
            with contextlib.suppress(ConnectionError):
                await proc.stdin.drain()
    except TimeoutError:
        timed_out = True
        result = {"status": "error", "message": f"check timed out after {timeout_s:g} s"}
    finally:
        proc.stdin.close()
        if proc.returncode is None and result is not None and not timed_out:
            # It reported; let it exit on its own (briefly) so nothing is cut short.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(proc.wait(), 5)
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
        await proc.wait()
        await drain
    output = "".join(printed)[-_STDERR_CHARS:]
    if result is None:
        result = {
            "status": "error",
            "message": f"check process exited with code {proc.returncode}: {output[-1000:]}",
        }
    return CheckOutcome(
        status=result["status"],
        message=result.get("message", ""),
        rubrics=tuple(asked),
        output=output,
        duration_s=time.perf_counter() - started,
    )


async def _answer(
    message: dict[str, Any], yesno: YesNo | None, asked: list[AskedQuestion]
) -> dict[str, Any]:
    question, text = str(message.get("question", "")), str(message.get("text", ""))
    if yesno is None:
        asked.append(AskedQuestion(question=question, answer=None, skipped=True))
        return {"answer": True}
    try:
        answer = await yesno(text, question)
    except StateboxError as exc:  # recorded on the question; the check sees an error
        asked.append(AskedQuestion(question=question, answer=None, error=str(exc)))
        return {"error": str(exc)}
    asked.append(AskedQuestion(question=question, answer=answer))
    return {"answer": answer}
