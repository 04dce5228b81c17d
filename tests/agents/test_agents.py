"""The oracle and the seeded fault-injection agent."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fixtures.support import calls_of, make_agent, play
from statebox.agents import Agent, FaultInjectionFactory, FaultRates, OracleFactory
from statebox.domains import Domain
from statebox.errors import ConfigError
from statebox.judge import FailureSignature, Judge
from statebox.registry import Registry
from statebox.tasks import Task

NO_FAULTS = FaultRates(skip_write=0, wrong_value=0, extra_write=0, stop_early=0)
HIGH = FaultRates(skip_write=0.3, wrong_value=0.3, extra_write=0.3, stop_early=0.1)


def golden_calls(task: Task) -> list[tuple[str, dict]]:
    return [(c.tool, dict(c.args)) for c in task.golden]


def test_oracle_passes_every_toy_task(toy_domain: Domain, toy_tasks: list[Task]) -> None:
    factory = OracleFactory()
    assert factory.agent_id == "oracle" and factory.config == {}
    judge = Judge(toy_domain)
    for task in toy_tasks:
        agent = make_agent(factory, task, domain=toy_domain)
        assert isinstance(agent, Agent)
        played = asyncio.run(play(toy_domain, task, agent, judge=judge))
        assert played.verdict.passed, (task.id, played.verdict.checks)
        assert calls_of(played.transcript) == golden_calls(task)
        assert played.transcript[-1].kind == "end"
        final = task.reference_response or "All done: your request has been handled."
        assert played.transcript[-1].text == final


def fault_run(domain: Domain, task: Task, rates: FaultRates, trial: int, seed: int = 0):  # type: ignore[no-untyped-def]
    agent = make_agent(FaultInjectionFactory(rates), task, trial, seed, domain=domain)
    return asyncio.run(play(domain, task, agent))


def test_fault_agent_without_faults_is_the_oracle(
    toy_domain: Domain, toy_tasks: list[Task]
) -> None:
    for task in toy_tasks:
        played = fault_run(toy_domain, task, NO_FAULTS, trial=3)
        assert calls_of(played.transcript) == golden_calls(task)
        assert played.verdict.passed


def test_fault_agent_is_deterministic_per_seed_task_trial(
    toy_domain: Domain, toy_tasks: list[Task]
) -> None:
    freeze = toy_tasks[1]
    for trial in range(8):
        a = fault_run(toy_domain, freeze, HIGH, trial)
        b = fault_run(toy_domain, freeze, HIGH, trial)
        assert calls_of(a.transcript) == calls_of(b.transcript)
        assert a.verdict == b.verdict
        assert a.final == b.final


def test_fault_agent_differs_across_trials_and_seeds(
    toy_domain: Domain, toy_tasks: list[Task]
) -> None:
    freeze = toy_tasks[1]
    plans = [
        tuple(map(repr, calls_of(fault_run(toy_domain, freeze, HIGH, t).transcript)))
        for t in range(12)
    ]
    assert len(set(plans)) >= 4
    assert any(p != tuple(map(repr, golden_calls(freeze))) for p in plans)
    other_seed = [
        tuple(map(repr, calls_of(fault_run(toy_domain, freeze, HIGH, t, seed=7).transcript)))
        for t in range(12)
    ]
    assert other_seed != plans


_PLAN_SCRIPT = """
import asyncio, sys
sys.path.insert(0, sys.argv[1])
from fixtures.support import TOY_TASKS, calls_of, make_agent, play
from fixtures.toy import make_domain
from statebox.agents import FaultInjectionFactory, FaultRates
from statebox.tasks import load_tasks
d = make_domain()
rates = FaultRates(skip_write=0.3, wrong_value=0.3, extra_write=0.3, stop_early=0.1)
for task in load_tasks(TOY_TASKS):
    for trial in range(6):
        agent = make_agent(FaultInjectionFactory(rates), task, trial, 0, domain=d)
        print(calls_of(asyncio.run(play(d, task, agent)).transcript))
