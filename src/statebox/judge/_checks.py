"""The deterministic checks: state, invariants, text and reply (docs/design.md §6).

Each check is a function of what a trial left behind — canonical states, a read-only
way to query the terminal state, the agent's messages — and returns `CheckResult`
values. None needs a live SQLite world: a backend that can produce states and answer a
query is judged by the same functions.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Mapping, Sequence

from statebox.judge._align import IdMap, align_inserts
from statebox.judge._compare import Comparison, compare
from statebox.judge._text import facts_in, find_fact, normalise, normalise_fact
from statebox.judge._verdict import CheckResult
from statebox.tasks import ReplyCheck, RowSelector, SqlInvariant, TextCheck
from statebox.world import FieldPolicy, RowKey, Scalar, State, WorldQueryError, canonical_value

__all__ = [
    "Query",
    "StateMatch",
    "invariant_checks",
    "match_state",
    "reply_checks",
    "selected_rows",
    "text_checks",
]

Query = Callable[[str], list[dict[str, Scalar]]]
"""Runs one read-only SQL query over the terminal state.

Raises `sqlite3.Error` or `WorldQueryError` on bad SQL (`WorldView.query`).
"""


class StateMatch:
    """The closest accepted end state to a trial's terminal state.

    Attributes:
        comparison: Missing / wrong / extra against it.
        index: Which accepted state (0: the golden one).
        final: The terminal state with the trial's generated ids renamed to its ids.
        ids: That renaming (trial id → golden id).
    """

    __slots__ = ("comparison", "final", "ids", "index")

    def __init__(self, comparison: Comparison, index: int, final: State, ids: IdMap) -> None:
        self.comparison = comparison
        self.index = index
        self.final = final
        self.ids = ids


def match_state(
    initial: State,
    accepted: Sequence[State],
    final: State,
    policy: FieldPolicy | None,
    *,
    guard: FieldPolicy | None = None,
    ordered: bool = False,
) -> StateMatch:
    """Compare ``final`` with every accepted state and keep the closest.

    Args:
        initial: The task's initial state.
        accepted: The golden state, then the other accepted end states.
        final: The trial's terminal state.
        policy: Columns left out of comparison (domain field policy plus the task's
            ``dont_care``).
        guard: Excluded columns that must not change on rows the accepted state leaves
            alone (see `compare`).
        ordered: Match inserted rows by generated id instead of by content.
    """
    best: StateMatch | None = None
    for i, golden in enumerate(accepted):
        aligned, ids = (final, {}) if ordered else align_inserts(initial, golden, final)
        c = compare(initial, golden, aligned, policy, guard)
        if best is None or c.size < best.comparison.size:
            best = StateMatch(c, i, aligned, ids)
        if c.matches:
            break
    assert best is not None  # accepted holds at least the golden state
    return best


def invariant_checks(invariants: Sequence[SqlInvariant], query: Query) -> list[CheckResult]:
    """One check per SQL invariant; a query that fails is a check error, never a pass."""
    out = []
    for i, inv in enumerate(invariants):
        name, label = f"invariant[{i}]", inv.description or inv.sql
        try:
            rows = query(inv.sql)
        except (sqlite3.Error, WorldQueryError) as exc:  # a check error, never a pass
            out.append(
                CheckResult(
                    name=name,
                    kind="invariant",
                    passed=False,
                    error=True,
                    detail=f"{label}: query failed: {exc}",
                )
            )
            continue
        if len(rows) != 1 or len(rows[0]) != 1:
            out.append(
                CheckResult(
                    name=name,
                    kind="invariant",
                    passed=False,
                    detail=f"{label}: expected one row of one column, got {rows[:3]}",
                )
            )
            continue
        value = next(iter(rows[0].values()))
        ok = value == canonical_value(inv.equals)
        out.append(
            CheckResult(
                name=name,
                kind="invariant",
                passed=ok,
                detail=f"{label}: {value!r}" + ("" if ok else f" != {inv.equals!r}"),
            )
        )
    return out


def selected_rows(selector: RowSelector, initial: State, final: State) -> list[tuple[RowKey, str]]:
    """The (key, text) of each row a selector picks in ``final`` (aligned: golden ids)."""
    rows = final.rows.get(selector.table, {})
    before = initial.rows.get(selector.table, {})
    pk = final.primary_keys.get(selector.table, ())
    want_key = tuple(canonical_value(selector.key.get(c)) for c in pk) if selector.key else None
    where = {c: canonical_value(v) for c, v in selector.where.items()}
    out = []
    for key in sorted(rows, key=str):
        row = rows[key]
        if want_key is not None and key != want_key:
            continue
        if any(row.get(c) != v for c, v in where.items()):
            continue
        if selector.rows == "written" and before.get(key) == row:
            continue
        value = row.get(selector.column)
        out.append((key, "" if value is None else str(value)))
    return out


def _translate(text: str, ids: Mapping[str, str]) -> str:
    """Rename the trial's ids inside normalised text to the golden ones (one pass)."""
    if not ids:
        return text
    pattern = re.compile(
        r"(?<![a-z0-9])(" + "|".join(re.escape(k) for k in sorted(ids, key=len, reverse=True))
        + r")(?![a-z0-9])"
    )  # fmt: skip
    return pattern.sub(lambda m: ids[m[1]], text)


