"""Validating many tasks: worker processes, a per-task cache, progress as tasks finish.

Validation replays every golden trajectory and every mutant, so a suite of hundreds of
tasks takes minutes on one core. `validate_suite` spreads tasks over worker processes
(forked, so they inherit the domains — built-in or loaded from a file) and keeps each
task's result in a cache directory, keyed by the task's own JSON, its domain's
environment parts (policy, schema, seed, tools, field policy), the judge version and a
hash of the code that decides a validation (statebox's sources and the domain's tool
sources). An unchanged task is read back instead of validated again; any change to
what could alter its result makes a new key. Cache files are written whole (temp file,
rename), so two runs sharing a cache never read a torn one.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import multiprocessing
import os
import tempfile
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from pathlib import Path

import statebox
from statebox.domains import Domain
from statebox.judge._environment import JUDGE_VERSION, domain_parts
from statebox.judge._judge import Judge
from statebox.judge._validate import TaskValidation, validate_task
from statebox.tasks import Task, WorldCache

__all__ = ["default_cache_dir", "validate_suite"]

Progress = Callable[[TaskValidation, bool], None]
"""Called in the parent as each task finishes: its validation, and whether it was cached."""

_CHUNK = 8
"""Tasks per unit of work: a worker keeps its judge's golden cache for a domain."""


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/statebox/validate`` (``~/.cache/statebox/validate``)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "statebox" / "validate"


def _code_hash(domain: Domain) -> str:
    """Sha256 of statebox's sources and the files the domain's tools live in."""
    h = hashlib.sha256(JUDGE_VERSION.encode())
    root = Path(statebox.__file__).parent
    files = sorted(root.rglob("*.py"))
    files += sorted({Path(s.fn.__code__.co_filename) for s in domain.tools.values()})
    for f in files:
        try:
            h.update(str(f.relative_to(root) if f.is_relative_to(root) else f).encode())
            h.update(f.read_bytes())
        except OSError:  # a tool defined in a string or a removed file: its name only
            h.update(str(f).encode())
    return h.hexdigest()


class _Keys:
    """Cache keys per task (the domain part computed once per domain)."""

    def __init__(self, domains: Mapping[str, Domain]) -> None:
        self._domains = domains
        self._base: dict[str, str] = {}

    def key(self, task: Task) -> str:
        base = self._base.get(task.domain)
        if base is None:
            d = self._domains[task.domain]
            parts = {**domain_parts(d), "code": _code_hash(d)}
            base = self._base[task.domain] = json.dumps(parts, sort_keys=True)
        text = base + json.dumps(task.model_dump(mode="json"), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()


def _read(cache: Path, key: str) -> TaskValidation | None:
    path = cache / key[:2] / f"{key}.json"
    try:
        return TaskValidation.model_validate_json(path.read_bytes())
    except (OSError, ValueError):  # absent, unreadable or from another format: redo
        return None


def _write(cache: Path, key: str, v: TaskValidation) -> None:
    folder = cache / key[:2]
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(v.model_dump_json().encode())
        os.replace(tmp, folder / f"{key}.json")
    except OSError:  # a read-only cache only costs speed
        pass


# Set in the parent before the workers fork; read by them.
_DOMAINS: Mapping[str, Domain] = {}
_JUDGES: dict[str, Judge] = {}
_WORLDS = WorldCache()


def _validate_chunk(tasks: Sequence[Task]) -> list[TaskValidation]:
    async def go() -> list[TaskValidation]:
        out = []
        for t in tasks:
            d = _DOMAINS[t.domain]
            judge = _JUDGES.setdefault(d.name, Judge(d, _WORLDS))
            out.append(await validate_task(d, t, judge))
        return out

    return asyncio.run(go())


def _chunks(tasks: Sequence[Task], size: int) -> list[list[Task]]:
    by_domain: dict[str, list[Task]] = {}
    for t in tasks:
        by_domain.setdefault(t.domain, []).append(t)
    return [ts[i : i + size] for ts in by_domain.values() for i in range(0, len(ts), size)]


def validate_suite(
    domains: Mapping[str, Domain],
    tasks: Sequence[Task],
    *,
    jobs: int = 1,
    cache: Path | None = None,
    progress: Progress | None = None,
    chunk_size: int = _CHUNK,
) -> tuple[list[TaskValidation], int]:
    """Validate every task, in worker processes and through a cache.

    Args:
        domains: Domain name → domain, for every task's domain.
        tasks: The tasks.
        jobs: Worker processes (1: in this process).
        cache: Cache directory (None: no cache).
        progress: Called as each task finishes.
        chunk_size: Tasks per unit of work (of one domain).

    Returns:
        One validation per task, in task order, and how many came from the cache.
    """
    global _DOMAINS
    keys = _Keys(domains)
    done: dict[int, TaskValidation] = {}
    cached = 0
    todo: list[Task] = []
    index = {id(t): i for i, t in enumerate(tasks)}
    for i, t in enumerate(tasks):
        hit = _read(cache, keys.key(t)) if cache is not None else None
        if hit is not None and hit.task_id == t.id:
            done[i] = hit
            cached += 1
            if progress:
                progress(hit, True)
        else:
            todo.append(t)

    def finish(chunk: Sequence[Task], results: Sequence[TaskValidation]) -> None:
        for t, v in zip(chunk, results, strict=True):
            done[index[id(t)]] = v
            if cache is not None:
                _write(cache, keys.key(t), v)
            if progress:
                progress(v, False)

    chunks = _chunks(todo, chunk_size)
    _DOMAINS = domains
    if jobs <= 1 or len(chunks) <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        for chunk in chunks:
            finish(chunk, _validate_chunk(chunk))
    else:
        ctx = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=min(jobs, len(chunks)), mp_context=ctx) as pool:
            futures: dict[Future[list[TaskValidation]], list[Task]] = {
                pool.submit(_validate_chunk, c): c for c in chunks
            }
            for f in as_completed(futures):
                finish(futures[f], f.result())
    return [done[i] for i in range(len(tasks))], cached
