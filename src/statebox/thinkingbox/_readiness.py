"""Readiness of a loaded ThinkingBox dataset: can its servers run a trial right now?

`readiness_checks` answers with one `ReadinessCheck` per thing a trial needs, in the
order a trial needs them:

- ``server_package:<server>`` — the server package imports with the servers' Python
  (`_server_launch` ``check``: the module body, as a fork server imports it; a command
  statebox cannot wrap is skipped here and proven by its init);
- ``search`` — the knowledge-base search service answers ``/health`` (and takes the
  key the servers send), when some case indexes ``sources``;
- ``init:<server>`` — one fresh process of each server, from the run's own pool (fork
  server included), completes ``__reserved__init`` with the first case's config for
  it, ``sources`` indexed; the process is then stopped (an initialised process is never
  reused).

A check whose prerequisite failed is reported ``skipped``; nothing raises.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

import httpx

from statebox.episode import ReadinessCheck
from statebox.errors import BackendError
from statebox.thinkingbox._environment import ThinkingBoxRun
from statebox.thinkingbox._forkserver import LAUNCHER, wrappable
from statebox.thinkingbox._search import SearchTarget
from statebox.thinkingbox._servers import ServerSpec

__all__ = ["readiness_checks"]

_TIMEOUT_S = 60.0
"""Limit of one package import or one init, in seconds."""


async def readiness_checks(run: ThinkingBoxRun) -> list[ReadinessCheck]:
    """Every readiness check of ``run`` (see the module doc), in order.

    The checks run at once (an init does not wait for its import check: both import
    the server); an init whose import check or search check failed is reported
    skipped, whatever it did.
    """
    servers = sorted({s for c in run.suite.cases for s in c.servers})
    configs = {s: next(c.init[s] for c in run.suite.cases if s in c.servers) for s in servers}
    needs_search = any(
        isinstance(c.init.get(s), dict) and c.init[s].get("sources")
        for c in run.suite.cases
        for s in c.servers
    )
    imports = [asyncio.create_task(_package(run.pool.raw_specs[s])) for s in servers]
    inits = [asyncio.create_task(_init(run, s, configs[s])) for s in servers]
    try:
        imported_all = list(await asyncio.gather(*imports))
        checks = list(imported_all)
        searched = await _search(run.target) if needs_search else None
        if searched is not None:
            checks.append(searched)
        for server, imported, init in zip(servers, imported_all, inits, strict=True):
            config = configs[server]
            sources = isinstance(config, dict) and bool(config.get("sources"))
            if not imported.ok:
                init.cancel()
                checks.append(_skip(f"init:{server}", f"{imported.name} failed"))
            elif sources and searched is not None and not searched.ok:
                init.cancel()
                checks.append(_skip(f"init:{server}", "its config indexes sources; search failed"))
            else:
                checks.append(await init)
    finally:
        for task in inits:
            task.cancel()
        await asyncio.gather(*inits, return_exceptions=True)
    return checks


def _skip(name: str, why: str) -> ReadinessCheck:
    return ReadinessCheck(name=name, ok=False, skipped=True, detail=f"not run: {why}")


async def _package(spec: ServerSpec) -> ReadinessCheck:
    name = f"server_package:{spec.name}"
    if not wrappable(spec):
        return ReadinessCheck(
            name=name,
            ok=True,
            detail="not a `{python} -m MODULE` / `{python} SCRIPT.py` command: proven by init",
        )
    try:
        proc = await asyncio.create_subprocess_exec(
            spec.command[0],
            str(LAUNCHER),
            "check",
            "--",
            *spec.command[1:],
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            env={**os.environ, **spec.env},
            cwd=spec.cwd,
        )
    except OSError as exc:
        return ReadinessCheck(name=name, ok=False, detail=f"{spec.command[0]}: {exc}")
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), _TIMEOUT_S)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        return ReadinessCheck(name=name, ok=False, detail=f"the import ran past {_TIMEOUT_S:.0f} s")
    try:
        answer: Any = json.loads(out.decode("utf-8", "replace").strip().splitlines()[-1])
    except (ValueError, IndexError):
        answer = {"reason": f"{spec.command[0]} exited with code {proc.returncode}, saying nothing"}
    if isinstance(answer, dict) and answer.get("ok") is True:
        return ReadinessCheck(name=name, ok=True, detail=f"imports with {spec.command[0]}")
    reason = answer.get("reason") if isinstance(answer, dict) else answer
    return ReadinessCheck(name=name, ok=False, detail=f"{spec.command[0]}: {reason}")


async def _search(search: SearchTarget | None) -> ReadinessCheck:
    if search is None:
        return ReadinessCheck(
            name="search", ok=False, detail="the cases index sources, and no search service is set"
        )
    try:
        async with httpx.AsyncClient(base_url=search.url, timeout=5.0) as http:
            health = await http.get("/health")
            if health.status_code != 200:
                return ReadinessCheck(
                    name="search", ok=False, detail=f"{search.url}/health: {health.status_code}"
                )
            if search.api_key is not None:
                # A collection that does not exist: 404 with a good key, 401 with a bad one.
                probe = await http.get(
                    "/collections/statebox-readiness",
                    headers={"X-TYPESENSE-API-KEY": search.api_key},
                )
                if probe.status_code in (401, 403):
                    return ReadinessCheck(
                        name="search", ok=False, detail=f"{search.url} refuses the API key"
                    )
    except httpx.HTTPError as exc:
        return ReadinessCheck(
            name="search", ok=False, detail=f"{search.url}: {type(exc).__name__}: {exc}"
        )
    return ReadinessCheck(name="search", ok=True, detail=f"{search.url} answers")


async def _init(run: ThinkingBoxRun, server: str, config: Any) -> ReadinessCheck:
    name = f"init:{server}"
    process = None
    try:
        async with asyncio.timeout(_TIMEOUT_S):
            process = await run.pool.acquire(server)
            await process.reserved_init(config)
    except TimeoutError:
        return ReadinessCheck(name=name, ok=False, detail=f"ran past {_TIMEOUT_S:.0f} s")
    except BackendError as exc:
        return ReadinessCheck(name=name, ok=False, detail=str(exc))
    finally:
        if process is not None:
            await process.aclose()
    how = "a forked process" if process is not None and process.forked else "a fresh process"
    return ReadinessCheck(name=name, ok=True, detail=f"{how} completed __reserved__init")
