"""Tasks: the `Task` model and its YAML loader."""

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
from statebox.tasks._user import BehaviourSpec, Fact, default_ask
from statebox.tasks._worlds import WorldCache

__all__ = [
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
    "Task",
    "TextCheck",
    "UserSpec",
    "WorldCache",
    "bundle_hash",
    "default_ask",
    "load_tasks",
    "parse_tasks",
]
