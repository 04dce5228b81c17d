"""One canonical value per logical value, whether PostgreSQL or a SQLite file holds it.

statebox's canonical form (`statebox.world.canonical_value`) knows SQLite's storage
classes. A database statebox owns may be PostgreSQL, whose driver hands back typed
values, or a SQLite file written by someone else's server, which stores those same
values as text or numbers. Both go to the same canonical scalar here, so the same
logical rows hash alike and compare equal on either kind:

======================  ==========================================================
logical value           canonical scalar
======================  ==========================================================
boolean                 0 or 1 (as SQLite stores it)
integer, numeric        int when integral, else float (a double: numerics past
                        ~15 significant digits compare at SQLite's precision)
double precision        `canonical_value` (integral floats become int)
timestamptz             ISO 8601 in UTC, ``2024-05-01T10:00:00+00:00`` (microseconds
                        when non-zero)
timestamp               ISO 8601 without offset; date, time: ISO 8601
interval                seconds, as a number
uuid                    lower-case hyphenated text
json, jsonb, arrays     JSON text: keys sorted, no spaces, scalars canonical inside
bytea, blob             ``blob:<hex>``
anything else           its text
======================  ==========================================================

A SQLite file's values are read by the column's declared type: a column declared
``TIMESTAMPTZ`` holding ``2024-05-01 12:00:00+02:00`` is the instant above, one
declared ``JSON`` holding ``{"b": 1, "a": 2}`` is ``{"a":2,"b":1}``; text that does not
parse as its declared type stays as it is (never a guess). Undeclared or other types
take `canonical_value` unchanged, as in statebox's own worlds.
"""

from __future__ import annotations

import json
import math
import uuid
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any, Literal

from statebox.world import Scalar, canonical_value

__all__ = ["JsonDocument", "SqliteType", "json_document", "pg_value", "sqlite_type", "sqlite_value"]

SqliteType = Literal[
    "plain", "boolean", "numeric", "timestamptz", "timestamp", "date", "uuid", "json"
]
"""How a SQLite column's declared type says to read its values."""


def _number(value: Decimal) -> Scalar:
    if not value.is_finite():
        return str(value)  # NaN, Infinity: PostgreSQL has them, no canonical number does
    if value == value.to_integral_value():
        return int(value)
    return canonical_value(float(value))


def _float(value: float) -> Scalar:
    if not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    return canonical_value(value)


def _instant(value: datetime) -> str:
    if value.tzinfo is None:
        return value.isoformat()
    return value.astimezone(UTC).isoformat()


class JsonDocument:
    """A json/jsonb value as the driver parsed it: a document, whatever its top level.

    psycopg parses json ``false`` to ``False`` and ``1`` to ``1``, which `pg_value`
    alone would read as the integers SQLite gives a boolean; the column's type says
    it is a document (a SQLite json column keeps ``false`` as text), so it becomes
    JSON text like any other document.
    """

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def json_document(text: str | bytes) -> JsonDocument:
    """The driver's json/jsonb loader (``psycopg.types.json.set_json_loads``)."""
    return JsonDocument(json.loads(text))


def _json_value(value: Any) -> Any:
    """A JSON-ready value whose scalars follow the canonical rules."""
    if isinstance(value, JsonDocument):
        return _json_value(value.value)
    if isinstance(value, dict):
        return {str(k): _json_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_value(v) for v in value]
    if value is None or isinstance(value, str | bool):
        return value  # JSON has real booleans: `true` is not `1` inside a document
    return pg_value(value)


def _json_text(value: Any) -> str:
    return json.dumps(_json_value(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def pg_value(value: Any) -> Scalar:
    """The canonical scalar of one value as the PostgreSQL driver (psycopg) returns it.

    Args:
        value: None, bool, int, float, Decimal, str, bytes, date/time/datetime,
            timedelta, UUID, a dict or list (json, jsonb, arrays), or any other object
            (its ``str``).

    Returns:
        The canonical scalar (see the module table).
    """
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, JsonDocument):
        return _json_text(value.value)
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, Decimal):
        return _number(value)
    if isinstance(value, datetime):
        return _instant(value)
    if isinstance(value, date | time):
        return value.isoformat()
    if isinstance(value, timedelta):
        return canonical_value(value.total_seconds())
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, dict | list | tuple):
        return _json_text(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return canonical_value(bytes(value))
    return str(value)


def sqlite_type(declared: str) -> SqliteType:
    """How to read a SQLite column from its declared type (``PRAGMA table_info``)."""
    t = declared.upper()
    if "JSON" in t or t.endswith("[]"):
        return "json"
    if "TIMESTAMPTZ" in t or ("TIME" in t and "ZONE" in t and "WITHOUT" not in t):
        return "timestamptz"
    if "TIMESTAMP" in t or "DATETIME" in t:
        return "timestamp"
    if t == "DATE":
        return "date"
    if "UUID" in t:
        return "uuid"
    if "BOOL" in t:
        return "boolean"
    if "NUMERIC" in t or "DECIMAL" in t or "MONEY" in t:
        return "numeric"
    return "plain"


def _parse_instant(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text.strip().replace(" ", "T", 1))
    except ValueError:
        return None


def sqlite_value(value: Any, kind: SqliteType) -> Scalar:
    """The canonical scalar of one value a SQLite file holds in a column of ``kind``.

    Args:
        value: The stored value (None, int, float, str or bytes).
        kind: `sqlite_type` of the column's declared type.

    Returns:
        The canonical scalar; text that does not parse as ``kind`` is kept as text.
    """
    if kind == "plain" or value is None:
        return canonical_value(value)
    if kind == "boolean" and isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in ("true", "t", "1"):
            return 1
        if lowered in ("false", "f", "0"):
            return 0
        return value
    if kind == "numeric" and isinstance(value, str):
        try:
            return _number(Decimal(value.strip()))
        except InvalidOperation:
            return value
    if kind == "json" and isinstance(value, int | float):
        # A JSON column has NUMERIC affinity: SQLite stores the document `1` as 1.
        return _json_text(value)
    if not isinstance(value, str):
        return canonical_value(value)
    if kind in ("timestamptz", "timestamp"):
        parsed = _parse_instant(value)
        if parsed is None:
            return value
        if kind == "timestamptz" and parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=UTC)  # a bare instant in a tz column is UTC
        return _instant(parsed)
    if kind == "date":
        try:
            return date.fromisoformat(value.strip()).isoformat()
        except ValueError:
            return value
    if kind == "uuid":
        try:
            return str(uuid.UUID(value.strip()))
        except ValueError:
            return value
    try:  # json
        return _json_text(json.loads(value))
    except ValueError:
        return value
