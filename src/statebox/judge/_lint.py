"""Solvability lint: every value a golden call needs must be reachable by the agent.

An agent under evaluation sees the user's messages and tool results, nothing else; a
simulated user says only its opening and, when asked, its facts. A golden trajectory
that passes a value the user never holds and no earlier call returns grades the agent
on a guess. This lint replays the golden trajectory on a fresh world and, step by
step, checks every value an argument carries:

* **identifiers, emails, dates, names** — an argument that is not one of the tool's
  closed choices (a JSON-schema ``enum``) and is an email, an ISO date, id-shaped (no
  whitespace, a digit), a primary-key value of the task's world, a capitalised word or
  a run of two to four capitalised words (a name). Reachable when the opening or a
  fact holds it as a whole token, or an earlier call returned it. A date may also be
  today or a reachable date moved by a reachable or policy number of days (policy
  arithmetic: "today plus the days requested");
* **amounts** — numbers (not booleans): reachable when stated or returned, written in
  the policy, zero, or one arithmetic step (``+ − × ÷``, a percentage) away from such
  numbers (the policy's "10% of the total");
* **free text** (other strings with whitespace: notes, subjects) — only the
  identifiers, emails, dates, amounts and clock times inside it are checked (a time
  is reachable when its hour is, in 24- or 12-hour form: "around 3 pm" gives 15:00).

Then both players must be able to say each fact a golden value comes from: the
rule-based user (its words for the fact contain the value) and the LLM user (its
prompt lists it). The trade-off: a lowercase one-word string that is neither id-shaped
nor a key (a coupon word without digits) is taken for a choice the agent makes, not
checked; and the arithmetic allowance can call a coincidental number reachable.
"""

from __future__ import annotations

import bisect
import functools
import math
import re
from collections.abc import Iterable, Iterator
from datetime import date
from typing import Any, Literal

from statebox._model import Model
from statebox.domains import Domain
from statebox.judge._judge import Judge
from statebox.tasks import Task
from statebox.tools import Dispatcher, ToolCall
from statebox.users import user_system_prompt

__all__ = [
    "IdentifierProblem",
    "SolvabilityProblem",
    "lint_identifiers",
    "lint_solvability",
]

