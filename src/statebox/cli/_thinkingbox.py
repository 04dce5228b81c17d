"""``statebox run --thinkingbox DATASET``: a ThinkingBox dataset as the campaign's tasks.

The options travel in the manifest (``settings.thinkingbox``) so that ``--resume``
rebuilds the same environments without the user repeating them.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any, NamedTuple

from statebox.cli._app import err_console
from statebox.errors import ConfigError

__all__ = ["POLICY_SEARCH_TOOLS", "SearchNode", "TbOptions", "TbWorkerSetup", "open_dataset"]

POLICY_SEARCH_TOOLS = frozenset({"knowledge_base_search_policy", "search_policy"})
"""The v1.0 scenarios' policy-search tools: they need the search service that the
knowledge-base ``sources`` feed, so ``--drop-sources`` hides them from agents."""

SEARCH_BUILTIN = "builtin"
"""`TbOptions.search`: statebox's own search service (`SearchService`)."""
SEARCH_NONE = "none"
"""`TbOptions.search` with ``--drop-sources``: no service at all."""


class TbOptions(NamedTuple):
    """The ThinkingBox options of ``statebox run``."""

    dataset: Path
    """The dataset folder (``scenario/``, ``test_case/``)."""
    test_list: Path | None
    """YAML list of ``<file>.py:<function>``; None: every test of every file."""
    names: tuple[str, ...]
    """More ``<file>.py:<function>`` entries."""
    servers: Path
    """The servers YAML."""
    server_python: str
    """The python that runs ``{python}`` server commands."""
    drop_sources: bool
    """Drop knowledge-base ``sources`` (no search service) and hide the policy search."""
    hidden_tools: tuple[str, ...]
    """More tools to hide from agents."""
    warm: int
    """Server processes kept ready per server."""
    check_timeout_s: float
    """Limit of one check function, in seconds."""
    search: str = SEARCH_BUILTIN
    """Knowledge-base search: ``builtin`` (statebox's service), a Typesense base URL
    (``--typesense-url``), or ``none`` (``--drop-sources``)."""
    fork_server: bool = True
    """Fork each trial's server processes from a pre-imported parent per server."""
    tool_timeout_s: float = 300.0
    """Limit of one tool call (and of init/effects), in seconds."""

    @classmethod
    def build(
        cls,
        dataset: Path,
        *,
        test_list: Path | None,
        names: list[str] | None,
        servers: Path | None,
        server_python: str | None,
        drop_sources: bool,
        hidden_tools: list[str] | None,
        warm: int,
        check_timeout_s: float,
        typesense_url: str | None = None,
        fork_server: bool = True,
        tool_timeout_s: float = 300.0,
    ) -> TbOptions:
        """Options from the command line, defaults filled in.

        The servers file defaults to ``DATASET/../servers/servers.yaml`` (the layout of
        the thinkingbox-data repository); the server python to this one.

        Raises:
            ConfigError: The dataset folder, test list or servers file does not exist,
                a bad ``--typesense-url``, or it given with ``--drop-sources``.
        """
        from statebox.thinkingbox._search import parse_typesense_url

        if typesense_url is not None and drop_sources:
            raise ConfigError("--typesense-url and --drop-sources exclude each other")
        search = (
            SEARCH_NONE
            if drop_sources
            else parse_typesense_url(typesense_url)
            if typesense_url is not None
            else SEARCH_BUILTIN
        )
        dataset = dataset.resolve()
        if not (dataset / "test_case").is_dir() or not (dataset / "scenario").is_dir():
            raise ConfigError(f"{dataset}: not a ThinkingBox dataset (no test_case/ + scenario/)")
        if test_list is not None and not test_list.is_file():
            raise ConfigError(f"--test-list {test_list}: no such file")
        servers = (servers or dataset.parent / "servers" / "servers.yaml").resolve()
        if not servers.is_file():
            raise ConfigError(f"{servers}: no servers file; give --tb-servers FILE")
        return cls(
            dataset=dataset,
            test_list=test_list.resolve() if test_list else None,
            names=tuple(names or ()),
            servers=servers,
            server_python=_python(server_python),
            drop_sources=drop_sources,
            hidden_tools=tuple(hidden_tools or ()),
            warm=warm,
            check_timeout_s=check_timeout_s,
            search=search,
            fork_server=fork_server,
            tool_timeout_s=tool_timeout_s,
        )

    def to_manifest(self) -> dict[str, Any]:
        """JSON for ``manifest.settings.thinkingbox``."""
        return {
            k: [str(x) for x in v] if isinstance(v, tuple) else str(v) if isinstance(v, Path) else v
            for k, v in self._asdict().items()
        }

    @classmethod
    def from_manifest(cls, data: dict[str, Any]) -> TbOptions:
        """Options a campaign was started with (for ``--resume``)."""
        return cls(
            dataset=Path(data["dataset"]),
            test_list=Path(data["test_list"])
            if data.get("test_list") not in (None, "None")
            else None,
            names=tuple(data.get("names") or ()),
            servers=Path(data["servers"]),
            server_python=str(data["server_python"]),
            drop_sources=bool(data["drop_sources"]),
            hidden_tools=tuple(data.get("hidden_tools") or ()),
            warm=int(data["warm"]),
            check_timeout_s=float(data["check_timeout_s"]),
            # Campaigns from before these options ran without a search service and
            # without fork servers (those are what they then did).
            search=str(data.get("search", SEARCH_NONE)),
            fork_server=bool(data.get("fork_server", False)),
            tool_timeout_s=float(data.get("tool_timeout_s", 300.0)),
        )

    @property
    def source(self) -> str:
        """The campaign's task source label."""
        return f"thinkingbox:{self.dataset}"


