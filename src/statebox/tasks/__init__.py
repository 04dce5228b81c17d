"""Tasks: the `Task` model, its YAML loader and the built-in suites' names and versions."""

from statebox.tasks._files import PLACEHOLDER, dump_tasks, dump_yaml, placeholders, task_data
from statebox.tasks._loader import bundle_hash, load_tasks, parse_tasks
from statebox.tasks._model import (
    CheckFact,
    Checks,
    DontCare,
    GoldenCall,
    ReplyCheck,
    ResponseCheck,
    RowSelector,
    RubricQuestion,
    SqlInvariant,
    StatePatch,
    Task,
    TextCheck,
    UserSpec,
)
from statebox.tasks._suites import (
    BENCH_NAME,
    LEGACY_VERSION,
    SuiteName,
    default_version,
    parse_suite,
    pin_legacy,
    resolve_suite,
    suite_tasks,
    suite_versions,
)
from statebox.tasks._user import BehaviourSpec, Fact, default_ask
from statebox.tasks._worlds import WorldCache

__all__ = [
    "BENCH_NAME",
    "LEGACY_VERSION",
    "PLACEHOLDER",
    "BehaviourSpec",
    "CheckFact",
    "Checks",
    "DontCare",
    "Fact",
    "GoldenCall",
    "ReplyCheck",
    "ResponseCheck",
    "RowSelector",
    "RubricQuestion",
    "SqlInvariant",
    "StatePatch",
    "SuiteName",
    "Task",
    "TextCheck",
    "UserSpec",
    "WorldCache",
    "bundle_hash",
    "default_ask",
    "default_version",
    "dump_tasks",
    "dump_yaml",
    "load_tasks",
    "parse_suite",
    "parse_tasks",
    "pin_legacy",
    "placeholders",
    "resolve_suite",
    "suite_tasks",
    "suite_versions",
    "task_data",
]
