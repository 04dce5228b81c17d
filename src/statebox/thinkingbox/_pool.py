"""A warm pool of started MCP server processes, so a trial never waits for a server start.

A ThinkingBox server needs a fresh process per trial (``__reserved__init`` does not
reset one) and a start costs about a second, mostly the server importing its
libraries. The pool keeps ``size`` started-but-uninitialised processes per server
ready; `WarmPool.acquire` hands one out — each exactly once: a handed-out process
leaves the pool for good — and a refill starts its replacement in the background.
An empty pool does not stack starts: a caller first waits for a refill already
running, and starts its own process only when none is.

Size 0 is no pool: every acquire starts a process on demand. The first acquire (or
`WarmPool.warm`) fills the pool for every server it knows, so build it with the
servers a run needs, not a whole servers file.

The algorithm is `ReadyPool`'s, generic over what it keeps ready and how one is started:
`WarmPool` keeps MCP server processes; `statebox.backends` keeps a trial's pre-cloned
database with its server already started on it.

With ``fork_server=True`` a process start is a fork of the server's `ForkServer` (one
per server, started on first use), a few milliseconds instead of a second; a server
that cannot be forked (its command is not ``{python} -m MODULE``/``{python} SCRIPT``,
no fork on this platform, its import fails or leaves threads running) falls back to
plain processes, and ``on_notice`` gets a message saying so. ``extra_env`` (the search
service's address) is given to every server process; plain processes then start
through statebox's launcher so that it takes effect.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import logging
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, Protocol, TypeVar

from statebox.errors import BackendError, ConfigError
from statebox.thinkingbox._forkserver import ForkServer, describe_fallback, launch_command
from statebox.thinkingbox._process import McpProcess
from statebox.thinkingbox._servers import ServerSpec

__all__ = ["Pooled", "ReadyPool", "WarmPool"]

_log = logging.getLogger(__name__)


class Pooled(Protocol):
    """What a `ReadyPool` keeps: something started that can die and be stopped."""

    @property
    def alive(self) -> bool:
        """Whether it is still usable."""
        ...

    def close(self) -> None:
        """Stop it in the background (idempotent)."""
        ...

    async def aclose(self) -> None:
        """Stop it and wait until it has stopped."""
        ...


T = TypeVar("T", bound=Pooled)


@dataclass
class _Slot(Generic[T]):
    """One name's ready items and the starts under way for it."""

    ready: deque[T] = field(default_factory=deque)
    starting: set[asyncio.Task[T]] = field(default_factory=set)
    waiting: int = 0
    changed: asyncio.Event = field(default_factory=asyncio.Event)


