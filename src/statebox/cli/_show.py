"""``statebox show``: one trial's checks, transcript and effect diff.

`print_changes` prints a trajectory's effects table by table (``statebox tasks show``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from statebox.records import TrialRecord
from statebox.world import FieldPolicy

if TYPE_CHECKING:
    from statebox.judge import TableChanges

__all__ = ["print_changes", "print_excluded", "print_trial"]


def _short(value: object, limit: int = 160) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def print_trial(record: TrialRecord, console: Console) -> None:
    """Print a trial record for a person."""
    console.print(
        f"{record.trial_id}  status: {record.status.value}  "
        f"termination: {record.termination.value}  domain: {record.domain}  "
        f"family: {record.family}"
    )
    if record.error:
        console.print(f"system error: {record.error}", style="red")
    v = record.verdict
    if v is not None:
        console.print(
            f"signature: {v.signature.value if v.signature else '—'}; flags: "
            f"clean_termination={v.flags.clean_termination}, "
            f"called_mutating_tool={v.flags.called_mutating_tool}, "
            f"last_tool_ok={v.flags.last_tool_ok}, "
            f"tool_grader_fooled={v.tool_grader_fooled}"
        )
        checks = Table(title="checks")
        checks.add_column("check")
        checks.add_column("result")
        checks.add_column("detail")
        for c in v.checks:
            result = "error" if c.error else ("pass" if c.passed else "FAIL")
            checks.add_row(c.name, result, c.detail)
        console.print(checks)
    u = record.user
    if u is not None:
        a = u.audit
        flags = [f"turn {x.turn}: ungrounded {x.kind} {x.value}" for x in a.ungrounded]
        flags += [f"turn {x.turn}: volunteered {x.fact}" for x in a.volunteered]
        console.print(
            f"user: {u.player}, {u.behaviour}"
            + (f" (misremembers {u.misremembered})" if u.misremembered else "")
            + f"; {a.user_turns} follow-up turns; "
            + ("; ".join(flags) if flags else "no ungrounded value, no volunteered fact"),
            highlight=False,
        )
    console.rule("transcript")
    # Thoughts go where the agent had them: before the tool call they preceded.
    thoughts = list(record.thoughts)
    steps = list(record.thought_steps)
    at = steps if len(steps) == len(thoughts) else [0] * len(thoughts)
    pending = sorted(zip(at, range(len(thoughts)), thoughts, strict=True))
    calls = 0

    def think_up_to(n: int) -> None:
        while pending and pending[0][0] <= n:
            console.print(f"think: {pending.pop(0)[2]}")

    for e in record.transcript:
        if e.kind == "tool_call":
            think_up_to(calls)
            calls += 1
        elif e.kind in ("agent_message", "end"):
            think_up_to(calls)
        if e.kind == "tool_call" and e.call is not None:
            r = e.result
            if r is None:  # the backend failed during the call (a system error)
                outcome = "no result: the backend failed"
            elif r.ok:
                outcome = _short(r.output)
            elif r.error is None:
                outcome = "ERROR"
            else:
                outcome = f"ERROR {r.error.kind} [{r.error.classified()}]: {r.error.message}"
            if e.approval is not None:  # held by an approval gate
                verdict = "approved" if e.approval.approved else "REFUSED"
                outcome = f"[{verdict} by {e.approval.approver}] {outcome}"
            console.print(f"tool {e.call.tool}({_short(e.call.args)}) → {outcome}")
        else:
            who = {"user_message": "user", "agent_message": "agent", "end": "agent (end)"}[e.kind]
            console.print(f"{who}: {e.text}")
    think_up_to(calls)  # any left (older records name no positions)
    if v is None:
        return
    console.rule("effects: golden vs actual")
    diff = Table()
    diff.add_column("kind")
    diff.add_column("op")
    diff.add_column("row")
    diff.add_column("column")
    diff.add_column("golden")
    diff.add_column("actual")
    comp = v.comparison
    for d in (*comp.missing, *comp.wrong, *comp.extra):
        diff.add_row(
            d.kind,
            d.op,
            f"{d.table} {_short(d.key)}",
            d.column or "(row)",
            _short(d.expected),
            _short(d.actual),
        )
    if comp.matches:
        console.print("terminal state equals the golden state")
    else:
        console.print(diff)
    console.print(
        f"golden effects: {len(v.expected_effects)} rows; "
        f"actual effects: {len(v.actual_effects)} rows"
    )
    for label, row_effects in (("golden", v.expected_effects), ("actual", v.actual_effects)):
        for fx in row_effects:
            row = _short(fx.after or fx.before)
            console.print(f"  {label} {fx.kind} {fx.table} {_short(fx.key)}: {row}")


def print_excluded(record: TrialRecord, policy: FieldPolicy, console: Console) -> None:
    """Name the columns of the trial's effects that its field policy leaves uncompared."""
    v = record.verdict
    if v is None:
        return
    touched = {fx.table for fx in (*v.expected_effects, *v.actual_effects)}
    for e in policy.excluded:
        if e.table in touched:
            console.print(f"not compared (field policy): {e.table}.{e.column}: {e.reason}")


def print_changes(changes: Sequence[TableChanges], console: Console) -> None:
    """Print effects table by table: rows added (+), removed (-), changed (~).

    One line per column (before → after; an added or removed row's key columns are in
    its row cell); a column the state comparison leaves out says why in the last one.
    """
    if not changes:
        console.print("no change: the state is left as it was")
        return
    for t in changes:
        counts = [
            f"{len(rows)} {word}"
            for rows, word in ((t.added, "added"), (t.removed, "removed"), (t.changed, "changed"))
            if rows
        ]
        table = Table(title=f"{t.table}: {', '.join(counts)}", title_justify="left")
        table.add_column("", no_wrap=True)
        table.add_column("row", overflow="fold", max_width=24)
        table.add_column("column", overflow="fold", max_width=22)
        table.add_column("before", overflow="fold", max_width=30)
        table.add_column("after", overflow="fold", max_width=30)
        table.add_column("excluded (why)", overflow="fold", max_width=28)
        for sign, rows in (("+", t.added), ("-", t.removed), ("~", t.changed)):
            for row in rows:
                key = ", ".join(f"{k}={_short(v, 40)}" for k, v in row.key.items())
                shown = [c for c in row.columns if sign == "~" or c.column not in row.key]
                for i, c in enumerate(shown or row.columns):
                    table.add_row(
                        sign if i == 0 else "",
                        key if i == 0 else "",
                        c.column,
                        "" if sign == "+" else _short(c.before, 120),
                        "" if sign == "-" else _short(c.after, 120),
                        c.excluded or "",
                    )
        console.print(table)
