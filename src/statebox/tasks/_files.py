"""Task files as the generators write them, and the placeholders a drafted task carries.

`dump_tasks` is the one serializer of task files: every ``scripts/gen_*`` generator and
the recorder (``statebox play --record``, ``statebox tasks new``) write with it, so a
recorded task reads like a generated one. `task_data` turns a `Task` back into the
mapping a task file holds (defaults left out, ``initial_state`` keyed by table).

A drafted task marks what its author must still write with `PLACEHOLDER` (``TODO:``) at
the start of a text: the loader refuses such a task, naming the field, so a draft can
never be run or validated as if it were finished.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import yaml

from statebox.tasks._model import Task

__all__ = ["PLACEHOLDER", "dump_tasks", "dump_yaml", "placeholders", "task_data"]

PLACEHOLDER = "TODO:"
"""The marker that starts a text the author has yet to write (a drafted task's opening)."""

_WRITTEN = ("description", "user", "checks", "reference_response")
"""The parts of a task a person writes (its world and golden calls are recorded)."""


def dump_yaml(data: Any) -> str:
    """YAML text in the task files' style: keys in insertion order, block style, 100 columns."""
    return yaml.safe_dump(
        data, sort_keys=False, allow_unicode=True, width=100, default_flow_style=False
    )


def dump_tasks(tasks: Sequence[Mapping[str, Any]]) -> str:
    """A task file: the tasks as one YAML list."""
    return dump_yaml([dict(t) for t in tasks])


def task_data(task: Task) -> dict[str, Any]:
    """``task`` as the mapping of a task file; loading it gives back an equal task.

    Fields at their defaults are left out (id, domain, split and the clock are always
    written), the family only when the id does not imply it, and ``initial_state`` in
    its table-keyed shape (``delete:`` beside the tables).
    """
    dumped = task.model_dump(mode="json", exclude_defaults=True)
    data: dict[str, Any] = {
        "id": task.id,
        "domain": task.domain,
        "split": task.split,
        "now": task.now.isoformat(),
    }
    for key, value in dumped.items():
        data.setdefault(key, value)
    if data.get("family") == task.id.split(".")[1]:
        del data["family"]
    patch = data.get("initial_state")
    if isinstance(patch, dict):
        upsert, delete = patch.get("upsert", {}), patch.get("delete", {})
        if not {"upsert", "delete"} & set(upsert):  # else a table's name would be misread
            data["initial_state"] = {**upsert, **({"delete": delete} if delete else {})}
    return data


def _strings(node: Any, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(node, str):
        yield path, node
    elif isinstance(node, Mapping):
        for k, v in node.items():
            yield from _strings(v, f"{path}.{k}")
    elif isinstance(node, list | tuple):
        for i, v in enumerate(node):
            yield from _strings(v, f"{path}[{i}]")


def placeholders(data: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The (field, text) of every text in ``data`` a person writes that starts with ``TODO:``.

    Read in the parts of a task its author writes (description, user, checks, reference
    reply), not in its world or golden calls, whose values are data.
    """
    return [
        (path, text)
        for key in _WRITTEN
        if key in data
        for path, text in _strings(data[key], key)
        if text.lstrip().startswith(PLACEHOLDER)
    ]
