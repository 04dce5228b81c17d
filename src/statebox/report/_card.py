"""The suite card: what a task suite holds, how strong its checks are, and how to use it.

A card is data (`SuiteCard`, one `DomainCard` per domain) built from the registry's
installed domains; `render_card_markdown` turns it into the Markdown kept in
``docs/suite-card.md``. Check strength, the false-rejection rate and the baseline floors come
from task validation (golden replay, oracle, noop and refuse agents, mutants, probes) over
every task; ``validate=False`` skips it and the card says "not run" instead of a figure,
never a guess.

A card covers both splits of its suite's domains, at the suite's version (docs/suites.md),
and carries the version's suite shape (`statebox.report.ShapeTable`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from statistics import mean

from statebox._model import Model
from statebox.judge import TaskValidation, validate_suite
from statebox.registry import Registry
from statebox.report._shape_card import (
    THINKINGBOX_V1_SOURCE,
    ShapeTable,
    build_shape_table,
    shape_rows,
)
from statebox.tasks import SuiteName, Task

__all__ = [
    "INTENDED_USE",
    "CheckStrength",
    "DomainCard",
    "ExcludedFieldRow",
    "Floor",
    "SuiteCard",
    "build_suite_card",
    "card_tasks",
    "format_false_rejection",
    "format_floor",
    "format_strength",
    "render_card_markdown",
    "shape_markdown",
    "strength_lines",
]

INTENDED_USE = (
    "All data is synthetic: names, emails (example.com domains), ids and records are made "
    "up and describe no real person or company. Test-split tasks are for evaluation and "
    "are never served for training by default; train-split tasks may be used for "
    "reinforcement learning. Task files, schemas and policies ship under the project "
    "licence."
)
"""Licence and intended-use statement printed on every card."""


class Floor(Model):
    """How a baseline agent that does no work fares on the tasks (it should fail them)."""

    agent: str
    """Baseline agent name (``noop``, ``refuse``)."""
    tasks: int
    """Tasks it was run on."""
    passed: int
    """Tasks it passed."""
    test_tasks: int
    """Test-split tasks it was run on."""
    passed_test: int
    """Test-split tasks it passed (the target is 0)."""

    @property
    def pass_at_1(self) -> float | None:
        """Passed ÷ tasks (one deterministic trial each); None with no task."""
        return self.passed / self.tasks if self.tasks else None


class CheckStrength(Model):
    """Validation results over a set of tasks: mutants, probes and baselines."""

    invalid_tasks: int
    """Tasks with a validation problem, a surviving mutant or a rejected alternative."""
    caught: int
    """Mutants the checks failed."""
    survived: int
    """Real mutants the checks passed (those touching only excluded columns included)."""
    equivalent: int = 0
    """Mutants whose end state is an accepted one (left out of the strength)."""
    excluded_only: int = 0
    """Real mutants touching only columns left out of exact comparison (counted in
    caught or survived: a text check must catch them)."""
    excluded_only_survived: int = 0
    """Of those, the ones no check caught."""
    text_mutants: int = 0
    """``text_fact`` mutants (a fact in written text replaced), counted in the strength."""
    probes: int = 0
    """Plausible alternatives tried (reordered writes, respelled values, alternatives)."""
    rejected: int = 0
    """Plausible alternatives the checks rejected (false rejections)."""
    floors: tuple[Floor, ...] = ()
    """The baseline agents' results."""

    @property
    def strength(self) -> float | None:
        """Caught ÷ (caught + survived); None with no real mutant."""
        real = self.caught + self.survived
        return self.caught / real if real else None

    @property
    def false_rejection_rate(self) -> float | None:
        """Rejected ÷ probes; None with no probe."""
        return self.rejected / self.probes if self.probes else None

    @classmethod
    def of(cls, validations: Sequence[TaskValidation]) -> CheckStrength:
        """Sum task validations."""
        agents = sorted({a for v in validations for a in v.baselines})
        floors = []
        for a in agents:
            ran = [v for v in validations if a in v.baselines]
            test = [v for v in ran if v.split == "test"]
            floors.append(
                Floor(
                    agent=a,
                    tasks=len(ran),
                    passed=sum(v.baselines[a] for v in ran),
                    test_tasks=len(test),
                    passed_test=sum(v.baselines[a] for v in test),
                )
            )
        return cls(
            invalid_tasks=sum(not v.ok for v in validations),
            caught=sum(v.caught for v in validations),
            survived=sum(v.survived for v in validations),
            equivalent=sum(v.equivalent for v in validations),
            excluded_only=sum(v.excluded_only for v in validations),
            excluded_only_survived=sum(
                m.excluded_only and m.outcome == "survived" for v in validations for m in v.mutants
            ),
            text_mutants=sum(v.text_mutants for v in validations),
            probes=sum(len(v.probes) for v in validations),
            rejected=sum(v.rejected for v in validations),
            floors=tuple(floors),
        )

    @classmethod
    def combined(cls, parts: Sequence[CheckStrength]) -> CheckStrength:
        """Sum of several (per-domain) results."""
        floors: dict[str, list[Floor]] = {}
        for p in parts:
            for f in p.floors:
                floors.setdefault(f.agent, []).append(f)
        return cls(
            invalid_tasks=sum(p.invalid_tasks for p in parts),
            caught=sum(p.caught for p in parts),
            survived=sum(p.survived for p in parts),
            equivalent=sum(p.equivalent for p in parts),
            excluded_only=sum(p.excluded_only for p in parts),
            excluded_only_survived=sum(p.excluded_only_survived for p in parts),
            text_mutants=sum(p.text_mutants for p in parts),
            probes=sum(p.probes for p in parts),
            rejected=sum(p.rejected for p in parts),
            floors=tuple(
                Floor(
                    agent=a,
                    tasks=sum(f.tasks for f in fs),
                    passed=sum(f.passed for f in fs),
                    test_tasks=sum(f.test_tasks for f in fs),
                    passed_test=sum(f.passed_test for f in fs),
                )
                for a, fs in sorted(floors.items())
            ),
        )


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
    """Suite name with its version (``all@2.0``; docs/suites.md)."""
    bench: str = ""
    """The suite version by name (``statebox-bench 2.0``)."""
    domains: tuple[DomainCard, ...]
    """Per-domain cards, by domain name."""
    validated: bool
    """Whether check strength was measured."""
    intended_use: str = INTENDED_USE
    """Licence and intended use."""
    shape: ShapeTable | None = None
    """The suite shape beside statebox-bench 1.0 and ThinkingBox-Bench (None: not measured)."""

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
        return CheckStrength.combined(parts)


