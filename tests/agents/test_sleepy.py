"""The simulated-latency agent: the oracle's verdicts, a fixed wait per action, a limit."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from statebox.agents import SleepyFactory, SleepyOptions
from statebox.errors import ConfigError
from statebox.records import read_results
from statebox.registry import Registry
from statebox.runner import Campaign, run_campaign
from statebox.tasks import Task


def test_spec_builds_a_sleepy_agent(registry: Registry) -> None:
    agent = registry.agent("sleepy:latency_s=2,max_connections=16")
    assert isinstance(agent, SleepyFactory)
    assert agent.config == {"latency_s": 2.0, "max_connections": 16}
    assert agent.agent_id.startswith("sleepy-")
    assert registry.agent("sleepy").config == {"latency_s": 0.1}
    with pytest.raises(ConfigError, match="latency_s"):
        registry.agent("sleepy:latency_s=-1")
    with pytest.raises(ConfigError, match="key=value"):
        registry.agent("sleepy:fast")


def test_sleepy_passes_like_the_oracle_and_meters_one_call_per_action(
    registry: Registry, toy_tasks: list[Task], results_dir: Path
) -> None:
    c = Campaign(
        tasks=toy_tasks,
        agents=[SleepyFactory(SleepyOptions(latency_s=0.01))],
        trials=2,
        out=results_dir,
    )
    asyncio.run(run_campaign(c, registry))
    records = read_results(results_dir)
    assert len(records) == 6
    assert all(r.status == "passed" for r in records)
    # One question for the facts (every toy task has some), each golden call, then End.
    golden = {t.id: 1 + len(t.golden) + 1 for t in toy_tasks}
    for r in records:
        assert r.usage["agent"].calls == golden[r.task_id]
        assert {c.model for c in r.model_calls} == {"sleepy:sleepy"}
        assert all(c.latency_s >= 0.01 for c in r.model_calls)
        assert r.timings.total_s >= 0.01 * golden[r.task_id]


def test_max_connections_caps_calls_in_flight_locally(
    registry: Registry, toy_tasks: list[Task], results_dir: Path
) -> None:
    # 6 trials at once, each action 0.05 s, but one call at a time: the campaign can go
    # no faster than every call in a row.
    calls = sum(len(t.golden) + 1 for t in toy_tasks) * 2
    agent = SleepyFactory(SleepyOptions(latency_s=0.05, max_connections=1))
    c = Campaign(tasks=toy_tasks, agents=[agent], trials=2, out=results_dir, concurrency=6)
    t0 = time.perf_counter()
    asyncio.run(run_campaign(c, registry))
    assert time.perf_counter() - t0 >= calls * 0.05
    assert len(read_results(results_dir)) == 6
