"""``statebox serve``: the MCP gateway, the control API and the OpenEnv RL server.

It serves a built-in suite, task files, a ThinkingBox dataset (``--thinkingbox``,
evaluation only) or backend files (``--backend``); `statebox.cli._serve_catalogs`
builds the last two.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Annotated, Any

import typer

from statebox.cli._app import (
    SUITE_HELP,
    DomainOption,
    PolicyModeOption,
    app,
    err_console,
    handled,
)
from statebox.cli._tb_options import (
    CheckTimeout,
    DropSources,
    ForkServer,
    HideTool,
    ServerPython,
    TbServers,
    TestList,
    TestName,
    ToolTimeout,
    TypesenseUrl,
    WarmPool,
)
from statebox.errors import ConfigError


@app.command()
@handled
def serve(
    suite: Annotated[
        str | None,
        typer.Option(
            help=SUITE_HELP + " Default: both splits of every domain (the gateway serves "
            "test tasks, OpenEnv train ones)."
        ),
    ] = None,
    tasks: Annotated[
        list[Path] | None, typer.Option(help="Task YAML file or folder (repeatable).")
    ] = None,
    domain: DomainOption = None,
    host: Annotated[str, typer.Option(help="Interface to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port (0 picks a free one).", min=0, max=65535)] = 8000,
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
    judge: Annotated[
        str | None,
        typer.Option(help="Rubric judge model (openai:MODEL); none: rubric checks skipped."),
    ] = None,
    judge_base_url: Annotated[str | None, typer.Option(help="Judge model endpoint.")] = None,
    models: Annotated[
        Path | None, typer.Option(help="Models file (YAML): the judge's model and parameters.")
    ] = None,
    thinkingbox: Annotated[
        Path | None,
        typer.Option(
            help="Serve a ThinkingBox dataset (scenario/, test_case/) on its own MCP servers, "
            "for evaluation only (its card forbids training on it).",
            rich_help_panel="ThinkingBox datasets",
        ),
    ] = None,
    test_list: TestList = None,
    test: TestName = None,
    tb_servers: TbServers = None,
    server_python: ServerPython = None,
    drop_sources: DropSources = False,
    hide_tool: HideTool = None,
    warm_pool: WarmPool = 2,
    check_timeout: CheckTimeout = 60.0,
    typesense_url: TypesenseUrl = None,
    fork_server: ForkServer = True,
    tool_timeout: ToolTimeout = 300.0,
    server_logs: Annotated[
        Path | None,
        typer.Option(
            help="Folder for each server process's stderr (quoted when one fails to start; "
            "default: discarded).",
        ),
    ] = None,
    backend: Annotated[
        list[Path] | None,
        typer.Option(
            help="Backend file (YAML): your MCP server over a database statebox owns; its "
            "tasks folder unless --tasks (repeatable).",
            rich_help_panel="Your own MCP server",
        ),
    ] = None,
    postgres_url: Annotated[
        str | None,
        typer.Option(
            help="PostgreSQL server for postgres backends (default: a throwaway one).",
            rich_help_panel="Your own MCP server",
        ),
    ] = None,
    openenv_token_file: Annotated[
        Path | None,
        typer.Option(
            help="Require a bearer token on /openenv (RL clients); it is generated and "
            "written to this file (mode 600). Needed with a --host beyond loopback."
        ),
    ] = None,
    allowed_host: Annotated[
        list[str] | None,
        typer.Option(
            help="Another name clients reach this server by, accepted in Host and Origin "
            "headers (repeatable; loopback names and --host are accepted already)."
        ),
    ] = None,
    idle_timeout: Annotated[
        float,
        typer.Option(min=1.0, help="Seconds after which unused sessions and RL episodes end."),
    ] = 900.0,
    max_per_client: Annotated[
        int,
        typer.Option(
            min=1,
            help="Most live RL episodes, and WebSockets, of one peer address (a trainer on "
            "one host opens num_generations x batch at once).",
        ),
    ] = 64,
) -> None:
    """Serve episodes: per-session MCP endpoints, the control API and OpenEnv."""
    try:
        from statebox.serve import BackgroundServer, ServeApp, TaskCatalog
    except ImportError as exc:
        raise ConfigError(f"statebox serve needs: pip install 'statebox[rl]' ({exc})") from exc
    from statebox.cli._commands import _registry, selected_suites
    from statebox.serve._guard import LOOPBACK_HOSTS, allowed_hosts
    from statebox.tasks import load_tasks

    if sum(map(bool, (suite is not None, thinkingbox is not None, backend))) > 1:
        raise ConfigError("give one of --suite, --thinkingbox and --backend")
    if suite is not None and tasks:
        raise ConfigError("give --suite or --tasks, not both")
    if thinkingbox is not None and tasks:
        raise ConfigError("--thinkingbox serves the dataset's tests; not with --tasks")
    if thinkingbox is not None and policy_mode is not None:
        raise ConfigError(
            "--policy-mode serves a statebox domain's policy; a ThinkingBox dataset's "
            "servers serve their own"
        )
    if openenv and openenv_token_file is None and host not in LOOPBACK_HOSTS:
        # Beyond loopback anyone on the network could reset and evict RL episodes.
        raise ConfigError(
            f"--host {host} serves /openenv beyond loopback: give --openenv-token-file FILE "
            "(RL clients then send its token) or --no-openenv"
        )
    if thinkingbox is None and (test_list or test):
        raise ConfigError("--test-list and --test select ThinkingBox tests; add --thinkingbox")
    if postgres_url is not None and not backend:
        raise ConfigError("--postgres-url is for --backend files")
    from statebox.cli._serve_catalogs import serve_judge

    rubric = serve_judge(judge, judge_base_url, models)
    load: Any
    if thinkingbox is not None:
        from statebox.cli._serve_catalogs import thinkingbox_catalog
        from statebox.cli._thinkingbox import TbOptions

        tb = TbOptions.build(
            thinkingbox,
            test_list=test_list,
            names=test,
            servers=tb_servers,
            server_python=server_python,
            drop_sources=drop_sources,
            hidden_tools=hide_tool,
            warm=warm_pool,
            check_timeout_s=check_timeout,
            typesense_url=typesense_url,
            fork_server=fork_server,
            tool_timeout_s=tool_timeout,
        )
        load = thinkingbox_catalog(tb, rubric, server_logs)
    elif backend:
        from statebox.cli._backends import BackendOptions
        from statebox.cli._serve_catalogs import backend_catalog

        db = BackendOptions(
            files=tuple(p.resolve() for p in backend),
            postgres_url=postgres_url,
            server_python=server_python,
            warm=warm_pool,
        )
        load = backend_catalog(db, tasks, rubric)
    else:
        registry = _registry(domain)
        # A bad name fails here, in one line, not as a server that never gets ready.
        refs = selected_suites(registry, suite, given=bool(tasks)) or []

        def load() -> TaskCatalog:
            # No --suite: both splits, so OpenEnv (train only unless --allow-test-split)
            # has tasks to serve whatever the default version's `all` holds.
            task_list = (
                load_tasks(tasks)
                if tasks
                else registry.suites(refs, both_splits=suite is None)
                if refs
                else registry.suite("all", both_splits=True)
            )
            names = sorted({t.domain for t in task_list})
            return TaskCatalog(
                task_list,
                {n: registry.domain(n) for n in names},
                policy_mode=None if policy_mode is None else policy_mode.value,
                rubric=rubric.rubric if rubric else None,
                readiness=[rubric.probe] if rubric else (),
                aclose=rubric.aclose if rubric else None,
            )

    from statebox.serve._sessions import new_secret

    rl_token = new_secret() if openenv and openenv_token_file is not None else None
    serve_app = ServeApp(
        load,
        openenv=openenv,
        allow_test_split=allow_test_split,
        hosts=allowed_hosts(host, allowed_host or ()),
        idle_timeout_s=idle_timeout,
        openenv_token=rl_token,
        max_per_client=max_per_client,
        freeze_gc=True,
        on_load_error=lambda error: err_console.print(
            f"statebox serve: the tasks did not load, /ready answers not ready: {error}",
            highlight=False,
            markup=False,
            soft_wrap=True,  # one line, however long: off a terminal rich folds at 200
        ),
    )
    if token_file is not None:
        _write_secret(token_file, serve_app.control_token)
    if openenv_token_file is not None and rl_token is not None:
        _write_secret(openenv_token_file, rl_token)

    raise_open_files_limit()

    async def main() -> None:
        quiet_accept_failures(asyncio.get_running_loop())
        server = BackgroundServer(serve_app.app, host, port)
        url = await server.start()
        err_console.print(f"statebox serve on {url}", highlight=False)
        err_console.print(f"  health  {url}/health   ready {url}/ready", highlight=False)
        err_console.print(f"  control {url}/control/sessions", highlight=False)
        if openenv:
            err_console.print(f"  openenv {url}/openenv  (ws {url}/openenv/ws)", highlight=False)
            if rl_token is None:
                err_console.print("  openenv: no token (loopback only)", highlight=False)
        if thinkingbox is not None:
            err_console.print(
                "  mode    evaluation only: the dataset's card forbids training on its tasks",
                highlight=False,
            )
        if token_file is None:
            err_console.print(f"  control token: {serve_app.control_token}", highlight=False)
        stopping = asyncio.Event()
        # SIGTERM stops like Ctrl-C: live episodes' servers are torn down, not orphaned.
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stopping.set)
        try:
            await stopping.wait()
        finally:
            await server.stop()

    asyncio.run(main())


ACCEPT_FAILURE = "socket.accept() out of system resource"
"""asyncio's message for an accept that failed for want of a file descriptor."""


