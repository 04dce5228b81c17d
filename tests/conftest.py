"""Shared fixtures: the toy domain, its tasks, a world, a registry, a results folder.

`tests/` goes on ``sys.path`` here so that ``from fixtures.toy import make_domain``
works from every test module (pyproject's pytest settings are not ours to change).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# Property tests check properties, not speed: on a loaded 2-core machine example
# generation can be slow, which must not fail a test (speed is measured in bench/).
settings.register_profile("statebox", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("statebox")

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from fixtures.support import TOY_TASKS  # noqa: E402
from fixtures.toy import make_domain  # noqa: E402
from statebox.domains import Domain  # noqa: E402
from statebox.registry import Registry  # noqa: E402
from statebox.tasks import Task, WorldCache, load_tasks  # noqa: E402
from statebox.world import World  # noqa: E402


@pytest.fixture(scope="session", autouse=True)
def _private_caches(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Caches (the validation cache of `statebox tasks validate`) go to a temp folder."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
        yield


@pytest.fixture
def toy_domain() -> Domain:
    """A fresh toy domain (its template cache is not shared between tests)."""
    return make_domain()


@pytest.fixture
def toy_tasks() -> list[Task]:
    """The three toy tasks, in file order."""
    return load_tasks(TOY_TASKS)


@pytest.fixture
def task(toy_tasks: list[Task]) -> Task:
    """The first toy task: ``toy.transfer.basic.001`` (move 40 from A1 to A2)."""
    return toy_tasks[0]


@pytest.fixture
def world(toy_domain: Domain, task: Task) -> Iterator[World]:
    """A fresh world of the first toy task."""
    w = WorldCache().clone(toy_domain, task)
    yield w
    w.close()


@pytest.fixture
def registry(toy_domain: Domain) -> Registry:
    """A registry holding only the toy domain (no entry points)."""
    return Registry([toy_domain])


@pytest.fixture
def results_dir(tmp_path: Path) -> Path:
    """A campaign directory that does not exist yet, under tmp_path."""
    return tmp_path / "campaign"


@pytest.fixture(scope="session")
def postgres() -> Iterator[Any]:
    """A throwaway PostgreSQL for the whole test session, started on first use.

    ``initdb`` into a temporary folder, 127.0.0.1 only (as root it runs as the
    ``postgres`` user); stopped and removed when the session ends.
    """
    from statebox.backends._server import PostgresServer  # psycopg only when asked for

    server = PostgresServer.start()
    try:
        yield server
    finally:
        server.stop()
