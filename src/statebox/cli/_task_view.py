"""``statebox tasks show``: one task for a person (rich text) or a script (JSON).

The user spec (opening, facts, behaviour), the checks, the golden trajectory and its
effects, initial → golden, table by table (`statebox.judge.golden_changes`, printed
as ``statebox show`` prints a trial's: `statebox.cli._show.print_changes`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

from statebox.cli._show import _short, print_changes
from statebox.judge import TableChanges
from statebox.tasks import BehaviourSpec, Task, task_data

__all__ = ["print_task", "task_json"]


def _facts_of(must: Sequence[Any], must_not: Sequence[Any]) -> str:
    out = f" must contain {_short(list(must))}" if must else ""
    return out + (f" must not contain {_short(list(must_not))}" if must_not else "")


def _args(args: dict[str, Any]) -> str:
    return ", ".join(f"{k}={_short(v, 80)}" for k, v in args.items())


def _facts_table(task: Task) -> Table:
    table = Table(title="facts (told only when asked)", title_justify="left")
    table.add_column("fact", overflow="fold", max_width=20)
    table.add_column("value", overflow="fold", max_width=30)
    table.add_column("asked for with", overflow="fold", max_width=28)
    table.add_column("says", overflow="fold", max_width=30)
    for name, f in task.user.facts.items():
        says = f.words()
        if f.first is not None:
            says += f" (first says {f.first}: a slip)"
        table.add_row(name, _short(f.value), "; ".join(f.ask), says)
    return table


def _behaviour(b: BehaviourSpec) -> str:
    parts = [
        "confirms the change" if b.confirm else "declines the change",
        f"pushes back {b.pushback}x on a refusal" if b.pushback else "accepts a refusal",
        "accepts an alternative" if b.alternative else "declines alternatives",
    ]
    if b.requests is not None:
        parts.append(f"{b.requests} request(s)")
    if b.changed_from:
        parts.append(f"opens with another request first: {b.changed_from!r}")
    return "; ".join(parts)


def _checks(task: Task, console: Console) -> None:
    c = task.checks
    console.print(
        "state: "
        + (
            "the terminal state must equal an accepted state"
            + (" (inserted rows matched by their ids)" if c.ordered else "")
            if c.state == "golden"
            else "not compared"
        )
        + (
            f"; accepted also: {len(c.alternatives)} other trajectory(ies), "
            f"{len(c.end_states)} declared end state(s)"
            if c.alternatives or c.end_states
            else ""
        )
    )
    for d in c.dont_care:
        console.print(f"dont_care {d.table}.{d.column}: {d.reason}")
    for i, inv in enumerate(c.invariants):
        console.print(f"invariant[{i}]: {inv.sql} = {_short(inv.equals)}  {inv.description}")
    for i, t in enumerate(c.text):
        rows = f" key {_short(t.key)}" if t.key else ""
        rows += f" where {_short(t.where)}" if t.where else ""
        console.print(
            f"text[{i}]: {t.table}.{t.column}{rows} ({t.rows} rows)"
            + (f" must contain {_short(list(t.must_contain))}" if t.must_contain else "")
            + (
                f" must not contain {_short(list(t.must_not_contain))}"
                if t.must_not_contain
                else ""
            )
        )
    if c.reply is not None:
        r = c.reply
        console.print(
            "reply:"
            + (f" must contain {_short(list(r.must_contain))}" if r.must_contain else "")
            + (
                f" must not contain {_short(list(r.must_not_contain))}"
                if r.must_not_contain
                else ""
            )
        )
    for i, q in enumerate(c.rubric):
        text = q if isinstance(q, str) else f"{q.question} (reads {q.row.table}.{q.row.column})"
        console.print(f"rubric[{i}]: {text}")
    if task.reference_response:
        console.print(f"reference reply: {task.reference_response}")


def print_task(
    task: Task, changes: Sequence[TableChanges] | None, failure: str | None, console: Console
) -> None:
    """Print a task: spec, checks, golden trajectory and its effects.

    ``changes`` is None when the effects could not be computed (``failure`` says why).
    """
    console.print(
        f"{task.id}  domain: {task.domain}  family: {task.family}  split: {task.split}  "
        f"now: {task.now.isoformat()}" + ("  read-only" if task.read_only else "")
    )
    if task.description:
        console.print(task.description)
    tools = "every tool of the domain" if task.tools is None else ", ".join(task.tools)
    console.print(
        f"tools: {tools}"
        + ("; with the step tools (record_steps)" if task.record_steps else "")
        + (f"; policy served by {task.policy_mode}" if task.policy_mode else "")
    )
    if task.tags:
        console.print(f"tags: {', '.join(task.tags)}")
    console.rule("user")
    u = task.user
    console.print(f"opening: {u.opening}")
    if u.persona:
        console.print(f"persona: {u.persona}")
    if u.goal:
        console.print(f"goal: {u.goal}")
    if u.facts:
        console.print(_facts_table(task))
    else:
        console.print("facts: none (the opening says all the user knows)")
    console.print(f"behaviour: {_behaviour(u.behaviour)}")
    console.rule("checks")
    _checks(task, console)
    console.rule(f"golden trajectory: {len(task.golden)} call(s)")
    for i, call in enumerate(task.golden):
        refused = f"  → refused: {call.fails}" if call.fails else ""
        console.print(f"{i:>2}  {call.tool}({_args(call.args)}){refused}")
    console.rule("effects of the golden trajectory: initial → golden")
    if changes is None:
        console.print(f"not computed: {failure}")
    else:
        print_changes(changes, console)


def task_json(task: Task, changes: Sequence[TableChanges] | None, failure: str | None) -> str:
    """The task as its file holds it, and its golden effects by table, as JSON."""
    return json.dumps(
        {
            "task": task_data(task),
            "effects": None if changes is None else [t.model_dump(mode="json") for t in changes],
            "effects_error": failure,
        },
        indent=2,
    )
