"""``statebox tasks new`` and ``statebox tasks show``.

``tasks new``: a task by demonstration on a fresh seeded world of a domain, with no task
and so no user yet (``say`` is refused with a hint; the draft's opening is a ``TODO:``
the loader refuses until it is written). ``tasks show``: one task's spec, checks, golden
trajectory and the trajectory's effects.
"""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
import yaml

from statebox.cli._app import SUITE_HELP, DomainOption, handled, tasks_app
from statebox.cli._commands import _registry, out_console
from statebox.cli._play import ForceOption, HumanAgent, drive, find_task
from statebox.errors import ConfigError, StateboxError

__all__ = ["new_task", "show_task"]

OPENING = "TODO: the user's first message: what they want, in their words"
"""The drafted task's opening: `statebox.tasks.PLACEHOLDER` until the author writes it."""


class ShowFormat(StrEnum):
    """``tasks show`` formats."""

    text = "text"
    json = "json"


def _one_domain(refs: list[str] | None) -> tuple[Any, str]:
    """The domain ``tasks new`` authors for, and the reference that names it.

    An installed domain's name (``retail``), ``module:ATTR`` or ``file.py:ATTR``.

    Raises:
        ConfigError: None or several given, or an unknown name (the installed ones listed).
    """
    from statebox.registry import resolve_domain_ref

    if not refs:
        raise ConfigError(
            "tasks new: name the domain with --domain (an installed domain's name, a module, "
            "file.py, module:ATTR or file.py:ATTR)"
        )
    if len(refs) > 1:
        raise ConfigError("tasks new: give one --domain, the new task's")
    d, source = resolve_domain_ref(refs[0])
    return d, source.ref


def _clock(now: str | None) -> datetime:
    """``--now`` as an aware time (default: this hour, UTC).

    Raises:
        ConfigError: Not ISO 8601, or no timezone.
    """
    if now is None:
        return datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    try:
        when = datetime.fromisoformat(now)
    except ValueError:
        raise ConfigError(
            f"--now {now!r}: not an ISO 8601 time; write one such as 2025-10-01T13:00:00+00:00"
        ) from None
    if when.tzinfo is None:
        raise ConfigError(f"--now {now!r}: give its timezone, e.g. {now}+00:00")
    return when


def _next_id(domain: str, folder: Path) -> str:
    """``<domain>.new.NNN``, one past the highest such id in ``folder``'s task files."""
    pattern = re.compile(rf"^{re.escape(domain)}\.new\.(\d+)$")
    taken = [0]
    for path in sorted(folder.glob("*.y*ml")) if folder.is_dir() else []:
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            continue  # not a task file we can read: it holds no id we would clash with
        for item in data if isinstance(data, list) else [data]:
            m = pattern.match(str(item.get("id", ""))) if isinstance(item, dict) else None
            if m:
                taken.append(int(m.group(1)))
    return f"{domain}.new.{max(taken) + 1:03d}"


class _NoUser:
    """The user of a world with no task: silent (``say`` is refused before it is asked)."""

    async def opening(self) -> str:
        return ""

    async def reply(self, agent_message: str) -> Any:
        from statebox.episode import UserReply

        return UserReply("", True)


@tasks_app.command("new")
@handled
def new_task(
    record: Annotated[Path, typer.Option(help="The task file to write (YAML).")],
    domain: Annotated[
        list[str] | None,
        typer.Option(
            help="The task's domain: an installed domain's name, module:ATTR or file.py:ATTR."
        ),
    ] = None,
    task_id: Annotated[
        str | None,
        typer.Option("--id", help="Task id (default: DOMAIN.new.NNN, the next free number)."),
    ] = None,
    now: Annotated[
        str | None,
        typer.Option(
            help="The task's frozen clock, ISO 8601 with a timezone (default: this hour, UTC)."
        ),
    ] = None,
    record_steps: Annotated[
        bool,
        typer.Option(
            "--record-steps", help="Offer the domain's step tools (verification log, ...)."
        ),
    ] = False,
    force: ForceOption = False,
) -> None:
    """Act as the agent on a fresh seeded world of a domain and save a drafted task.

    There is no user yet: make the calls the task needs and end with `done TEXT` (the
    reply the agent should end with); `say` is refused. The task file gets your calls
    as its golden trajectory, the values you typed that no call returned as suggested
    user facts, and a `TODO:` opening: `statebox tasks validate` refuses it until every
    `TODO:` is written.
    """
    from pydantic import ValidationError

    from statebox.cli._record import (
        Recording,
        check_target,
        save_recording,
        suggested_facts,
        user_values,
    )
    from statebox.episode import Episode
    from statebox.tasks import Task, task_data

    check_target(record, force)
    d, ref = _one_domain(domain)
    clock = _clock(now)
    tid = task_id or _next_id(d.name, record.parent)
    try:
        draft = Task.model_validate(
            {
                "id": tid,
                "domain": d.name,
                "now": clock,
                "read_only": True,
                "user": {"opening": OPENING},
                "record_steps": record_steps,
                "golden": [],
            }
        )
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        raise ConfigError(f"--id {tid!r}: {err['msg']}") from None

    async def go() -> Any:
        episode = Episode(d, draft, _NoUser())
        try:
            await drive(episode, HumanAgent(user=False))
            return episode.transcript
        finally:
            episode.close()

    recording = Recording(asyncio.run(go()))
    schemas = {n: s.input_schema() for n, s in d.toolset(record_steps=True).items()}
    base = task_data(draft)
    base["user"] = {"opening": OPENING, "facts": suggested_facts(user_values(recording, schemas))}
    save_recording(
        d,
        base,
        recording,
        record,
        force,
        made_by=f"statebox tasks new --domain {ref} --record",
        notes=[
            "A draft: write each TODO: — the user's opening, each suggested fact (a value "
            "your calls passed that no earlier call returned: does the user know it?) and "
            "each suggested check, if any — or delete what you do not need. Then read the "
            "task back (statebox tasks show): validation checks that the calls reach the "
            "state and the checks catch mistakes, not that the opening asks for what the "
            "calls do."
        ],
        domain_refs=[ref],
        draft=True,
    )


@tasks_app.command("show")
@handled
def show_task(
    task_id: Annotated[str, typer.Argument(help="Task id.")],
    path: Annotated[Path | None, typer.Argument(help="Task file or folder.")] = None,
    suite: Annotated[str | None, typer.Option(help=SUITE_HELP)] = None,
    domain: DomainOption = None,
    format: Annotated[
        ShowFormat, typer.Option(help="text (for a person) or json (for scripts).")
    ] = ShowFormat.text,
) -> None:
    """Print one task: user spec, checks, golden trajectory and its effects by table.

    The effects are the golden trajectory's, initial → golden: rows added, removed and
    changed (column before → after), each column the state comparison leaves out marked
    with its reason. Exits 1 when the golden trajectory does not replay.
    """
    from statebox.judge import Judge, golden_changes

    registry = _registry(domain)
    task = find_task(registry, task_id, path, suite, both_splits=True)
    changes, failure = None, None
    try:
        changes = asyncio.run(golden_changes(Judge(registry.domain(task.domain)), task))
    except StateboxError as exc:  # a golden call that fails, an unbuildable world
        failure = str(exc)
    if format == ShowFormat.json:
        from statebox.cli._task_view import task_json

        typer.echo(task_json(task, changes, failure))
    else:
        from statebox.cli._task_view import print_task

        print_task(task, changes, failure, out_console)
    if failure is not None:
        raise ConfigError(f"task {task.id}: the golden trajectory's effects: {failure}")
