"""Saving a demonstration as a task: ``statebox play --record`` and ``statebox tasks new``.

The calls the author made become the golden trajectory: a successful call as it was
made, a refused one with ``fails: KIND`` (replay checks it is refused with that kind,
so the task demands the recovery the author showed). A call refused before any tool
ran for a reason no golden call may expect (an unknown tool, an approver's refusal) is
left out and named in the notes. The ``done TEXT`` becomes the reference reply.

The task file is written with the generators' serializer (`statebox.tasks.dump_tasks`)
followed by commented notes: what the calls changed, table by table (the effects
``statebox tasks show`` prints), and checks to consider. A file is written atomically
and never over an existing one unless asked (``--force``); if one appeared meanwhile,
the recording is kept beside it. Its folder is checked before the session starts.

The original's ``checks.alternatives`` and ``checks.end_states`` are kept only when the
recorded calls reach its golden state: beside a different one they would make the task
accept two opposite end states.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, get_args

from statebox.errors import ConfigError
from statebox.tasks import (
    GoldenCall,
    GoldenFailure,
    Task,
    default_ask,
    dump_tasks,
    dump_yaml,
    placeholders,
    task_data,
)

__all__ = [
    "Recording",
    "check_target",
    "recorded",
    "render",
    "save_recording",
    "suggested_facts",
    "user_values",
    "write_task_file",
]


class Recording:
    """The calls of one demonstration, split into golden calls and calls left out.

    Args:
        transcript: The episode's events.
    """

    def __init__(self, transcript: Sequence[Any]) -> None:
        expectable = set(get_args(GoldenFailure))
        self.calls: list[GoldenCall] = []
        """The golden trajectory."""
        self.results: list[Any] = []
        """Each golden call's result, in order."""
        self.left_out: list[str] = []
        """One line per call that is not a golden call, saying why."""
        self.final = ""
        """The text of the author's ``done`` ('' without one)."""
        n = 0
        for e in transcript:
            if e.kind == "end":
                self.final = (e.text or "").strip()
            if e.kind != "tool_call" or e.call is None:
                continue
            n += 1
            r = e.result
            kind = r.error.kind if r is not None and r.error is not None else None
            if r is not None and r.ok:
                self.calls.append(GoldenCall(tool=e.call.tool, args=e.call.args))
            elif kind in expectable:
                self.calls.append(GoldenCall(tool=e.call.tool, args=e.call.args, fails=kind))
            else:
                self.left_out.append(f"call {n} {e.call.tool}: refused with {kind or 'no result'}")
                continue
            self.results.append(r)

    @property
    def refused(self) -> list[str]:
        """``golden[i] TOOL fails KIND`` for each refused golden call."""
        calls = enumerate(self.calls)
        return [f"golden[{i}] {c.tool} fails {c.fails}" for i, c in calls if c.fails]


def _unwritable(folder: Path) -> str | None:
    """Why a task file cannot be written in ``folder`` (None: it can)."""
    if not folder.exists():
        return f"its folder {folder} does not exist"
    if not folder.is_dir():
        return f"{folder} is a file, not a folder"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"its folder {folder} is not writable"
    return None


def check_target(out: Path, force: bool) -> None:
    """Refuse a ``--record`` target before the author starts playing.

    Raises:
        ConfigError: It is a folder, it exists and ``force`` is off, or its folder is
            missing, a file or not writable (found now, not after the session).
    """
    if out.is_dir():
        raise ConfigError(f"--record {out}: is a folder; name the task file to write")
    if out.exists() and not force:
        raise ConfigError(f"--record {out}: the file exists; pass --force to replace it")
    if out.suffix not in (".yaml", ".yml"):
        raise ConfigError(f"--record {out}: name a .yaml file (task files are YAML)")
    why = _unwritable(out.parent)
    if why is not None:
        raise ConfigError(f"--record {out}: cannot write it: {why}")


