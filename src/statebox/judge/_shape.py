"""The shape of a suite: how deep, diverse and leak-free its tasks are, measured.

Every figure here is read from replaying the tasks' golden trajectories on their
worlds, except multi-intent, which counts the requests a task declares; tags and fact
names never enter a signature (docs/suites.md, "The suite shape"):

- *golden calls*: calls in the golden trajectory;
- *business writes*: golden calls that succeed on replay and change a business table:
  one no step tool (confirmation and disclosure records) and no identity check (a
  ``verify_*`` tool, which only logs the attempt) writes;
- *no-write task*: none; each must carry a reply check (what the state cannot show);
- *recovery*: a golden call is refused on replay (declared with ``fails``) and a
  business write succeeds after it — the natural first attempt fails and the task is
  solved anyway;
- *multi-intent*: the task names two or more user requests (``intent:`` tags), each a
  branch of its own;
- *distinct sequences per task*: distinct golden tool-name sequences ÷ tasks;
- *re-instance*: another task of the same domain and split has the same signature once
  ids, amounts and every other argument value are blanked to their type — same tool
  sequence, argument names and declared refusals, same behaviour, same check shape;
- *leaks*: test branches (``intent:`` tags, or ``family.branch`` of the id where a task
  has none) and signatures that a train task shares.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from statistics import median
from typing import Any

from pydantic import Field

from statebox._model import Model
from statebox.domains import Domain
from statebox.tasks import Task, WorldCache
from statebox.tools import Dispatcher, ToolCall

__all__ = [
    "DomainShape",
    "ShapeTargets",
    "SuiteShape",
    "TaskShape",
    "suite_shape",
    "task_shape",
    "task_signature",
]

INTENT = "intent:"
"""Tag prefix naming one user request of a task (``intent:returns.window``)."""


class TaskShape(Model):
    """What one task's golden trajectory does, replayed."""

    task_id: str
    domain: str
    split: str
    golden_calls: int
    business_writes: int
    refused_calls: int
    """Golden calls refused on replay (each declared with ``fails``)."""
    recovery: bool
    """A refused call, then a business write that succeeds."""
    intents: tuple[str, ...]
    """The ``intent:`` tags (the branches the task exercises)."""
    branches: tuple[str, ...]
    """The intents, or ``family.branch`` of the id when the task names none."""
    sequence: tuple[str, ...]
    """The golden tool names, in order."""
    signature: str
    """The task with ids, amounts and other argument values blanked (`task_signature`)."""
    reply_check: bool


class ShapeTargets(Model):
    """The numbers a suite version promises (issue #15's; None: no promise)."""

    test_tasks: int | None = None
    train_tasks: int | None = None
    median_golden_calls: float | None = None
    median_business_writes: float | None = None
    no_write_share: float | None = None
    distinct_sequences_per_task: float | None = None
    reinstance_share: float | None = None
    recovery_share: float | None = None
    multi_intent_share: float | None = None
    policy_words: int | None = None


class DomainShape(Model):
    """One domain's (or the whole suite's) shape, over its test tasks."""

    domain: str
    test_tasks: int
    train_tasks: int
    median_golden_calls: float
    median_business_writes: float
    no_write: int
    no_write_without_reply_check: int
    distinct_sequences: int
    reinstances: int
    """Test tasks with a same-signature sibling in the test split."""
    recovery: int
    multi_intent: int
    leaked_branches: tuple[str, ...]
    """Test branches a train task also exercises."""
    test_tasks_with_train_sibling: int
    """Test tasks sharing a branch or a signature with a train task."""
    policy_words: int | None = None
    misses: tuple[str, ...] = Field(default=())
    """The targets this shape misses (`ShapeTargets`), one phrase each."""

    @property
    def no_write_share(self) -> float:
        """No-write test tasks ÷ test tasks."""
        return self.no_write / self.test_tasks if self.test_tasks else 0.0

    @property
    def distinct_sequences_per_task(self) -> float:
        """Distinct golden tool-name sequences ÷ test tasks."""
        return self.distinct_sequences / self.test_tasks if self.test_tasks else 0.0

    @property
    def reinstance_share(self) -> float:
        """Re-instancing test tasks ÷ test tasks."""
        return self.reinstances / self.test_tasks if self.test_tasks else 0.0

    @property
    def recovery_share(self) -> float:
        """Test tasks needing recovery ÷ test tasks."""
        return self.recovery / self.test_tasks if self.test_tasks else 0.0

    @property
    def multi_intent_share(self) -> float:
        """Multi-intent test tasks ÷ test tasks."""
        return self.multi_intent / self.test_tasks if self.test_tasks else 0.0


