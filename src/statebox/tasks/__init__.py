"""Tasks: the `Task` model and its YAML loader."""

from statebox.tasks._loader import bundle_hash, load_tasks, parse_tasks
from statebox.tasks._model import (
    Checks,
    GoldenCall,
    ResponseCheck,
    SqlInvariant,
    StatePatch,
    Task,
    UserSpec,
)
from statebox.tasks._user import BehaviourSpec, Fact, default_ask
from statebox.tasks._worlds import WorldCache

__all__ = [
    "BehaviourSpec",
    "Checks",
    "Fact",
    "GoldenCall",
    "ResponseCheck",
    "SqlInvariant",
    "StatePatch",
    "Task",
    "UserSpec",
    "WorldCache",
    "bundle_hash",
    "default_ask",
    "load_tasks",
    "parse_tasks",
]
