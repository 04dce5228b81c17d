"""The five built-in domains, one suite: breadth, task mix, regeneration, step tools, policy
search, validity and campaigns. What differs between domains is data in `SPECS`; the
scripted cases of each domain's key rules are in test_key_cases.py."""

from __future__ import annotations

import asyncio
import filecmp
import importlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

import pytest

from statebox.agents import FaultInjectionFactory, FaultRates, OracleFactory
from statebox.domains import Domain
from statebox.judge import Judge, YesJudge, validate_task
from statebox.records import read_results
from statebox.registry import default_registry
from statebox.report import summarize
from statebox.runner import Campaign, run_campaign
from statebox.tasks import Task, WorldCache
from statebox.tools import Dispatcher, ToolCall
from statebox.world import World

READ_PREFIXES = ("get_", "list_", "find_", "validate_", "quote_", "search_", "check_")
UserFactRule = Literal["a-fact-is-unopened", "private-unopened"]


@dataclass(frozen=True)
class Spec:
    """What one domain promises (the figures its own tests asserted before)."""

    tables: int | None
    """Tables of the 1.0 schema (step tables apart); None: at least `min_tables`."""
    tools: int | None
    """Tools offered by default (the 1.0 set); None: at least `min_tools`."""
    mutating: int | None
    """Mutating tools among them; None: some but not all."""
    excluded: frozenset[tuple[str, str]]
    """The field policy: only free text is left out of comparison."""
    step_tables: frozenset[str]
    """Tables written only by step tools."""
    step_tools: frozenset[str]
    """The step tools."""
    verify: Callable[[World], tuple[str, dict[str, Any]]] | None
    """A passing call of the domain's verification tool, built from the seed; None: the
    domain's verification is a core tool (auto_insurance's verify_identity)."""
    search: tuple[str, str]
    """A policy question and the heading of the article that answers it."""
    tasks: int | None = None
    """Built-in tasks; None: at least `min_tasks`."""
    families: int | None = None
    """Task families; None: at least `min_families`."""
    min_per_family: int = 1
    min_tables: int = 12
    min_tools: int = 25
    min_tasks: int = 40
    min_families: int = 8
    mix: bool = True
    """The mix rules: ≥20% user-fact, ≥10% refusals, ≥15 rubric tasks with a reference
    response, 15-25% train split, invariants and a changes-goal request on every task."""
    user_fact: UserFactRule | None = None
    reads: frozenset[str] | None = None
    """The exact read-only tools, where the domain pins them."""
    read_prefixes: tuple[str, ...] = READ_PREFIXES
    """Every read-only tool's name starts with one of these; no mutating one does."""
    facts_everywhere: bool = True
    """Every task's user holds facts (the agent must ask for something)."""
    min_policy_words: int = 1500
    policy_has: tuple[str, ...] = ()
    families_include: tuple[str, ...] = ()
    fault: tuple[FaultRates, int] | None = field(
        default=(FaultRates(skip_write=0.3, wrong_value=0.3, extra_write=0.3, stop_early=0.0), 3)
    )
    """Fault rates and seed of the fault campaign; None: no campaign test."""


def _employee(w: World) -> tuple[str, dict[str, Any]]:
    e = w.query("SELECT id, email FROM employees ORDER BY id LIMIT 1")[0]
    return "verify_employee", {"employee_id": e["id"], "email": e["email"]}


def _retail_customer(w: World) -> tuple[str, dict[str, Any]]:
    c = w.query("SELECT id, email, first_name, last_name FROM customers ORDER BY id LIMIT 1")[0]
    full = f"{c['first_name']} {c['last_name']}"
    return "verify_customer", {"customer_id": c["id"], "email": c["email"], "full_name": full}


def _travel_customer(w: World) -> tuple[str, dict[str, Any]]:
    c = w.query("SELECT id, email FROM customers ORDER BY id LIMIT 1")[0]
    return "verify_customer", {"customer_id": c["id"], "email": c["email"]}


