"""`Domain`: one business backend — schema, seed, tools, policy text and field policy.

A domain is a value, built by its package and handed around; nothing is registered
at import. Its base world template is built on first use and cached on the object.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from statebox.errors import DomainError
from statebox.tools import ToolSpec, tool_map
from statebox.world import FieldPolicy, WorldTemplate

__all__ = ["Domain", "SeedRows"]

SeedRows = Mapping[str, Sequence[Mapping[str, Any]]]
"""table → rows (column → value)."""


class Domain:
    """A business backend.

    Args:
        name: Domain name (``retail``); task ids and suites use it.
        schema_sql: SQL DDL; every table needs a primary key.
        seed: Seed rows, or a function returning them (called once, on first use).
        tools: The domain's tools.
        policy: The policy text an agent follows (Markdown).
        field_policy: Columns left out of state comparison, with reasons.
        tasks_dir: Folder of the domain's built-in task YAML files, if any.

    Raises:
        DomainError: Two tools share a name.
    """

    def __init__(
        self,
        *,
        name: str,
        schema_sql: str,
        seed: SeedRows | Callable[[], SeedRows],
        tools: Iterable[ToolSpec],
        policy: str,
        field_policy: FieldPolicy | None = None,
        tasks_dir: Path | None = None,
    ) -> None:
        self.name = name
        self.schema_sql = schema_sql
        self._seed = seed
        self.tools = tool_map(tools)
        self.policy = policy
        self.field_policy = field_policy or FieldPolicy()
        self.tasks_dir = tasks_dir
        self._template: WorldTemplate | None = None

    @classmethod
    def from_folder(
        cls,
        name: str,
        folder: Path,
        *,
        seed: SeedRows | Callable[[], SeedRows],
        tools: Iterable[ToolSpec],
        field_policy: FieldPolicy | None = None,
    ) -> Domain:
        """A domain whose ``schema.sql``, ``policy.md`` and ``tasks/`` sit in ``folder``.

        Raises:
            DomainError: ``schema.sql`` or ``policy.md`` is missing.
        """
        try:
            schema = (folder / "schema.sql").read_text(encoding="utf-8")
            policy = (folder / "policy.md").read_text(encoding="utf-8")
        except OSError as exc:
            raise DomainError(f"domain {name}: {exc}") from exc
        tasks = folder / "tasks"
        return cls(
            name=name,
            schema_sql=schema,
            seed=seed,
            tools=tools,
            policy=policy,
            field_policy=field_policy,
            tasks_dir=tasks if tasks.is_dir() else None,
        )

    def template(self) -> WorldTemplate:
        """The base world (schema + seed), built once.

        Raises:
            DomainError: The schema or seed is invalid, or the field policy names an
                unknown column.
        """
        if self._template is None:
            seed = self._seed() if callable(self._seed) else self._seed
            try:
                template = WorldTemplate.build(self.schema_sql, seed)
            except ValueError as exc:
                raise DomainError(f"domain {self.name}: {exc}") from exc
            for e in self.field_policy.excluded:
                info = template.tables.get(e.table)
                if info is None or e.column not in info.columns:
                    raise DomainError(
                        f"domain {self.name}: field policy names unknown column "
                        f"{e.table}.{e.column}"
                    )
                if e.column in info.primary_key:
                    raise DomainError(
                        f"domain {self.name}: field policy cannot exclude key {e.table}.{e.column}"
                    )
            self._template = template
        return self._template

    def __repr__(self) -> str:
        return f"Domain({self.name!r}, tools={len(self.tools)})"
