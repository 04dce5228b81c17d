"""Canonical world state, its projection under a field policy, and effects between states.

A `State` is an immutable canonical snapshot (see `_canonical`) plus each table's
primary-key columns. `effects(a, b)` lists row-level inserts, updates and deletes,
sorted by (table, primary key); with a field policy, excluded columns are dropped
first, so `a.project(p).hash() == b.project(p).hash()` exactly when
`effects(a, b, p)` is empty — both read the same projected form.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Mapping
from typing import Literal

from statebox._model import Model
from statebox.world._canonical import (
    RowKey,
    Scalar,
    Snapshot,
    hash_parts,
    joined_table_text,
    key_sort,
    row_text,
    table_text,
)
from statebox.world._field_policy import FieldPolicy

__all__ = ["RowEffect", "State", "apply_effects", "effects"]


class RowEffect(Model):
    """One row's change between two states."""

    table: str
    """Table name."""
    key: dict[str, Scalar]
    """Primary-key column → value of the row."""
    kind: Literal["insert", "update", "delete"]
    """What happened to the row."""
    before: dict[str, Scalar] | None = None
    """The row before (None for an insert); for an update, only the changed columns."""
    after: dict[str, Scalar] | None = None
    """The row after (None for a delete); for an update, only the changed columns."""

    @property
    def changed(self) -> tuple[str, ...]:
        """Columns this effect sets: all columns for insert/delete, changed ones for update."""
        row = self.after if self.after is not None else self.before
        return tuple(sorted(row or {}))


class State:
    """An immutable canonical snapshot of a world.

    Args:
        rows: table → primary key tuple → row (column → canonical value).
        primary_keys: table → its primary-key column names, in key order.
    """

    __slots__ = (
        "_frags",
        "_hash",
        "_inserts",
        "_projected",
        "_texts",
        "base",
        "primary_keys",
        "rows",
    )

    def __init__(
        self,
        rows: Snapshot,
        primary_keys: Mapping[str, tuple[str, ...]],
        base: State | None = None,
    ) -> None:
        self.rows = rows
        self.primary_keys = dict(primary_keys)
        self.base = base
        """A state this one shares unchanged tables with (the same dict objects), or None."""
        self._hash: str | None = None
        self._texts: dict[str, bytes] | None = None
        self._frags: dict[str, tuple[list[RowKey], dict[RowKey, str]]] = {}
        self._projected: tuple[FieldPolicy, State] | None = None
        self._inserts: tuple[State, dict[str, list[RowKey]]] | None = None

    def inserted_keys(self, initial: State, table: str) -> list[RowKey]:
        """The keys of ``table`` this state holds and ``initial`` lacks, in key order.

        Cached for the last ``initial`` asked about (an accepted end state is matched
        against every trial of its task with the same initial state). Read only.
        """
        if self._inserts is None or self._inserts[0] is not initial:
            self._inserts = (initial, {})
        cached = self._inserts[1]
        keys = cached.get(table)
        if keys is None:
            rows, before = self.rows.get(table, {}), initial.rows.get(table, {})
            # The key sets' difference is taken at C speed; only the new keys are sorted.
            keys = [] if rows is before else sorted(rows.keys() - before.keys(), key=key_sort)
            cached[table] = keys
        return keys

    def project(self, policy: FieldPolicy | None) -> State:
        """This state with the policy's excluded columns removed (self when nothing is).

        Cached; tables shared with `base` stay shared after projection, so comparing two
        states derived from one base skips their unchanged tables by identity.
        """
        if policy is None or not policy.excluded:
            return self
        if self._projected is not None and self._projected[0] is policy:
            return self._projected[1]
        base = self.base.project(policy) if self.base is not None else None
        out: Snapshot = {}
        for table, rows in self.rows.items():
            if base is not None and self.base is not None and rows is self.base.rows.get(table):
                out[table] = base.rows[table]
                continue
            drop = {e.column for e in policy.excluded if e.table == table}
            if not drop:
                out[table] = rows
                continue
            # A row shared with the base reuses the base's projection of it (same object),
            # so a trial's projection copies only the rows it wrote.
            was = self.base.rows.get(table, {}) if self.base is not None else {}
            was_projected = base.rows.get(table, {}) if base is not None else {}
            out[table] = {
                k: was_projected[k]
                if was.get(k) is row and k in was_projected
                else {c: v for c, v in row.items() if c not in drop}
                for k, row in rows.items()
            }
        projected = State(out, self.primary_keys, base)
        self._projected = (policy, projected)
        return projected

    def _fragments(self, table: str) -> tuple[list[RowKey], dict[RowKey, str]]:
        """``table``'s keys in canonical order and each row's canonical text (cached).

        A row shared with the base (the same object) reuses the base's text, and the
        base's key order is kept, with deleted keys dropped and inserted ones put in
        place: a trial's state encodes and sorts only the rows it wrote.
        """
        cached = self._frags.get(table)
        if cached is None:
            rows, base = self.rows[table], self.base
            before = base.rows.get(table) if base is not None else None
            if base is not None and rows is before:
                cached = base._fragments(table)
            elif base is None or not before:
                order = sorted(rows, key=key_sort)
                cached = (order, {k: row_text(k, rows[k]) for k in order})
            else:
                order, texts = base._fragments(table)
                texts = dict(texts)  # copied whole (C speed), then only written rows redone
                written = [k for k, row in rows.items() if before.get(k) is not row]
                gone = before.keys() - rows.keys()
                for k in gone:
                    del texts[k]
                new = sorted((k for k in written if k not in before), key=key_sort)
                if gone or new:
                    order = [k for k in order if k not in gone] if gone else list(order)
                    for k in new:  # keys are unique, so their sort tokens are too
                        order.insert(bisect_left(order, key_sort(k), key=key_sort), k)
                for k in written:
                    texts[k] = row_text(k, rows[k])
                cached = (order, texts)
            self._frags[table] = cached
        return cached

    def _table_texts(self) -> dict[str, bytes]:
        # Each non-empty table's part of the hashed text, encoded: tables shared with the
        # base reuse its part (the same bytes object, so a hash never encodes them again),
        # and a written table reuses the base's text of every row it did not write.
        if self._texts is None:
            base = self.base._table_texts() if self.base is not None else {}
            shared = self.base.rows if self.base is not None else {}
            texts = {}
            for t, rows in self.rows.items():
                if not rows:
                    continue
                if t in base and rows is shared.get(t):
                    texts[t] = base[t]
                elif self.base is None:
                    texts[t] = table_text(t, rows).encode("ascii")
                else:
                    order, frags = self._fragments(t)
                    texts[t] = joined_table_text(t, map(frags.__getitem__, order)).encode("ascii")
            self._texts = texts
        return self._texts

    def hash(self) -> str:
        """Sha256 of the canonical form (64 hex chars; `state_hash`); cached."""
        if self._hash is None:
            texts = self._table_texts()
            self._hash = hash_parts(texts[t] for t in sorted(texts))
        return self._hash

    def __eq__(self, other: object) -> bool:
        # An empty table and an absent one hold the same facts (hash agrees: see state_hash).
        return isinstance(other, State) and {t: r for t, r in self.rows.items() if r} == {
            t: r for t, r in other.rows.items() if r
        }

    def __hash__(self) -> int:
        return hash(self.hash())


