"""`Domain`: one business backend — schema, seed, tools, policy text and field policy.

A domain is a value, built by its package and handed around; nothing is registered
at import. Its base world template is built on first use and cached on the object.

Every domain also has the read-only ``search_policy`` tool over its policy, split into
articles (`statebox.kit.PolicyBase`, built on first search), and may have *step tools*
that record mandatory conversation steps (verification, confirmations, disclosures).
Neither is offered to an agent by default: `offered` adds ``search_policy`` when the
policy is served by search (``search`` or ``both``), and the step tools — with the
policy's step blocks — when a task records steps. Golden replay and the judge see
every tool (`tools`).

A domain's built-in tasks come by suite version (``suites``: version → folder, e.g.
``"1.0"`` → ``tasks/``, ``"2.0"`` → ``tasks_v2/``); a declared folder that does not exist
means the domain does not ship that version. A domain that declares only ``tasks_dir``
has one unversioned task set, the same under every version (docs/suites.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from statebox.errors import DomainError
from statebox.kit import PolicyBase, PolicyMode, policy_pointer, render_policy, search_policy_tool
from statebox.tools import ToolSpec, tool_map
from statebox.world import FieldPolicy, WorldTemplate

__all__ = ["Domain", "SeedRows", "version_key"]

SeedRows = Mapping[str, Sequence[Mapping[str, Any]]]
"""table → rows (column → value)."""


def version_key(version: str) -> tuple[int, ...]:
    """A suite version as numbers, for ordering (``"2.0"`` → ``(2, 0)``).

    Raises:
        DomainError: Not dot-separated numbers.
    """
    try:
        return tuple(int(p) for p in version.split("."))
    except ValueError:
        raise DomainError(f"suite version {version!r}: use numbers such as 1.0 or 2.0") from None


class Domain:
    """A business backend.

    Args:
        name: Domain name (``retail``); task ids and suites use it.
        schema_sql: SQL DDL; every table needs a primary key.
        seed: Seed rows, or a function returning them (called once, on first use).
        tools: The domain's tools (offered to every task).
        policy: The policy text an agent follows (Markdown); blocks between
            ``<!-- steps -->`` and ``<!-- /steps -->`` are shown only with the step tools.
        field_policy: Columns left out of state comparison, with reasons.
        tasks_dir: Folder of the domain's built-in task YAML files, if any (one task
            set, unversioned: it is the domain's tasks under every suite version).
        suites: Suite version → folder of that version's task files (``test/`` and
            ``train/`` inside, or one flat folder split by each task's ``split``); a
            folder that does not exist is a version the domain does not ship.
        step_tools: Tools recording mandatory steps, offered only to tasks that record
            steps (``record_steps``).
        think_prompt: A system-prompt section teaching an LLM agent how to use the
            ``think`` tool on this domain's policy, with worked examples (the
            ``think+prompt`` ablation configuration); None: the domain ships none.
        irreversible: Names of mutating tools whose changes cannot be cheaply reversed
            (refunds, cancellations, access grants, deletions): what an approval gate
            holds (``--approval-gate``, docs/mitigations.md).

    Raises:
        DomainError: Two tools share a name (``search_policy`` is every domain's), the
            policy's step blocks are unbalanced, ``irreversible`` names a tool the domain
            lacks or one that does not mutate, or a suite version is not numbers.
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
        step_tools: Iterable[ToolSpec] = (),
        think_prompt: str | None = None,
        irreversible: Iterable[str] = (),
        suites: Mapping[str, Path] | None = None,
    ) -> None:
        self.name = name
        self.think_prompt = think_prompt
        """How to reason with the ``think`` tool here, with worked examples (or None)."""
        self.schema_sql = schema_sql
        self._seed = seed
        core = tool_map(tools)
        steps = tool_map(step_tools)
        self.step_tools: frozenset[str] = frozenset(steps)
        """Names of the step-recording tools."""
        self._raw_policy = policy
        self.policy = render_policy(policy, steps=False)
        # Rendered here too (it validates the same markers): every episode of a task
        # that records steps is served it.
        self._step_policy = render_policy(policy, steps=True)
        """The policy without its step blocks (what a task without step tools serves)."""
        self._bases: dict[bool, PolicyBase] = {}
        self._search = {
            False: search_policy_tool(lambda: self.knowledge_base(record_steps=False)),
            True: search_policy_tool(lambda: self.knowledge_base(record_steps=True)),
        }
        self.tools = tool_map([*core.values(), *steps.values(), self._search[False]])
        """Every tool, by name: what golden replay and the judge may call."""
        self._core = frozenset(core)
        gated = frozenset(irreversible)
        bad = sorted(n for n in gated if n not in self.tools or not self.tools[n].mutates)
        if bad:
            raise DomainError(f"domain {name}: irreversible names no mutating tool: {bad}")
        self.irreversible: frozenset[str] = gated
        """Mutating tools an approval gate holds (their changes cannot be cheaply undone)."""
        self.field_policy = field_policy or FieldPolicy()
        self.tasks_dir = tasks_dir
        self.suites: dict[str, Path] = dict(suites or {})
        """Declared suite versions → task folders (empty: unversioned, `tasks_dir`)."""
        for v in self.suites:
            version_key(v)  # a malformed version label fails here, not at a lookup
        self._template: WorldTemplate | None = None

    @property
    def core_tools(self) -> frozenset[str]:
        """The domain's own tools: neither step tools nor ``search_policy``."""
        return self._core

    @classmethod
    def from_folder(
        cls,
        name: str,
        folder: Path,
        *,
        seed: SeedRows | Callable[[], SeedRows],
        tools: Iterable[ToolSpec],
        field_policy: FieldPolicy | None = None,
        step_tools: Iterable[ToolSpec] = (),
        extra_schema: str = "",
        irreversible: Iterable[str] = (),
        suites: Mapping[str, str] | None = None,
    ) -> Domain:
        """A domain whose ``schema.sql``, ``policy.md`` and ``tasks/`` sit in ``folder``.

        ``extra_schema`` is DDL appended to ``schema.sql``: the tables of toolkit parts
        (`statebox.kit.ConsentLog.schema`) declared once in the kit, not per domain. A
        ``think_prompt.md`` beside them is the domain's think prompt. ``suites`` names
        the task folder of each suite version, relative to ``folder``
        (``{"1.0": "tasks", "2.0": "tasks_v2"}``); without it ``tasks/`` is the
        domain's one unversioned task set.

        Raises:
            DomainError: ``schema.sql`` or ``policy.md`` is missing.
        """
        try:
            schema = (folder / "schema.sql").read_text(encoding="utf-8")
            policy = (folder / "policy.md").read_text(encoding="utf-8")
        except OSError as exc:
            raise DomainError(f"domain {name}: {exc}") from exc
        tasks = folder / "tasks"
        think = folder / "think_prompt.md"
        return cls(
            name=name,
            schema_sql=schema + extra_schema,
            seed=seed,
            tools=tools,
            policy=policy,
            field_policy=field_policy,
            tasks_dir=tasks if tasks.is_dir() else None,
            step_tools=step_tools,
            think_prompt=think.read_text(encoding="utf-8") if think.is_file() else None,
            irreversible=irreversible,
            suites={v: folder / sub for v, sub in (suites or {}).items()},
        )

    def suite_folder(self, version: str) -> Path | None:
        """The task folder of suite ``version``; None when the domain does not ship it.

        An unversioned domain (only `tasks_dir`) gives `tasks_dir` for every version.
        """
        if not self.suites:
            return self.tasks_dir
        folder = self.suites.get(version)
        return folder if folder is not None and folder.is_dir() else None

    def versions(self) -> tuple[str, ...]:
        """The suite versions the domain ships (its folder exists), oldest first.

        Empty for an unversioned domain.
        """
        shipped = [v for v in self.suites if self.suite_folder(v) is not None]
        return tuple(sorted(shipped, key=version_key))

    def policy_text(self, *, record_steps: bool = False) -> str:
        """The policy, with its step blocks when the step tools are offered."""
        return self._step_policy if record_steps else self.policy

    def knowledge_base(self, *, record_steps: bool = False) -> PolicyBase:
        """The policy's articles in a search index (built once per variant)."""
        base = self._bases.get(record_steps)
        if base is None:
            base = self._bases[record_steps] = PolicyBase(
                self.policy_text(record_steps=record_steps)
            )
        return base

    def toolset(self, *, record_steps: bool = False) -> dict[str, ToolSpec]:
        """Every tool by name, its ``search_policy`` searching the matching policy text."""
        if not record_steps:
            return self.tools
        return {**self.tools, "search_policy": self._search[True]}

    def offered(
        self,
        *,
        policy_mode: PolicyMode = "prompt",
        record_steps: bool = False,
        allowlist: Iterable[str] | None = None,
    ) -> tuple[str, ...]:
        """The tools an agent may call, sorted.

        Args:
            policy_mode: How the policy is served; ``search`` and ``both`` add
                ``search_policy``.
            record_steps: Whether the step tools are offered.
            allowlist: The task's own list of tools; None: the domain's tools.
        """
        names = set(self._core if allowlist is None else allowlist)
        if allowlist is None and record_steps:
            names |= self.step_tools
        if policy_mode != "prompt":
            names.add("search_policy")
        return tuple(sorted(names))

    def served_policy(
        self, *, policy_mode: PolicyMode = "prompt", record_steps: bool = False
    ) -> str:
        """The policy text an agent receives: all of it, or (``search``) a pointer to search it."""
        text = self.policy_text(record_steps=record_steps)
        if policy_mode == "search":
            articles = len(self.knowledge_base(record_steps=record_steps).articles)
            return policy_pointer(text, articles)
        return text

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