"""


def test_fault_plans_do_not_depend_on_the_hash_seed() -> None:
    tests = str(Path(__file__).resolve().parents[1])
    outs = []
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        proc = subprocess.run(
            [sys.executable, "-c", _PLAN_SCRIPT, tests],
            capture_output=True,
            text=True,
            env=env,
            check=True,
            timeout=60,
        )
        outs.append(proc.stdout)
    assert outs[0].count("\n") == 18
    assert outs[0] == outs[1]


def test_skip_every_write_leaves_effects_missing(toy_domain: Domain, toy_tasks: list[Task]) -> None:
    rates = FaultRates(skip_write=1.0, wrong_value=0, extra_write=0, stop_early=0)
    for task in toy_tasks[:2]:  # the write tasks
        for trial in range(3):
            played = fault_run(toy_domain, task, rates, trial)
            v = played.verdict
            assert not v.passed
            assert v.signature == FailureSignature.NO_STATE_CHANGE
            assert len(v.comparison.missing) == len(v.expected_effects) > 0
            assert v.comparison.wrong == () and v.comparison.extra == ()
            assert v.actual_effects == ()
            mutating = {"set_status", "add_note", "delete_note", "transfer"}
            assert not [c for c, _ in calls_of(played.transcript) if c in mutating]
    # A read-only task has no write to skip.
    assert fault_run(toy_domain, toy_tasks[2], rates, 0).verdict.passed


def test_wrong_value_changes_one_argument(toy_domain: Domain, task: Task) -> None:
    rates = FaultRates(skip_write=0, wrong_value=1.0, extra_write=0, stop_early=0)
    played = fault_run(toy_domain, task, rates, 0)
    (read, write) = calls_of(played.transcript)
    assert read == ("get_account", {"account_id": "A1"})
    assert write[0] == "transfer"
    assert {k: v for k, v in write[1].items() if k != "amount"} == {"src": "A1", "dst": "A2"}
    assert write[1]["amount"] != 40  # numbers are preferred over ids
    assert not played.verdict.passed


def test_extra_write_adds_a_perturbed_copy(toy_domain: Domain, toy_tasks: list[Task]) -> None:
    rates = FaultRates(skip_write=0, wrong_value=0, extra_write=1.0, stop_early=0)
    freeze = toy_tasks[1]
    calls = calls_of(fault_run(toy_domain, freeze, rates, 0).transcript)
    assert len(calls) == 2 * len(freeze.golden)
    assert [c for c, _ in calls] == [
        "set_status",
        "set_status",
        "add_note",
        "add_note",
        "delete_note",
        "delete_note",
    ]
    status = calls[1][1]["status"]
    assert status in {"active", "closed"}  # another value of the enum


def test_stop_early_ends_before_any_call(toy_domain: Domain, task: Task) -> None:
    rates = FaultRates(skip_write=0, wrong_value=0, extra_write=0, stop_early=1.0)
    played = fault_run(toy_domain, task, rates, 0)
    assert calls_of(played.transcript) == []
    assert played.verdict.signature == FailureSignature.NO_STATE_CHANGE


def test_fault_agent_id_hashes_its_rates() -> None:
    a = FaultInjectionFactory()
    assert a.agent_id.startswith("fault-") and len(a.agent_id) == len("fault-") + 8
    assert a.agent_id == FaultInjectionFactory(FaultRates()).agent_id
    assert FaultInjectionFactory(HIGH).agent_id != a.agent_id
    assert a.config == {
        "skip_write": 0.08,
        "wrong_value": 0.08,
        "extra_write": 0.05,
        "stop_early": 0.03,
        "trust_user": 0.2,
        "repeat_ask": 0.2,
        "no_follow_up": 0.2,
    }


def test_registry_builds_agents_from_specs() -> None:
    reg = Registry()
    assert reg.agent("oracle").agent_id == "oracle"
    fault = reg.agent("fault:skip_write=1.0,stop_early=0")
    assert isinstance(fault, FaultInjectionFactory)
    assert fault.rates.skip_write == 1.0 and fault.rates.stop_early == 0
    assert fault.rates.wrong_value == 0.08
    with pytest.raises(ConfigError, match="unknown agent 'gpt'"):
        reg.agent("gpt")
    with pytest.raises(ConfigError, match="takes no options"):
        reg.agent("oracle:x=1")
    with pytest.raises(ConfigError, match="use key=value"):
        reg.agent("fault:skip_write")
    with pytest.raises(ConfigError, match="fault agent options"):
        reg.agent("fault:typo=0.5")


@pytest.mark.parametrize("spec", ["fault:skip_write=2", "fault:stop_early=-0.5"])
def test_fault_rates_outside_0_1_are_refused(spec: str) -> None:
    with pytest.raises(ConfigError):
        Registry().agent(spec)
