"""User-spec pieces shared by every ``scripts/gen_<domain>_tasks`` generator.

A generator names each fact by a key of its domain's vocabulary (the phrases an agent
may use to ask for it, how the user says it) and gives its value; `user_facts` turns
that into the task's ``user.facts``. `behaviour` writes only the keys that differ from
`statebox.tasks.BehaviourSpec`'s defaults, so task files stay short.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from statebox.tasks import BehaviourSpec

__all__ = ["behaviour", "fact", "user_facts"]

Row = dict[str, Any]


def fact(*ask: str, label: str = "", say: str = "") -> Row:
    """A vocabulary entry: ask phrases, and optionally the label and the user's words."""
    assert ask, "a fact needs at least one ask phrase"
    out: Row = {"ask": list(dict.fromkeys(ask))}
    if label:
        out["label"] = label
    if say:
        out["say"] = say
    return out


def user_facts(vocab: Mapping[str, Row], values: Mapping[str, Any], where: str) -> Row:
    """The ``user.facts`` of a task.

    Args:
        vocab: Fact name → its vocabulary entry (`fact`).
        values: Fact name → its value, or a mapping with ``value`` (and overrides such
            as ``first``, ``say`` or ``ask``).
        where: The task id, for the assertion message.
    """
    out: Row = {}
    for name, v in values.items():
        assert name in vocab, f"{where}: fact {name!r} has no vocabulary entry"
        given = dict(v) if isinstance(v, Mapping) else {"value": v}
        # Copies: a shared list would be written as a YAML alias.
        out[name] = copy.deepcopy({"value": given.pop("value"), **vocab[name], **given})
    return out


def behaviour(**changes: Any) -> Row:
    """A ``user.behaviour`` mapping: only the keys given that differ from the defaults."""
    fields = BehaviourSpec.model_fields
    out: Row = {}
    for key, value in changes.items():
        assert key in fields, f"unknown behaviour key {key!r}"
        if value != fields[key].default:
            out[key] = value
    return out
