"""`Desk`: one world of a domain, its tools called as an agent calls them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from types import TracebackType
from typing import Any

from statebox.domains import Domain
from statebox.kit import Row
from statebox.tasks import GoldenCall, Task, WorldCache, load_tasks
from statebox.tools import Dispatcher, ToolCall, ToolResult
from statebox.world import Scalar, World

__all__ = ["Desk", "Outcome", "suite_tasks_of"]


@dataclass(frozen=True)
class Outcome:
    """What one tool call gave: its output, or the refusal's kind, class and message."""

    ok: bool
    """True when the tool ran and committed."""
    output: Any
    """The tool's JSON-compatible answer (None when refused)."""
    kind: str | None
    """The refusal's kind (``not_found``, ``invalid_state``, …); None when ``ok``."""
    error_class: str | None
    """The refusal's class (what the agent can do about it); None when ``ok``."""
    message: str
    """The refusal's agent-facing message; empty when ``ok``."""
    wrote: bool
    """Whether the call changed the world."""
    result: ToolResult
    """The dispatcher's full result."""

    @classmethod
    def of(cls, result: ToolResult) -> Outcome:
        """The outcome of a dispatcher result."""
        err = result.error
        return cls(
            ok=result.ok,
            output=result.output,
            kind=err.kind if err else None,
            error_class=err.error_class if err else None,
            message=err.message if err else "",
            wrote=result.wrote,
            result=result,
        )

    def refused(self, kind: str, *words: str, error_class: str | None = None) -> Outcome:
        """Assert the call was refused with ``kind`` (and ``error_class``), naming ``words``.

        Raises:
            AssertionError: It succeeded, or was refused otherwise; the message says how.
        """
        if self.ok:
            raise AssertionError(f"expected a {kind} refusal; the call succeeded: {self.output!r}")
        if self.kind != kind or (error_class is not None and self.error_class != error_class):
            raise AssertionError(
                f"expected a {kind} refusal ({error_class or 'any class'}); "
                f"got {self.kind} ({self.error_class}): {self.message}"
            )
        missing = [w for w in words if w not in self.message]
        if missing:
            raise AssertionError(f"the refusal does not name {missing}: {self.message}")
        return self

    def succeeded(self) -> Any:
        """Assert the call succeeded; its output.

        Raises:
            AssertionError: It was refused; the message gives the refusal.
        """
        if not self.ok:
            raise AssertionError(f"expected success; refused {self.kind}: {self.message}")
        return self.output


class Desk:
    """A domain's tools on one world, called through the real dispatcher.

    Args:
        domain: The domain.
        world: The world to act on (the desk closes it).
        allowlist: Tools the calls may use; None: every tool of the domain (step tools and
            ``search_policy`` too), as golden replay sees them.

    Example:
        >>> with Desk.seeded(DOMAIN, "2026-03-02T10:00:00+00:00") as desk:  # doctest: +SKIP
        ...     desk("release_licence", allocation_id="LA-00001").succeeded()
        ...     desk("release_licence", allocation_id="LA-00001").refused("invalid_state")
    """

    def __init__(
        self, domain: Domain, world: World, *, allowlist: Iterable[str] | None = None
    ) -> None:
        self.domain = domain
        self.world = world
        self._dispatch = Dispatcher(
            world, domain.tools, None if allowlist is None else tuple(allowlist)
        )

    @classmethod
    def seeded(
        cls, domain: Domain, now: datetime | str, *, allowlist: Iterable[str] | None = None
    ) -> Desk:
        """A desk on a fresh clone of the domain's seeded template, clock frozen at ``now``."""
        at = datetime.fromisoformat(now) if isinstance(now, str) else now
        return cls(domain, domain.template().clone(at), allowlist=allowlist)

    @classmethod
    def of_task(
        cls,
        domain: Domain,
        task: Task | Mapping[str, Any],
        *,
        worlds: WorldCache | None = None,
        allowlist: Iterable[str] | None = None,
    ) -> Desk:
        """A desk on a fresh world of ``task``: the seed with its initial state, at its ``now``.

        Args:
            domain: The task's domain.
            task: The task, or its YAML fields as a mapping (validated as a `Task`).
            worlds: A cache of task templates to share between desks (built once per task).
            allowlist: As for `Desk`.
        """
        spec = task if isinstance(task, Task) else Task.model_validate(task)
        world = (worlds or WorldCache()).clone(domain, spec)
        return cls(domain, world, allowlist=allowlist)

    def __call__(self, tool: str, /, **args: Any) -> Outcome:
        """Call ``tool`` with ``args`` as an agent would (JSON arguments, strict validation)."""
        return Outcome.of(self._dispatch.call(ToolCall(tool=tool, args=args)))

    def play(self, calls: Iterable[GoldenCall]) -> list[Outcome]:
        """Call each of a trajectory's calls in turn (e.g. a task's ``golden[:1]``)."""
        return [self(c.tool, **c.args) for c in calls]

    def rows(self, sql: str, *params: Any) -> list[Row]:
        """Every row a read-only query gives."""
        return self.world.query(sql, list(params))

    def one(self, sql: str, *params: Any) -> Row:
        """The one row a query gives.

        Raises:
            AssertionError: It gives none, or more than one.
        """
        rows = self.rows(sql, *params)
        if len(rows) != 1:
            raise AssertionError(f"expected one row, got {len(rows)}: {sql}")
        return rows[0]

    def value(self, sql: str, *params: Any) -> Scalar:
        """The one value (one row, one column) a query gives.

        Raises:
            AssertionError: Not exactly one row of one column.
        """
        row = self.one(sql, *params)
        if len(row) != 1:
            raise AssertionError(f"expected one column, got {list(row)}: {sql}")
        return next(iter(row.values()))

    def set(self, table: str, key: Mapping[str, Any], values: Mapping[str, Any]) -> None:
        """Change rows directly (arranging a test's world), outside any tool call.

        Args:
            table: The table.
            key: Column → value of the rows to change, e.g. ``{"id": "LA-00001"}``.
            values: Column → new value.

        Raises:
            AssertionError: No row matches ``key`` (a test arranging nothing would pass
                without testing anything).
        """
        if not isinstance(key, Mapping):
            raise TypeError(f"key must be a mapping such as {{'id': {key!r}}}, not {key!r}")
        with self.world.transaction() as tx:
            changed = tx.update(table, key, values)
        if changed == 0 and values:
            raise AssertionError(f"no row of {table} matches {dict(key)}: nothing arranged")

    def close(self) -> None:
        """Close the world."""
        self.world.close()

    def __enter__(self) -> Desk:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def suite_tasks_of(domain: Domain, version: str) -> dict[str, Task]:
    """The domain's tasks of suite ``version`` (test and train), by id.

    Raises:
        LookupError: The domain does not ship that version.
    """
    folder = domain.suite_folder(version)
    if folder is None:
        raise LookupError(f"domain {domain.name} ships no suite {version}")
    return {t.id: t for t in load_tasks(folder)}
