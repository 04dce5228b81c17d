"""Call-level mutation testing: mutants of a golden trajectory, for any backend.

The state-level mutants of `validate_task` edit a SQLite end state, which an external
server does not allow. These operators edit the *trajectory* instead, so the same
suite of mutants runs through statebox's domains and through a ThinkingBox dataset's
own servers alike, and the two check suites are measured the same way:

- ``drop``: the golden trajectory without one state-changing call;
- ``alter``: one scalar leaf of one state-changing call's arguments changed to another
  plausible value (a number moved, a boolean flipped, an id's last number moved, text
  marked; an enum of the tool's schema takes another member) — at most
  ``max_alter_per_call`` leaves per call, spread over its leaves;
- ``repeat``: one state-changing call made twice in a row.

Each mutant is then run for real and classified: *equivalent* (its full end state
equals an accepted one, inserted rows matched by content, or differs from it only in
the task's ``dont_care`` columns: no real mutant), *killed* (the checks fail it) or *survived*
(the state differs but the checks pass — the fields that differ are kept, so a
survivor table can say which fields the checks do not see). Check strength = killed ÷
(killed + survived).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, NamedTuple

from statebox._model import Model
from statebox.domains import Domain
from statebox.episode import EpisodeOutcome, TerminationReason
from statebox.errors import GoldenReplayError, TaskSpecError
from statebox.judge._judge import Judge
from statebox.tasks import GoldenCall, Task
from statebox.world import effects

__all__ = [
    "OPERATORS",
    "CallMutant",
    "CallMutantResult",
    "StrengthRow",
    "call_mutants",
    "domain_call_mutants",
    "strength_table",
    "survivor_table",
]

Operator = Literal["drop", "alter", "repeat"]
OPERATORS: tuple[Operator, ...] = ("drop", "alter", "repeat")
_NUMBER_TAIL = re.compile(r"(\d+)(?!.*\d)")


class CallMutant(NamedTuple):
    """One mutated trajectory."""

    kind: Operator
    """The operator."""
    at: int
    """The index of the golden call it mutates."""
    description: str
    """What changed, e.g. ``alter call 2 (cancel_order) reason: 'x' → 'x (altered)'``."""
    calls: tuple[GoldenCall, ...]
    """The mutated trajectory."""


class CallMutantResult(Model):
    """A call-level mutant, run and classified."""

    task_id: str
    """The task."""
    domain: str
    """Its domain (a ThinkingBox scenario)."""
    kind: Operator
    """The operator."""
    description: str
    """What changed."""
    outcome: Literal["equivalent", "killed", "survived"]
    """equivalent: end state equals golden; killed: the checks failed it; survived: the
    state differs and the checks passed it."""
    fields: tuple[str, ...] = ()
    """For a survivor: the state fields that differ from golden, ids generalised
    (``tiny_shop:orders[*].note``)."""


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    if isinstance(value, dict):
        return [leaf for k in sorted(value) for leaf in _leaves(value[k], (*path, k))]
    if isinstance(value, list):
        return [leaf for i, v in enumerate(value) for leaf in _leaves(v, (*path, i))]
    return [] if value is None else [(path, value)]


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _replace(value[head], rest, new)}
    out = list(value)
    out[head] = _replace(value[head], rest, new)
    return out


def _altered(value: Any, prop: Mapping[str, Any]) -> Any:
    """Another plausible value of the same type (never equal to ``value``)."""
    enum = prop.get("enum")
    if isinstance(enum, list) and len(enum) > 1 and value in enum:
        return enum[(enum.index(value) + 1) % len(enum)]
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return round(value + 1.5, 2)
    if isinstance(value, str):
        m = _NUMBER_TAIL.search(value)
        if m and len(m.group(1)) <= 12:  # an id's number: the next id, same width
            n = str(int(m.group(1)) + 1).zfill(len(m.group(1)))
            return value[: m.start(1)] + n + value[m.end(1) :]
        return value + " (altered)"
    return None


def _spread(items: list[Any], limit: int) -> list[Any]:
    if len(items) <= limit:
        return items
    step = len(items) / limit
    return [items[int(i * step)] for i in range(limit)]


def call_mutants(
    golden: Sequence[GoldenCall],
    writes: Sequence[bool],
    *,
    schemas: Mapping[str, Mapping[str, Any]] | None = None,
    max_alter_per_call: int = 3,
) -> list[CallMutant]:
    """The call-level mutants of a golden trajectory.

    Args:
        golden: The golden calls.
        writes: Per golden call, whether it changes the state.
        schemas: Tool name → input JSON schema (for enums of top-level arguments).
        max_alter_per_call: Most ``alter`` mutants per state-changing call.

    Returns:
        drop, alter and repeat mutants of every state-changing call, in call order.
    """
    out: list[CallMutant] = []
    calls = tuple(golden)
    for i, (call, write) in enumerate(zip(calls, writes, strict=True)):
        if not write:
            continue
        where = f"call {i} ({call.tool})"
        out.append(CallMutant("drop", i, f"drop {where}", calls[:i] + calls[i + 1 :]))
        props = ((schemas or {}).get(call.tool) or {}).get("properties") or {}
        for path, value in _spread(_leaves(call.args), max_alter_per_call):
            new = _altered(value, props.get(path[0], {}) if len(path) == 1 else {})
            if new is None or new == value:
                continue
            args = _replace(call.args, path, new)
            name = ".".join(str(p) for p in path)
            out.append(
                CallMutant(
                    "alter",
                    i,
                    f"alter {where} {name}: {value!r} → {new!r}",
                    (*calls[:i], GoldenCall(tool=call.tool, args=args), *calls[i + 1 :]),
                )
            )
        out.append(CallMutant("repeat", i, f"repeat {where}", calls[: i + 1] + calls[i:]))
    return out


def generalise(path: str) -> str:
    """A field path with row ids and list indices replaced by ``*``."""
    return re.sub(r"\[[^\]]*\]", "[*]", path)


async def domain_call_mutants(
    domain: Domain, task: Task, judge: Judge | None = None, *, max_alter_per_call: int = 3
) -> list[CallMutantResult]:
    """Run the call-level mutants of one statebox task on its SQLite world.

    A mutant's failing calls are skipped (as a real agent's would fail); it is judged
    on state checks only, as the state-level mutants are.

    Returns:
        The classified mutants (empty when the golden trajectory does not replay).
    """
    judge = judge or Judge(domain)
    try:
        judge.golden_states(task)
        initial = judge.worlds.initial_state(domain, task)
    except (GoldenReplayError, TaskSpecError):
        return []
    dont_care = {(d.table, d.column) for d in task.checks.dont_care}
    writes = [
        domain.tools[c.tool].mutates if c.tool in domain.tools else False for c in task.golden
    ]
    schemas = {n: s.input_schema() for n, s in domain.tools.items()}
    out: list[CallMutantResult] = []
    for m in call_mutants(
        task.golden, writes, schemas=schemas, max_alter_per_call=max_alter_per_call
    ):
        world = judge.replay(task, m.calls, strict=False)
        try:
            final = world.state(initial)
            fields: tuple[str, ...] = ()
            # Equivalent as the state-level mutants are: an accepted end state once the
            # inserted rows are matched by content, or one differing in dont_care only.
            match = judge.match(task, final)
            accepted = judge.golden_states(task)[match.index]
            diff = {(e.table, c) for e in effects(accepted, match.final) for c in e.changed}
            if diff <= dont_care:
                outcome = "equivalent"
            else:
                verdict = await judge.judge(
                    task,
                    EpisodeOutcome(
                        initial=initial,
                        world=world,
                        transcript=(),
                        final_response="",
                        termination=TerminationReason.AGENT_END,
                    ),
                    state_only=True,
                )
                outcome = "killed" if not verdict.passed else "survived"
                fields = _differing(accepted, match.final) if outcome == "survived" else ()
        finally:
            world.close()
        out.append(
            CallMutantResult(
                task_id=task.id,
                domain=task.domain,
                kind=m.kind,
                description=m.description,
                outcome=outcome,
                fields=fields,
            )
        )
    return out


def _differing(golden: Any, final: Any) -> tuple[str, ...]:
    """``table.column`` of changed fields; ``table (row insert|delete)`` of whole rows."""
    out: set[str] = set()
    for e in effects(golden, final):
        if e.kind == "update":
            out.update(f"{e.table}.{c}" for c in e.changed)
        else:
            out.add(f"{e.table} (row {e.kind})")
    return tuple(sorted(out))


class StrengthRow(NamedTuple):
    """Check strength of one domain (or ``all``): killed ÷ (killed + survived)."""

    domain: str
    by_operator: dict[str, tuple[int, int]]
    """Operator → (killed, survived)."""
    equivalent: int

    @property
    def killed(self) -> int:
        return sum(k for k, _ in self.by_operator.values())

    @property
    def survived(self) -> int:
        return sum(s for _, s in self.by_operator.values())

    @property
    def strength(self) -> float | None:
        real = self.killed + self.survived
        return self.killed / real if real else None


def strength_table(results: Iterable[CallMutantResult]) -> list[StrengthRow]:
    """Strength per domain and operator, then ``all`` (the last row)."""
    results = list(results)
    rows = []
    for name in [*sorted({r.domain for r in results}), "all"]:
        mine = [r for r in results if name in ("all", r.domain)]
        by_op: dict[str, tuple[int, int]] = {
            op: (
                sum(r.kind == op and r.outcome == "killed" for r in mine),
                sum(r.kind == op and r.outcome == "survived" for r in mine),
            )
            for op in OPERATORS
        }
        rows.append(StrengthRow(name, by_op, sum(r.outcome == "equivalent" for r in mine)))
    return rows


def survivor_table(results: Iterable[CallMutantResult]) -> list[tuple[str, int, str, str]]:
    """Survivors grouped by field: (field, survivors, operators, an example), most first."""
    count: Counter[str] = Counter()
    ops: dict[str, Counter[str]] = {}
    example: dict[str, str] = {}
    for r in results:
        if r.outcome != "survived":
            continue
        for f in r.fields or ("(no field named)",):
            count[f] += 1
            ops.setdefault(f, Counter())[r.kind] += 1
            example.setdefault(f, f"{r.task_id}: {r.description}")
    return [
        (f, n, ", ".join(f"{k} {v}" for k, v in sorted(ops[f].items())), example[f])
        for f, n in count.most_common()
    ]