STEPS = frozenset({"verification_log", "consent_log"})
SPECS: dict[str, Spec] = {
    "retail": Spec(
        tables=None,
        tools=None,
        mutating=None,
        excluded=frozenset(
            {
                ("ticket_comments", "body"),
                ("tickets", "subject"),
                ("warranty_claims", "description"),
            }
        ),
        step_tables=STEPS,
        step_tools=frozenset({"verify_customer", "record_disclosure"}),
        verify=_retail_customer,
        search=("agent refund limit per order", "6. Refunds and goodwill"),
        mix=False,
        families_include=("delivery-exception",),
        min_policy_words=1000,
        fault=None,
    ),
    "travel": Spec(
        tables=18,
        tools=30,
        mutating=19,
        excluded=frozenset(
            {
                ("customer_notes", "body"),
                ("ticket_notes", "body"),
                ("tickets", "subject"),
                ("special_requests", "detail"),
                ("hotel_escalations", "detail"),
            }
        ),
        step_tables=STEPS,
        step_tools=frozenset({"verify_customer", "record_disclosure", "record_confirmation"}),
        verify=_travel_customer,
        search=("cancellation fee flex fare", "3. Cancellations"),
        tasks=121,
        families=11,
        min_per_family=8,
        user_fact="private-unopened",
        read_prefixes=("get_", "list_", "find_", "validate_", "quote_"),
    ),
    "auto_insurance": Spec(
        tables=17,
        tools=33,
        mutating=26,
        excluded=frozenset(
            {("crm_notes", "body"), ("tickets", "subject"), ("claims", "description")}
        ),
        step_tables=frozenset({"consent_log"}),
        step_tools=frozenset({"record_disclosure"}),
        verify=None,
        search=("grace period late fee", "5. Billing › 5.1 Due dates and grace period"),
        tasks=139,
        families=12,
        min_per_family=6,
        user_fact="a-fact-is-unopened",
        facts_everywhere=False,
        reads=frozenset(
            {
                "get_customer",
                "get_policy",
                "get_billing",
                "list_claims",
                "get_claim",
                "list_crm_notes",
                "list_customer_tickets",
            }
        ),
        min_policy_words=2000,
        fault=(FaultRates(skip_write=0.2, wrong_value=0.2, extra_write=0.2, stop_early=0.0), 7),
    ),
    "neobank_it": Spec(
        tables=None,
        tools=36,
        mutating=20,
        excluded=frozenset(
            {
                ("access_requests", "justification"),
                ("notifications", "body"),
                ("security_incidents", "description"),
                ("tickets", "subject"),
            }
        ),
        step_tables=STEPS,
        step_tools=frozenset({"verify_employee", "record_confirmation"}),
        verify=_employee,
        search=(
            "segregation of duties conflict",
            "2. Access requests › 2.2 Deciding a pending request",
        ),
        tasks=127,
        families=11,
        min_per_family=10,
        read_prefixes=("get_", "list_", "find_"),
    ),
    "consulting_hr": Spec(
        tables=17,
        tools=44,
        mutating=29,
        excluded=frozenset(
            {("expense_claims", "description"), ("ticket_notes", "body"), ("tickets", "subject")}
        ),
        step_tables=STEPS,
        step_tools=frozenset({"verify_employee", "record_disclosure"}),
        verify=_employee,
        search=("expense claim limits receipts", "6. Expense claims"),
        tasks=117,
        families=10,
        min_per_family=10,
        user_fact="private-unopened",
        min_policy_words=1000,
        policy_has=("1.5 ×", "90 days"),
    ),
}
NAMES = sorted(SPECS)
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def suites() -> dict[str, list[Task]]:
    registry = default_registry()
    return {name: registry.suite(f"{name}@1.0") for name in NAMES}


def _domain(name: str) -> Domain:
    return default_registry().domain(name)