class ReadyPool(Generic[T]):
    """Started, never-used items kept ready per name; subclasses say how one starts.

    Args:
        size: Items kept ready per name (0: no pool, start on demand).
        max_names: At most this many names keep ready items: acquiring another stops
            the ready items of the name acquired longest ago (None: no limit).

    Attributes:
        started: Starts begun so far (refills and on-demand starts).
        acquired: Items handed out so far.
        waited_s: Total time callers spent inside `acquire`, in seconds.

    Raises:
        ValueError: ``size`` is negative.
    """

    def __init__(self, size: int, *, max_names: int | None = None) -> None:
        if size < 0:
            raise ValueError(f"pool size must be 0 or more, not {size}")
        self.size = size
        self.max_names = max_names
        self.started = 0
        self.acquired = 0
        self.waited_s = 0.0
        self._slots: dict[str, _Slot[T]] = {}
        self._recent: OrderedDict[str, None] = OrderedDict()
        self._closed = False
        self._warmed = False

    def _check(self, name: str) -> None:
        """Raise `ConfigError` when the pool cannot start items of ``name``."""

    def _names(self) -> list[str]:
        """The names the first acquire fills (default: none beyond the one acquired)."""
        return []

    async def _start(self, name: str) -> T:
        """Start one item of ``name``."""
        raise NotImplementedError

    async def warm(self, names: Iterable[str] | None = None, *, wait: bool = False) -> None:
        """Start filling the pool for ``names`` (default: every server it knows).

        Args:
            names: Servers to fill.
            wait: Return only once the starts under way have finished.

        Raises:
            ConfigError: A name the pool does not know.
        """
        self._warmed = True
        chosen = self._names() if names is None else list(names)
        for name in chosen:
            if self.max_names is not None:
                self._touch(name)
            self._top_up(name)
        if wait:
            tasks = [t for name in chosen for t in self._slot(name).starting]
            if tasks:
                await asyncio.wait(tasks)

    def ready_count(self, name: str) -> int:
        """Items of ``name`` ready now (started, alive, not handed out)."""
        return sum(1 for p in self._slot(name).ready if p.alive)

    async def acquire(self, name: str) -> T:
        """A started, never-used item of ``name``; the caller owns it now.

        Returns:
            An item no one else has had (close it when the trial ends).

        Raises:
            ConfigError: The pool does not know ``name``.
            BackendError: The pool is closed, or the item could not start.
        """
        slot = self._slot(name)
        if not self._warmed:
            await self.warm()
        self._touch(name)
        t0 = time.monotonic()
        try:
            while True:
                if self._closed:
                    raise BackendError(f"the pool is closed ({name!r})")
                while slot.ready:
                    process = slot.ready.popleft()
                    if process.alive:
                        self.acquired += 1
                        return process
                    process.close()  # died while waiting in the pool
                if len(slot.starting) > slot.waiting:
                    slot.waiting += 1
                    slot.changed.clear()
                    try:
                        await slot.changed.wait()
                    finally:
                        slot.waiting -= 1
                    continue
                self.started += 1
                process = await self._start(name)
                if self._closed:
                    process.close()
                    continue
                self.acquired += 1
                return process
        finally:
            self.waited_s += time.monotonic() - t0
            self._top_up(name)

    async def aclose(self) -> None:
        """Stop every item the pool holds or is starting; refuse later acquires.

        Items already handed out are their callers' to close.
        """
        self._closed = True
        starting = [t for slot in self._slots.values() for t in slot.starting]
        for task in starting:
            task.cancel()
        if starting:
            await asyncio.gather(*starting, return_exceptions=True)
        ready = [p for slot in self._slots.values() for p in slot.ready]
        for slot in self._slots.values():
            slot.ready.clear()
            slot.changed.set()
        await asyncio.gather(*(p.aclose() for p in ready), return_exceptions=True)

    def _touch(self, name: str) -> None:
        # Names acquired longest ago give their ready items back past `max_names`.
        self._recent[name] = None
        self._recent.move_to_end(name)
        while self.max_names is not None and len(self._recent) > self.max_names:
            old, _ = self._recent.popitem(last=False)
            slot = self._slots.get(old)
            if slot is not None:
                for task in slot.starting:
                    task.cancel()
                while slot.ready:
                    slot.ready.popleft().close()

    def _slot(self, name: str) -> _Slot[T]:
        self._check(name)
        slot = self._slots.get(name)
        if slot is None:
            slot = self._slots[name] = _Slot()
        return slot

    def _top_up(self, name: str) -> None:
        slot = self._slot(name)
        if self._closed or (self.max_names is not None and name not in self._recent):
            return
        missing = self.size - len(slot.ready) - len(slot.starting)
        for _ in range(max(0, missing)):
            self.started += 1
            task = asyncio.get_running_loop().create_task(
                self._start(name), name=f"pool-start:{name}"
            )
            slot.starting.add(task)
            task.add_done_callback(functools.partial(self._started, name))

    def _started(self, name: str, task: asyncio.Task[T]) -> None:
        slot = self._slots[name]
        slot.starting.discard(task)
        slot.changed.set()
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            # The waiter (if any) starts its own item and gets the error itself.
            _log.warning("warm start of %r failed: %s", name, exc)
            return
        item = task.result()
        if self._closed or (self.max_names is not None and name not in self._recent):
            item.close()
            return
        slot.ready.append(item)


