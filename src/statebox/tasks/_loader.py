"""Load task YAML files into `Task` models, with errors naming file, task id and field.

A file holds one task (a mapping) or a list of tasks. A folder is read recursively in
sorted path order, so the same folder always gives the same task list and bundle hash.

Errors are one line. Of a task's problems, an unknown key is reported first, with the
closest known key as a hint (``golde`` → ``did you mean 'golden'?``): a misspelt key
otherwise shows up as the missing field it was meant to be. A drafted task (``statebox
tasks new``) is refused while a text its author writes still starts with ``TODO:``.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import types
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Union, get_args, get_origin

import yaml
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from statebox._yaml_error import yaml_problem
from statebox.errors import TaskSpecError
from statebox.tasks._files import PLACEHOLDER, placeholders
from statebox.tasks._model import Task

__all__ = ["bundle_hash", "load_tasks", "parse_tasks"]

# The C loader is ~10x faster; fall back where libyaml is absent.
_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _field_path(loc: Sequence[int | str], data: Any) -> str:
    """Dotted path of ``loc``, cut where the input has no such key.

    Pydantic appends union member tags (``int``, ``str``) to a location; they are not
    fields, and walking the input data tells them apart from real keys.
    """
    out = ""
    node = data
    for i, part in enumerate(loc):
        present = (isinstance(node, dict) and part in node) or (
            isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)
        )
        if not present and i > 0:
            if isinstance(node, dict):  # a missing key is the field to fix
                out += f".{part}"
            break
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
        node = node[part] if present else None
    return out


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """The pydantic models an annotation can hold (through unions, tuples, lists, dicts)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    origin = get_origin(annotation)
    if origin is None:
        return []
    args = get_args(annotation)
    if origin in (Union, types.UnionType, tuple, list, set, frozenset):
        return [m for a in args for m in _models_in(a)]
    if origin is dict and len(args) == 2:
        return _models_in(args[1])
    return [m for a in args[:1] for m in _models_in(a)]  # Annotated[X, ...] and the like


def _known_keys(model: type[BaseModel], loc: Sequence[int | str]) -> list[str]:
    """The keys the model at ``loc`` (below ``model``) accepts; empty when unknown."""
    current: list[type[BaseModel]] = [model]
    for part in loc:
        if isinstance(part, int):
            continue  # a list index: same model
        nested = [
            m
            for c in current
            if part in c.model_fields
            for m in _models_in(c.model_fields[part].annotation)
        ]
        if not nested:
            # A union member tag (pydantic appends them) or a dict key: stay put.
            continue
        current = nested
    return sorted({k for c in current for k in c.model_fields})


def _message(err: ErrorDetails, model: type[BaseModel]) -> str:
    if err["type"] != "extra_forbidden" or not err["loc"]:
        return err["msg"].removeprefix("Value error, ")  # pydantic's, not the reader's
    key = str(err["loc"][-1])
    close = difflib.get_close_matches(key, _known_keys(model, err["loc"][:-1]), n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"unknown key {key!r}{hint}"


def _first_error(exc: ValidationError) -> ErrorDetails:
    errors = exc.errors(include_url=False)
    # A misspelt key also makes the key it stands for missing: name the unknown one.
    return next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])


def parse_tasks(data: Any, *, file: Path | str | None = None) -> list[Task]:
    """Validate already-parsed YAML data (a mapping or a list of mappings) into tasks.

    Raises:
        TaskSpecError: Naming the file, the task id (when readable) and the field.
    """
    items = data if isinstance(data, list) else [data]
    tasks = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise TaskSpecError(f"entry {i} is not a mapping", file=file)
        task_id = item.get("id") if isinstance(item.get("id"), str) else None
        try:
            tasks.append(Task.model_validate(item))
        except ValidationError as exc:
            err = _first_error(exc)
            field = _field_path(err["loc"], item) or None
            more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
            raise TaskSpecError(
                f"{_message(err, Task)}{more}", file=file, task_id=task_id or f"#{i}", field=field
            ) from exc
        left = placeholders(item)
        if left:
            field, text = left[0]
            more = f"; {len(left) - 1} more after it" if len(left) > 1 else ""
            shown = text if len(text) <= 40 else text[:39] + "…"
            raise TaskSpecError(
                f"a draft: write this {PLACEHOLDER} text or delete it: {shown!r}{more}",
                file=file,
                task_id=task_id,
                field=field,
            )
    return tasks


def _files(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(p for p in path.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())
    if path.is_file():
        return [path]
    raise TaskSpecError("no such file or folder", file=path)


def load_tasks(paths: Path | str | Iterable[Path | str]) -> list[Task]:
    """Load every task under one or more files or folders.

    Args:
        paths: YAML files or folders (read recursively, sorted).

    Returns:
        Tasks in file order, then in-file order.

    Raises:
        TaskSpecError: A file is unreadable or not YAML, a task is invalid, or two
            tasks share an id (both files named).
    """
    roots = [Path(paths)] if isinstance(paths, str | Path) else [Path(p) for p in paths]
    tasks: list[Task] = []
    seen: dict[str, Path] = {}
    for root in roots:
        for file in _files(root):
            try:
                data = yaml.load(file.read_text(encoding="utf-8"), Loader=_Loader)
            except UnicodeDecodeError as exc:
                raise TaskSpecError(
                    f"not a UTF-8 text file (byte {exc.start}): task files are YAML text",
                    file=file,
                ) from exc
            except OSError as exc:
                raise TaskSpecError(f"cannot read it: {exc.strerror or exc}", file=file) from exc
            except yaml.YAMLError as exc:
                raise TaskSpecError(yaml_problem(exc), file=file) from exc
            if data is None:
                continue
            for task in parse_tasks(data, file=file):
                if task.id in seen:
                    raise TaskSpecError(
                        f"duplicate task id (also in {seen[task.id]})", file=file, task_id=task.id
                    )
                seen[task.id] = file
                tasks.append(task)
    return tasks


def bundle_hash(tasks: Iterable[Task]) -> str:
    """Sha256 over the tasks' canonical JSON, in id order (64 hex chars)."""
    h = hashlib.sha256()
    for task in sorted(tasks, key=lambda t: t.id):
        h.update(json.dumps(task.model_dump(mode="json"), sort_keys=True).encode())
        h.update(b"\n")
    return h.hexdigest()
