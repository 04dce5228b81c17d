"""A rule-based policy for the toy bank domain, shared by the two examples.

It stands in for an LLM: it reads only what an agent may see (the user's messages and
tool results) and plans the next steps. `plan(user_messages)` returns either a question
for the user, or tool calls followed by a final answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

_AMOUNT = re.compile(r"(\d+(?:\.\d+)?)\s*dollars?", re.I)
_FROM = re.compile(r"from (?:account |my account )?(A\d+)", re.I)
_TO = re.compile(r"to (?:account )?(A\d+)", re.I)
_MINE = re.compile(r"my account is (A\d+)", re.I)
_FREEZE = re.compile(r"freeze (?:my )?(?:account )?(A\d+)", re.I)


@dataclass
class Plan:
    """What to do this turn: ask the user, or call tools then end."""

    question: str | None = None
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    final: str = ""


def plan(user_messages: list[str]) -> Plan:
    """Plan from everything the user said so far."""
    text = " ".join(user_messages)
    freeze = _FREEZE.search(text)
    if freeze:
        account = freeze.group(1)
        return Plan(
            calls=[("set_status", {"account_id": account, "status": "frozen"})],
            final=f"Account {account} is now frozen.",
        )
    amount = _AMOUNT.search(text)
    if amount and re.search(r"\b(move|send|transfer)\b", text, re.I):
        src = _FROM.search(text) or _MINE.search(text)
        dst = _TO.search(text)
        if src is None or dst is None:
            return Plan(question="Which account should the money come from?")
        value = float(amount.group(1))
        args = {"src": src.group(1), "dst": dst.group(1), "amount": value}
        return Plan(
            calls=[("get_account", {"account_id": src.group(1)}), ("transfer", args)],
            final=f"Done: moved {value:g} dollars from {src.group(1)} to {dst.group(1)}.",
        )
    return Plan(question="Sorry, I can only move money or freeze accounts. What do you need?")
