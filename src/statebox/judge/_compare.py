"""Compare a trial's terminal state with the golden state: missing, wrong, extra.

Both are read against the task's initial state I, under the field policy. For each
row and column where golden G and final F differ:

- **missing**: the golden trajectory changed it and the trial left it as in I
  (an insert, update or delete not made);
- **wrong**: both changed it, to different values (or both inserted the row, with
  different values);
- **extra**: the trial changed something the golden trajectory left as in I.

The three lists are empty exactly when G and F are equal under the policy — and, for
the columns of the ``guard`` policy (the domain's free text), when F leaves them as in
I on every row G leaves them alone: their wording is free where the golden run writes,
but rewriting a note nobody asked to touch is an extra effect.
"""

from __future__ import annotations

from typing import Literal

from statebox._model import Model
from statebox.world import FieldPolicy, Scalar, State
from statebox.world._canonical import key_sort

__all__ = ["Comparison", "Discrepancy", "compare"]


class Discrepancy(Model):
    """One difference between the golden and the actual terminal state."""

    kind: Literal["missing", "wrong", "extra"]
    """Missing required effect, wrong value, or effect nobody asked for."""
    op: Literal["insert", "update", "delete"]
    """The row operation concerned (expected for missing/wrong, actual for extra)."""
    table: str
    """Table name."""
    key: dict[str, Scalar]
    """Primary key of the row."""
    column: str | None = None
    """The column, for updates and wrong inserted values; None for a whole row."""
    expected: Scalar | dict[str, Scalar] | None = None
    """Golden value (a row for whole-row discrepancies)."""
    actual: Scalar | dict[str, Scalar] | None = None
    """Actual value (a row for whole-row discrepancies)."""


class Comparison(Model):
    """Missing, wrong and extra effects of a trial against one golden state."""

    missing: tuple[Discrepancy, ...] = ()
    """Required effects not made."""
    wrong: tuple[Discrepancy, ...] = ()
    """Required effects made with the wrong value."""
    extra: tuple[Discrepancy, ...] = ()
    """Effects the golden trajectory does not make."""

    @property
    def matches(self) -> bool:
        """True when nothing is missing, wrong or extra."""
        return not (self.missing or self.wrong or self.extra)

    @property
    def size(self) -> int:
        """Number of discrepancies."""
        return len(self.missing) + len(self.wrong) + len(self.extra)


def _untouched_changes(
    initial: State, golden: State, final: State, guard: FieldPolicy
) -> list[Discrepancy]:
    out = []
    for e in guard.excluded:
        fi, ii = final.rows.get(e.table, {}), initial.rows.get(e.table, {})
        if fi is ii:
            continue
        gi = golden.rows.get(e.table, {})
        pk = final.primary_keys[e.table]
        # Only a row the trial wrote (not the initial row object itself) can have changed.
        written = [k for k, f in fi.items() if ii.get(k, f) is not f and k in gi]
        for key in sorted(written, key=key_sort):
            i, g, f = ii[key], gi[key], fi[key]
            if g.get(e.column) == i.get(e.column) and f.get(e.column) != i.get(e.column):
                out.append(
                    Discrepancy(
                        kind="extra",
                        op="update",
                        table=e.table,
                        key=dict(zip(pk, key, strict=True)),
                        column=e.column,
                        expected=g.get(e.column),
                        actual=f.get(e.column),
                    )
                )
    return out


def compare(
    initial: State,
    golden: State,
    final: State,
    policy: FieldPolicy | None,
    guard: FieldPolicy | None = None,
) -> Comparison:
    """Classify every difference between ``golden`` and ``final`` (see module docstring).

    Args:
        initial: The task's initial state.
        golden: The state the golden trajectory leaves.
        final: The trial's terminal state.
        policy: Columns left out of comparison.
        guard: Excluded columns that must stay as they were on rows the golden run
            leaves alone (a domain's free text; not a task's ``dont_care``).

    Returns:
        A `Comparison`; each list sorted by (table, primary key, column).
    """
    i_all, g_all, f_all = initial.project(policy), golden.project(policy), final.project(policy)
    missing: list[Discrepancy] = []
    wrong: list[Discrepancy] = []
    extra: list[Discrepancy] = []
    for table in sorted(set(g_all.rows) | set(f_all.rows)):
        pk = g_all.primary_keys.get(table) or f_all.primary_keys[table]
        gi, fi, ii = g_all.rows.get(table, {}), f_all.rows.get(table, {}), i_all.rows.get(table, {})
        if gi is fi:  # shared with the initial state by both: unchanged
            continue
        # A row shared by both (one object: untouched by either run) cannot differ.
        # (The keys only one side holds differ; no union of the key sets is built.)
        changed = [k for k, f in fi.items() if (g := gi.get(k)) is not f and g != f]
        changed += gi.keys() - fi.keys()
        for key in sorted(changed, key=key_sort):
            g, f, i = gi.get(key), fi.get(key), ii.get(key)
            if g == f:
                continue
            k = dict(zip(pk, key, strict=True))
            if g is not None and f is None:
                if i is None:
                    missing.append(
                        Discrepancy(kind="missing", op="insert", table=table, key=k, expected=g)
                    )
                else:
                    extra.append(
                        Discrepancy(kind="extra", op="delete", table=table, key=k, expected=g)
                    )
            elif g is None and f is not None:
                if i is None:
                    extra.append(
                        Discrepancy(kind="extra", op="insert", table=table, key=k, actual=f)
                    )
                else:
                    missing.append(
                        Discrepancy(kind="missing", op="delete", table=table, key=k, actual=f)
                    )
            elif g is not None and f is not None:
                op: Literal["insert", "update"] = "insert" if i is None else "update"
                for col in sorted(set(g) | set(f)):
                    gv, fv = g.get(col), f.get(col)
                    if gv == fv:
                        continue
                    d = {
                        "op": op,
                        "table": table,
                        "key": k,
                        "column": col,
                        "expected": gv,
                        "actual": fv,
                    }
                    if i is not None and gv == i.get(col):
                        extra.append(Discrepancy(kind="extra", **d))
                    elif i is not None and fv == i.get(col):
                        missing.append(Discrepancy(kind="missing", **d))
                    else:
                        wrong.append(Discrepancy(kind="wrong", **d))
    if guard is not None and guard.excluded:
        extra += _untouched_changes(initial, golden, final, guard)
        extra.sort(key=lambda d: (d.table, key_sort(tuple(d.key.values())), d.column or ""))
    return Comparison(missing=tuple(missing), wrong=tuple(wrong), extra=tuple(extra))
