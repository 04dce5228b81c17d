"""``statebox domain check``: lint a domain before writing tasks on it.

What is checked, each a `Finding` (one line: ``domain NAME: SUBJECT: MESSAGE``):

- every tool has a description, and every argument a type (not ``Any``) and a line
  describing it — what the agent reads;
- **mutating flags match what tools do**: each tool is probed on a fresh seeded world
  with arguments drawn from the seed (ids of the tables' rows, values of the columns
  its arguments are named after, every choice of a ``Literal``, both booleans...), the
  arguments of one row together, then one argument varied at a time; then the golden
  trajectories of the domain's own tasks are replayed. A ``mutates=False`` tool that
  writes is a finding; so is a tool that raises on arguments its schema accepts (an
  agent's call must get a structured error, never a system error). A ``mutates=False``
  tool that changes the schema (``CREATE``/``ALTER``/``DROP``, which SQLite's change
  count misses) is a finding too; the probe world is rebuilt after it. A ``mutates=True``
  tool that no probe and no golden call made write is a *note*: a write may need a
  state the probes did not reach, so it is not proof of a wrong flag; so is a
  ``mutates=False`` tool no probe or golden call ran without a refusal (its read-only
  flag was never exercised);
- every table has a primary key (statebox compares rows by it);
- the field policy names existing tables and columns, no key column, each with a reason;
- the policy text is not empty.

Every check that can run does: a table without a key still has its field policy
checked; when the tools cannot be probed, `DomainCheck.unprobed` says why.
"""

from __future__ import annotations

import json
import sqlite3
import types
from collections.abc import Iterator, Sequence
from datetime import UTC, date, datetime, timedelta
from enum import Enum
from itertools import islice
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from statebox._model import Model
from statebox.domains import Domain
from statebox.errors import StateboxError
from statebox.tasks import Task, WorldCache, load_tasks
from statebox.tools import Dispatcher, ToolCall, ToolSpec
from statebox.world import World, WorldTemplate

__all__ = ["DomainCheck", "Finding", "check_domain"]

FindingKind = Literal[
    "tool_doc",
    "argument",
    "mutates",
    "schema_change",
    "crash",
    "primary_key",
    "field_policy",
    "policy",
    "schema",
]

PROBE_NOW = datetime(2026, 1, 15, 12, 0, tzinfo=UTC)
"""The clock of the probe worlds when the domain ships no task (else its first task's)."""

_ROWS_PER_TABLE = 6
_VALUES_PER_COLUMN = 12
_CALLS_PER_TOOL = 80


class Finding(Model):
    """One thing wrong with a domain."""

    kind: FindingKind
    """What kind of problem."""
    subject: str
    """What it is about: ``tool X``, ``table T``, ``field policy``, ``policy``."""
    message: str
    """What is wrong."""


class DomainCheck(Model):
    """What `check_domain` found."""

    domain: str
    """The domain's name."""
    findings: tuple[Finding, ...] = ()
    """Problems (``statebox domain check`` exits 1 when there is one)."""
    notes: tuple[str, ...] = ()
    """What could not be proven either way (a mutating tool no probe made write, a
    read-only tool no call ran without a refusal)."""
    unprobed: str = ""
    """Why the tools were not probed (empty: they were)."""
    probe_calls: int = 0
    """Tool calls made on seeded worlds."""
    golden_calls: int = 0
    """Golden calls replayed."""
    seed_wrote_all: bool = False
    """Whether the seeded probes alone made every mutating tool write."""

    def lines(self) -> list[str]:
        """One line per finding: ``domain NAME: SUBJECT: MESSAGE``."""
        return [f"domain {self.domain}: {f.subject}: {f.message}" for f in self.findings]


