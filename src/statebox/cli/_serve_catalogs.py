"""``statebox serve`` beyond statebox's own domains: datasets, backend files, a judge model.

A ThinkingBox dataset (``--thinkingbox``), backend files (``--backend``) and the judge
model for rubric questions (``--judge``).

Each builder returns the function `ServeApp` calls (in a worker thread) to build its
`TaskCatalog`: a dataset's catalog is evaluation-only (`EVALUATION_TERMS`) and brings
the dataset's readiness probes (`statebox.thinkingbox.readiness_checks`); a configured
judge adds one probe, its endpoint answering. The catalog's ``aclose`` stops what the
builder started (servers, the search service, a throwaway PostgreSQL, model clients).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from statebox.cli._backends import BackendOptions, open_backends
from statebox.cli._thinkingbox import TbOptions, open_dataset
from statebox.episode import ReadinessCheck
from statebox.errors import ConfigError

__all__ = ["ServeJudge", "backend_catalog", "serve_judge", "thinkingbox_catalog"]

_PROVIDER_URLS = {"openai": "https://api.openai.com/v1", "anthropic": "https://api.anthropic.com"}
"""Where a judge without a base URL is reached (the SDKs' defaults)."""

Probe = Callable[[], Awaitable[Sequence[ReadinessCheck]]]


class ServeJudge(NamedTuple):
    """The rubric judge of a served catalog."""

    rubric: Any
    """The `statebox.judge.RubricJudge`."""
    probe: Probe
    """Its readiness check: the endpoint answers."""
    aclose: Callable[[], Awaitable[None]]
    """Closes its model clients."""


def serve_judge(
    judge: str | None, judge_base_url: str | None, models: Path | None
) -> ServeJudge | None:
    """The judge ``--judge`` / ``--judge-base-url`` / ``--models`` name (None: no judge).

    Raises:
        ConfigError: A bad spec or models file, or a base URL without a judge.
    """
    from statebox.judge import ModelRubricJudge
    from statebox.llm import ModelSetup
    from statebox.serve._readiness import endpoint_check
    from statebox.settings import Settings

    flags = {"judge": judge, "judge_base_url": judge_base_url, "models_file": models}
    try:
        settings = Settings.model_validate({k: v for k, v in flags.items() if v is not None})
    except ValueError as exc:
        raise ConfigError(f"settings: {exc}") from exc
    setup = ModelSetup(settings)
    if judge is None and setup.file.judge is None:
        if judge_base_url is not None:
            raise ConfigError("--judge-base-url needs a judge: give --judge PROVIDER:MODEL")
        return None
    config = setup.config("judge", judge)
    url = config.base_url or _PROVIDER_URLS[config.provider]

    async def probe() -> list[ReadinessCheck]:
        return [await endpoint_check("judge", url)]

    return ServeJudge(ModelRubricJudge(setup.hub, config), probe, setup.aclose)


def _closer(*steps: Callable[[], Awaitable[None]] | None) -> Callable[[], Awaitable[None]]:
    """One ``aclose`` running every step, in order, even after one fails."""

    async def aclose() -> None:
        failed: Exception | None = None
        for step in steps:
            if step is None:
                continue
            try:
                await step()
            except Exception as exc:  # the next steps still stop what they own
                failed = failed or exc
        if failed is not None:
            raise failed

    return aclose


def _catalog(run: Any, build: Callable[[], Any]) -> Any:
    """``build()``, stopping ``run`` when it fails (in the loader's worker thread)."""
    try:
        return build()
    except BaseException:
        asyncio.run(run.aclose())  # nothing of the run is bound to the server's loop yet
        raise


def thinkingbox_catalog(
    tb: TbOptions, judge: ServeJudge | None, log_dir: Path | None
) -> Callable[[], Any]:
    """The catalog builder of ``serve --thinkingbox``: evaluation only, with its probes."""

    def load() -> Any:
        from statebox.serve import TaskCatalog
        from statebox.thinkingbox import EVALUATION_TERMS, readiness_checks

        run = open_dataset(tb, log_dir)

        async def dataset() -> list[ReadinessCheck]:
            return await readiness_checks(run)

        probes: list[Probe] = [dataset]
        if judge is not None:
            probes.append(judge.probe)
        return _catalog(
            run,
            lambda: TaskCatalog(
                run.tasks,
                run.environments,
                rubric=judge.rubric if judge else None,
                evaluation_only=EVALUATION_TERMS,
                readiness=probes,
                aclose=_closer(run.aclose, judge.aclose if judge else None),
            ),
        )

    return load


def backend_catalog(
    options: BackendOptions, tasks: list[Path] | None, judge: ServeJudge | None
) -> Callable[[], Any]:
    """The catalog builder of ``serve --backend FILE``: your MCP server over a database."""

    def load() -> Any:
        from statebox.serve import TaskCatalog
        from statebox.tasks import load_tasks

        run = open_backends(options, load_tasks=not tasks)
        return _catalog(
            run,
            lambda: TaskCatalog(
                load_tasks(tasks) if tasks else run.tasks,
                run.environments,
                rubric=judge.rubric if judge else None,
                readiness=[judge.probe] if judge else (),
                aclose=_closer(run.aclose, judge.aclose if judge else None),
            ),
        )

    return load