def write_task_file(out: Path, text: str, force: bool) -> Path:
    """Write ``text`` to ``out`` atomically; returns the path written.

    Without ``force`` an existing ``out`` is never replaced: when one appeared while the
    author played, the recording goes to a new file beside it and its path is returned.

    Raises:
        ConfigError: The folder cannot be written.
    """
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        if force:
            os.replace(tmp, out)
            return out
        try:
            os.link(tmp, out)  # fails if out exists: never replaces a file
        except FileExistsError:
            kept = out.with_name(f"{out.stem}.recorded-{Path(tmp).stem.rsplit('.', 1)[-1]}.yaml")
            os.replace(tmp, kept)
            return kept
        os.unlink(tmp)
        return out
    except OSError as exc:
        # Name the folder's fault rather than errno's words ("File exists" for a parent
        # that is a file reads as if the task file were there).
        why = _unwritable(out.parent) or exc.strerror or str(exc)
        raise ConfigError(f"--record {out}: cannot write it: {why}") from exc


def _leaves(value: Any, path: str) -> list[tuple[str, Any]]:
    if isinstance(value, dict):
        return [x for k, v in value.items() for x in _leaves(v, f"{path}.{k}" if path else k)]
    if isinstance(value, list):
        return [x for i, v in enumerate(value) for x in _leaves(v, path)]
    return [(path, value)]