def _has_rubric(t: Task) -> bool:
    return t.checks.response is not None and bool(t.checks.response.rubric)


def card_tasks(registry: Registry, suite: str | SuiteName) -> tuple[SuiteName, list[Task]]:
    """The suite resolved, and the tasks its card covers: both splits of its domains.

    Raises:
        DomainError: Unknown suite or version.
        TaskSpecError: A task file is invalid.
    """
    ref = registry.resolve_suite(suite)
    return ref, registry.suite(ref, both_splits=True)


def build_suite_card(
    registry: Registry,
    suite: str | SuiteName = "all",
    *,
    validate: bool = True,
    validations: Sequence[TaskValidation] | None = None,
    shape: bool = True,
) -> SuiteCard:
    """Build the card of a suite from the registry's domains.

    Args:
        registry: Where the domains and their built-in tasks come from.
        suite: A suite name (docs/suites.md); the card covers both splits of its
            domains at its version (`card_tasks`).
        validate: Report check strength, false rejections and floors.
        validations: The card's task validations (`statebox.judge.validate_suite`
            over `card_tasks`); with ``validate`` and none given, every task is
            validated here, in this process (slow on large suites).
        shape: Measure the suite shape (golden replays of every task, and of
            statebox-bench 1.0's for comparison).

    Returns:
        The card; domains without tasks are left out.

    Raises:
        DomainError: Unknown suite or version, or a named domain without tasks.
        TaskSpecError: A task file is invalid.
    """
    ref, tasks = card_tasks(registry, suite)
    if validate and validations is None:
        domains = {n: registry.domain(n) for n in sorted({t.domain for t in tasks})}
        validations, _ = validate_suite(domains, tasks)
    by_id = {v.task_id: v for v in validations or ()}
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
                check_strength=CheckStrength.of([by_id[t.id] for t in ts]) if validate else None,
            )
        )
    return SuiteCard(
        suite=str(ref),
        bench=registry.suite_label(ref),
        domains=tuple(cards),
        validated=validate,
        shape=build_shape_table(registry, ref, tasks) if shape and tasks else None,
    )


def format_strength(strength: CheckStrength | None) -> str:
    """A check strength as text: ``100.0% (caught/real)`` or ``not run``."""
    if strength is None:
        return "not run"
    s = strength.strength
    if s is None:
        return "no real mutant"
    return f"{s:.1%} ({strength.caught}/{strength.caught + strength.survived})"


