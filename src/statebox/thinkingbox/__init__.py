"""ThinkingBox compatibility: run ThinkingBox test-case datasets on their stdio MCP servers.

A ThinkingBox dataset (Microsoft's ThinkingBox-Bench v1.0, for one) is loaded as
statebox tasks (`load_dataset`); each scenario becomes an environment whose trials run
on fresh server processes from a warm pool (`open_thinkingbox`), and whose checks are
the dataset's own check functions, run in a subprocess against a small compatibility
module (`TbJudge`). Every agent, metric, report and comparison then works unchanged.
"""

from statebox.thinkingbox._environment import (
    ThinkingBoxEnvironment,
    ThinkingBoxRun,
    open_thinkingbox,
)
from statebox.thinkingbox._forkserver import ForkServer
from statebox.thinkingbox._format import (
    EVALUATION_TERMS,
    TbCase,
    TbScenario,
    TbSuite,
    load_dataset,
)
from statebox.thinkingbox._judge import TbJudge
from statebox.thinkingbox._pool import Pooled, ReadyPool, WarmPool
from statebox.thinkingbox._process import McpProcess
from statebox.thinkingbox._readiness import readiness_checks
from statebox.thinkingbox._search import SearchService, SearchTarget
from statebox.thinkingbox._servers import ServerSpec, load_servers
from statebox.thinkingbox._session import TbSession, is_reserved

__all__ = [
    "EVALUATION_TERMS",
    "ForkServer",
    "McpProcess",
    "Pooled",
    "ReadyPool",
    "SearchService",
    "SearchTarget",
    "ServerSpec",
    "TbCase",
    "TbJudge",
    "TbScenario",
    "TbSession",
    "TbSuite",
    "ThinkingBoxEnvironment",
    "ThinkingBoxRun",
    "WarmPool",
    "is_reserved",
    "load_dataset",
    "load_servers",
    "open_thinkingbox",
    "readiness_checks",
]
