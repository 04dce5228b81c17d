"""The card's "suite shape" table: how deep, diverse and leak-free a suite version is.

Each figure is `statebox.judge.suite_shape`'s, measured by replaying golden
trajectories over both splits (so that leaks between them are seen), per domain and
overall, with a met/missed mark against the version's promised numbers
(`SUITE_TARGETS`), beside statebox-bench 1.0's figures (measured here too, from the
installed 1.0 tasks) and ThinkingBox-Bench v1.0's, which are quoted: issue #15's
measurement of that dataset, not computed here (docs/suites.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from statebox._model import Model
from statebox.judge import DomainShape, ShapeTargets, suite_shape
from statebox.registry import Registry
from statebox.tasks import LEGACY_VERSION, SuiteName, Task

__all__ = [
    "SUITE_TARGETS",
    "THINKINGBOX_V1",
    "THINKINGBOX_V1_SOURCE",
    "ShapeTable",
    "build_shape_table",
    "shape_rows",
]

SUITE_TARGETS: dict[str, ShapeTargets] = {
    "2.0": ShapeTargets(
        test_tasks=100,
        train_tasks=200,
        median_golden_calls=7,
        median_business_writes=2,
        no_write_share=0.05,
        distinct_sequences_per_task=0.7,
        reinstance_share=0.15,
        recovery_share=0.25,
        multi_intent_share=0.2,
        policy_words=4000,
    )
}
"""What each suite version promises per domain (overall: task counts times the domains).
1.0 promised nothing: its card carries no marks."""

THINKINGBOX_V1_SOURCE = (
    "ThinkingBox-Bench v1.0 (507 tasks): quoted from issue #15's measurement, not computed here"
)
"""Where the ThinkingBox-Bench column comes from."""

THINKINGBOX_V1: dict[str, str] = {
    "test_tasks": "507 (no train split)",
    "median_golden_calls": "6",
    "median_business_writes": "3",
    "no_write": "1 (0.2%)",
    "distinct_sequences": "0.68 (346/507)",
    "policy_words": "2,579–6,596 (searched)",
}
"""ThinkingBox-Bench v1.0's figures by row key (issue #15's table); others: not measured."""


class ShapeTable(Model):
    """The suite shape of one version, per domain and overall, with what to compare it to."""

    version: str
    """The suite version measured."""
    targets: ShapeTargets | None
    """Its promised numbers per domain (None: it promised none)."""
    domains: tuple[DomainShape, ...]
    """Per-domain shapes, by domain name."""
    overall: DomainShape
    """Over every domain of the card (``all``)."""
    legacy: DomainShape | None = None
    """statebox-bench 1.0's overall shape (None on a 1.0 card, or where 1.0 is absent)."""


def build_shape_table(registry: Registry, ref: SuiteName, tasks: Sequence[Task]) -> ShapeTable:
    """Measure ``tasks`` (both splits of the card's suite) and statebox-bench 1.0 beside it.

    Args:
        registry: The domains.
        ref: The card's suite, resolved.
        tasks: Both splits of its domains.
    """
    version = ref.version or LEGACY_VERSION
    targets = SUITE_TARGETS.get(version)
    names = sorted({t.domain for t in tasks})
    shape = suite_shape({n: registry.domain(n) for n in names}, tasks, targets=targets)
    legacy = None
    if version != LEGACY_VERSION and LEGACY_VERSION in registry.suite_versions():
        old = registry.suite(SuiteName(scope=ref.scope, version=LEGACY_VERSION), both_splits=True)
        old_names = sorted({t.domain for t in old})
        legacy = suite_shape({n: registry.domain(n) for n in old_names}, old).overall
    return ShapeTable(
        version=version,
        targets=targets,
        domains=shape.domains,
        overall=shape.overall,
        legacy=legacy,
    )


def _share(n: int, of: int) -> str:
    return f"{n} ({n / of:.1%})" if of else "0"


_Row = tuple[str, str, Callable[[DomainShape], str], Callable[[ShapeTargets, int], str | None]]


def _at_least(value: float | None, k: int = 1) -> str | None:
    return None if value is None else f"≥ {value * k:,g}"


