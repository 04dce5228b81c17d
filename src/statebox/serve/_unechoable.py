r"""JSON a route cannot read or answer: what would otherwise be a 500 and a traceback.

Python's ``json`` reads ``"\ud800"`` (a lone UTF-16 surrogate) into a string no UTF-8
encoder takes, and ``NaN`` or ``Infinity`` into floats no strict JSON writer takes: a
route that echoes one (a JSON-RPC id, a validation error quoting the input) fails
while answering. And it raises ``ValueError`` (not its ``JSONDecodeError``) on an
integer of more than 4,300 digits, which parsers catching only the latter let through
as a crash. Each is the client's doing, to be answered 400 like any malformed request.
"""

from __future__ import annotations

import json
import math
from typing import Any

__all__ = ["UnreadableJson", "load_json", "unechoable"]


class UnreadableJson(ValueError):
    """JSON that Python cannot read (not a syntax error): its message says why."""


def load_json(body: bytes | str) -> Any:
    """``json.loads(body)``, its failures other than a syntax error as `UnreadableJson`.

    Raises:
        json.JSONDecodeError: Not JSON at all (routes answer that themselves).
        UnreadableJson: JSON Python fails on otherwise (an integer of thousands of
            digits; nesting past the recursion limit, though the request guard has
            bounded it already).
    """
    try:
        return json.loads(body)
    except json.JSONDecodeError:
        raise
    except (ValueError, RecursionError) as exc:
        raise UnreadableJson(str(exc)[:200]) from exc


def unechoable(value: Any) -> str | None:
    """What in a parsed JSON value no JSON answer can carry, or None.

    A string (a key or a value) holding a lone surrogate, or a NaN or infinite number.
    """
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return "a string holds a lone UTF-16 surrogate (not valid Unicode)"
        elif isinstance(item, float):
            if not math.isfinite(item):
                return f"{item!r} is not a JSON number"
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None