def _python(given: str | None) -> str:
    """The server python as an absolute path (a resume may run from another folder).

    Raises:
        ConfigError: No such executable.
    """
    if not given:
        return sys.executable
    # abspath, not resolve(): a venv's python is a symlink whose target has no packages.
    found = shutil.which(given) if os.sep not in given else given
    if found is None or not os.access(found, os.X_OK) or not os.path.isfile(found):
        raise ConfigError(f"--server-python {given}: no such executable")
    return os.path.abspath(found)


def open_dataset(
    options: TbOptions,
    log_dir: Path | None = None,
    *,
    search: Any = None,
    start_search: bool = True,
) -> Any:
    """Load the dataset and build its environments (a `ThinkingBoxRun`; close it).

    With ``search == "builtin"`` this starts statebox's search service (stopped by the
    run's ``aclose``) when some case carries ``sources``.

    Args:
        options: The ThinkingBox options.
        log_dir: Where each server process's stderr goes (None: discarded).
        search: A `SearchTarget` already running for the built-in search (a Ray node's
            shared service); None starts one when needed.
        start_search: False: start none (a driver whose trials run elsewhere).

    Raises:
        TaskSpecError: A malformed test file, test list or scenario.
        ConfigError: A bad servers file, or a server the cases need is not in it.
        BackendError: The search service could not start.
    """
    try:
        from statebox.thinkingbox import (
            SearchService,
            SearchTarget,
            load_dataset,
            load_servers,
            open_thinkingbox,
        )
    except ImportError as exc:
        raise ConfigError(
            f"ThinkingBox datasets need the MCP client ({exc.name} is missing): "
            'pip install "statebox[thinkingbox]"'
        ) from exc

    suite = load_dataset(
        options.dataset, options.test_list, options.names, drop_sources=options.drop_sources
    )
    if not suite.cases:
        raise ConfigError(f"{options.dataset}: no test cases selected")
    for warning in suite.warnings:
        err_console.print(f"warning: {warning}", style="yellow")
    hidden = set(options.hidden_tools)
    if options.drop_sources:
        offered = {t for c in suite.cases for t in c.tools or ()}
        searches = sorted(POLICY_SEARCH_TOOLS & offered)
        if searches:
            err_console.print(
                f"warning: hiding {', '.join(searches)} from agents (no search service)",
                style="yellow",
            )
        hidden |= set(searches)
    servers = load_servers(options.servers, python=options.server_python)
    needs_search = any(
        isinstance(cfg, dict) and cfg.get("sources") for c in suite.cases for cfg in c.init.values()
    )
    service = None
    target = None
    if needs_search and options.search == SEARCH_BUILTIN and search is not None:
        target = search
    elif needs_search and options.search == SEARCH_BUILTIN and start_search:
        service = SearchService(log_path=log_dir / "search-service.log" if log_dir else None)
        service.start()
    elif needs_search and options.search != SEARCH_NONE:
        target = SearchTarget(options.search, os.environ.get("STATEBOX_TYPESENSE_API_KEY"))
    try:
        return open_thinkingbox(
            suite,
            servers,
            warm=options.warm,
            hidden_tools=frozenset(hidden),
            check_timeout_s=options.check_timeout_s,
            log_dir=log_dir,
            fork_server=options.fork_server,
            search=target,
            search_service=service,
            call_timeout_s=options.tool_timeout_s,
            on_notice=lambda m: err_console.print(f"note: {m}", style="yellow", highlight=False),
        )
    except BaseException:
        if service is not None:
            service.stop()
        raise


class SearchNode:
    """The built-in search service of one Ray node (a `NodeService` factory, picklable)."""

    def __init__(self) -> None:
        self._service: Any = None

    def start(self) -> tuple[str, str | None]:
        """Start it; return its URL and key."""
        from statebox.thinkingbox import SearchService

        self._service = SearchService().start()
        target = self._service.target
        return target.url, target.api_key

    def stop(self) -> None:
        """Stop it."""
        if self._service is not None:
            self._service.stop()


class TbWorkerSetup(NamedTuple):
    """A Ray worker's recipe for a ThinkingBox campaign.

    The base kit (models) plus the dataset's environments over the worker's own server
    processes, sharing its node's search service (`SearchNode`).
    """

    base: Any
    """The worker setup of the rest of the run (`CliSetup`)."""
    options: TbOptions
    """The dataset's options, as the driver resolved them."""
    log_dir: str | None
    """Folder for the servers' stderr (on the worker's node)."""
    node: tuple[str, str | None] | None = None
    """The node's search service (URL, key), once `on_node` gave it."""

    @property
    def builds_environments(self) -> bool:
        """Yes: the workers get the dataset's environments from this recipe."""
        return True

    @property
    def node_service(self) -> SearchNode | None:
        """One search service per node when the dataset uses the built-in one."""
        return SearchNode() if self.options.search == SEARCH_BUILTIN else None

    def on_node(self, info: tuple[str, str | None]) -> TbWorkerSetup:
        """This recipe with its node's search service."""
        return self._replace(node=info)

    def __call__(self) -> Any:
        """The base kit with the dataset's environments (closed with the kit)."""
        from statebox.runner import WorkerKit
        from statebox.thinkingbox import SearchTarget

        kit = self.base()
        target = SearchTarget(*self.node) if self.node is not None else None
        run = open_dataset(
            self.options, Path(self.log_dir) if self.log_dir else None, search=target
        )

        async def aclose() -> None:
            try:
                await run.aclose()
            finally:
                if kit.aclose is not None:
                    await kit.aclose()

        return WorkerKit(kit.registry, kit.users, kit.rubric, aclose, run.environments)
