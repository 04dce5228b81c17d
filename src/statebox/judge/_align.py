"""Order-free matching of inserted rows: a trial's generated ids mapped onto golden ones.

Tools hand out ids from per-table sequences, so two independent inserts made in the
other order swap ids, and a comparison by key would call every column of both rows
wrong. `align_inserts` pairs the rows a trial inserted with the rows the golden run
inserted, table by table, by content (the pairing that agrees on the most columns),
and renames the trial's generated ids to the golden ones everywhere they occur: keys,
and any column holding one (a payment's ``installment_id``, a ticket's ``claim_id``).
References are followed: a pairing found in one table lets rows that point at those
rows pair in the next round.

Only inserted rows are renamed; rows present in the initial state keep their keys.
Unpaired inserts (more inserts than the golden run made) keep their own id unless it
now names a paired row, in which case they take a free golden id, or a marked one.
A task whose policy fixes the order declares ``checks.ordered`` and is compared by key.

Pure functions over `State` values: no database connection is needed, so the same
matching serves any backend whose states can be read.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import permutations

from statebox.world import RowKey, Scalar, State

__all__ = ["IdMap", "align_inserts"]

IdMap = dict[Scalar, Scalar]
"""A trial's generated id → the golden id it was paired with (only ids that differ)."""

_EXACT_MAX = 6
"""Up to this many inserts per table the best pairing is searched exhaustively."""
_ROUNDS = 3
"""Rounds of pairing: each lets references to rows paired in the last one count."""

Row = Mapping[str, Scalar]


def _sub(value: Scalar, ids: IdMap) -> Scalar:
    return ids.get(value, value) if isinstance(value, str) else value


def _score(f: Row, g: Row, pk: tuple[str, ...], ids: IdMap) -> int:
    return sum(1 for c, v in g.items() if c not in pk and _sub(f.get(c), ids) == v)


def _pair(
    fk: list[RowKey], gk: list[RowKey], f_rows: Mapping[RowKey, Row], g_rows: Mapping[RowKey, Row],
    pk: tuple[str, ...], ids: IdMap,
) -> list[tuple[RowKey, RowKey]]:  # fmt: skip
    """The pairing of trial rows ``fk`` with golden rows ``gk`` that agrees most.

    Ties keep the pairing by position (the ids' own order), so identical rows never
    swap for nothing.
    """
    n = min(len(fk), len(gk))
    scores = [[_score(f_rows[f], g_rows[g], pk, ids) for g in gk] for f in fk]
    if len(fk) <= _EXACT_MAX and len(gk) <= _EXACT_MAX:
        small, large = (fk, gk) if len(fk) <= len(gk) else (gk, fk)
        best: tuple[int, int] | None = None
        chosen: tuple[int, ...] = ()
        for perm in permutations(range(len(large)), len(small)):
            if len(fk) <= len(gk):
                total = sum(scores[i][j] for i, j in enumerate(perm))
                same = sum(1 for i, j in enumerate(perm) if i == j)
            else:
                total = sum(scores[j][i] for i, j in enumerate(perm))
                same = sum(1 for i, j in enumerate(perm) if i == j)
            if best is None or (total, same) > best:
                best, chosen = (total, same), perm
        if len(fk) <= len(gk):
            return [(fk[i], gk[j]) for i, j in enumerate(chosen)]
        return [(fk[j], gk[i]) for i, j in enumerate(chosen)]
    # Many inserts into one table: greedy, best-scoring pairs first, position as tie-break.
    cells = sorted(
        ((scores[i][j], -abs(i - j), i, j) for i in range(len(fk)) for j in range(len(gk))),
        reverse=True,
    )
    used_f: set[int] = set()
    used_g: set[int] = set()
    out = []
    for _, _, i, j in cells:
        if i in used_f or j in used_g:
            continue
        used_f.add(i)
        used_g.add(j)
        out.append((fk[i], gk[j]))
        if len(out) == n:
            break
    return out


Rekeying = dict[str, dict[RowKey, RowKey]]
"""Per table: each inserted trial row's key → the key it takes."""


def _id_map(initial: State, golden: State, final: State) -> tuple[IdMap, Rekeying]:
    """The id map and, per table, the key each inserted trial row takes."""
    tables = [
        t
        for t in sorted(set(golden.rows) & set(final.rows))
        if len(final.primary_keys.get(t, ())) == 1
    ]
    inserts = {
        t: (final.inserted_keys(initial, t), golden.inserted_keys(initial, t)) for t in tables
    }
    inserts = {t: fg for t, fg in inserts.items() if fg[0] and fg[1]}
    ids: IdMap = {}
    pairs: dict[str, list[tuple[RowKey, RowKey]]] = {}
    for _ in range(_ROUNDS):
        before = dict(ids)
        for t, (fk, gk) in inserts.items():
            pk = final.primary_keys[t]
            pairs[t] = _pair(fk, gk, final.rows[t], golden.rows[t], pk, ids)
        ids = {f[0]: g[0] for t in inserts for f, g in pairs[t] if f != g}
        if ids == before:
            break
    keys: Rekeying = {}
    for t, (fk, gk) in inserts.items():
        mapping = dict(pairs[t])
        taken = set(mapping.values())
        spare = [g for g in gk if g not in taken]
        for f in fk:
            if f in mapping:
                continue
            if f not in taken:
                mapping[f] = f
            elif spare:
                mapping[f] = spare.pop(0)
            else:
                mapping[f] = (f"{f[0]} (unpaired)",)
            taken.add(mapping[f])
            if mapping[f] != f:
                ids[f[0]] = mapping[f][0]
        keys[t] = mapping
    return ids, keys


def align_inserts(initial: State, golden: State, final: State) -> tuple[State, IdMap]:
    """``final`` with its inserted rows re-keyed onto the golden inserts they match.

    Args:
        initial: The task's initial state.
        golden: An accepted end state.
        final: The trial's terminal state.

    Returns:
        The aligned state (``final`` itself when no id moves) and the id map applied.
    """
    ids, keys = _id_map(initial, golden, final)
    if not ids:
        return final, {}
    rows = dict(final.rows)
    for table, table_rows in final.rows.items():
        if table_rows is initial.rows.get(table):
            continue  # untouched by the trial: it cannot hold a new id
        pk = final.primary_keys[table]
        rekey = keys.get(table, {})
        out: dict[RowKey, dict[str, Scalar]] = {}
        for key, row in table_rows.items():
            new_key = rekey.get(key) or tuple(_sub(v, ids) for v in key)
            if new_key == key and not any(isinstance(v, str) and v in ids for v in row.values()):
                # Nothing to rename: the row object itself, still shared with the initial
                # state where it was (comparisons skip shared rows by identity).
                out[key] = row
                continue
            new_row = {c: _sub(v, ids) for c, v in row.items()}
            if len(pk) == 1 and new_key != key:
                new_row[pk[0]] = new_key[0]
            out[new_key] = new_row
        rows[table] = out
    return State(rows, final.primary_keys, final.base), ids
