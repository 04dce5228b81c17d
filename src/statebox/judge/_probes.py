"""Plausible-alternative probes: right end states reached another way, which must pass.

A judge that rejects a correct agent is as wrong as one that passes a broken one. Each
probe is a small async generator over a `ProbeContext`, yielding one `ProbeResult`;
`PROBES` lists them in the order validation runs them:

- ``reorder``: two consecutive golden writes swapped. Only when the swap is
  *independent* — its end state holds the same rows as the golden one once generated
  ids are set aside (a multiset comparison of its own, not the judge's matching) —
  and only unless the task declares ``checks.ordered``;
- ``respell_numbers``: every numeric argument given the other way (``40`` ↔ ``40.0``);
- ``respell_text``: every free-text argument with its dates and amounts spelled
  another way (``2025-11-05`` → ``November 5, 2025``, ``$800`` → ``USD 800.00``);
- ``respell_reply``: the reference reply respelled the same way, read by the reply
  checks;
- ``alternative``: each trajectory the task declares in ``checks.alternatives``.

A probe whose replay a tool refuses is not an alternative the tool accepts and is not
run. False-rejection rate = rejected ÷ probes run.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from itertools import pairwise
from typing import Any, Literal

from statebox._model import Model
from statebox.errors import GoldenReplayError
from statebox.judge._checks import reply_checks
from statebox.judge._judge import StateJudge
from statebox.judge._text import respell
from statebox.tasks import GoldenCall, Task
from statebox.world import State, WorldView

__all__ = ["PROBES", "Probe", "ProbeContext", "ProbeResult"]


ProbeKind = Literal["reorder", "respell_numbers", "respell_text", "respell_reply", "alternative"]
"""The kinds of plausible alternative."""


class ProbeResult(Model):
    """One plausible alternative and whether the checks accepted it."""

    kind: ProbeKind
    """Probe kind."""
    description: str
    """What was done differently."""
    outcome: Literal["accepted", "rejected"]
    """accepted: every check passed it (right); rejected: a check failed it (a false
    rejection)."""
    rejected_by: tuple[str, ...] = ()
    """The checks that failed it, with their details."""


class ProbeContext:
    """What every probe reads: the task and its judge (any `StateJudge`'s worlds).

    Args:
        task: The task.
        judge: The judge (its golden cache is shared).
    """

    def __init__(self, task: Task, judge: StateJudge) -> None:
        self.task = task
        self.judge = judge
        self.initial = judge.initial_state(task)
        self.golden = judge.golden_states(task)[0]

    async def replay(self, calls: list[GoldenCall]) -> WorldView | None:
        """The world after ``calls``, or None when a tool refuses one of them."""
        try:
            return await self.judge.replay_world(self.task, calls)
        except GoldenReplayError:
            return None

    async def judge_world(self, world: WorldView, kind: ProbeKind, description: str) -> ProbeResult:
        """Judge one probe world on its state checks."""
        final = world.state(self.initial)
        checks, _ = self.judge.deterministic_checks(self.task, world, final)
        failed = tuple(f"{c.name}: {c.detail}" for c in checks if not c.passed)
        return ProbeResult(
            kind=kind,
            description=description,
            outcome="rejected" if failed else "accepted",
            rejected_by=failed,
        )


Probe = Callable[[ProbeContext], AsyncIterator[ProbeResult]]
"""One kind of plausible alternative."""


def _content(initial: State, state: State) -> dict[str, Counter[tuple[Any, ...]]]:
    """Each changed table's rows as a multiset, generated ids replaced by a placeholder."""
    new_ids: set[Any] = set()
    for table, rows in state.rows.items():
        before = initial.rows.get(table, {})
        if rows is before or len(state.primary_keys.get(table, ())) != 1:
            continue
        new_ids.update(k[0] for k in rows if k not in before)
    out = {}
    for table, rows in state.rows.items():
        if rows is initial.rows.get(table):
            continue
        out[table] = Counter(
            tuple(sorted((c, "<new id>" if v in new_ids else v) for c, v in row.items()))
            for row in rows.values()
        )
    return out


def _independent(initial: State, golden: State, other: State) -> bool:
    a, b = _content(initial, golden), _content(initial, other)
    tables = set(a) | set(b)
    base = {
        t: Counter(tuple(sorted(r.items())) for r in initial.rows.get(t, {}).values())
        for t in tables
    }
    return all(a.get(t, base[t]) == b.get(t, base[t]) for t in tables)


async def reorder(ctx: ProbeContext) -> AsyncIterator[ProbeResult]:
    """Two consecutive golden writes swapped, where the order changes no row."""
    if ctx.task.checks.ordered:
        return
    golden = list(ctx.task.golden)
    writes = [i for i, c in enumerate(golden) if ctx.judge.mutates(c.tool)]
    for i, j in pairwise(writes):
        calls = list(golden)
        calls[i], calls[j] = calls[j], calls[i]
        world = await ctx.replay(calls)
        if world is None:
            continue
        try:
            if not _independent(ctx.initial, ctx.golden, world.state(ctx.initial)):
                continue
            yield await ctx.judge_world(
                world,
                "reorder",
                f"golden calls {i} ({golden[i].tool}) and {j} ({golden[j].tool}) swapped",
            )
        finally:
            world.close()


def _flip_number(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return float(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _flip_number(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_flip_number(v) for v in value]
    return value


def _respell_free_text(value: Any) -> Any:
    if isinstance(value, str):
        return respell(value) if any(ch.isspace() for ch in value) else value
    if isinstance(value, dict):
        return {k: _respell_free_text(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_respell_free_text(v) for v in value]
    return value


def _changed_calls(task: Task, how: Callable[[Any], Any]) -> Iterator[list[GoldenCall]]:
    calls = [GoldenCall(tool=c.tool, args=how(dict(c.args))) for c in task.golden]
    # Compared as JSON: 40 == 40.0 in Python, but not as the arguments an agent sends.
    if any(
        json.dumps(a.args, sort_keys=True) != json.dumps(b.args, sort_keys=True)
        for a, b in zip(calls, task.golden, strict=True)
    ):
        yield calls


async def respell_numbers(ctx: ProbeContext) -> AsyncIterator[ProbeResult]:
    """Every numeric argument written the other way (``40`` ↔ ``40.0``)."""
    for calls in _changed_calls(ctx.task, _flip_number):
        world = await ctx.replay(calls)
        if world is None:
            continue
        try:
            yield await ctx.judge_world(world, "respell_numbers", "numbers as int ↔ float")
        finally:
            world.close()


async def respell_text(ctx: ProbeContext) -> AsyncIterator[ProbeResult]:
    """Every free-text argument with its dates and amounts spelled another way."""
    for calls in _changed_calls(ctx.task, _respell_free_text):
        world = await ctx.replay(calls)
        if world is None:
            continue
        try:
            yield await ctx.judge_world(
                world, "respell_text", "free text: dates in words, amounts as USD 1,234.00"
            )
        finally:
            world.close()


async def respell_reply(ctx: ProbeContext) -> AsyncIterator[ProbeResult]:
    """The reference reply with its dates and amounts spelled another way."""
    reply, ref = ctx.task.checks.reply, ctx.task.reference_response
    if reply is None or not ref or respell(ref) == ref:
        return
    failed = tuple(
        f"{c.name}: {c.detail}" for c in reply_checks(reply, [respell(ref)]) if not c.passed
    )
    yield ProbeResult(
        kind="respell_reply",
        description="reference reply: dates in words, amounts as USD 1,234.00",
        outcome="rejected" if failed else "accepted",
        rejected_by=failed,
    )


async def alternative(ctx: ProbeContext) -> AsyncIterator[ProbeResult]:
    """Each declared alternative trajectory."""
    for n, calls in enumerate(ctx.task.checks.alternatives):
        world = await ctx.judge.replay_world(ctx.task, calls)
        try:
            yield await ctx.judge_world(world, "alternative", f"checks.alternatives[{n}]")
        finally:
            world.close()


PROBES: tuple[Probe, ...] = (reorder, respell_numbers, respell_text, respell_reply, alternative)
"""Every probe kind, in the order validation runs them."""
