"""Reading a ThinkingBox servers file: placeholders, cwd, env, unsupported types, errors."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from fixtures.tb_support import FIXTURE
from statebox.errors import ConfigError
from statebox.thinkingbox._servers import ServerSpec, load_servers


def test_fixture_servers_file() -> None:
    specs = load_servers(FIXTURE / "servers.yaml", python="/opt/py/bin/python")
    assert list(specs) == ["tiny_shop"]
    assert specs["tiny_shop"] == ServerSpec(
        name="tiny_shop",
        command=("/opt/py/bin/python", "tiny_shop_server.py"),
        env={"TINY_SHOP_MODE": "test"},
        cwd=FIXTURE,
        python="/opt/py/bin/python",
    )
    assert specs.unsupported == {"not_a_process": "http"}
    assert specs.require("tiny_shop") is specs["tiny_shop"]


def test_require_names_the_problem() -> None:
    specs = load_servers(FIXTURE / "servers.yaml", python=sys.executable)
    with pytest.raises(ConfigError, match=r"server 'not_a_process'.*type 'http' cannot run here"):
        specs.require("not_a_process")
    with pytest.raises(ConfigError, match=r"server 'nope': no such server.*tiny_shop"):
        specs.require("nope")


def test_placeholders_env_and_cwd(tmp_path: Path) -> None:
    (tmp_path / "srv").mkdir()
    path = tmp_path / "servers.yaml"
    path.write_text(
        "servers:\n"
        "  a:\n"
        "    type: mcp-process\n"
        '    command: ["{python}", "-m", "pkg.server", "--py={python}"]\n'
        "    env: {PORT: 8080, DEBUG: true, EMPTY: null}\n"
        "    cwd: srv\n"
        "  b:\n"
        "    type: mcp-process\n"
        '    command: ["serve-b"]\n'
        "    cwd: /abs/dir\n"
        "  c: {type: sse, url: 'http://x'}\n"
    )
    specs = load_servers(path, python="py3")
    assert specs["a"].command == ("py3", "-m", "pkg.server", "--py=py3")
    assert specs["a"].env == {"PORT": "8080", "DEBUG": "True", "EMPTY": ""}
    assert specs["a"].cwd == (tmp_path / "srv").resolve()
    assert specs["b"].cwd == Path("/abs/dir")
    assert specs["b"].env == {}
    assert specs.unsupported == {"c": "sse"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("servers: [1, 2]\n", r"expected a `servers:` mapping"),
        ("servers: {a: {type: mcp-process}}\n", r"server 'a': `command` must be a non-empty"),
        ("servers: {a: {type: mcp-process, command: []}}\n", r"server 'a': `command`"),
        ("servers: {a: {type: mcp-process, command: [x], env: [1]}}\n", r"server 'a': `env`"),
        ("servers: {a: {type: mcp-process, command: [x], cwd: 3}}\n", r"server 'a': `cwd`"),
        ("servers: {a: 5}\n", r"server 'a': entry must be a mapping"),
        ("servers: {a: [\n", r"not valid YAML"),
    ],
)
def test_malformed_files(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "servers.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message) as info:
        load_servers(path, python="py")
    assert str(path) in str(info.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"missing\.yaml: cannot read it"):
        load_servers(tmp_path / "missing.yaml", python="py")