def quiet_accept_failures(loop: asyncio.AbstractEventLoop, every_s: float = 10.0) -> None:
    """Log accepts failing for want of descriptors as one line per ``every_s`` seconds.

    asyncio logs each such failure with its traceback: a flood of connections past the
    open-files limit wrote tens of thousands of lines a second. Any other error is
    handled as before.
    """
    previous = loop.get_exception_handler()
    last = -every_s

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        nonlocal last
        if context.get("message") != ACCEPT_FAILURE:
            if previous is not None:
                previous(loop, context)
            else:
                loop.default_exception_handler(context)
            return
        if loop.time() - last >= every_s:
            last = loop.time()
            err_console.print(
                "statebox serve: out of file descriptors, refusing connections "
                f"({context.get('exception')}); said once per {every_s:g} s",
                highlight=False,
                soft_wrap=True,
            )

    loop.set_exception_handler(handler)


def raise_open_files_limit() -> None:
    """Let the server hold as many connections as the system allows this process.

    Each connection is a file descriptor, and the usual soft limit is 1,024: a trainer's
    batch and a few idle clients reach it, and then every accept fails (each logged).
    The soft limit goes up to the hard one, as servers commonly set it.
    """
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def _write_secret(path: Path, secret: str) -> None:
    """Write a token to a file only its owner can read (mode 600 before it goes in)."""
    try:
        path.touch(mode=0o600)
        path.chmod(0o600)  # before the secret goes in, even if the file existed
        path.write_text(secret + "\n")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot write the token: {exc.strerror}") from exc
