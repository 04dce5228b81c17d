"""Mutation operators: wrong end states the checks must catch (docs/design.md §5).

Each operator is a small async generator over a `MutationContext`, yielding one
`MutantResult` per mutant; `OPERATORS` lists them in the order validation runs them, so
an operator can be added (issue 16's call-level mutants, say) without touching the
others.

- ``drop_write``: the golden trajectory without one mutating call (later calls that
  then fail are skipped);
- ``wrong_value``: the golden end state with one field the golden trajectory wrote set
  to another value of its column;
- ``extra_write``: the golden end state with one untouched row of a table changed;
- ``text_fact``: a fact a text check asks for, replaced in the written text by another
  value of its kind seen in the task (an amount by an amount, a date by a date, an id
  by an id).

A mutant is *equivalent* when its end state equals an accepted one (the golden state,
an alternative, a declared end state), or differs from it only in the task's
``dont_care`` columns: it is not a wrong state and is left out of the count. Any other
mutant is *caught* when a check fails it and *survived* otherwise — also when it only
touches a column the field policy leaves out of exact comparison: such a survivor is
marked ``excluded_only``, never set aside. Check strength = caught ÷ (caught + survived).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from datetime import date, timedelta
from typing import Any, Literal

from statebox._model import Model
from statebox.judge._checks import selected_rows
from statebox.judge._judge import StateJudge
from statebox.judge._text import fact_values, find_fact, normalise, normalise_fact, replace_fact
from statebox.tasks import CheckFact, Task
from statebox.world import RowEffect, Scalar, State, World, WorldView, effects

__all__ = ["OPERATORS", "MutantResult", "MutationContext", "Operator"]


class MutantResult(Model):
    """One mutant and whether the checks caught it."""

    kind: Literal["drop_write", "wrong_value", "extra_write", "text_fact"]
    """Mutation operator."""
    description: str
    """What was changed."""
    outcome: Literal["caught", "survived", "equivalent"]
    """caught: a check failed it; survived: every check passed it; equivalent: its end
    state is an accepted one (or differs only in the task's dont_care columns)."""
    reason: str = ""
    """Why it is equivalent, or which excluded columns a survivor touched."""
    excluded_only: bool = False
    """It touches only columns the field policy leaves out of exact comparison."""
    caught_by: tuple[str, ...] = ()
    """The checks that failed it."""


class MutationContext:
    """What every operator reads: the task, its judge, and a live golden world to edit.

    Everything goes through the judge and `WorldView`, so the operators run on any
    backend a `StateJudge` judges. Two shortcuts apply to statebox's own SQLite worlds
    only, and change no outcome: a mutant edits the golden world inside a savepoint
    (`StateJudge.scratch_world`; elsewhere a fresh golden replay per mutant), and a
    one-field mutant's state re-reads that one row (elsewhere the whole state).

    Args:
        task: The task.
        judge: The judge (its golden cache is shared).
        golden_world: The golden trajectory's end world; edited only inside `scratch`.
    """

    def __init__(self, task: Task, judge: StateJudge, golden_world: WorldView) -> None:
        self.task = task
        self.judge = judge
        self.golden_world = golden_world
        self.initial = judge.initial_state(task)
        self.golden = judge.golden_states(task)[0]
        self._values: dict[tuple[str, str], list[Scalar]] = {}

    @asynccontextmanager
    async def scratch(self) -> AsyncIterator[WorldView]:
        """A world in the golden end state for one mutant's changes; nothing outlives it."""
        async with self.judge.scratch_world(self.task, self.golden_world) as world:
            yield world

    def column_values(self, table: str, column: str) -> list[Scalar]:
        """Up to 8 distinct values of a column in the golden world (cached)."""
        key = (table, column)
        if key not in self._values:
            self._values[key] = self.golden_world.column_values(table, column, 8)
        return self._values[key]

    def with_row(self, world: WorldView, table: str, key: dict[str, Scalar]) -> State | None:
        """The golden state with one row re-read from ``world`` (a one-field mutant).

        Cheaper than reading the world's state again; every other table stays shared
        with the golden state, so comparisons skip them. None where the world is not a
        SQLite one (the caller reads its whole state).
        """
        if not isinstance(world, World):
            return None
        where = " AND ".join(f'"{c}" = ?' for c in key)
        rows = world.query(f'SELECT * FROM "{table}" WHERE {where}', list(key.values()))
        out = dict(self.golden.rows)
        out[table] = {**out[table], tuple(key.values()): rows[0]}
        return State(out, self.golden.primary_keys, self.golden)

    async def judge_world(
        self, world: WorldView, kind: str, description: str, final: State | None = None
    ) -> MutantResult:
        """Classify one mutant world (see the module docstring).

        Args:
            world: The mutant's world (its invariants are queried there).
            kind: The operator.
            description: What was changed.
            final: The world's state when the caller has it cheaper (`with_row`).
        """
        final = final if final is not None else world.state(self.initial)
        checks, m = self.judge.deterministic_checks(self.task, world, final)
        accepted = self.judge.golden_states(self.task)[m.index]
        diff = {(e.table, c) for e in effects(accepted, m.final) for c in e.changed}
        args: dict[str, Any] = {"kind": kind, "description": description}
        if not diff:
            return MutantResult(**args, outcome="equivalent", reason="an accepted end state")
        failed = tuple(c.name for c in checks if not c.passed)
        dont = {(d.table, d.column): d.reason for d in self.task.checks.dont_care}
        policy = self.judge.field_policy
        excluded = {(t, c) for t, c in diff if policy.is_excluded(t, c)}
        only_excluded = diff <= excluded | set(dont)
        if failed:
            return MutantResult(
                **args, outcome="caught", caught_by=failed, excluded_only=only_excluded
            )
        if diff <= set(dont):
            why = "; ".join(sorted({f"{t}.{c}: {dont[t, c]}" for t, c in diff}))
            return MutantResult(**args, outcome="equivalent", reason=f"dont_care: {why}")
        if only_excluded:
            cols = ", ".join(sorted(f"{t}.{c}" for t, c in diff))
            return MutantResult(
                **args,
                outcome="survived",
                excluded_only=True,
                reason=f"only touches {cols}, left out of exact comparison, and no text "
                "check reads it",
            )
        return MutantResult(**args, outcome="survived")


Operator = Callable[[MutationContext], AsyncIterator[MutantResult]]
"""One mutation operator."""


def _other_values(seen: list[Scalar], current: Scalar) -> list[Scalar]:
    """Candidate replacement values: other values of the column, then type-based ones."""
    out: list[Scalar] = [v for v in seen if v != current]
    if isinstance(current, bool | int):
        out.append(current + 1)
    elif isinstance(current, float):
        out.append(round(current + 1.5, 2))
    elif isinstance(current, str):
        # Free text loses its facts; an id-like value gets a near-miss spelling.
        out.append("x" if any(ch.isspace() for ch in current) else current + "-mutant")
    else:
        out.append("mutant")
    return out


def _set_field(
    ctx: MutationContext,
    world: WorldView,
    table: str,
    key: dict[str, Scalar],
    column: str,
    current: Scalar,
) -> Scalar | None:
    """Change one field to the first candidate the schema accepts; returns it, or None."""
    for value in _other_values(ctx.column_values(table, column), current):
        if world.set_value(table, key, column, value):
            return value
    return None


def _written_fields(
    expected: list[RowEffect], pk: dict[str, tuple[str, ...]]
) -> Iterator[tuple[str, dict[str, Scalar], str, Scalar]]:
    for e in expected:
        if e.kind == "delete" or e.after is None:
            continue
        for col, value in sorted(e.after.items()):
            if col not in pk[e.table]:
                yield e.table, e.key, col, value


async def drop_write(ctx: MutationContext) -> AsyncIterator[MutantResult]:
    """Each mutating golden call left out."""
    golden = ctx.task.golden
    for i, call in enumerate(golden):
        if not ctx.judge.mutates(call.tool):
            continue
        calls = [c for j, c in enumerate(golden) if j != i]
        world = await ctx.judge.replay_world(ctx.task, calls, strict=False)
        try:
            yield await ctx.judge_world(world, "drop_write", f"drop golden call {i} ({call.tool})")
        finally:
            world.close()


async def wrong_value(ctx: MutationContext) -> AsyncIterator[MutantResult]:
    """Each field the golden trajectory wrote, set to another value of its column."""
    # Unprojected: excluded columns are mutated too, and must be caught by a text check.
    expected = effects(ctx.initial, ctx.golden)
    for table, key, col, value in _written_fields(expected, ctx.golden.primary_keys):
        async with ctx.scratch() as world:
            new = _set_field(ctx, world, table, key, col, value)
            if new is None:
                continue
            yield await ctx.judge_world(
                world,
                "wrong_value",
                f"{table}{key}.{col}: {value!r} → {new!r}",
                ctx.with_row(world, table, key),
            )


async def extra_write(ctx: MutationContext) -> AsyncIterator[MutantResult]:
    """In each table, the first row the golden trajectory left alone, changed."""
    golden, policy = ctx.golden, ctx.judge.field_policy
    touched = {(e.table, tuple(sorted(e.key.items()))) for e in effects(ctx.initial, ctx.golden)}
    for table in sorted(golden.rows):
        rows, pk = golden.rows[table], golden.primary_keys[table]
        untouched = next(
            (
                k
                for k in sorted(rows, key=str)
                if (table, tuple(sorted(zip(pk, k, strict=True)))) not in touched
            ),
            None,
        )
        if untouched is None:
            continue
        row, key = rows[untouched], dict(zip(pk, untouched, strict=True))
        async with ctx.scratch() as world:
            for col in sorted(row):
                if col in pk or policy.is_excluded(table, col):
                    continue
                new = _set_field(ctx, world, table, key, col, row[col])
                if new is None:
                    continue
                yield await ctx.judge_world(
                    world,
                    "extra_write",
                    f"{table}{key}.{col}: {row[col]!r} → {new!r}",
                    ctx.with_row(world, table, key),
                )
                break


_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TIME = re.compile(r"^\d{2}:\d{2}$")
_AMOUNT = re.compile(r"^\d+(\.\d+)?$")
_DIGITS = re.compile(r"\d+(?!.*\d)")


def _fact_kind(needle: str) -> str:
    if _DATE.match(needle):
        return "date"
    if _TIME.match(needle):
        return "time"
    if _AMOUNT.match(needle):
        return "amount"
    if " " in needle:
        return "phrase"
    return "id" if any(ch.isdigit() for ch in needle) else "word"


def _near_miss(needle: str, kind: str) -> str | None:
    """A wrong value of the fact's kind when the task holds no other one."""
    if kind == "amount":
        return normalise_fact(float(needle) + 1)
    if kind == "date":
        d = date.fromisoformat(needle) + timedelta(days=1)
        return d.isoformat()
    if kind == "time":
        return f"{(int(needle[:2]) + 1) % 24:02d}{needle[2:]}"
    if kind == "id":
        m = _DIGITS.search(needle)
        if m:
            n = str(int(m[0]) + 1).zfill(len(m[0]))
            return needle[: m.start()] + n + needle[m.end() :]
    return None


def _scalars(value: Any) -> Iterator[Scalar]:
    if isinstance(value, dict):
        for v in value.values():
            yield from _scalars(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _scalars(v)
    elif value is None or isinstance(value, str | int | float):
        yield value


def _seen_values(task: Task) -> list[str]:
    """Every value the task itself holds, normalised (a text mutant's pool of wrong facts).

    Golden arguments, patch rows, user facts and check values.
    """
    pool: list[Any] = [c.args for c in task.golden]
    pool += [task.initial_state.upsert, task.user.facts]
    pool += [inv.equals for inv in task.checks.invariants]
    for t in task.checks.text:
        pool += [list(fact_values(f)) for f in t.must_contain] + list(t.must_not_contain)
    if task.checks.reply is not None:
        pool += [list(fact_values(f)) for f in task.checks.reply.must_contain]
    out = set()
    for v in _scalars(pool):
        if v is None:
            continue
        text = normalise_fact(v)
        out.add(text)
        if isinstance(v, str):  # the tokens of free text are candidates too
            out.update(w.strip(".,;:()") for w in normalise(v).split())
    return sorted(x for x in out if x)


def _replacement(needle: str, fact: CheckFact, text: str, seen: list[str]) -> str | None:
    """Another value of the needle's kind seen in the task, else a near miss."""
    kind = _fact_kind(needle)
    for v in seen:
        if (
            find_fact(v, fact) is None  # not one of its own spellings, plurals included
            and _fact_kind(v) == kind
            and find_fact(text, v) is None
            and find_fact(v, needle) is None
            and len(v.split()) <= 4
        ):
            return v
    return _near_miss(needle, kind)


async def text_fact(ctx: MutationContext) -> AsyncIterator[MutantResult]:
    """Each fact a text check asks for, replaced in the golden text by another one."""
    seen = _seen_values(ctx.task)
    for check in ctx.task.checks.text:
        pk = ctx.golden.primary_keys.get(check.table, ())
        for key, raw in selected_rows(check, ctx.initial, ctx.golden):
            text = normalise(raw)
            for fact in check.must_contain:
                needles = [n for n in map(normalise_fact, fact_values(fact)) if find_fact(text, n)]
                if not needles:
                    continue
                new = replace_fact(text, needles[0], "\0")
                replacement = _replacement(needles[0], fact, new, seen)
                if replacement is None:
                    continue
                for n in needles:
                    new = replace_fact(new, n, replacement)
                new = new.replace("\0", replacement)
                row_key = dict(zip(pk, key, strict=True))
                async with ctx.scratch() as world:
                    if not world.set_value(check.table, row_key, check.column, new):
                        continue
                    yield await ctx.judge_world(
                        world,
                        "text_fact",
                        f"{check.table}{row_key}.{check.column}: "
                        f"fact {needles[0]!r} → {replacement!r}",
                        ctx.with_row(world, check.table, row_key),
                    )


OPERATORS: tuple[Operator, ...] = (drop_write, wrong_value, extra_write, text_fact)
"""Every mutation operator, in the order validation runs them."""