_ROWS: tuple[_Row, ...] = (
    ("test_tasks", "test tasks", lambda s: str(s.test_tasks),
     lambda t, k: _at_least(t.test_tasks, k)),
    ("train_tasks", "train tasks", lambda s: str(s.train_tasks),
     lambda t, k: _at_least(t.train_tasks, k)),
    ("median_golden_calls", "median golden calls", lambda s: f"{s.median_golden_calls:g}",
     lambda t, k: _at_least(t.median_golden_calls)),
    ("median_business_writes", "median business writes", lambda s: f"{s.median_business_writes:g}",
     lambda t, k: _at_least(t.median_business_writes)),
    ("no_write", "tasks with no business write (each needs a reply check)",
     lambda s: _share(s.no_write, s.test_tasks)
     + (f", {s.no_write_without_reply_check} without" if s.no_write_without_reply_check else ""),
     lambda t, k: None if t.no_write_share is None else f"≤ {t.no_write_share:.0%}"),
    ("distinct_sequences", "distinct golden tool-name sequences ÷ tasks",
     lambda s: f"{s.distinct_sequences_per_task:.2f} ({s.distinct_sequences}/{s.test_tasks})",
     lambda t, k: _at_least(t.distinct_sequences_per_task)),
    ("reinstances", "re-instances (same signature as a sibling)",
     lambda s: _share(s.reinstances, s.test_tasks),
     lambda t, k: None if t.reinstance_share is None else f"≤ {t.reinstance_share:.0%}"),
    ("recovery", "recovery (a refused call, then a write)",
     lambda s: _share(s.recovery, s.test_tasks),
     lambda t, k: None if t.recovery_share is None else f"≥ {t.recovery_share:.0%}"),
    ("multi_intent", "multi-intent (≥ 2 intent: tags)",
     lambda s: _share(s.multi_intent, s.test_tasks),
     lambda t, k: None if t.multi_intent_share is None else f"≥ {t.multi_intent_share:.0%}"),
    ("train_siblings", "test tasks sharing a branch or signature with a train task",
     lambda s: str(s.test_tasks_with_train_sibling), lambda t, k: "0"),
    ("policy_words", "policy words (step blocks included)",
     lambda s: "—" if s.policy_words is None else f"{s.policy_words:,}",
     lambda t, k: _at_least(t.policy_words)),
)  # fmt: skip
"""Row key, label, value, target (per domain, k = 1; overall, k = domains)."""

_MISS_PREFIX: Mapping[str, tuple[str, ...]] = {
    "test_tasks": ("test tasks ",),
    "train_tasks": ("train tasks ",),
    "median_golden_calls": ("median golden calls",),
    "median_business_writes": ("median business writes",),
    "no_write": ("no-write share", "no-write tasks without"),
    "distinct_sequences": ("distinct sequences",),
    "reinstances": ("re-instance share",),
    "recovery": ("recovery share",),
    "multi_intent": ("multi-intent share",),
    "train_siblings": ("test tasks share a train branch",),
    "policy_words": ("policy words",),
}
"""Which of `DomainShape.misses`' phrases belong to each row (the judge words them)."""


def _mark(shape: DomainShape, key: str, targeted: bool) -> str:
    if not targeted:
        return ""
    missed = any(p in m for m in shape.misses for p in _MISS_PREFIX[key])
    return " ✗" if missed else " ✓"


def shape_rows(table: ShapeTable) -> list[list[str]]:
    """The table as rows of text, the first the header (the Markdown and terminal cards).

    Marks: ✓ the figure meets the version's target, ✗ it misses it; none where the
    version promises nothing.
    """
    k = len(table.domains)
    policy = [s.policy_words for s in table.domains if s.policy_words is not None]
    header = ["figure", *(s.domain for s in table.domains), "all", "target (per domain; all)"]
    if table.legacy is not None:
        header.append(f"statebox-bench {LEGACY_VERSION}")
    header.append("ThinkingBox-Bench v1.0")
    out = [header]
    for key, label, value, target in _ROWS:
        t = table.targets
        per, overall = (target(t, 1), target(t, k)) if t is not None else (None, None)
        cells = [value(s) + _mark(s, key, per is not None) for s in table.domains]
        whole = value(table.overall)
        if key == "policy_words" and policy:
            whole = f"{min(policy):,}–{max(policy):,}"
        row = [label, *cells, whole + _mark(table.overall, key, overall is not None)]
        row.append("—" if per is None else per if per == overall else f"{per}; {overall}")
        if table.legacy is not None:
            # The policies are the domains' own, shared by every version: the 1.0 tasks
            # are served today's, so a 1.0 word count would be 2.0's under another name.
            row.append("(the same policies)" if key == "policy_words" else value(table.legacy))
        row.append(THINKINGBOX_V1.get(key, "—"))
        out.append(row)
    return out
