"""``statebox serve``: the MCP gateway, the control API and the OpenEnv RL server."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer

from statebox.cli._app import PolicyModeOption, app, err_console, handled
from statebox.errors import ConfigError


@app.command()
@handled
def serve(
    suite: Annotated[
        str | None, typer.Option(help="Built-in suite: a domain name or 'all'.")
    ] = None,
    tasks: Annotated[
        list[Path] | None, typer.Option(help="Task YAML file or folder (repeatable).")
    ] = None,
    domain: Annotated[
        list[str] | None, typer.Option(help="Extra domain as module:ATTR or file.py:ATTR.")
    ] = None,
    host: Annotated[str, typer.Option(help="Interface to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port (0 picks a free one).")] = 8000,
    openenv: Annotated[
        bool, typer.Option(help="Also serve the OpenEnv RL environment under /openenv.")
    ] = True,
    allow_test_split: Annotated[
        bool, typer.Option(help="Let the OpenEnv server serve split: test tasks (evaluation).")
    ] = False,
    token_file: Annotated[
        Path | None, typer.Option(help="Write the control API token to this file (mode 600).")
    ] = None,
    policy_mode: Annotated[
        PolicyModeOption | None,
        typer.Option(
            help="How the policy reaches the agent: prompt (the whole text), search (a pointer "
            "and the search_policy tool) or both; default: each task's own (prompt)."
        ),
    ] = None,
) -> None:
    """Serve episodes: per-session MCP endpoints, the control API and OpenEnv."""
    try:
        from statebox.serve import BackgroundServer, ServeApp, TaskCatalog
    except ImportError as exc:
        raise ConfigError(f"statebox serve needs: pip install 'statebox[rl]' ({exc})") from exc
    from statebox.cli._commands import _registry
    from statebox.tasks import load_tasks

    if suite is not None and tasks:
        raise ConfigError("give --suite or --tasks, not both")
    registry = _registry(domain)

    def load() -> TaskCatalog:
        task_list = load_tasks(tasks) if tasks else registry.suite(suite or "all")
        names = sorted({t.domain for t in task_list})
        return TaskCatalog(
            task_list,
            {n: registry.domain(n) for n in names},
            policy_mode=None if policy_mode is None else policy_mode.value,
        )

    serve_app = ServeApp(load, openenv=openenv, allow_test_split=allow_test_split)
    if token_file is not None:
        token_file.touch(mode=0o600)
        token_file.chmod(0o600)  # before the secret goes in, even if the file existed
        token_file.write_text(serve_app.control_token + "\n")

    async def main() -> None:
        server = BackgroundServer(serve_app.app, host, port)
        url = await server.start()
        err_console.print(f"statebox serve on {url}", highlight=False)
        err_console.print(f"  health  {url}/health   ready {url}/ready", highlight=False)
        err_console.print(f"  control {url}/control/sessions", highlight=False)
        if openenv:
            err_console.print(f"  openenv {url}/openenv  (ws {url}/openenv/ws)", highlight=False)
        if token_file is None:
            err_console.print(f"  control token: {serve_app.control_token}", highlight=False)
        try:
            await asyncio.Event().wait()
        finally:
            await server.stop()

    asyncio.run(main())
