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
from collections.abc import Mapping
from typing import Any, TypeAlias

__all__ = [
    "RowKey",
    "Scalar",
    "Snapshot",
    "canonical_value",
    "key_sort",
    "state_hash",
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


def _jsonable(snapshot: Mapping[str, Mapping[RowKey, Mapping[str, Scalar]]]) -> list[Any]:
    tables = []
    for table in sorted(snapshot):
        rows = snapshot[table]
        if not rows:  # an empty table and an absent one are the same state
            continue
        tables.append(
            [
                table,
                [[list(key), sorted(rows[key].items())] for key in sorted(rows, key=key_sort)],
            ]
        )
    return tables


def state_hash(snapshot: Mapping[str, Mapping[RowKey, Mapping[str, Scalar]]]) -> str:
    """Sha256 of a canonical snapshot.

    Args:
        snapshot: A canonical snapshot (already projected by the field policy when the
            hash is meant for comparison).

    Returns:
        64 hex characters; equal for two snapshots exactly when they hold the same
        tables, keys and canonical values.
    """
    text = json.dumps(_jsonable(snapshot), separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()
