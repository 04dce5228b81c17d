"""Start a ThinkingBox MCP server: directly, or as a fork server that forks fresh ones.

Run by path with the *servers'* Python (which has no statebox), standard library only:

    python _server_launch.py run -- -m PACKAGE.MODULE [ARGS...]
    python _server_launch.py run -- SCRIPT.py [ARGS...]
    python _server_launch.py forkserver SOCKET -- -m PACKAGE.MODULE [ARGS...]
    python _server_launch.py check -- -m PACKAGE.MODULE [ARGS...]

``run`` runs the server as ``python -m MODULE`` / ``python SCRIPT.py`` would.

``check`` imports the server as ``forkserver`` does (its module body, not its main
block), says ``{"ok": true}`` or ``{"ok": false, "reason"}`` on stdout and exits: whether
the server package imports with this Python (a readiness check of ``statebox serve``).

``forkserver`` imports the server once (its module body: the server package, FastMCP,
pydantic, its tool registry), says ``{"ready": true}`` (or ``{"ready": false,
"reason"}`` when it cannot: fork is missing, the import failed, or the import left
threads running, which a fork would not carry) on stdout, then listens on the Unix
socket SOCKET. Each connection sends ``spawn`` with three file descriptors (the
child's stdin, stdout and stderr, SCM_RIGHTS); the fork server forks a child that
starts a session of its own (its pid is its process group, so the parent side can kill
it and whatever it starts), takes those descriptors as 0, 1 and 2, and runs the
module's ``if __name__ == "__main__":`` block: a server that has never been initialised,
speaking stdio MCP. The answer is ``{"pid": N}``. It stops when its stdin closes.

Both modes point the ``typesense`` client at statebox's search service when
``STATEBOX_TYPESENSE_URL`` is set: a client configured for Typesense's default address
(``127.0.0.1``/``localhost`` port 8108, which the servers hard-code) gets that URL
instead, and the key in ``STATEBOX_TYPESENSE_API_KEY`` when that is set (and, unless
the server chose one, a ``verify`` that spares each client reading the CA store).
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import importlib.util
import json
import os
import random
import runpy
import selectors
import signal
import socket
import sys
import threading
import traceback
from types import CodeType
from typing import Any
from urllib.parse import urlsplit

URL_ENV = "STATEBOX_TYPESENSE_URL"
KEY_ENV = "STATEBOX_TYPESENSE_API_KEY"
_DEFAULT_HOSTS = {"127.0.0.1", "localhost"}


def redirect_typesense() -> None:
    """Point ``typesense.Client`` instances at ``$STATEBOX_TYPESENSE_URL`` (see above)."""
    url = os.environ.get(URL_ENV)
    if not url:
        return
    try:
        import typesense  # the server's own dependency; absent: nothing to point
    except ImportError:
        return
    parts = urlsplit(url)
    node = {
        "host": parts.hostname or "127.0.0.1",
        "port": str(parts.port or (443 if parts.scheme == "https" else 80)),
        "protocol": parts.scheme or "http",
    }
    key = os.environ.get(KEY_ENV)
    # Every Client builds an httpx client, and with it an SSL context that reads the CA
    # store: ~0.3 s per init. Plain HTTP needs none; HTTPS shares one context, made here
    # (in a fork server: once, before the forks).
    verify: Any = False
    if node["protocol"] == "https":
        import ssl

        verify = ssl.create_default_context()
    cls = typesense.Client
    original = cls.__init__
    if getattr(original, "_statebox_redirect", False):
        return

    def is_default(n: Any) -> bool:
        if isinstance(n, str):
            p = urlsplit(n)
            return p.hostname in _DEFAULT_HOSTS and p.port == 8108
        if isinstance(n, dict):
            return str(n.get("host")) in _DEFAULT_HOSTS and str(n.get("port")) == "8108"
        return False

    def __init__(self: Any, config: Any, *args: Any, **kwargs: Any) -> None:
        if isinstance(config, dict):
            config = dict(config)
            nodes = config.get("nodes") or []
            if nodes and all(is_default(n) for n in nodes):
                config["nodes"] = [dict(node)]
                config.pop("nearest_node", None)
                config.setdefault("verify", verify)
                if key is not None:
                    config["api_key"] = key
        original(self, config, *args, **kwargs)

    __init__._statebox_redirect = True  # type: ignore[attr-defined]
    setattr(cls, "__init__", __init__)  # noqa: B010 - a monkeypatch, on purpose


class Target:
    """The server to run: ``-m MODULE ARGS`` or ``SCRIPT ARGS``."""

    def __init__(self, argv: list[str]) -> None:
        if not argv:
            raise SystemExit("_server_launch: nothing to run")
        self.module = argv[1] if argv[0] == "-m" and len(argv) > 1 else None
        self.script = None if self.module else os.path.abspath(argv[0])
        self.args = argv[2:] if self.module else argv[1:]

    def run(self) -> None:
        """Run it as ``python -m``/``python SCRIPT`` would (``__name__ == "__main__"``)."""
        self._set_path()
        if self.module:
            sys.argv = [self.module, *self.args]
            runpy.run_module(self.module, run_name="__main__", alter_sys=True)
        else:
            assert self.script is not None
            sys.argv = [self.script, *self.args]
            runpy.run_path(self.script, run_name="__main__")

    def preload(self) -> tuple[dict[str, Any], CodeType]:
        """Import it without running its main block; return its namespace and that block."""
        namespace, origin = self.load()
        with open(origin, encoding="utf-8") as f:
            tree = ast.parse(f.read(), filename=origin)
        body = [stmt for node in tree.body if _is_main_guard(node) for stmt in node.body]  # type: ignore[attr-defined]
        if not body:
            raise RuntimeError(f"{origin} has no `if __name__ == '__main__':` block to run")
        code = compile(ast.Module(body=body, type_ignores=[]), origin, "exec")
        return namespace, code

    def load(self) -> tuple[dict[str, Any], str]:
        """Import it without running its main block; return its namespace and its file."""
        self._set_path()
        if self.module:
            name = self.module
            spec = importlib.util.find_spec(name)
            if spec is not None and spec.submodule_search_locations is not None:
                name += ".__main__"  # python -m PACKAGE runs PACKAGE.__main__
            module = importlib.import_module(name)
            origin = getattr(module, "__file__", None) or name
            namespace = module.__dict__
            sys.argv = [origin, *self.args]
        else:
            assert self.script is not None
            origin = self.script
            namespace = runpy.run_path(origin, run_name="__statebox_preload__")
            namespace["__name__"] = "__main__"
            sys.argv = [origin, *self.args]
        return namespace, origin

    def _set_path(self) -> None:
        # Run by path, sys.path[0] is statebox's folder: make it what python -m / SCRIPT gives.
        sys.path[0] = os.getcwd() if self.module else os.path.dirname(self.script or "")


def _is_main_guard(node: ast.stmt) -> bool:
    if not isinstance(node, ast.If):
        return False
    t = node.test
    return (
        isinstance(t, ast.Compare)
        and isinstance(t.left, ast.Name)
        and t.left.id == "__name__"
        and len(t.ops) == 1
        and isinstance(t.ops[0], ast.Eq)
        and isinstance(t.comparators[0], ast.Constant)
        and t.comparators[0].value == "__main__"
    )


def _say(obj: dict[str, Any]) -> None:
    sys.__stdout__.write(json.dumps(obj) + "\n")  # type: ignore[union-attr]
    sys.__stdout__.flush()  # type: ignore[union-attr]


def _child(
    conn: socket.socket,
    listener: socket.socket,
    fds: list[int],
    namespace: dict[str, Any],
    code: CodeType,
) -> None:
    """In the forked child: become a fresh server on ``fds``; never returns."""
    status = 0
    try:
        conn.close()
        listener.close()
        os.setsid()
        for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGINT, signal.SIGPIPE):
            signal.signal(sig, signal.SIG_DFL)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in fds:
            if fd > 2:
                os.close(fd)
        sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
        for name in ("stdin", "stdout", "stderr"):
            setattr(sys, f"__{name}__", getattr(sys, name))
        random.seed()  # the parent's generator state is shared by every fork
        exec(code, namespace)
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:
        traceback.print_exc()
        status = 1
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(status)


def _lazy_imports(namespace: dict[str, Any], code: CodeType, timeout_s: float = 20.0) -> list[str]:
    """Modules the server imports only once it runs (its event loop's backend, ...).

    A probe fork runs the main block on an empty stdin — a stdio server then stops at
    once — and reports what it imported, for the parent to import before the real
    forks. Best effort: nothing is learnt from a probe that hangs.
    """
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        before = set(sys.modules)
        try:
            os.close(r)
            devnull = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(devnull, fd)
            sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
            sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
            sys.stderr = open(2, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
            exec(code, namespace)
        except BaseException:  # the probe's fate does not matter, only its imports
            pass
        try:
            os.write(w, json.dumps(sorted(set(sys.modules) - before)).encode())
        finally:
            os._exit(0)
    os.close(w)
    data = b""
    with selectors.DefaultSelector() as sel:
        sel.register(r, selectors.EVENT_READ)
        while sel.select(timeout_s):
            chunk = os.read(r, 65536)
            if not chunk:
                break
            data += chunk
    os.close(r)
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)
    try:
        names = json.loads(data or b"[]")
    except ValueError:
        return []
    return [n for n in names if isinstance(n, str)]


def _preimport(names: list[str]) -> None:
    for name in names:
        if name in sys.modules or name.startswith("__"):
            continue
        with contextlib.suppress(BaseException):
            importlib.import_module(name)


def forkserver(socket_path: str, target: Target) -> int:
    """Preload ``target``, then fork a fresh server per request (see the module doc)."""
    if not hasattr(os, "fork") or not hasattr(socket, "recv_fds"):
        _say({"ready": False, "reason": "this platform has no fork() with fd passing"})
        return 0
    # stdout is the parent's protocol; the preload prints nothing there.
    real_stdout = sys.stdout
    sys.stdout = sys.stderr
    try:
        redirect_typesense()
        namespace, code = target.preload()
    except BaseException as exc:
        sys.stdout = real_stdout
        _say(
            {"ready": False, "reason": f"importing the server failed: {type(exc).__name__}: {exc}"}
        )
        return 0
    sys.stdout = real_stdout
    learnt = _lazy_imports(namespace, code)
    _preimport(learnt)
    print(
        f"fork server: preloaded, then {len(learnt)} modules the server imports as it runs",
        file=sys.stderr,
    )
    threads = [t.name for t in threading.enumerate() if t is not threading.main_thread()]
    if threads:
        _say({"ready": False, "reason": f"the server's import left threads running ({threads})"})
        return 0
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(socket_path)
    os.chmod(socket_path, 0o600)
    listener.listen(64)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    _say({"ready": True, "pid": os.getpid()})
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, "accept")
    with contextlib.suppress(PermissionError):  # a file or /dev/null cannot be watched
        selector.register(sys.stdin, selectors.EVENT_READ, "stdin")
    try:
        while True:
            for key, _ in selector.select():
                if key.data == "stdin":
                    if not os.read(sys.stdin.fileno(), 4096):
                        return 0  # our parent is gone
                    continue
                conn, _ = listener.accept()
                with conn:
                    _serve_one(conn, listener, namespace, code)
    finally:
        listener.close()
        with contextlib.suppress(OSError):
            os.unlink(socket_path)


def _serve_one(
    conn: socket.socket, listener: socket.socket, namespace: dict[str, Any], code: CodeType
) -> None:
    conn.settimeout(10)
    try:
        msg, fds, _, _ = socket.recv_fds(conn, 64, 3)
    except OSError:
        return
    if msg.strip() != b"spawn" or len(fds) != 3:
        for fd in fds:
            os.close(fd)
        conn.sendall(b'{"error": "expected spawn with 3 fds"}\n')
        return
    pid = os.fork()
    if pid == 0:
        _child(conn, listener, fds, namespace, code)
    for fd in fds:
        os.close(fd)
    conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")


def check(target: Target) -> int:
    """Import ``target`` without running it; say whether that worked (see the module doc)."""
    real_stdout = sys.stdout
    sys.stdout = sys.stderr  # stdout is the answer; the import prints nothing there
    try:
        redirect_typesense()
        target.load()  # a server without a main guard runs as a plain process: fine here
    except BaseException as exc:
        sys.stdout = real_stdout
        _say({"ok": False, "reason": f"importing the server failed: {type(exc).__name__}: {exc}"})
        return 0
    sys.stdout = real_stdout
    _say({"ok": True})
    return 0


def main(argv: list[str]) -> int:
    if "--" not in argv:
        raise SystemExit("usage: _server_launch.py run|check|forkserver [SOCKET] -- TARGET...")
    split = argv.index("--")
    head, rest = argv[:split], argv[split + 1 :]
    target = Target(rest)
    if head == ["run"]:
        redirect_typesense()
        target.run()
        return 0
    if head == ["check"]:
        return check(target)
    if len(head) == 2 and head[0] == "forkserver":
        return forkserver(head[1], target)
    raise SystemExit(f"_server_launch.py: unknown mode {head}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
