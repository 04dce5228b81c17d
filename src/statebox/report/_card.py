"""The suite card: what a task suite holds, how strong its checks are, and how to use it.

A card is data (`SuiteCard`, one `DomainCard` per domain) built from the registry's
installed domains; `render_card_markdown` turns it into the Markdown kept in
``docs/suite-card.md``. Check strength comes from running task validation (golden replay,
oracle, do-nothing agent, mutants) over every task, which takes a while for a large suite;
``validate=False`` skips it and the card says "not run" instead of a figure, never a guess.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from statistics import mean

from statebox._model import Model
from statebox.judge import Judge, validate_task
from statebox.registry import Registry
from statebox.tasks import Task, WorldCache

__all__ = [
    "INTENDED_USE",
    "CheckStrength",
    "DomainCard",
    "ExcludedFieldRow",
    "SuiteCard",
    "build_suite_card",
    "format_strength",
    "render_card_markdown",
]

INTENDED_USE = (
    "All data is synthetic: names, emails (example.com domains), ids and records are made "
    "up and describe no real person or company. Test-split tasks are for evaluation and "
    "are never served for training by default; train-split tasks may be used for "
    "reinforcement learning. Task files, schemas and policies ship under the project "
    "licence."
)
"""Licence and intended-use statement printed on every card."""


class CheckStrength(Model):
    """Mutation-test results over a domain's tasks."""

    invalid_tasks: int
    """Tasks with a validation problem or a surviving mutant."""
    caught: int
    """Mutants the checks failed."""
    survived: int
    """Real mutants the checks passed."""
    excluded: int
    """Surviving mutants that only touch a column the field policy leaves out."""

    @property
    def strength(self) -> float | None:
        """Caught ÷ (caught + survived); None with no real mutant."""
        real = self.caught + self.survived
        return self.caught / real if real else None


class ExcludedFieldRow(Model):
    """One column the field policy leaves out of state comparison."""

    table: str
    """Table name."""
    column: str
    """Column name."""
    reason: str
    """Why it is left out."""


class DomainCard(Model):
    """The card of one domain."""

    domain: str
    """Domain name."""
    tables: int
    """Tables in the schema."""
    tools: int
    """Tools the suite's tasks offer an agent (the policy search and step tools only where
    a task serves them)."""
    mutating_tools: int
    """Of those, tools declared as mutating."""
    tasks: int
    """Built-in tasks."""
    families: dict[str, int]
    """Tasks per workflow family, by family name."""
    splits: dict[str, int]
    """Tasks per split (``test``, ``train``)."""
    read_only: int
    """Tasks whose correct end state is no change."""
    rubric: int
    """Tasks with response rubric questions."""
    user_fact: int
    """Tasks tagged ``user-fact`` (need a fact only the user holds)."""
    refusal: int
    """Tasks tagged ``refusal``."""
    golden_calls_mean: float
    """Golden calls per task: mean."""
    golden_calls_min: int
    """Golden calls per task: minimum."""
    golden_calls_max: int
    """Golden calls per task: maximum."""
    clocks: tuple[str, ...]
    """Distinct frozen clocks (ISO 8601) of the tasks, sorted."""
    field_policy: tuple[ExcludedFieldRow, ...]
    """Columns left out of comparison, with reasons."""
    check_strength: CheckStrength | None = None
    """Validation results; None when validation was not run."""


class SuiteCard(Model):
    """The card of a suite: one entry per domain with tasks, plus totals."""

    suite: str
    """Suite name (a domain or ``all``)."""
    domains: tuple[DomainCard, ...]
    """Per-domain cards, by domain name."""
    validated: bool
    """Whether check strength was measured."""
    intended_use: str = INTENDED_USE
    """Licence and intended use."""

    @property
    def tasks(self) -> int:
        """Tasks over every domain."""
        return sum(d.tasks for d in self.domains)

    @property
    def check_strength(self) -> CheckStrength | None:
        """Validation results over every domain; None when not run."""
        parts = [d.check_strength for d in self.domains if d.check_strength is not None]
        if not self.validated or not parts:
            return None
        return CheckStrength(
            invalid_tasks=sum(p.invalid_tasks for p in parts),
            caught=sum(p.caught for p in parts),
            survived=sum(p.survived for p in parts),
            excluded=sum(p.excluded for p in parts),
        )


def _has_rubric(t: Task) -> bool:
    return t.checks.response is not None and bool(t.checks.response.rubric)


async def _strength(registry: Registry, name: str, tasks: Sequence[Task]) -> CheckStrength:
    domain = registry.domain(name)
    judge = Judge(domain, WorldCache())
    invalid = caught = survived = excluded = 0
    for t in tasks:
        v = await validate_task(domain, t, judge)
        invalid += not v.ok
        caught += v.caught
        survived += v.survived
        excluded += v.excluded
    return CheckStrength(invalid_tasks=invalid, caught=caught, survived=survived, excluded=excluded)