def check_domain(domain: Domain, tasks: Sequence[Task] | None = None) -> DomainCheck:
    """Lint ``domain`` (the module docstring lists the checks).

    Args:
        domain: The domain.
        tasks: Tasks whose golden trajectories the flag probe replays; None: the
            domain's own (every suite version, both splits).

    Returns:
        The findings and notes.
    """
    findings: list[Finding] = []
    notes: list[str] = []
    findings += _tool_docs(domain)
    columns, keyless = _primary_keys(domain, findings)
    policy = domain.policy_text(record_steps=True).strip()
    if not policy:
        findings.append(Finding(kind="policy", subject="policy", message="the text is empty"))
    if columns is None:
        return _unprobed(domain, findings, notes, "the schema does not build")
    policy_findings = _field_policy(domain, columns)
    findings += policy_findings
    if keyless:  # no world can be built on a keyless table
        return _unprobed(domain, findings, notes, f"table {keyless[0]} has no primary key")
    try:
        template = domain.template()
    except StateboxError as exc:
        if policy_findings:  # the template refuses the same columns: said above
            reason = "the field policy must name existing columns first"
        else:
            findings.append(Finding(kind="schema", subject="seed", message=str(exc)))
            reason = "the seed does not load"
        return _unprobed(domain, findings, notes, reason)
    if tasks is None:
        try:
            tasks = _own_tasks(domain)
        except StateboxError as exc:
            notes.append(f"its tasks do not load, no golden call replayed: {exc}")
            tasks = []
    # Without a policy its search has nothing to search: the finding above says so.
    skip = set() if policy else {"search_policy"}
    probe = _FlagProbe(domain, template, tasks[0].now if tasks else PROBE_NOW, skip)
    probe.seeded()
    seed_wrote_all = all(n in probe.wrote for n, s in domain.tools.items() if s.mutates)
    probe.golden(tasks)
    findings += probe.findings
    for name in sorted(domain.tools):
        spec = domain.tools[name]
        if spec.mutates and name not in probe.wrote:
            notes.append(
                f"tool {name}: declared mutates=True, but no probe and no golden call made it "
                "write (not provable either way: a golden trajectory that calls it shows it)"
            )
        elif not spec.mutates and name not in probe.succeeded | probe.skip | probe.disproven:
            notes.append(
                f"tool {name}: no probe call succeeded, so its read-only flag is unproven "
                "(every call was refused; a golden trajectory that calls it shows it)"
            )
    return DomainCheck(
        domain=domain.name,
        findings=tuple(findings),
        notes=tuple(notes),
        probe_calls=probe.calls,
        golden_calls=probe.golden_calls,
        seed_wrote_all=seed_wrote_all,
    )


def _unprobed(
    domain: Domain, findings: list[Finding], notes: list[str], reason: str
) -> DomainCheck:
    return DomainCheck(
        domain=domain.name, findings=tuple(findings), notes=tuple(notes), unprobed=reason
    )


def _own_tasks(domain: Domain) -> list[Task]:
    folders = {f for f in (domain.tasks_dir, *domain.suites.values()) if f and f.is_dir()}
    return [t for f in sorted(folders) for t in load_tasks(f) if t.domain == domain.name]


def _tool_docs(domain: Domain) -> list[Finding]:
    out = []
    for name in sorted(domain.tools):
        spec = domain.tools[name]
        subject = f"tool {name}"
        if not spec.description.strip():
            out.append(Finding(kind="tool_doc", subject=subject, message="no description"))
        for arg, field in spec.params.model_fields.items():
            if field.annotation is None or field.annotation is Any:
                out.append(
                    Finding(kind="argument", subject=subject, message=f"argument {arg}: no type")
                )
            if not (field.description or "").strip():
                out.append(
                    Finding(
                        kind="argument",
                        subject=subject,
                        message=f"argument {arg}: not documented (an Args: line)",
                    )
                )
    return out


def _primary_keys(
    domain: Domain, findings: list[Finding]
) -> tuple[dict[str, set[str]] | None, list[str]]:
    """Table → columns (a scratch build of the schema); tables without a key are findings.

    Returns:
        The columns (None when the schema does not build) and the tables without a key
        (no world can be built on them).
    """
    conn = sqlite3.connect(":memory:")
    try:
        try:
            conn.executescript(domain.schema_sql)
        except sqlite3.Error as exc:
            findings.append(Finding(kind="schema", subject="schema", message=str(exc)))
            return None, []
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' "
                "AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
        ]
        columns: dict[str, set[str]] = {}
        keyless: list[str] = []
        for t in tables:
            info = conn.execute(f'PRAGMA table_info("{t}")').fetchall()
            columns[t] = {r[1] for r in info}
            if not any(r[5] for r in info):
                keyless.append(t)
                findings.append(
                    Finding(
                        kind="primary_key",
                        subject=f"table {t}",
                        message="no primary key (statebox compares rows by it)",
                    )
                )
        return columns, keyless
    finally:
        conn.close()


def _field_policy(domain: Domain, columns: dict[str, set[str]]) -> list[Finding]:
    out = []
    for e in domain.field_policy.excluded:
        where = f"{e.table}.{e.column}"

        def add(message: str, where: str = where) -> None:
            out.append(Finding(kind="field_policy", subject="field policy", message=message))

        if e.table not in columns:
            add(f"{where}: no table {e.table}")
        elif e.column not in columns[e.table]:
            add(f"{where}: table {e.table} has no column {e.column}")
        if not e.reason.strip():
            add(f"{where}: no reason given (say why it is not compared)")
    return out


