"""statebox-bench 2.0, one suite over the built-in domains: regeneration, shape targets,
no train/test leak, validity (check strength 1.0, the oracle's episode included) and the
fault agent's failure signatures.

Each test runs on the five built-in domains and on the versioned toy domain
(`fixtures.toy.gen_v2`), whose small v2 suite keeps every check exercised — and able to
fail — whatever the built-in tasks are. What differs between cases is data in `Case`.

CI budget (tests/domains is one xdist file per worker): every v2 test task is validated
and played by the fault agent once (a module-scoped fixture shares one load and one
shape measurement per case); of the train tasks a deterministic sample (every
`TRAIN_SAMPLE`-th by id) is validated here, and the whole train suite by hand with
``statebox tasks validate --suite train``.
"""

from __future__ import annotations

import asyncio
import filecmp
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from fixtures.toy import gen_v2, make_domain
from statebox.agents import FaultInjectionFactory, FaultRates
from statebox.domains import Domain
from statebox.judge import (
    DomainShape,
    Judge,
    ShapeTargets,
    SuiteShape,
    YesJudge,
    suite_shape,
    validate_task,
)
from statebox.records import read_results
from statebox.registry import Registry, default_registry
from statebox.report import SUITE_TARGETS, summarize
from statebox.runner import Campaign, run_campaign
from statebox.tasks import SuiteName, Task, WorldCache

VERSION = "2.0"
BUILTIN = ("auto_insurance", "consulting_hr", "neobank_it", "retail", "travel")
CASES = (*BUILTIN, "toy")
TARGETS = SUITE_TARGETS[VERSION]
TRAIN_SAMPLE = 10
"""Validate every this-many-th train task (by id) here; all of them by hand."""
FAULTS = FaultRates(skip_write=0.3, wrong_value=0.3, extra_write=0.2, stop_early=0.1)
"""Rates that reach every failure kind: skip_write/stop_early before any write
(no_state_change), wrong_value after a recovery's refused call or on a refused write
(tool_usage), wrong_value and extra_write (wrong_state_update), stop_early before the
final reply of a task with a reply or text fact to state (incomplete_resolution)."""
KINDS = {"no_state_change", "tool_usage", "wrong_state_update", "incomplete_resolution"}
TOY_TARGETS = ShapeTargets(
    test_tasks=3,
    train_tasks=1,
    median_golden_calls=3,
    median_business_writes=2,
    no_write_share=0.34,
    distinct_sequences_per_task=1.0,
    reinstance_share=0.0,
    recovery_share=0.33,
    multi_intent_share=0.33,
    policy_words=10,
)
"""The toy suite's own numbers (three test tasks, one train task)."""


@dataclass(frozen=True)
class Case:
    """One domain's v2 suite: where it is, what writes it, what it promises."""

    domain: Domain
    generate: Callable[[Path], None]
    targets: ShapeTargets
    registry: Registry

    @property
    def folder(self) -> Path:
        return self.domain.suites[VERSION]

    def tasks(self, split: str) -> list[Task]:
        ref = SuiteName(scope=self.domain.name, split=split, version=VERSION)  # type: ignore[arg-type]
        return self.registry.suite(ref)


def _builtin(name: str, registry: Registry) -> Case:
    def generate(out: Path) -> None:
        importlib.import_module(f"scripts.gen_{name}_tasks_v2.__main__").main(out)

    return Case(registry.domain(name), generate, TARGETS, registry)


class Suites:
    """Each case's tasks and shape, loaded once per module (the tests share them)."""

    def __init__(self) -> None:
        self.registry = default_registry()
        toy = make_domain(versioned=True)
        self.cases = {n: _builtin(n, self.registry) for n in BUILTIN}
        self.cases["toy"] = Case(toy, gen_v2.main, TOY_TARGETS, Registry([toy]))
        self._tasks: dict[str, tuple[list[Task], list[Task]]] = {}
        self._shapes: dict[str, DomainShape] = {}
        self._whole: SuiteShape | None = None

    def split(self, name: str) -> tuple[list[Task], list[Task]]:
        if name not in self._tasks:
            c = self.cases[name]
            self._tasks[name] = (c.tasks("test"), c.tasks("train"))
        return self._tasks[name]

    def whole(self) -> SuiteShape:
        """The built-in domains' shape, both splits, measured once (per domain and overall)."""
        if self._whole is None:
            tasks = [t for n in BUILTIN for split in self.split(n) for t in split]
            domains = {n: self.cases[n].domain for n in BUILTIN}
            self._whole = suite_shape(domains, tasks, targets=TARGETS)
        return self._whole

    def shape(self, name: str) -> DomainShape:
        if name in BUILTIN:
            return next(d for d in self.whole().domains if d.domain == name)
        if name not in self._shapes:
            c = self.cases[name]
            test, train = self.split(name)
            shape = suite_shape({c.domain.name: c.domain}, [*test, *train], targets=c.targets)
            self._shapes[name] = shape.domains[0]
        return self._shapes[name]


@pytest.fixture(scope="module")
def suites() -> Suites:
    return Suites()