async def build_suite_card(
    registry: Registry, suite: str = "all", *, validate: bool = True
) -> SuiteCard:
    """Build the card of a suite from the registry's domains.

    Args:
        registry: Where the domains and their built-in tasks come from.
        suite: A domain name, or ``all`` for every installed domain that ships tasks.
        validate: Run task validation for check strength (slow on large suites).

    Returns:
        The card; domains without tasks are left out.

    Raises:
        DomainError: Unknown suite, or a named domain without tasks.
        TaskSpecError: A task file is invalid.
    """
    tasks = registry.suite(suite)
    by_domain: dict[str, list[Task]] = {}
    for t in tasks:
        by_domain.setdefault(t.domain, []).append(t)
    cards = []
    for name in sorted(by_domain):
        ts = by_domain[name]
        domain = registry.domain(name)
        calls = [len(t.golden) for t in ts]
        # The tools the suite's agents are offered (a domain's search and step tools
        # only where its tasks serve them), not every tool the domain has.
        offered = set().union(
            *(
                domain.offered(
                    policy_mode=t.policy_mode or "prompt",
                    record_steps=t.record_steps,
                    allowlist=t.tools,
                )
                for t in ts
            )
        )
        cards.append(
            DomainCard(
                domain=name,
                tables=len(domain.template().tables),
                tools=len(offered),
                mutating_tools=sum(domain.tools[n].mutates for n in offered),
                tasks=len(ts),
                families=dict(sorted(Counter(t.family for t in ts).items())),
                splits=dict(sorted(Counter(t.split for t in ts).items())),
                read_only=sum(t.read_only for t in ts),
                rubric=sum(_has_rubric(t) for t in ts),
                user_fact=sum("user-fact" in t.tags for t in ts),
                refusal=sum("refusal" in t.tags for t in ts),
                golden_calls_mean=round(mean(calls), 2),
                golden_calls_min=min(calls),
                golden_calls_max=max(calls),
                clocks=tuple(sorted({t.now.isoformat() for t in ts})),
                field_policy=tuple(
                    ExcludedFieldRow(table=e.table, column=e.column, reason=e.reason)
                    for e in domain.field_policy.excluded
                ),
                check_strength=await _strength(registry, name, ts) if validate else None,
            )
        )
    return SuiteCard(suite=suite, domains=tuple(cards), validated=validate)


def format_strength(strength: CheckStrength | None) -> str:
    """A check strength as text: ``100.0% (caught/real)`` or ``not run``."""
    if strength is None:
        return "not run"
    s = strength.strength
    if s is None:
        return "no real mutant"
    return f"{s:.1%} ({strength.caught}/{strength.caught + strength.survived})"


def _invalid(strength: CheckStrength | None) -> str:
    return "not run" if strength is None else str(strength.invalid_tasks)


def render_card_markdown(card: SuiteCard) -> str:
    """The card as Markdown (the text of ``docs/suite-card.md``).

    Args:
        card: The card.

    Returns:
        Markdown text ending in a newline.
    """
    out = [
        f"# statebox suite card: `{card.suite}`",
        "",
        "Generated by `statebox tasks card --suite "
        f"{card.suite} --format markdown`; do not edit by hand.",
        "",
        "## Overview",
        "",
        "| domain | tables | tools (mutating) | tasks | families | test | train | read-only "
        "| rubric | user-fact | refusal | golden calls mean [min, max] | check strength "
        "| invalid tasks |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for d in card.domains:
        out.append(
            f"| {d.domain} | {d.tables} | {d.tools} ({d.mutating_tools}) | {d.tasks} | "
            f"{len(d.families)} | {d.splits.get('test', 0)} | {d.splits.get('train', 0)} | "
            f"{d.read_only} | {d.rubric} | {d.user_fact} | {d.refusal} | "
            f"{d.golden_calls_mean:.2f} [{d.golden_calls_min}, {d.golden_calls_max}] | "
            f"{format_strength(d.check_strength)} | {_invalid(d.check_strength)} |"
        )
    out += [
        "",
        f"**Total: {card.tasks} tasks in {len(card.domains)} domains**; check strength over "
        f"the suite: {format_strength(card.check_strength)}"
        + (
            f", {card.check_strength.invalid_tasks} invalid task(s), "
            f"{card.check_strength.excluded} mutant(s) touching only excluded fields."
            if card.check_strength is not None
            else "."
        ),
        "",
        "Check strength = mutants caught ÷ real mutants (drop one golden write, change one "
        "written field, add one extra write); see docs/design.md §5.",
        "",
        "## Tasks per family",
        "",
    ]
    for d in card.domains:
        out += [f"### {d.domain}", "", "| family | tasks |", "|---|---|"]
        out += [f"| {f} | {n} |" for f, n in d.families.items()]
        out.append("")
    out += ["## Frozen clocks", "", "| domain | clock (`now`) |", "|---|---|"]
    for d in card.domains:
        out.append(f"| {d.domain} | {', '.join(d.clocks)} |")
    out += ["", "## Field policies", "", "| domain | column | reason |", "|---|---|---|"]
    for d in card.domains:
        if not d.field_policy:
            out.append(f"| {d.domain} | (none) | every column is compared |")
        for e in d.field_policy:
            out.append(f"| {d.domain} | {e.table}.{e.column} | {e.reason} |")
    out += ["", "## Licence and intended use", "", card.intended_use, ""]
    return "\n".join(out)