_ID_SHAPE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_\-./:+]*$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$")
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_ISO_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}[T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?$")
_TOKEN = re.compile(r"[A-Za-z0-9$][A-Za-z0-9_\-./@+:,$]*[A-Za-z0-9]|\d")
_NUMBER = re.compile(r"-?\$?\d[\d,]*(?:\.\d+)?")
_TIME = re.compile(r"^\d{1,2}:\d{2}$")
_NAME_WORD = re.compile(r"^[A-Z][A-Za-z'\-]*$")
_PARTICLES = {"de", "van", "von", "da", "del", "la", "le", "di", "of"}


class SolvabilityProblem(Model):
    """One value a golden call needs that the agent cannot get."""

    step: int
    """Index of the golden call (0-based); -1 for a problem of the user spec."""
    tool: str
    """The call's tool ('' for a user-spec problem)."""
    argument: str
    """Argument path, e.g. ``booking_id`` or ``items.0.id`` (or the fact's name)."""
    value: str
    """The value."""
    kind: Literal["identifier", "email", "date", "amount", "name", "rule user", "llm user"]
    """What was checked."""

    def __str__(self) -> str:
        if self.kind in ("rule user", "llm user"):
            return (
                f"solvability lint: the {self.kind} cannot say fact {self.argument}="
                f"{self.value!r} (golden call {self.step}); make its words contain the value"
            )
        return (
            f"solvability lint: golden call {self.step} ({self.tool}) argument "
            f"{self.argument}={self.value!r} ({self.kind}) is neither in the opening or "
            "user.facts nor returned by an earlier call; add it to user.facts (with the "
            "phrases an agent may ask for it) or read it first"
        )


IdentifierProblem = SolvabilityProblem
"""The lint's problem under its old name."""


def _leaves(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """Every scalar inside a JSON-like value, with its dotted path."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, f"{path}.{k}" if path else str(k))
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            yield from _leaves(v, f"{path}.{i}" if path else str(i))
    else:
        yield path, value


def _texts(value: Any) -> Iterator[str]:
    """Every scalar of a tool output, as text."""
    for _, v in _leaves(value):
        if v is None or isinstance(v, bool):
            continue
        yield str(v)


def _enum_values(schema: dict[str, Any]) -> dict[str, set[str]]:
    """Top-level argument → its closed string choices (``Literal`` parameters)."""
    out: dict[str, set[str]] = {}
    defs = schema.get("$defs", {})
    for name, prop in schema.get("properties", {}).items():
        choices: set[str] = set()
        stack = [prop]
        while stack:
            p = stack.pop()
            if "$ref" in p:
                stack.append(defs.get(p["$ref"].rsplit("/", 1)[-1], {}))
            choices.update(str(v) for v in p.get("enum", ()))
            if "const" in p:
                choices.add(str(p["const"]))
            for key in ("anyOf", "oneOf", "allOf"):
                stack.extend(p.get(key, ()))
            if isinstance(p.get("items"), dict):
                stack.append(p["items"])
            if isinstance(p.get("properties"), dict):
                stack.extend(p["properties"].values())
        out[name] = choices
    return out


def _mentions(text: str, value: str) -> bool:
    """Whether ``value`` occurs in ``text`` as a whole token (``20`` is not in ``2025``)."""
    return re.search(rf"(?<![A-Za-z0-9]){re.escape(value)}(?![A-Za-z0-9])", text) is not None


def _number(text: str) -> float | None:
    try:
        return float(text.replace("$", "").replace(",", ""))
    except ValueError:
        return None


def _numbers(texts: Iterable[str]) -> set[float]:
    out: set[float] = set()
    for t in texts:
        n = _number(t)
        if n is not None:
            out.add(n)
        out.update(x for m in _NUMBER.findall(t) if (x := _number(m)) is not None)
    return out


def _derivable(x: float, pool: set[float]) -> bool:
    """Whether ``x`` is in the pool or one arithmetic step from two of its numbers.

    Whole dollars of an amount count as its number ("the total in whole dollars"); a
    whole ``x`` may be the step's result rounded or cut to a whole number.
    """
    if x == 0 or any(abs(x - p) < 0.005 for p in pool):
        return True
    nums = sorted(pool | {float(math.floor(p)) for p in pool})
    # Results y within [lo, hi] count: two decimals, or a whole number rounded or cut.
    lo, hi = (x - 0.5, x + 0.999) if x == int(x) else (x - 0.005, x + 0.005)

    def present(a: float, b: float) -> bool:
        lo_b, hi_b = min(a, b), max(a, b)
        i = bisect.bisect_left(nums, lo_b - 1e-9)
        return i < len(nums) and nums[i] <= hi_b + 1e-9

    for a in nums:
        if present(lo - a, hi - a) or present(a - hi, a - lo):  # a + b, a - b
            return True
        if a > 0 and (present(lo / a, hi / a) or present(100 * lo / a, 100 * hi / a)):
            return True  # a × b, a × b %
        if a > 0 and x > 0 and present(a / hi, a / lo):  # a ÷ b
            return True
    return False


@functools.lru_cache(maxsize=16)
def _policy_numbers(policy: str) -> frozenset[float]:
    return frozenset(_numbers(_NUMBER.findall(policy)))


def _dates(texts: Iterable[str]) -> set[date]:
    out: set[date] = set()
    for t in texts:
        for m in re.findall(r"\d{4}-\d{2}-\d{2}", t):
            try:
                out.add(date.fromisoformat(m))
            except ValueError:
                continue
    return out


def _is_name(value: str) -> bool:
    words = value.split()
    if not 1 <= len(words) <= 4 or any(c.isdigit() for c in value):
        return False
    caps = [w for w in words if w.lower() not in _PARTICLES]
    return bool(caps) and all(_NAME_WORD.match(w) for w in caps)


class _Knowledge:
    """What the agent can know at one step: said by the user, returned, or in policy."""

    def __init__(self, task: Task, policy: str) -> None:
        user = task.user
        self.said = [user.opening]
        for f in user.facts.values():
            self.said += [str(v) for v in (f.value, f.first) if v is not None]
        self.said_text = "\n".join(self.said)
        self.seen: set[str] = set()
        self.policy_numbers = _policy_numbers(policy)
        self.today = task.now.date()
        self._pool: set[float] | None = None

    def saw(self, output: Any) -> None:
        self.seen.update(_texts(output))
        self._pool = None

    def knows(self, value: str) -> bool:
        if value in self.seen or _mentions(self.said_text, value):
            return True
        return any(value.lower() == s.lower() for s in self.said)

    def knows_name(self, value: str) -> bool:
        if self.knows(value):
            return True
        seen_text = "\n".join(self.seen)
        words = [w for w in value.split() if w.lower() not in _PARTICLES]
        return all(
            _mentions(self.said_text, w) or _mentions(seen_text, w) or w in self.seen for w in words
        )

    def knows_amount(self, x: float) -> bool:
        if self._pool is None:
            self._pool = _numbers([*self.said, *self.seen]) | self.policy_numbers
        return _derivable(x, self._pool)

    def knows_date(self, value: str) -> bool:
        if self.knows(value):
            return True
        try:
            d = date.fromisoformat(value)
        except ValueError:
            return False
        bases = _dates([*self.said, *self.seen]) | {self.today}
        # Day counts: said or in the policy (any size), or returned whole numbers of at
        # most a year (a grant's maximum days); not every number a tool returns.
        steps = {int(n) for n in _numbers(self.said) | self.policy_numbers if n == int(n)}
        steps |= {int(n) for n in _numbers(self.seen) if n == int(n) and 0 < n <= 366}
        steps = {n for n in steps if 0 <= n <= 3660}
        return any(abs((d - b).days) in steps for b in bases) or d in bases


def _check_string(value: str, keys: set[str], know: _Knowledge) -> Iterator[tuple[str, str]]:
    """(kind, value) for each unreachable part of a string argument."""
    if _EMAIL.match(value):
        if not know.knows(value):
            yield "email", value
        return
    if _ISO_DATE.match(value):
        if not know.knows_date(value):
            yield "date", value
        return
    if _ISO_TIME.match(value):
        return  # a timestamp the tools stamp; agents never type one
    if " " not in value.strip():
        if (_ID_SHAPE.match(value) and any(c.isdigit() for c in value)) or value in keys:
            if not know.knows(value):
                yield "identifier", value
        elif _NAME_WORD.match(value) and not know.knows_name(value):
            yield "name", value
        return
    if _is_name(value):
        if not know.knows_name(value):
            yield "name", value
        return
    for token in _TOKEN.findall(value):  # free text: check what it carries
        token = token.rstrip(".,")
        if _EMAIL.match(token) and not know.knows(token):
            yield "email", token
        elif _ISO_DATE.match(token) and not know.knows_date(token):
            yield "date", token
        elif _TIME.match(token):
            hour = int(token.split(":")[0])
            if not (know.knows_amount(hour) or know.knows_amount(hour - 12)):
                yield "amount", token
        elif any(c.isdigit() for c in token):
            n = _number(token)
            if n is not None:
                if not know.knows_amount(n):
                    yield "amount", token
            elif not know.knows(token):
                yield "identifier", token


def _fact_of(task: Task, value: Any) -> str | None:
    for name, f in task.user.facts.items():
        if f.value is not None and str(f.value) == str(value):
            return name
    return None


def lint_solvability(
    domain: Domain, task: Task, judge: Judge | None = None
) -> list[SolvabilityProblem]:
    """Find golden values the agent could neither be told nor look up.

    Args:
        domain: The task's domain.
        task: The task.
        judge: A judge to reuse (its world cache); a fresh one otherwise.

    Returns:
        One `SolvabilityProblem` per unreachable value, by step and argument, then one
        per fact a player cannot say (empty when the task is clean). Steps after a
        failing golden call are not linted (golden replay reports that failure).
    """
    judge = judge or Judge(domain)
    initial = judge.worlds.initial_state(domain, task)
    keys: set[str] = set()
    for table, rows in initial.rows.items():
        if len(initial.primary_keys[table]) == 1:
            keys.update(str(k[0]) for k in rows if k[0] is not None)
    know = _Knowledge(task, domain.policy)
    problems: list[SolvabilityProblem] = []
    used_facts: dict[str, int] = {}
    world = judge.worlds.clone(domain, task)
    try:
        dispatcher = Dispatcher(world, domain.tools, None)
        for step, call in enumerate(task.golden):
            enums = _enum_values(domain.tools[call.tool].input_schema())
            for path, value in _leaves(call.args):
                if value is None or isinstance(value, bool):
                    continue
                if str(value) in enums.get(path.split(".", 1)[0], ()):
                    continue
                name = _fact_of(task, value)
                if name is not None and str(value) not in know.seen:
                    used_facts.setdefault(name, step)
                found: list[tuple[str, str]]
                if isinstance(value, int | float):
                    found = [] if know.knows_amount(float(value)) else [("amount", str(value))]
                else:
                    found = list(_check_string(str(value), keys, know))
                problems += [
                    SolvabilityProblem(
                        step=step,
                        tool=call.tool,
                        argument=path,
                        value=v,
                        kind=k,
                    )
                    for k, v in found
                ]
            result = dispatcher.call(ToolCall(tool=call.tool, args=call.args))
            if not result.ok:
                break
            know.saw(result.output)
    finally:
        world.close()
    prompt = user_system_prompt(task)
    for name, step in used_facts.items():
        f = task.user.facts[name]
        value = str(f.value)
        if not (_mentions(f.words(), value) or f.words().strip() == value.strip()):
            problems.append(
                SolvabilityProblem(step=step, tool="", argument=name, value=value, kind="rule user")
            )
        if not _mentions(prompt, value):
            problems.append(
                SolvabilityProblem(step=step, tool="", argument=name, value=value, kind="llm user")
            )
    return problems


def lint_identifiers(
    domain: Domain, task: Task, judge: Judge | None = None
) -> list[SolvabilityProblem]:
    """`lint_solvability` under its old name (it now covers dates, names and amounts)."""
    return lint_solvability(domain, task, judge)