class SuiteShape(Model):
    """Per-domain shapes and the overall one (domain ``all``)."""

    domains: tuple[DomainShape, ...]
    overall: DomainShape
    tasks: tuple[TaskShape, ...]


def _blank(value: Any) -> Any:
    """A value with every scalar replaced by its type name (structure kept)."""
    if isinstance(value, Mapping):
        return {str(k): _blank(v) for k, v in sorted(value.items())}
    if isinstance(value, list | tuple):
        return [_blank(v) for v in value]
    return type(value).__name__


def task_signature(task: Task) -> str:
    """Everything about a task except the values a re-instance changes.

    Ids, amounts and other argument values are blanked to their type; two tasks with
    equal signatures re-instance each other.
    """
    b = task.user.behaviour
    # Labels (tags, intent names) and fact names are left out: a generator could vary
    # them without changing what the agent must do.
    parts = (
        [(c.tool, _blank(c.args), c.fails) for c in task.golden],
        (b.confirm, b.pushback, b.alternative, bool(b.changed_from)),
        task.read_only,
        (
            len(task.checks.invariants),
            len(task.checks.text),
            task.checks.reply is not None,
            task.checks.response is not None,
            len(task.checks.alternatives),
        ),
    )
    return repr(parts)


def _written(world: Any) -> dict[str, int]:
    """Row changes recorded so far per table (the world's change-capture triggers)."""
    out: dict[str, int] = {}
    # Each trigger firing adds a row to one of the two capture tables (no dedupe).
    for capture in ("_sb_changed", "_sb_dirty"):
        for name, n in world.conn.execute(f"SELECT name, count(*) FROM {capture} GROUP BY name"):
            out[str(name)] = out.get(str(name), 0) + int(n)
    return out


def _record_tables(domain: Domain, touched: Sequence[tuple[str, frozenset[str]]]) -> frozenset[str]:
    """Tables the task's step-tool and identity-check calls wrote: records, not business."""
    out: set[str] = set()
    for tool, tables in touched:
        if tool in domain.step_tools or tool.startswith("verify_"):
            out |= tables
    return frozenset(out)


def task_shape(domain: Domain, task: Task, worlds: WorldCache) -> TaskShape:
    """Replay ``task``'s golden trajectory (every call, refused ones too) and measure it."""
    world = worlds.clone(domain, task)
    writes = refused = 0
    recovery = False
    try:
        dispatcher = Dispatcher(world, domain.tools, None)
        seen = _written(world)
        touched: list[tuple[str, frozenset[str]]] = []
        for call in task.golden:
            result = dispatcher.call(ToolCall(tool=call.tool, args=call.args))
            if not result.ok:
                refused += 1
                touched.append(("", frozenset()))
                continue
            now = _written(world)
            touched.append((call.tool, frozenset(t for t, n in now.items() if n > seen.get(t, 0))))
            seen = now
        records = _record_tables(domain, touched)
        refused_so_far = 0
        for tool, tables in touched:
            if not tool:
                refused_so_far += 1
            elif tables - records:
                writes += 1
                recovery = recovery or refused_so_far > 0
    finally:
        world.close()
    intents = tuple(sorted(t.removeprefix(INTENT) for t in task.tags if t.startswith(INTENT)))
    family_branch = ".".join(task.id.split(".")[1:3])
    return TaskShape(
        task_id=task.id,
        domain=task.domain,
        split=task.split,
        golden_calls=len(task.golden),
        business_writes=writes,
        refused_calls=refused,
        recovery=recovery,
        intents=intents,
        branches=intents or (family_branch,),
        sequence=tuple(c.tool for c in task.golden),
        signature=task_signature(task),
        reply_check=task.checks.reply is not None,
    )