def format_false_rejection(strength: CheckStrength | None) -> str:
    """A false-rejection rate as text: ``0.0% (rejected/probes)`` or ``not run``."""
    if strength is None:
        return "not run"
    r = strength.false_rejection_rate
    if r is None:
        return "no probe"
    return f"{r:.1%} ({strength.rejected}/{strength.probes})"


def format_floor(strength: CheckStrength | None, agent: str) -> str:
    """A baseline's result as text: ``0/458 test tasks (pass@1 0.000 over all 573)``."""
    f = None if strength is None else next((f for f in strength.floors if f.agent == agent), None)
    if f is None:
        return "not run"
    p = f.pass_at_1
    return (
        f"{f.passed_test}/{f.test_tasks} test tasks "
        f"(pass@1 {'—' if p is None else f'{p:.3f}'} over all {f.tasks})"
    )


def _invalid(strength: CheckStrength | None) -> str:
    return "not run" if strength is None else str(strength.invalid_tasks)


def strength_lines(s: CheckStrength) -> list[str]:
    """The check strength, false rejection, floors and invalid tasks as sentences."""
    floors = "; ".join(f"{f.agent} passes {format_floor(s, f.agent)}" for f in s.floors)
    return [
        f"check strength: {format_strength(s)} of real mutants caught, "
        f"{s.text_mutants} text mutants (a fact in written text replaced) included; "
        f"{s.excluded_only} mutants touch only columns left out of exact comparison and "
        f"count like any other ({s.excluded_only_survived} of them survived); "
        f"{s.equivalent} equivalent mutants (an accepted end state) left out",
        f"false-rejection rate: {format_false_rejection(s)} of plausible alternatives "
        "(independent writes reordered, values respelled, declared alternatives) rejected",
        "floors (baseline agents that do no work, every rubric question taken as yes): "
        f"{floors or 'not run'}",
        f"invalid tasks: {s.invalid_tasks}",
    ]


def shape_markdown(table: ShapeTable) -> list[str]:
    """The suite shape section of the Markdown card, as lines."""
    rows = shape_rows(table)
    out = [
        "## Suite shape",
        "",
        f"Over the test split of statebox-bench {table.version}, measured by replaying the "
        "golden trajectories of both splits (docs/suites.md defines every figure). "
        + (
            "✓ meets the version's target, ✗ misses it."
            if table.targets is not None
            else "This version promised no figures."
        ),
        "",
        "| " + " | ".join(rows[0]) + " |",
        "|" + "---|" * len(rows[0]),
    ]
    out += ["| " + " | ".join(r) + " |" for r in rows[1:]]
    out += ["", f"{THINKINGBOX_V1_SOURCE}.", ""]
    return out


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
        f"Suite version: **{card.bench}**; the card covers both splits of its domains "
        "(docs/suites.md).",
        "",
        "## Overview",
        "",
        "| domain | tables | tools (mutating) | tasks | families | test | train | read-only "
        "| rubric | user-fact | refusal | golden calls mean [min, max] | check strength "
        "| false rejection | noop passes | refuse passes | invalid tasks |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for d in card.domains:
        cs = d.check_strength
        out.append(
            f"| {d.domain} | {d.tables} | {d.tools} ({d.mutating_tools}) | {d.tasks} | "
            f"{len(d.families)} | {d.splits.get('test', 0)} | {d.splits.get('train', 0)} | "
            f"{d.read_only} | {d.rubric} | {d.user_fact} | {d.refusal} | "
            f"{d.golden_calls_mean:.2f} [{d.golden_calls_min}, {d.golden_calls_max}] | "
            f"{format_strength(cs)} | {format_false_rejection(cs)} | "
            f"{format_floor(cs, 'noop')} | {format_floor(cs, 'refuse')} | {_invalid(cs)} |"
        )
    out += ["", f"**Total: {card.tasks} tasks in {len(card.domains)} domains.**", ""]
    if card.check_strength is not None:
        out += [f"- {line}." for line in strength_lines(card.check_strength)]
        out.append("")
    out += [
        "Check strength = mutants caught ÷ real mutants (drop one golden write, change one "
        "written field, add one extra write, replace one fact in written text); a mutant "
        "that only touches a column left out of exact comparison survives unless a text "
        "check catches it. False-rejection rate = plausible alternatives rejected ÷ tried. "
        "Floors: the `noop` (ends at once) and `refuse` (declines politely) agents; a task "
        "either passes is invalid. The README says what is and is not judged; see "
        "docs/design.md §5.",
        "",
    ]
    if card.shape is not None:
        out += shape_markdown(card.shape)
    out += [
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