def _where(c: RowSelector) -> str:
    what = f"{c.table}.{c.column}"
    if c.key:
        what += f" of {c.key}"
    if c.where:
        what += f" where {c.where}"
    return what + (" (written rows)" if c.rows == "written" else "")


def text_checks(
    checks: Sequence[TextCheck], initial: State, final: State, ids: IdMap
) -> list[CheckResult]:
    """One check per text check: facts the written text must and must not carry.

    Args:
        checks: The task's text checks.
        initial: The initial state.
        final: The terminal state aligned on the golden ids (`match_state`).
        ids: The trial's ids renamed in ``final``; applied inside the text too.
    """
    names = {
        normalise_fact(str(k)): normalise_fact(str(v))
        for k, v in ids.items()
        if isinstance(k, str) and isinstance(v, str)
    }
    out = []
    for i, c in enumerate(checks):
        label = c.description or _where(c)
        rows = selected_rows(c, initial, final)
        if not rows:
            out.append(
                CheckResult(
                    name=f"text[{i}]",
                    kind="text",
                    passed=False,
                    detail=f"{label}: no row selected (nothing written)",
                )
            )
            continue
        text = _translate(facts_in(t for _, t in rows), names)
        absent = [f for f in c.must_contain if find_fact(text, f) is None]
        present = [v for v in c.must_not_contain if find_fact(text, v) is not None]
        problems = [f"lacks {f!r}" for f in absent] + [f"carries {v!r}" for v in present]
        out.append(
            CheckResult(
                name=f"text[{i}]",
                kind="text",
                passed=not problems,
                detail=f"{label}: " + ("; ".join(problems) if problems else "facts present"),
            )
        )
    return out


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def statements(message: str) -> list[str]:
    """The sentences of ``message`` that are not questions.

    A fact an agent asks about is not a fact it told: "Are you their manager?" must not
    count as the refusal's reason ("only their manager can ask"), or an agent that asks
    for the facts and stops would pass a reply check.
    """
    return [s for s in _SENTENCE_END.split(message) if s.strip() and not s.rstrip().endswith("?")]


def reply_checks(check: ReplyCheck | None, messages: Sequence[str]) -> list[CheckResult]:
    """One check per fact the agent's replies must (not) carry.

    A required fact counts only in a statement (`statements`: questions are left out); a
    forbidden value is found anywhere, questions included.
    """
    if check is None:
        return []
    text = "\n".join(normalise(m) for m in messages)
    told = "\n".join(normalise(s) for m in messages for s in statements(m))
    out = []
    for i, fact in enumerate(check.must_contain):
        ok = find_fact(told, fact) is not None
        out.append(
            CheckResult(
                name=f"reply.must_contain[{i}]",
                kind="reply",
                passed=ok,
                detail=f"a reply carries {fact!r}" + ("" if ok else ": none does"),
            )
        )
    for i, value in enumerate(check.must_not_contain):
        ok = find_fact(text, value) is None
        out.append(
            CheckResult(
                name=f"reply.must_not_contain[{i}]",
                kind="reply",
                passed=ok,
                detail=f"no reply carries {value!r}" + ("" if ok else ": one does"),
            )
        )
    return out