class _Values:
    """Seed values an argument may take, by column name and by table."""

    def __init__(self, world: World) -> None:
        self.by_column: dict[str, list[Any]] = {}
        self.keys: dict[str, list[Any]] = {}
        self.rows: dict[str, list[dict[str, Any]]] = {}
        self.today = world.now.date()
        for table, info in sorted(world.tables.items()):
            for column in info.columns:
                values = world.column_values(table, column, _VALUES_PER_COLUMN)
                known = self.by_column.setdefault(column, [])
                known += [v for v in values if v not in known]
            if len(info.primary_key) == 1:
                self.keys[table] = world.column_values(
                    table, info.primary_key[0], _VALUES_PER_COLUMN
                )
            self.rows[table] = world.query(f'SELECT * FROM "{table}" LIMIT {_ROWS_PER_TABLE}')

    def table_of(self, arg: str) -> str | None:
        """The table an ``X_id`` argument names (``customer_id`` → ``customers``)."""
        stem = arg.removesuffix("_id")
        if stem == arg:
            return None
        for table in (stem, stem + "s", stem + "es", stem.removesuffix("y") + "ies"):
            if table in self.keys:
                return table
        return None

    def for_arg(self, arg: str, annotation: Any) -> list[Any]:
        """Candidate values, most plausible first."""
        origin, args = get_origin(annotation), get_args(annotation)
        if origin is Annotated:
            return self.for_arg(arg, args[0])
        if origin is Literal:
            return list(args)
        if isinstance(annotation, type) and issubclass(annotation, Enum):
            return [m.value for m in annotation]
        if origin in (Union, types.UnionType):
            out: list[Any] = []
            for a in args:
                out += [None] if a is type(None) else self.for_arg(arg, a)
            return out
        if origin in (list, tuple, set, frozenset):
            inner = self.for_arg(arg.removesuffix("s"), args[0] if args else str)
            return [[v] for v in inner[:3]] + [[]]
        if origin is dict or annotation is dict:
            return [{}]
        if annotation is bool:
            return [True, False]
        table = self.table_of(arg)
        seeded = list(self.keys.get(table, [])) if table else []
        seeded += [v for v in self.by_column.get(arg, []) if v not in seeded]
        if annotation is int:
            return [v for v in seeded if type(v) is int] + [1, 2, 5, 30]
        if annotation is float:
            nums = [float(v) for v in seeded if type(v) in (int, float)]
            return [*nums, 10.0, 1.0]
        if annotation is date:
            return [(self.today + timedelta(days=d)).isoformat() for d in (7, 1)]
        strings = [v for v in seeded if isinstance(v, str)]
        if any(w in arg for w in ("date", "day", "until", "from", "start", "end")):
            strings += [(self.today + timedelta(days=d)).isoformat() for d in (7, 1)]
        return [*strings, "probe"]


