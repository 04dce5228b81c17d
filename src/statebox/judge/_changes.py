"""A golden trajectory's effects, table by table: rows added, removed and changed.

The same row effects a verdict carries (`statebox.world.effects`, initial → golden),
read without the field policy so that every column the trajectory wrote is listed, and
grouped per table for a person (``statebox tasks show``, the notes of ``statebox play
--record``). A column the task's comparison leaves out (the domain's field policy or the
task's ``dont_care``) is marked with the reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from statebox._model import Model
from statebox.judge._judge import StateJudge
from statebox.tasks import Task
from statebox.world import FieldPolicy, RowEffect, Scalar, effects

__all__ = ["ColumnChange", "RowChange", "TableChanges", "golden_changes", "table_changes"]


class ColumnChange(Model):
    """One column of a row the trajectory added, removed or changed."""

    column: str
    """Column name."""
    before: Scalar = None
    """The value before (None for an added row)."""
    after: Scalar = None
    """The value after (None for a removed row)."""
    excluded: str | None = None
    """Why the state comparison leaves this column out; None when it is compared."""


class RowChange(Model):
    """One row the trajectory added, removed or changed."""

    key: dict[str, Scalar]
    """Primary-key column → value."""
    kind: Literal["insert", "update", "delete"]
    """What happened to the row."""
    columns: tuple[ColumnChange, ...]
    """Every column of an added or removed row; the changed ones of a changed row."""


class TableChanges(Model):
    """What the trajectory did to one table."""

    table: str
    """Table name."""
    added: tuple[RowChange, ...] = ()
    """Rows inserted."""
    removed: tuple[RowChange, ...] = ()
    """Rows deleted."""
    changed: tuple[RowChange, ...] = ()
    """Rows updated."""

    @property
    def excluded_written(self) -> tuple[tuple[RowChange, ColumnChange], ...]:
        """(row, column) of each excluded column an added or changed row was given."""
        return tuple(
            (row, col)
            for row in (*self.added, *self.changed)
            for col in row.columns
            if col.excluded is not None and col.after is not None
        )


def table_changes(row_effects: Sequence[RowEffect], policy: FieldPolicy) -> list[TableChanges]:
    """Group row effects by table, marking the columns ``policy`` leaves out.

    Args:
        row_effects: Effects sorted by table (as `statebox.world.effects` returns them).
        policy: The comparison's excluded columns (reasons are printed beside them).
    """
    out: list[TableChanges] = []
    by_table: dict[str, dict[str, list[RowChange]]] = {}
    for fx in row_effects:
        before, after = fx.before or {}, fx.after or {}
        columns = tuple(
            ColumnChange(
                column=c,
                before=before.get(c),
                after=after.get(c),
                excluded=policy.reason(fx.table, c),
            )
            for c in (after if fx.kind != "delete" else before)
        )
        groups = by_table.setdefault(fx.table, {"insert": [], "delete": [], "update": []})
        groups[fx.kind].append(RowChange(key=fx.key, kind=fx.kind, columns=columns))
    for table, groups in by_table.items():
        out.append(
            TableChanges(
                table=table,
                added=tuple(groups["insert"]),
                removed=tuple(groups["delete"]),
                changed=tuple(groups["update"]),
            )
        )
    return out


async def golden_changes(judge: StateJudge, task: Task) -> list[TableChanges]:
    """The effects of ``task``'s golden trajectory (initial → golden), table by table.

    Raises:
        GoldenReplayError: A golden call failed (the task is invalid).
        TaskSpecError: The task's initial state cannot be built.
    """
    await judge.prepare(task)
    initial = judge.initial_state(task)
    golden = judge.golden_states(task)[0]
    return table_changes(effects(initial, golden), judge.policy(task))