@pytest.mark.parametrize("name", NAMES)
def test_the_domain_has_the_promised_breadth(name: str) -> None:
    spec, d = SPECS[name], _domain(name)
    tables = set(d.template().tables)
    assert spec.step_tables <= tables
    core_tables = len(tables - spec.step_tables)
    if spec.tables is None:
        assert core_tables >= spec.min_tables
    else:
        assert core_tables == spec.tables
    offered = d.offered()
    mutating = {n for n in offered if d.tools[n].mutates}
    if spec.tools is None:
        assert len(offered) >= spec.min_tools
    else:
        assert len(offered) == spec.tools
    if spec.mutating is None:
        assert 0 < len(mutating) < len(offered)
    else:
        assert len(mutating) == spec.mutating
    if spec.reads is not None:
        assert set(offered) - mutating == spec.reads
    # Mutating flags follow the tool names.
    assert all(n.startswith(spec.read_prefixes) for n in set(offered) - mutating)
    assert not any(n.startswith(spec.read_prefixes) for n in mutating)
    # Only free text is left out of comparison; every exclusion says why.
    assert {(e.table, e.column) for e in d.field_policy.excluded} == spec.excluded
    assert all(e.reason for e in d.field_policy.excluded)
    assert len(d.policy.split()) > spec.min_policy_words
    for phrase in spec.policy_has:
        assert phrase in d.policy


@pytest.mark.parametrize("name", NAMES)
def test_the_task_mix_follows_the_rules(name: str, suites: dict[str, list[Task]]) -> None:
    spec, tasks = SPECS[name], suites[name]
    n = len(tasks)
    assert n == spec.tasks if spec.tasks is not None else n >= spec.min_tasks
    families = Counter(t.family for t in tasks)
    if spec.families is None:
        assert len(families) >= spec.min_families
    else:
        assert len(families) == spec.families
    assert min(families.values()) >= spec.min_per_family
    assert set(spec.families_include) <= set(families)
    assert any(t.split == "train" for t in tasks)
    assert len({t.id for t in tasks}) == n
    # Suite 1.0 serves the policy in the prompt and records no steps.
    assert all(t.policy_mode is None and not t.record_steps for t in tasks)
    if not spec.mix:
        return
    assert sum("user-fact" in t.tags for t in tasks) >= 0.2 * n
    assert sum("refusal" in t.tags for t in tasks) >= 0.1 * n
    rubric = [t for t in tasks if t.checks.response and t.checks.response.rubric]
    assert len(rubric) >= 15
    assert all(t.reference_response for t in rubric)
    train = sum(t.split == "train" for t in tasks)
    assert 0.15 * n <= train <= 0.25 * n
    assert all(t.checks.invariants for t in tasks)
    # No turn-indexed script: facts the agent asks for, and a related request per family.
    assert all(t.user.behaviour.changed_from for t in tasks)
    if spec.facts_everywhere:
        assert all(t.user.facts for t in tasks)
    for t in tasks:
        if "user-fact" not in t.tags or spec.user_fact is None:
            continue
        private = {k: f for k, f in t.user.facts.items() if k != "email"}
        if spec.user_fact == "a-fact-is-unopened":
            # A user-fact task holds a fact the opening does not state.
            assert any(str(f.value) not in t.user.opening for f in t.user.facts.values()), t.id
            continue
        assert private, t.id
        assert all(str(f.value) not in t.user.opening for f in private.values()), t.id


@pytest.mark.parametrize("name", NAMES)
def test_the_generator_regenerates_byte_identical_files(name: str, tmp_path: Path) -> None:
    gen = importlib.import_module(f"scripts.gen_{name}_tasks.__main__")
    gen.main(tmp_path)
    committed = _domain(name).tasks_dir
    assert committed is not None
    names = sorted(p.name for p in committed.glob("*.yaml"))
    assert names == sorted(p.name for p in tmp_path.glob("*.yaml"))
    _, mismatch, errors = filecmp.cmpfiles(committed, tmp_path, names, shallow=False)
    assert (mismatch, errors) == ([], [])


