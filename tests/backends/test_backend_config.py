"""Backend files: the fields a server and a database need, refused in one line when wrong."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from fixtures.backend_support import BACKEND_FILES, EXAMPLE
from statebox.backends import ServerConfig, load_backend
from statebox.errors import ConfigError


def test_the_example_files_load_with_their_paths_resolved() -> None:
    config = load_backend(BACKEND_FILES["postgres"])
    assert (config.name, config.database.kind) == ("shop", "postgres")
    assert config.path(config.database.schema_file) == EXAMPLE / "schema.postgres.sql"
    assert config.policy_fields.is_excluded("notes", "body")
    seed = config.seed_data()
    assert isinstance(seed, dict) and [r["id"] for r in seed["orders"]] == [1001, 1002, 1003, 1004]
    assert load_backend(BACKEND_FILES["sqlite"]).database.kind == "sqlite"


def test_an_http_server_stays_on_loopback() -> None:
    base = {"command": ["x", "--port", "{port}"], "env": {"DB": "{database_url}"}}
    ServerConfig.model_validate({**base, "transport": "http"})
    with pytest.raises(ValidationError, match="loopback"):
        ServerConfig.model_validate(
            {**base, "transport": "http", "url": "http://10.1.2.3:{port}/mcp"}
        )
    with pytest.raises(ValidationError, match="port"):
        ServerConfig.model_validate({"command": ["x"], "env": base["env"], "transport": "http"})


def test_a_missing_schema_file_names_the_field(tmp_path: Path) -> None:
    bad = tmp_path / "b.yaml"
    bad.write_text(
        "name: shop\ndatabase: {kind: sqlite, schema: nope.sql}\n"
        "server: {command: [x], env: {DB: '{database_url}'}}\n"
    )
    with pytest.raises(ConfigError, match=r"database.schema .*nope.sql"):
        load_backend(bad).schema_sql()


def test_a_table_without_a_primary_key_is_refused_unless_ignored_with_a_reason() -> None:
    import asyncio

    from statebox.backends import SqliteFiles
    from statebox.tasks import StatePatch

    schema = "CREATE TABLE log (msg TEXT); CREATE TABLE t (id INTEGER PRIMARY KEY, v JSON);"

    async def go(ignored: frozenset[str]) -> object:
        files = SqliteFiles(schema, {"t": [{"id": 1, "v": {"b": 1, "a": 2}}]}, ignored=ignored)
        try:
            return await files.template(StatePatch())
        finally:
            await files.aclose()

    with pytest.raises(ConfigError, match="'log' has no primary key"):
        asyncio.run(go(frozenset()))
    template = asyncio.run(go(frozenset({"log"})))
    assert template.state.rows == {"t": {(1,): {"id": 1, "v": '{"a":2,"b":1}'}}}  # type: ignore[attr-defined]


def test_a_server_that_cannot_start_is_reported_without_the_database_password(
    postgres: object,
) -> None:
    import asyncio
    import sys

    from statebox.backends import open_backend
    from statebox.errors import BackendError
    from statebox.tasks import load_tasks

    url = postgres.url  # type: ignore[attr-defined]
    config = load_backend(BACKEND_FILES["postgres"])
    crash = (sys.executable, "-c", "import sys; print(sys.argv[1], file=sys.stderr); sys.exit(3)")
    server = config.server.model_copy(update={"command": (*crash, "{database_url}"), "env": {}})
    backend = open_backend(config.model_copy(update={"server": server}), postgres_url=url, warm=0)
    task = load_tasks(EXAMPLE / "tasks" / "refund.yaml")[0]

    async def go() -> str:
        try:
            await backend.open(task)
        except BackendError as exc:
            return str(exc)
        finally:
            await backend.aclose()
        return ""

    message = asyncio.run(go())
    password = url.split(":")[2].split("@")[0]
    assert "could not start" in message and "***" in message
    assert password not in message