def test_every_builtin_domain_ships_2_0_and_it_is_the_default() -> None:
    registry = default_registry()
    assert registry.builtin_domains() == sorted(BUILTIN)
    missing = [n for n in BUILTIN if VERSION not in registry.domain(n).versions()]
    assert missing == [], f"no {VERSION} tasks (tasks_v2/) in {missing}"
    assert registry.default_suite_version() == VERSION
    assert str(registry.resolve_suite("all")) == f"all@{VERSION}"


@pytest.mark.parametrize("name", CASES)
def test_the_v2_generator_regenerates_byte_identical_files(
    name: str, suites: Suites, tmp_path: Path
) -> None:
    case = suites.cases[name]
    case.generate(tmp_path)
    for split in ("test", "train"):
        committed, fresh = case.folder / split, tmp_path / split
        names = sorted(p.name for p in committed.glob("*.yaml"))
        assert names, f"{committed}: no task files"
        assert names == sorted(p.name for p in fresh.glob("*.yaml"))
        _, mismatch, errors = filecmp.cmpfiles(committed, fresh, names, shallow=False)
        assert (split, mismatch, errors) == (split, [], [])


@pytest.mark.parametrize("name", CASES)
def test_the_v2_suite_meets_its_shape_targets(name: str, suites: Suites) -> None:
    shape = suites.shape(name)
    assert shape.misses == ()
    test, train = suites.split(name)
    assert {t.split for t in test} == {"test"} and {t.split for t in train} == {"train"}
    assert all(t.policy_mode is None for t in [*test, *train])  # the campaign picks
    if name in BUILTIN:  # mandatory steps are recorded (the toy has no step tools)
        assert all(t.record_steps for t in [*test, *train])


@pytest.mark.parametrize("name", CASES)
def test_train_and_test_share_no_branch_or_signature(name: str, suites: Suites) -> None:
    shape = suites.shape(name)
    assert (shape.leaked_branches, shape.test_tasks_with_train_sibling) == ((), 0)


def test_the_whole_v2_suite_meets_the_targets_and_leaks_nothing(suites: Suites) -> None:
    registry = suites.registry
    all_test, train = registry.suite(f"all@{VERSION}"), registry.suite(f"train@{VERSION}")
    assert [t.id for t in all_test] == [t.id for n in BUILTIN for t in suites.split(n)[0]]
    assert [t.id for t in train] == [t.id for n in BUILTIN for t in suites.split(n)[1]]
    o = suites.whole().overall  # over these tasks: all@2.0 and train@2.0
    assert (o.test_tasks, o.train_tasks) >= (5 * 100, 5 * 200)
    assert (o.misses, o.leaked_branches, o.test_tasks_with_train_sibling) == ((), (), 0)


def _sample(train: list[Task]) -> list[Task]:
    return sorted(train, key=lambda t: t.id)[::TRAIN_SAMPLE]


@pytest.mark.slow
@pytest.mark.parametrize("name", CASES)
def test_every_v2_test_task_is_valid_with_full_check_strength(name: str, suites: Suites) -> None:
    case = suites.cases[name]
    test, train = suites.split(name)
    judge = Judge(case.domain, WorldCache())

    async def go() -> list[tuple[str, bool, float | None, tuple[str, ...]]]:
        out = []
        for t in [*test, *_sample(train)]:
            # Validation plays the oracle's full episode too ("the oracle fails its own
            # checks" is a problem), and the noop and refuse floors.
            v = await validate_task(case.domain, t, judge)
            out.append((t.id, v.ok, v.check_strength, v.problems))
        return out

    results = asyncio.run(go())
    assert results
    assert [r for r in results if not r[1]] == []
    assert {r[2] for r in results} == {1.0}


def _fault_signatures(tasks: list[Task], registry: Registry, trials: int, out: Path) -> set[str]:
    campaign = Campaign(
        tasks=tasks,
        agents=[FaultInjectionFactory(FAULTS)],
        trials=trials,
        out=out,
        seed=3,
        rubric=YesJudge(),
    )
    asyncio.run(run_campaign(campaign, registry))
    return set(summarize(read_results(out))["failures"]["signatures"])


@pytest.mark.slow
@pytest.mark.parametrize("which", ["builtin", "toy"])
def test_fault_agent_failures_spread_over_the_four_kinds(
    which: str, suites: Suites, tmp_path: Path
) -> None:
    # incomplete_resolution needs the state right and the reply wrong: the fault agent
    # gets there by stopping before its reply, which on a task with writes needs every
    # write unfaulted and no earlier stop (a few % of trials at 2.0's depth); on a task
    # with no write (each has a reply check) any stop does it. So: every test task once,
    # pooled over the domains, and the reply-checked ones three more times.
    if which == "toy":
        test, _ = suites.split("toy")
        kinds = _fault_signatures(test, suites.cases["toy"].registry, 20, tmp_path)
    else:
        test = [t for n in BUILTIN for t in suites.split(n)[0]]
        kinds = _fault_signatures(test, suites.registry, 1, tmp_path / "all")
        replied = [t for t in test if t.checks.reply is not None]
        kinds |= _fault_signatures(replied, suites.registry, 3, tmp_path / "replied")
    assert kinds >= KINDS, kinds
