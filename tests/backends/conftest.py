"""The backend tests' PostgreSQL: one throwaway server per test session.

Started by the first test that needs it and stopped when the session ends (``initdb``
into a temporary folder, 127.0.0.1 only; as root it runs as the ``postgres`` user).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from statebox.backends import PostgresServer


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """A throwaway PostgreSQL for the whole test session."""
    server = PostgresServer.start()
    try:
        yield server
    finally:
        server.stop()
