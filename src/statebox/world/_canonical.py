"""One canonical form of a world's state, and its hash.

Every comparison statebox makes (hash, diff, effects, check values) goes through
`canonical_value`, so two states hash alike exactly when their diff is empty
(docs/design.md §4, invariant 4). Typed values are normalised: an integral float equals the
integer (`25.0` → `25`), booleans are integers (SQLite stores them so), other floats
keep Python's shortest round-trip repr (the same on every machine), blobs become a
tagged hex string. Rows are keyed by primary key and ordered by it; column order and
insertion order never matter.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeAlias

__all__ = [
    "RowKey",
    "Scalar",
    "Snapshot",
    "canonical_row",
    "canonical_value",
    "hash_parts",
    "hash_texts",
    "joined_table_text",
    "key_sort",
    "row_text",
    "state_hash",
    "table_text",
]

Scalar: TypeAlias = int | float | str | None
"""A canonical column value."""

RowKey: TypeAlias = tuple[Scalar, ...]
"""A row's primary key values, in the table's primary-key column order."""

Snapshot: TypeAlias = dict[str, dict[RowKey, dict[str, Scalar]]]
"""Canonical state: table → primary key → column → value, tables and keys sorted."""


def canonical_value(value: Any) -> Scalar:
    """Normalise one SQLite-storable value.

    Args:
        value: None, bool, int, float, str or bytes.

    Returns:
        The canonical scalar: integral floats become int, bools become int,
        bytes become ``"blob:<hex>"``.

    Raises:
        TypeError: For any other type, or a NaN/infinite float (not storable as a fact).
    """
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise TypeError(f"non-finite float {value!r} has no canonical form")
        if value.is_integer():
            return int(value)
        return value
    if isinstance(value, bytes | bytearray | memoryview):
        return "blob:" + bytes(value).hex()
    raise TypeError(f"value of type {type(value).__name__} has no canonical form")


_PLAIN = frozenset({str, int, type(None)})
"""Types `canonical_value` returns unchanged (exact types: a bool is an int subclass)."""


def canonical_row(columns: Sequence[str], values: Sequence[Any]) -> dict[str, Scalar]:
    """A row as column → `canonical_value`, in column order.

    Most of SQLite's values are text, integers and nulls, already canonical: a row of
    only those is zipped as it is, and only the others go through `canonical_value`.

    Raises:
        TypeError: As `canonical_value`.
    """
    if _PLAIN.issuperset(map(type, values)):
        return dict(zip(columns, values, strict=True))
    return {
        c: v if type(v) in _PLAIN else canonical_value(v)
        for c, v in zip(columns, values, strict=True)
    }


def _sort_token(value: Scalar) -> tuple[int, float | str]:
    # None < numbers < text: a total order across SQLite's storage classes.
    if value is None:
        return (0, 0)
    if isinstance(value, int | float):
        return (1, value)
    return (2, value)


def key_sort(key: RowKey) -> tuple[tuple[int, float | str], ...]:
    """Sort key for a primary key tuple that orders mixed storage classes totally."""
    return tuple(_sort_token(v) for v in key)


# `json.dumps` with these settings, without building an encoder per call (the same text).
_COMPACT = json.JSONEncoder(separators=(",", ":"), ensure_ascii=True)


def table_text(table: str, rows: Mapping[RowKey, Mapping[str, Scalar]]) -> str:
    """One non-empty table's part of the canonical JSON text that `state_hash` hashes."""
    part = [table, [[list(key), sorted(rows[key].items())] for key in sorted(rows, key=key_sort)]]
    return _COMPACT.encode(part)


def row_text(key: RowKey, row: Mapping[str, Scalar]) -> str:
    """One row's part of `table_text` (``[key, sorted items]``, the same JSON)."""
    return _COMPACT.encode([list(key), sorted(row.items())])


def joined_table_text(table: str, row_texts: Iterable[str]) -> str:
    """`table_text` from its rows' `row_text`, in canonical key order (the same text)."""
    return "[" + json.dumps(table, ensure_ascii=True) + ",[" + ",".join(row_texts) + "]]"


def hash_texts(texts: Iterable[str]) -> str:
    """Sha256 of the canonical JSON list of table parts (in table order)."""
    return hash_parts(text.encode("ascii") for text in texts)


def hash_parts(parts: Iterable[bytes]) -> str:
    """`hash_texts` of table parts already encoded (ASCII), e.g. kept from an earlier hash."""
    # Fed piece by piece: the same digest as the joined text, without building it.
    h = hashlib.sha256(b"[")
    for i, part in enumerate(parts):
        if i:
            h.update(b",")
        h.update(part)
    h.update(b"]")
    return h.hexdigest()


def state_hash(snapshot: Mapping[str, Mapping[RowKey, Mapping[str, Scalar]]]) -> str:
    """Sha256 of a canonical snapshot.

    Args:
        snapshot: A canonical snapshot (already projected by the field policy when the
            hash is meant for comparison).

    Returns:
        64 hex characters; equal for two snapshots exactly when they hold the same
        tables, keys and canonical values (an empty table and an absent one alike).
    """
    return hash_texts([table_text(t, snapshot[t]) for t in sorted(snapshot) if snapshot[t]])