def user_values(recording: Recording, schemas: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Values the calls passed that no earlier call returned: what the user must say.

    Ids, emails, dates and amounts the author typed from what they knew, named by the
    argument (``account_id``, then ``account_id_2``...). Closed choices (an enum),
    booleans and free text (the agent's own words) are left out.
    """
    returned: set[str] = set()
    out: dict[str, Any] = {}
    for call, result in zip(recording.calls, recording.results, strict=True):
        props = schemas.get(call.tool, {}).get("properties", {})
        for path, value in _leaves(call.args, ""):
            name = path.split(".")[-1] or "value"
            enum = "enum" in props.get(path.split(".")[0], {})
            free = isinstance(value, str) and (not value.strip() or " " in value.strip())
            if value is None or isinstance(value, bool) or enum or free:
                continue
            if str(value) in returned or value in out.values():
                continue
            key, n = name, 2
            while key in out:
                key, n = f"{name}_{n}", n + 1
            out[key] = value
        if result is not None and result.ok:
            returned |= {str(v) for _, v in _leaves(result.output, "") if v is not None}
    return out


def suggested_facts(values: dict[str, Any]) -> dict[str, Any]:
    """User facts for `user_values`, each marked for the author to confirm."""
    return {
        name: {
            "value": value,
            "ask": list(default_ask(name)),
            "label": "TODO: does the user know this? name it as they would, or delete this line",
        }
        for name, value in values.items()
    }


def recorded(base: dict[str, Any], recording: Recording, *, read_only: bool) -> Task:
    """The task ``base`` (a task file mapping) with the recording as its golden trajectory.

    Not loaded through the loader: a drafted task's placeholders are the author's to fill.

    Raises:
        ConfigError: The result is not a valid task (named field).
    """
    from pydantic import ValidationError

    data = dict(base)
    data["golden"] = [c.model_dump(mode="json") for c in recording.calls]
    data["read_only"] = read_only
    if recording.final:
        data["reference_response"] = recording.final
    try:
        return Task.model_validate(data)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        field = ".".join(str(p) for p in err["loc"])
        raise ConfigError(f"the recorded task is not valid: field {field}: {err['msg']}") from exc


def _value(v: Any, limit: int = 70) -> str:
    text = v if isinstance(v, str) and v.strip() and " " not in v else json.dumps(v, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _key(key: dict[str, Any]) -> str:
    return ", ".join(f"{k}={_value(v)}" for k, v in key.items())


def change_lines(changes: Sequence[Any]) -> list[str]:
    """What a trajectory changed, table by table, as plain lines (`TableChanges`)."""
    lines: list[str] = []
    for t in changes:
        counts = [
            f"{len(rows)} {word}"
            for rows, word in ((t.added, "added"), (t.removed, "removed"), (t.changed, "changed"))
            if rows
        ]
        lines.append(f"{t.table}: {', '.join(counts)}")
        for sign, rows in (("+", t.added), ("-", t.removed), ("~", t.changed)):
            for row in rows:
                lines.append(f"  {sign} {_key(row.key)}")
                for c in row.columns:
                    if sign != "~" and c.column in row.key:
                        continue
                    value = (
                        f"{_value(c.before)} → {_value(c.after)}"
                        if sign == "~"
                        else _value(c.after if sign == "+" else c.before)
                    )
                    note = f"   (excluded: {c.excluded})" if c.excluded else ""
                    lines.append(f"      {c.column}: {value}{note}")
    return lines


def suggested_checks(task: Task, changes: Sequence[Any]) -> dict[str, Any]:
    """Checks to consider, as a ``checks:`` mapping.

    A text check per free-text column the calls wrote (its wording is not compared), and
    a reply check for a task that changes nothing (its only evidence is the reply).
    """
    text = []
    read = {(c.table, c.column) for c in task.checks.text}
    for t in changes:
        for row, col in t.excluded_written:
            if not isinstance(col.after, str) or (t.table, col.column) in read:
                continue
            text.append(
                {
                    "table": t.table,
                    "column": col.column,
                    "key": row.key,
                    "must_contain": [f"TODO: a fact the text must carry (it reads {col.after!r})"],
                }
            )
    out: dict[str, Any] = {}
    if text:
        out["text"] = text
    if task.read_only and task.checks.reply is None:
        said = f" (you said {task.reference_response!r})" if task.reference_response else ""
        out["reply"] = {"must_contain": [f"TODO: what the reply must say{said}"]}
    return out


def _wrapped(text: str, width: int = 98) -> list[str]:
    """``text`` as comment lines of at most ``width`` columns, continuations indented."""
    import textwrap

    lead = " " * (len(text) - len(text.lstrip()))
    return [
        f"# {line}"
        for line in textwrap.wrap(
            text,
            width - 2,
            initial_indent="",
            subsequent_indent=lead + "    ",
            break_long_words=False,
            break_on_hyphens=False,
            drop_whitespace=True,
        )
    ] or ["#"]


def _commented(text: str, indent: int) -> list[str]:
    return [f"# {' ' * indent}{line}" for line in text.rstrip("\n").splitlines()]


def render(
    task: Task,
    recording: Recording,
    changes: Sequence[Any] | None,
    *,
    made_by: str,
    notes: Sequence[str] = (),
    suggest: bool = True,
) -> str:
    """The task file: the task as the generators write it, then commented notes.

    Args:
        task: The recorded task.
        recording: The demonstration.
        changes: Its golden effects, table by table (None: the replay failed).
        made_by: The command that recorded it (the notes' first line).
        notes: Further lines for the author.
        suggest: Add the `suggested_checks` as comments to uncomment.
    """
    lines = [""]
    lines += _wrapped(f"Recorded by `{made_by}`: {len(recording.calls)} golden call(s).")
    for n in notes:
        lines += _wrapped(n)
    if changes is not None:
        lines.append("# What the golden calls change (initial → golden), table by table:")
        lines += [w for x in change_lines(changes) for w in _wrapped(f"  {x}")] or [
            "#   nothing (read-only)"
        ]
    if recording.refused:
        lines.append(
            "# Refused calls kept as `fails:` (replay checks each is refused with that kind);"
        )
        lines.append("# delete any that was a slip, not a step the agent must recover from:")
        lines += [f"#   {x}" for x in recording.refused]
    if recording.left_out:
        lines.append("# Calls left out (no golden call may expect these refusals):")
        lines += [f"#   {x}" for x in recording.left_out]
    suggested = suggested_checks(task, changes or []) if suggest else {}
    if suggested:
        lines.append("# Checks to consider: uncomment under the task, replace each TODO.")
        if "checks" not in task_data(task):
            lines += _commented(dump_yaml({"checks": suggested}), 2)
        else:
            lines.append("# (the task has checks: merge these into them)")
            lines += _commented(dump_yaml(suggested), 4)
    return dump_tasks([task_data(task)]) + "\n".join(lines) + "\n"


def _changes_state(changes: Sequence[Any]) -> bool:
    """Whether the changes touch a compared column (else the task is read-only)."""
    return any(
        c.excluded is None
        for t in changes
        for row in (*t.added, *t.removed, *t.changed)
        for c in row.columns
    )


def _without_other_states(data: dict[str, Any]) -> dict[str, Any]:
    """A task mapping without its other accepted end states (alternatives, end_states)."""
    checks = {
        k: v for k, v in data.get("checks", {}).items() if k not in ("alternatives", "end_states")
    }
    out = {k: v for k, v in data.items() if k != "checks"}
    return {**out, "checks": checks} if checks else out


async def _reaches_golden(judge: Any, base: dict[str, Any], task: Task) -> bool:
    """Whether ``task``'s golden state is the golden state of the task ``base`` was.

    Compared as the judge compares a trial with ``base`` (its field policy and
    ``dont_care``), against its golden state alone: not its alternatives or end states.
    """
    original = Task.model_validate(_without_other_states(base))
    own = Task.model_validate(_without_other_states(task_data(task)))
    await judge.prepare(original)
    await judge.prepare(own)
    return bool(judge.match(original, judge.golden_states(own)[0]).comparison.matches)


def dropped_line(alternatives: int, end_states: int = 0) -> str:
    """The note for the original's other accepted end states dropped from a recording."""
    parts = []
    if alternatives:
        parts.append(f"{alternatives} alternative trajectory(ies)")
    if end_states:
        parts.append(f"{end_states} declared end state(s)")
    return f"{' and '.join(parts)} of the original dropped: they reached the old golden state"


def save_recording(
    domain: Any,
    base: dict[str, Any],
    recording: Recording,
    out: Path,
    force: bool,
    *,
    made_by: str,
    notes: Sequence[str] = (),
    domain_refs: Sequence[str] = (),
    draft: bool = False,
) -> Task:
    """Replay the recording as ``base``'s golden trajectory, write the task file, say so.

    ``read_only`` is set from what the replay changes (under the comparison's policy).
    A ``draft`` (``tasks new``) gets the `suggested_checks` into its checks, their
    ``TODO:`` for the author to write; otherwise they are commented suggestions.

    Raises:
        ConfigError: The file cannot be written, or the recorded calls do not replay
            as they ran (the task is written first, so nothing is lost).
    """
    import asyncio
    import shlex

    from statebox.cli._app import err_console
    from statebox.errors import GoldenReplayError, TaskSpecError
    from statebox.judge import Judge, golden_changes

    task = recorded(base, recording, read_only=not recording.calls)
    failure = None
    changes: list[Any] | None
    notes = list(notes)
    others = base.get("checks", {})
    n_alt, n_end = len(others.get("alternatives", ())), len(others.get("end_states", ()))
    try:
        judge = Judge(domain)
        # The original's alternatives and end states were accepted beside ITS golden
        # state; beside a different one they would accept two opposite end states.
        others_stale = (n_alt or n_end) and base.get("golden")
        if others_stale and not asyncio.run(_reaches_golden(judge, base, task)):
            base = _without_other_states(base)
            task = recorded(base, recording, read_only=task.read_only)
            notes.append(dropped_line(n_alt, n_end))
        changes = asyncio.run(golden_changes(judge, task))
    except (GoldenReplayError, TaskSpecError) as exc:
        changes, failure = None, str(exc)
    else:
        task = recorded(base, recording, read_only=not _changes_state(changes))
        if draft:
            checks = {**base.get("checks", {}), **suggested_checks(task, changes)}
            base = {**base, "checks": checks} if checks else base
            task = recorded(base, recording, read_only=task.read_only)
    lines = list(notes) + ([f"The golden calls do not replay: {failure}"] if failure else [])
    text = render(task, recording, changes, made_by=made_by, notes=lines, suggest=not draft)
    path = write_task_file(out, text, force)
    if path != out:
        err_console.print(f"{out} appeared meanwhile: left as it was", style="yellow")
    refused = f", {len(recording.refused)} refused (kept as fails)" if recording.refused else ""
    err_console.print(
        f"wrote {path}: task {task.id}, {len(recording.calls)} golden call(s){refused}"
        + (f", {len(recording.left_out)} left out" if recording.left_out else ""),
        highlight=False,
        soft_wrap=True,
    )
    for line in notes:
        err_console.print(line, highlight=False, soft_wrap=True)
    if failure:
        raise ConfigError(f"the recorded calls do not replay ({path} is written): {failure}")
    refs = "".join(f" --domain {shlex.quote(r)}" for r in domain_refs)
    file = shlex.quote(str(path))
    todo = placeholders(task_data(task))
    first = (
        [f"next: write the {len(todo)} TODO: text(s) in {file} ({', '.join(f for f, _ in todo)})"]
        if todo
        else [f"next: statebox tasks show {task.id} {file}{refs}"]
    )
    for line in [*first, f"      statebox tasks validate {file}{refs}"]:
        err_console.print(line, highlight=False, soft_wrap=True)
    return task