@pytest.mark.parametrize("name", NAMES)
def test_step_tools_are_recorded_and_offered_only_where_steps_are(name: str) -> None:
    spec, d = SPECS[name], _domain(name)
    assert d.step_tools == spec.step_tools
    assert all(d.tools[t].mutates for t in d.step_tools)
    offered, recording = set(d.offered()), set(d.offered(record_steps=True))
    assert not offered & d.step_tools and recording - offered == d.step_tools
    # The 1.0 policy names no step tool; the recording one documents each of them.
    assert not any(f"`{t}`" in d.policy for t in d.step_tools)
    assert all(f"`{t}`" in d.policy_text(record_steps=True) for t in d.step_tools)
    now = datetime.fromisoformat("2026-01-05T10:00:00+00:00")
    world = d.template().clone(now)
    try:
        for table in spec.step_tables:  # every step table starts empty
            assert world.query(f"SELECT count(*) AS n FROM {table}") == [{"n": 0}]
        if spec.verify is None:
            return
        tools = Dispatcher(world, d.toolset(record_steps=True), sorted(recording))
        verify, args = spec.verify(world)
        wrong = {k: (v + "x" if k == "email" else v) for k, v in args.items()}
        failed = tools.call(ToolCall(tool=verify, args=wrong))
        passed = tools.call(ToolCall(tool=verify, args=args))
        assert failed.ok and failed.output["verified"] is False, failed.error
        assert passed.ok and passed.output["verified"] is True
        log = world.query("SELECT result, created_at FROM verification_log ORDER BY id")
        assert log == [
            {"result": "failed", "created_at": now.isoformat()},
            {"result": "passed", "created_at": now.isoformat()},
        ]
    finally:
        world.close()


@pytest.mark.parametrize("name", NAMES)
def test_the_policy_search_finds_the_article_that_answers(name: str) -> None:
    d = _domain(name)
    query, title = SPECS[name].search
    assert d.knowledge_base().search(query, 1)[0]["title"] == title
    articles = d.knowledge_base().articles
    assert len(articles) >= 10
    assert "search_policy" in d.offered(policy_mode="search")
    assert f"{len(articles)} articles" in d.served_policy(policy_mode="search")
    assert len(d.served_policy(policy_mode="search").split()) < 80


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_every_task_is_valid_with_full_check_strength(
    name: str, suites: dict[str, list[Task]]
) -> None:
    d = _domain(name)
    judge = Judge(d, WorldCache())

    async def go() -> list[tuple[str, bool, float | None, tuple[str, ...]]]:
        out = []
        for t in suites[name]:
            v = await validate_task(d, t, judge)
            out.append((t.id, v.ok, v.check_strength, v.problems))
        return out

    results = asyncio.run(go())
    assert [r for r in results if not r[1]] == []
    assert {r[2] for r in results} == {1.0}


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in NAMES if SPECS[n].fault is not None])
def test_oracle_and_fault_campaigns(
    name: str, suites: dict[str, list[Task]], tmp_path: Path
) -> None:
    fault = SPECS[name].fault
    assert fault is not None
    rates, seed = fault
    registry, tasks = default_registry(), suites[name]
    # A judge model that says yes: the oracle's rubric questions are judged, not unjudged.
    oracle = Campaign(
        tasks=tasks, agents=[OracleFactory()], trials=2, out=tmp_path / "o", rubric=YesJudge()
    )
    asyncio.run(run_campaign(oracle, registry))
    assert summarize(read_results(tmp_path / "o"))["overall"]["pass_at_1"] == 1.0
    faulty = Campaign(
        tasks=tasks, agents=[FaultInjectionFactory(rates)], trials=1, out=tmp_path / "f", seed=seed
    )
    asyncio.run(run_campaign(faulty, registry))
    failures = summarize(read_results(tmp_path / "f"))["failures"]
    assert failures["with_missing"] > 0
    assert failures["with_wrong"] > 0
    assert failures["with_extra"] > 0