class WarmPool(ReadyPool[McpProcess]):
    """Started, uninitialised MCP server processes, ready per server name.

    Args:
        specs: The servers the pool may start, by name.
        size: Processes kept ready per server (0: no pool, start on demand).
        log_dir: Folder for each process's stderr (``<server>-<n>.log``); None discards
            the servers' stderr.
        start_timeout_s: Limit on one process start, in seconds.
        call_timeout_s: Limit on each request to a process, in seconds.
        fork_server: Fork fresh processes from one pre-imported parent per server.
        extra_env: Variables laid over each server's own ``env``.
        on_notice: Receives the message of a server that falls back to plain processes.

    Raises:
        ValueError: ``size`` is negative.
    """

    def __init__(
        self,
        specs: Mapping[str, ServerSpec],
        size: int,
        *,
        log_dir: Path | None = None,
        start_timeout_s: float = 60.0,
        call_timeout_s: float = 300.0,
        fork_server: bool = False,
        extra_env: Mapping[str, str] | None = None,
        on_notice: Callable[[str], None] | None = None,
    ) -> None:
        super().__init__(size)
        env = dict(extra_env or {})
        self.specs = {
            name: spec.model_copy(
                update={
                    "env": {**spec.env, **env},
                    "command": launch_command(spec) if env else spec.command,
                }
            )
            for name, spec in specs.items()
        }
        self.raw_specs = dict(specs)
        self.fork_server = fork_server
        self.forks: dict[str, ForkServer | None] = {}
        """Server name → its fork server, or None where it fell back to plain processes."""
        self._fork_starts: dict[str, asyncio.Task[ForkServer | None]] = {}
        self._extra_env = env
        self._on_notice = on_notice
        self._fork_restarts: dict[str, int] = {}
        self.log_dir = log_dir
        self._start_timeout_s = start_timeout_s
        self._call_timeout_s = call_timeout_s
        self._seq = itertools.count(1)

    def _check(self, name: str) -> None:
        if name not in self.specs:
            raise ConfigError(
                f"no MCP server {name!r} in the pool (it has {sorted(self.specs)}); "
                "declare it in the servers file"
            )

    def _names(self) -> list[str]:
        return list(self.specs)

    async def aclose(self) -> None:
        """Stop every process the pool holds or is starting, and the fork servers.

        Processes already handed out are their callers' to close.
        """
        for fork_start in self._fork_starts.values():
            if not fork_start.done():
                fork_start.cancel()
        await super().aclose()
        await asyncio.gather(*self._fork_starts.values(), return_exceptions=True)
        forks = [f for f in self.forks.values() if f is not None]
        await asyncio.gather(*(f.aclose() for f in forks), return_exceptions=True)

    async def fork_servers(self) -> dict[str, ForkServer | None]:
        """Start the fork server of every server (with ``fork_server``); which fell back.

        Returns:
            Server name → its fork server, or None for a plain-process fallback.
        """
        if self.fork_server:
            for name in self.specs:
                await self._fork_server(name)
        return dict(self.forks)

    async def _fork_server(self, name: str) -> ForkServer | None:
        if not self.fork_server or self._closed:
            return None
        task = self._fork_starts.get(name)
        if task is None:
            task = self._fork_starts[name] = asyncio.get_running_loop().create_task(
                self._start_fork_server(name), name=f"mcp-fork-server:{name}"
            )
        return await asyncio.shield(task)

    async def _start_fork_server(self, name: str) -> ForkServer | None:
        log_path = None
        if self.log_dir is not None:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            log_path = self.log_dir / f"{name}-fork-server.log"
        try:
            forks: ForkServer | None = await ForkServer.start(
                self.raw_specs[name].model_copy(
                    update={"env": {**self.raw_specs[name].env, **self._extra_env}}
                ),
                log_path=log_path,
                start_timeout_s=max(self._start_timeout_s, 60.0),
            )
        except BackendError as exc:
            forks = None
            message = describe_fallback(name, exc)
            _log.warning("%s", message)
            if self._on_notice is not None:
                self._on_notice(message)
        if forks is not None and self._closed:
            await forks.aclose()
            forks = None
        self.forks[name] = forks
        return forks

    async def _start(self, name: str) -> McpProcess:
        stderr_path = None
        if self.log_dir is not None:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            stderr_path = self.log_dir / f"{name}-{next(self._seq)}.log"
        forks = await self._fork_server(name)
        if forks is not None and not forks.alive:
            # Killed or crashed mid-campaign: start a new one (a few times at most).
            self._fork_restarts[name] = self._fork_restarts.get(name, 0) + 1
            if self._fork_restarts[name] > 3:
                raise BackendError(f"the fork server of MCP server {name!r} keeps exiting")
            _log.warning("the fork server of MCP server %r exited; starting a new one", name)
            self._fork_starts.pop(name, None)
            forks = await self._fork_server(name)
        return await McpProcess.start(
            self.specs[name],
            stderr_path=stderr_path,
            start_timeout_s=self._start_timeout_s,
            call_timeout_s=self._call_timeout_s,
            forks=forks,
        )