def _summarise(
    name: str, shapes: Sequence[TaskShape], policy_words: int | None, targets: ShapeTargets | None
) -> DomainShape:
    test = [s for s in shapes if s.split == "test"]
    train = [s for s in shapes if s.split == "train"]
    signatures = Counter((s.domain, s.signature) for s in test)
    train_branches = {(s.domain, b) for s in train for b in s.branches}
    train_signatures = {(s.domain, s.signature) for s in train}
    leaked = sorted(
        {f"{s.domain}:{b}" for s in test for b in s.branches if (s.domain, b) in train_branches}
    )
    shape = DomainShape(
        domain=name,
        test_tasks=len(test),
        train_tasks=len(train),
        median_golden_calls=float(median([s.golden_calls for s in test])) if test else 0.0,
        median_business_writes=float(median([s.business_writes for s in test])) if test else 0.0,
        no_write=sum(s.business_writes == 0 for s in test),
        no_write_without_reply_check=sum(
            s.business_writes == 0 and not s.reply_check for s in test
        ),
        distinct_sequences=len({(s.domain, s.sequence) for s in test}),
        reinstances=sum(signatures[s.domain, s.signature] > 1 for s in test),
        recovery=sum(s.recovery for s in test),
        multi_intent=sum(len(s.intents) >= 2 for s in test),
        leaked_branches=tuple(leaked),
        test_tasks_with_train_sibling=sum(
            (s.domain, s.signature) in train_signatures
            or any((s.domain, b) in train_branches for b in s.branches)
            for s in test
        ),
        policy_words=policy_words,
    )
    return shape.model_copy(update={"misses": _misses(shape, targets)}) if targets else shape


def _misses(shape: DomainShape, t: ShapeTargets) -> tuple[str, ...]:
    out: list[str] = []

    def at_least(what: str, got: float, want: float | None) -> None:
        if want is not None and got < want:
            out.append(f"{what} {got:g} < {want:g}")

    def at_most(what: str, got: float, want: float | None) -> None:
        if want is not None and got > want:
            out.append(f"{what} {got:.3f} > {want:g}")

    at_least("test tasks", shape.test_tasks, t.test_tasks)
    at_least("train tasks", shape.train_tasks, t.train_tasks)
    at_least("median golden calls", shape.median_golden_calls, t.median_golden_calls)
    at_least("median business writes", shape.median_business_writes, t.median_business_writes)
    at_most("no-write share", shape.no_write_share, t.no_write_share)
    if shape.no_write_without_reply_check:
        out.append(f"{shape.no_write_without_reply_check} no-write tasks without a reply check")
    at_least(
        "distinct sequences per task",
        round(shape.distinct_sequences_per_task, 3),
        t.distinct_sequences_per_task,
    )
    at_most("re-instance share", shape.reinstance_share, t.reinstance_share)
    at_least("recovery share", round(shape.recovery_share, 3), t.recovery_share)
    at_least("multi-intent share", round(shape.multi_intent_share, 3), t.multi_intent_share)
    if shape.train_tasks and shape.test_tasks_with_train_sibling:
        out.append(f"{shape.test_tasks_with_train_sibling} test tasks share a train branch")
    if shape.policy_words is not None:
        at_least("policy words", shape.policy_words, t.policy_words)
    return tuple(out)


def suite_shape(
    domains: Mapping[str, Domain],
    tasks: Iterable[Task],
    *,
    targets: ShapeTargets | None = None,
    worlds: WorldCache | None = None,
) -> SuiteShape:
    """Measure a suite: each task replayed, then summarised per domain and overall.

    Args:
        domains: Domain name → domain, for every task's domain.
        tasks: The suite (both splits: leaks are measured between them).
        targets: Promised numbers; each shape lists the ones it misses. Overall, the
            task counts are the per-domain ones times the number of domains.
        worlds: A world cache to share (a fresh one otherwise).
    """
    worlds = worlds or WorldCache()
    shapes = [task_shape(domains[t.domain], t, worlds) for t in tasks]
    by_domain: dict[str, list[TaskShape]] = {}
    for s in shapes:
        by_domain.setdefault(s.domain, []).append(s)
    words = {n: len(domains[n].policy_text(record_steps=True).split()) for n in by_domain}
    per = tuple(_summarise(n, by_domain[n], words[n], targets) for n in sorted(by_domain))
    overall_targets = None
    if targets is not None:
        k = len(by_domain)
        overall_targets = targets.model_copy(
            update={
                "test_tasks": None if targets.test_tasks is None else targets.test_tasks * k,
                "train_tasks": None if targets.train_tasks is None else targets.train_tasks * k,
            }
        )
    overall = _summarise("all", shapes, min(words.values()) if words else None, overall_targets)
    return SuiteShape(domains=per, overall=overall, tasks=tuple(shapes))
