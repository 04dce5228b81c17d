"""The JSON Schema of a task as a task file writes it.

`Task`'s own schema describes the model after its validators have read a file: its
``initial_state`` as ``upsert``/``delete`` and every user fact as an object. A task
file may write both shorter (``initial_state`` as table keys beside an optional
``delete:``, a fact as its plain value), so the schema admits those shapes too: a
task file that loads validates against it.
"""

from __future__ import annotations

from typing import Any

from statebox.tasks._model import Task

__all__ = ["task_json_schema"]

_ROWS = {"type": "array", "items": {"type": "object"}}


def task_json_schema() -> dict[str, Any]:
    """The JSON Schema a task (one item of a task file) validates against."""
    schema = Task.model_json_schema()
    init = schema["properties"]["initial_state"]
    schema["properties"]["initial_state"] = {
        "description": init.get("description", ""),
        "default": init.get("default"),
        "anyOf": [
            {"$ref": "#/$defs/StatePatch"},
            {  # table keys beside an optional ``delete:``
                "type": "object",
                "properties": {"delete": {"type": "object", "additionalProperties": _ROWS}},
                "additionalProperties": _ROWS,
            },
        ],
    }
    facts = schema["$defs"]["UserSpec"]["properties"]["facts"]
    facts["additionalProperties"] = {
        "anyOf": [
            {"$ref": "#/$defs/Fact"},
            {"type": ["string", "number", "boolean"]},  # a plain value
        ]
    }
    return schema