def effects(a: State, b: State, policy: FieldPolicy | None = None) -> list[RowEffect]:
    """Row-level effects that turn state ``a`` into state ``b``.

    Args:
        a: The earlier state.
        b: The later state.
        policy: When given, excluded columns are left out first (an update touching
            only excluded columns is then no effect).

    Returns:
        List of `RowEffect` sorted by (table, primary key); empty exactly when the
        (projected) states are equal.
    """
    pa, pb = a.project(policy), b.project(policy)
    out: list[RowEffect] = []
    for table in sorted(set(pa.rows) | set(pb.rows)):
        ra, rb = pa.rows.get(table, {}), pb.rows.get(table, {})
        if ra is rb:  # shared with a common base: unchanged
            continue
        pk = pa.primary_keys.get(table) or pb.primary_keys[table]
        # Sort only the changed keys: most rows of a written table are untouched.
        # A row shared by both (one object) cannot differ; keys only one side holds do.
        changed = [k for k, y in rb.items() if (x := ra.get(k)) is not y and x != y]
        changed += ra.keys() - rb.keys()
        for key in sorted(changed, key=key_sort):
            key_map = dict(zip(pk, key, strict=True))
            before, after = ra.get(key), rb.get(key)
            if before is None and after is not None:
                out.append(RowEffect(table=table, key=key_map, kind="insert", after=after))
            elif after is None and before is not None:
                out.append(RowEffect(table=table, key=key_map, kind="delete", before=before))
            elif before is not None and after is not None and before != after:
                cols = sorted(c for c in set(before) | set(after) if before.get(c) != after.get(c))
                out.append(
                    RowEffect(
                        table=table,
                        key=key_map,
                        kind="update",
                        before={c: before.get(c) for c in cols},
                        after={c: after.get(c) for c in cols},
                    )
                )
    return out


def apply_effects(a: State, changes: Iterable[RowEffect]) -> State:
    """Apply effects to a state (the inverse of `effects`: ``apply(a, effects(a, b)) == b``).

    Raises:
        KeyError: When an update or delete names a row that ``a`` lacks.
    """
    rows: Snapshot = {t: dict(r) for t, r in a.rows.items()}
    for e in changes:
        table = rows.setdefault(e.table, {})
        key = tuple(e.key[c] for c in a.primary_keys[e.table])
        if e.kind == "insert":
            table[key] = dict(e.after or {})
        elif e.kind == "delete":
            del table[key]
        else:
            table[key] = {**table[key], **(e.after or {})}
    return State(rows, a.primary_keys)
