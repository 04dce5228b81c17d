"""openenv is imported by halves: the client never loads its server side, nothing loads gradio.

openenv's package ``__init__`` imports its server and its gradio web UI eagerly
(9 of the 12-14 s of ``import openenv.core``); statebox serves no web UI.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytest.importorskip("openenv")

SERVER_SIDE = ("fastapi", "fastmcp", "openenv.core.env_server.http_server")


def _loaded(code: str) -> dict[str, object]:
    """Run ``code`` in a fresh interpreter; it sets ``out`` (a dict), printed to stderr as JSON."""
    script = f"import json, sys\n{code}\nprint(json.dumps(out), file=sys.stderr)\n"
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    result: dict[str, object] = json.loads(run.stderr.strip().splitlines()[-1])
    return result


_HEAVY = f"""
def heavy():
    return sorted(
        m for m in sys.modules
        if m.split(".")[0] == "gradio" or m in {SERVER_SIDE!r}
    )
"""


def test_statebox_serve_help_imports_no_openenv_and_no_gradio() -> None:
    out = _loaded(
        _HEAVY
        + """
sys.argv = ["statebox", "serve", "--help"]
from statebox.cli import main
try:
    main()
except SystemExit:
    pass
out = {"heavy": heavy(), "openenv": sorted(m for m in sys.modules if m.startswith("openenv"))}
"""
    )
    assert out == {"heavy": [], "openenv": []}


def test_the_client_imports_openenv_client_side_only() -> None:
    out = _loaded(
        _HEAVY
        + """
from statebox.serve import StateboxEnvClient
client = StateboxEnvClient(base_url="http://127.0.0.1:9")  # built, never connected
out = {"heavy": heavy(), "ws": client._ws_url}
from openenv.core import GenericEnvClient  # openenv's own package init, run on first use
out["generic"] = GenericEnvClient.__name__
out["after"] = heavy()
out["gradio_not_left_absent"] = "gradio" not in sys.modules
"""
    )
    assert out["heavy"] == []
    assert out["ws"] == "ws://127.0.0.1:9/ws"
    assert out["generic"] == "GenericEnvClient"
    after = out["after"]
    assert isinstance(after, list) and "gradio" not in [m.split(".")[0] for m in after]
    assert out["gradio_not_left_absent"] is True  # a program may still import gradio itself


def test_the_openenv_server_is_built_without_gradio() -> None:
    out = _loaded(
        _HEAVY
        + """
from statebox.serve import OpenEnvServer
server = OpenEnvServer(lambda: None, False, max_sessions=4)
import openenv.core.env_server as es
out = {"heavy": heavy(), "web_ui": es.create_web_interface_app is None}
"""
    )
    heavy = out["heavy"]
    assert isinstance(heavy, list) and not [m for m in heavy if m.startswith("gradio")]
    assert "openenv.core.env_server.http_server" in heavy  # the server side is there
    assert out["web_ui"] is True  # openenv's web interface left out, not imported


def test_the_openenv_server_is_built_without_fastmcp_which_loads_on_demand() -> None:
    # FastMCP (and its client, ~1.6 s) serves only openenv's MCPEnvironment; statebox's
    # environment is not one, so `statebox serve` should not wait for it.
    out = _loaded(
        """
from statebox.serve import OpenEnvServer
server = OpenEnvServer(lambda: None, False, max_sessions=4)
out = {"fastmcp": sorted(m for m in sys.modules if m.split(".")[0] == "fastmcp")[:3]}
from openenv.core.env_server import MCPEnvironment  # a program's own use still works
from openenv.core.env_server.http_server import get_server_tools
out["mcp_environment"] = MCPEnvironment.__name__
out["fastmcp_after"] = "fastmcp" in sys.modules
out["tools"] = sorted(get_server_tools(__import__("fastmcp").FastMCP("x")))
"""
    )
    assert out["fastmcp"] == []
    assert out["mcp_environment"] == "MCPEnvironment"
    assert out["fastmcp_after"] is True
    assert out["tools"] == []