class _FlagProbe:
    """Calls tools on seeded worlds and records which wrote and what went wrong."""

    def __init__(
        self, domain: Domain, template: WorldTemplate, now: datetime, skip: set[str]
    ) -> None:
        self.domain = domain
        self.skip = skip
        self.template = template
        self.now = now
        self.wrote: set[str] = set()
        self.succeeded: set[str] = set()
        """Tools a call ran without a refusal."""
        self.disproven: set[str] = set()
        """Read-only tools found writing or changing the schema."""
        self.findings: list[Finding] = []
        self._flagged: set[tuple[str, str]] = set()
        self.calls = 0
        self.golden_calls = 0

    def _call(self, dispatcher: Dispatcher, tool: str, args: dict[str, Any]) -> bool:
        """One call; returns whether it changed the schema (the world is then unlike the seed)."""
        spec = self.domain.tools[tool]
        # SQLite's change count misses DDL; the schema version counts every schema change.
        before = _schema_version(dispatcher)
        try:
            result = dispatcher.call(ToolCall(tool=tool, args=args))
        except StateboxError as exc:
            if "declared read-only but wrote" in str(exc):
                self.disproven.add(tool)
                self._flag(
                    "mutates", tool, f"declared mutates=False but wrote (arguments {_short(args)})"
                )
            else:
                self._flag("crash", tool, f"raised {exc} on arguments {_short(args)}")
            return _schema_version(dispatcher) != before
        except Exception as exc:  # a bug in the tool: what an agent's call must not cause
            self._flag(
                "crash",
                tool,
                f"raised {type(exc).__name__}: {exc} on arguments {_short(args)} (an agent's "
                "call must get a structured error, never a system error)",
            )
            return _schema_version(dispatcher) != before
        changed = _schema_version(dispatcher) != before
        if changed and not spec.mutates:
            self.disproven.add(tool)
            self._flag(
                "schema_change",
                tool,
                f"declared mutates=False changed the schema (arguments {_short(args)})",
            )
        if result.ok:
            self.succeeded.add(tool)
            if result.wrote and spec.mutates:
                self.wrote.add(tool)
        return changed

    def _flag(self, kind: FindingKind, tool: str, message: str) -> None:
        if (kind, tool) in self._flagged:
            return  # one finding of a kind per tool
        self._flagged.add((kind, tool))
        self.findings.append(Finding(kind=kind, subject=f"tool {tool}", message=message))

    def seeded(self) -> None:
        """Probe every tool on a fresh seeded world with seed-drawn arguments."""
        world = self.template.clone(self.now)
        try:
            values = _Values(world)
        finally:
            world.close()
        for name in sorted(set(self.domain.tools) - self.skip):
            world = self.template.clone(self.now)
            try:
                dispatcher = Dispatcher(world, self.domain.tools)
                for args in islice(
                    _argument_sets(self.domain.tools[name], values), _CALLS_PER_TOOL
                ):
                    self.calls += 1
                    if self._call(dispatcher, name, args):
                        # A changed schema must not reach the next call: a fresh world.
                        world.close()
                        world = self.template.clone(self.now)
                        dispatcher = Dispatcher(world, self.domain.tools)
            finally:
                world.close()

    def golden(self, tasks: Sequence[Task]) -> None:
        """Replay golden trajectories that call a tool not yet proven.

        Not yet proven: a mutating tool not seen writing, a read-only tool no call ran
        without a refusal.
        """
        worlds = WorldCache()
        mutating = {n for n, s in self.domain.tools.items() if s.mutates}
        read_only = set(self.domain.tools) - mutating - self.skip
        for task in tasks:
            unproven = (mutating - self.wrote) | (read_only - self.succeeded - self.disproven)
            if not unproven:
                return
            if not {c.tool for c in task.golden} & unproven:
                continue
            try:
                world = worlds.clone(self.domain, task)
            except StateboxError:
                continue  # a broken task is validation's to report
            try:
                dispatcher = Dispatcher(world, self.domain.toolset(record_steps=task.record_steps))
                for call in task.golden:
                    if call.tool in self.domain.tools:
                        self.golden_calls += 1
                        if self._call(dispatcher, call.tool, dict(call.args)):
                            break  # the rest of it would run on a schema unlike the task's
            finally:
                world.close()


def _argument_sets(spec: ToolSpec, values: _Values) -> Iterator[dict[str, Any]]:
    """Argument sets for one tool, deduplicated: rows' values together, then one varied."""
    fields = spec.params.model_fields
    if not fields:
        yield {}
        return
    candidates = {arg: values.for_arg(arg, f.annotation) or ["probe"] for arg, f in fields.items()}
    base = {arg: c[0] for arg, c in candidates.items()}
    seen: set[str] = set()

    def fresh(args: dict[str, Any]) -> bool:
        key = json.dumps(args, sort_keys=True, default=str)
        if key in seen:
            return False
        seen.add(key)
        return True

    # The values of one row together: an order's id with its own customer's id.
    for table, rows in sorted(values.rows.items()):
        for row in rows:
            args = dict(base)
            matched = False
            for arg in fields:
                if arg in row and row[arg] in candidates[arg]:
                    args[arg], matched = row[arg], True
                elif values.table_of(arg) == table and "id" in row:
                    args[arg], matched = row["id"], True
            if matched and fresh(args):
                yield args
    for arg, options in candidates.items():
        for value in options:
            args = {**base, arg: value}
            if fresh(args):
                yield args
    for arg, f in fields.items():  # optional arguments left out
        if not f.is_required():
            args = {k: v for k, v in base.items() if k != arg}
            if fresh(args):
                yield args


def _schema_version(dispatcher: Dispatcher) -> int:
    row = dispatcher.world.conn.execute("PRAGMA schema_version").fetchone()
    return int(row[0])


def _short(args: dict[str, Any], limit: int = 160) -> str:
    text = json.dumps(args, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"
