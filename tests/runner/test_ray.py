"""The Ray executor on a local Ray cluster started here (2 CPUs, dashboard off).

Every test that needs the cluster is ``slow`` (CI runs them; the cluster starts once per
module, about 10 s, and each campaign starts its trial workers, a few seconds).

Same verdicts as the local executor over 510 trials; a trial worker killed mid-campaign
loses and duplicates nothing; the per-endpoint limit holds across workers; resume and
the CLI's ``--executor ray`` go through the same plan.
"""

from __future__ import annotations

import asyncio
import ipaddress
import os
import signal
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fixtures.ray_probe import PROBE_KEY, ProbeSetup
from fixtures.ray_probe import Counter as ProbeCounter
from fixtures.support import TOY_REF, TOY_TASKS
from statebox.cli import app
from statebox.errors import ConfigError
from statebox.records import read_errors, read_results
from statebox.registry import Registry, default_registry, load_domain_ref
from statebox.runner import Campaign, RayExecutor, RegistrySetup, run_campaign
from statebox.tasks import Task, load_tasks

ray = pytest.importorskip("ray")

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[Any]:
    """A local Ray head with 2 CPUs; workers find ``fixtures.*`` on their path."""
    saved = os.environ.get("RAY_USAGE_STATS_ENABLED")
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        logging_level="warning",
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": f"{TESTS}{os.pathsep}{ROOT}"}},
    )
    try:
        yield ray
    finally:
        ray.shutdown()
        if saved is None:
            os.environ.pop("RAY_USAGE_STATS_ENABLED", None)
        else:
            os.environ["RAY_USAGE_STATS_ENABLED"] = saved


@pytest.fixture(scope="module")
def toy_registry() -> Registry:
    registry = default_registry()
    registry.register_domain(load_domain_ref(TOY_REF))
    return registry


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    return load_tasks(TOY_TASKS)


def _campaign(registry: Registry, tasks: list[Task], spec: str, out: Path, **kw: Any) -> Campaign:
    return Campaign(tasks=tasks, agents=[registry.agent(spec)], agent_specs=(spec,), out=out, **kw)


def _outcomes(out: Path) -> dict[str, tuple[str, str | None]]:
    records = read_results(out)
    ids = [r.trial_id for r in records]
    assert len(ids) == len(set(ids)), "a trial was written twice"
    return {
        r.trial_id: (str(r.status), str(r.verdict.signature) if r.verdict else None)
        for r in records
    }


@pytest.mark.slow
def test_ray_gives_the_local_verdicts_over_510_trials(
    ray_cluster: Any, toy_registry: Registry, tasks: list[Task], tmp_path: Path
) -> None:
    spec = "fault:skip_write=0.3,wrong_value=0.2,extra_write=0.1,stop_early=0.05"
    local = _campaign(toy_registry, tasks, spec, tmp_path / "local", trials=170, concurrency=8)
    remote = local._replace(out=tmp_path / "ray", concurrency=32)
    asyncio.run(run_campaign(local, toy_registry))
    executor = RayExecutor(RegistrySetup((TOY_REF,)))
    result = asyncio.run(run_campaign(remote, toy_registry, executor=executor))
    assert (result.planned, result.ran, result.system_errors) == (510, 510, 0)
    assert len(executor.worker_pids) == 2
    a, b = _outcomes(tmp_path / "local"), _outcomes(tmp_path / "ray")
    assert len(a) == 510
    assert a == b
    statuses = Counter(s for s, _ in b.values())
    assert statuses["passed"] > 0 and statuses["failed"] > 0  # a real mix, not all alike


@pytest.mark.slow  # starts Ray trial workers (seconds each)
def test_killed_worker_loses_and_duplicates_nothing(
    ray_cluster: Any, toy_registry: Registry, tasks: list[Task], tmp_path: Path
) -> None:
    spec = "sleepy:latency_s=0.02"
    out = tmp_path / "run"
    c = _campaign(toy_registry, tasks, spec, out, trials=40, concurrency=16)
    executor = RayExecutor(RegistrySetup((TOY_REF,)), workers=2)
    killed: list[int] = []

    async def go() -> None:
        run = asyncio.create_task(run_campaign(c, toy_registry, executor=executor))
        while not (out / "results.jsonl").exists() or (
            len((out / "results.jsonl").read_text().splitlines()) < 20
        ):
            await asyncio.sleep(0.01)
        killed.append(executor.worker_pids[0])
        os.kill(killed[0], signal.SIGKILL)  # trials are in flight on it: sleepy never idles
        await run

    asyncio.run(go())
    outcomes = _outcomes(out)
    assert len(outcomes) == 120
    agent_id = c.agents[0].agent_id
    assert sorted(outcomes) == sorted(f"{t.id}/{agent_id}/{i}" for t in tasks for i in range(40))
    # Every trial of the killed worker was re-run on its restarted incarnation.
    assert Counter(s for s, _ in outcomes.values()) == {"passed": 120}
    assert read_errors(out) == []
    assert executor.endpoint_stats == {}  # unlimited sleepy takes no slots


@pytest.mark.slow  # starts Ray trial workers (seconds each)
def test_trials_of_a_worker_dead_beyond_retries_are_system_errors_then_retried(
    ray_cluster: Any, toy_registry: Registry, tasks: list[Task], tmp_path: Path
) -> None:
    spec = "sleepy:latency_s=0.02"
    out = tmp_path / "run"
    c = _campaign(toy_registry, tasks, spec, out, trials=20, concurrency=16)
    executor = RayExecutor(RegistrySetup((TOY_REF,)), workers=2, max_task_retries=0)

    async def go() -> None:
        run = asyncio.create_task(run_campaign(c, toy_registry, executor=executor))
        while not (out / "results.jsonl").exists() or (
            len((out / "results.jsonl").read_text().splitlines()) < 10
        ):
            await asyncio.sleep(0.01)
        os.kill(executor.worker_pids[0], signal.SIGKILL)
        await run

    asyncio.run(go())
    outcomes = _outcomes(out)
    assert len(outcomes) == 60  # nothing lost, nothing twice
    lost = sorted(k for k, (s, _) in outcomes.items() if s == "system_error")
    assert lost, "the killed worker had trials in flight"
    assert sorted(e.trial_id for e in read_errors(out)) == lost
    # Ray's own words for a dead actor (ActorDiedError, ActorUnavailableError, ...).
    assert all(
        issubclass(getattr(ray.exceptions, e.type), ray.exceptions.RayError)
        for e in read_errors(out)
    )
    # The canonical recovery: resume, re-running exactly the system errors.
    again = c._replace(resume=True, retry_errors=True)
    result = asyncio.run(run_campaign(again, toy_registry))
    assert (result.skipped, result.ran, result.system_errors) == (60 - len(lost), len(lost), 0)
    latest = {r.trial_id: str(r.status) for r in read_results(out)}  # the last record wins
    assert set(latest.values()) == {"passed"}


@pytest.mark.slow  # starts Ray trial workers (seconds each)
def test_endpoint_limit_holds_across_workers(
    ray_cluster: Any, toy_registry: Registry, tasks: list[Task], tmp_path: Path
) -> None:
    counter = ray.remote(ProbeCounter).options(name="probe-counter", max_concurrency=1000).remote()
    try:
        setup = ProbeSetup(TOY_REF, "probe-counter")
        kit = setup()  # the driver plans with the same agent the workers rebuild
        spec = "probe:max_connections=3,latency_s=0.03"
        c = _campaign(kit.registry, tasks, spec, tmp_path / "run", trials=12, concurrency=24)
        executor = RayExecutor(setup, workers=2)
        result = asyncio.run(run_campaign(c, kit.registry, executor=executor))
        assert (result.ran, result.system_errors) == (36, 0)
        peak, calls, now = ray.get(counter.stats.remote())
        # The question for the facts, each golden call, then End.
        golden_actions = sum(1 + len(t.golden) + 1 for t in tasks) * 12
        assert (peak, calls, now) == (3, golden_actions, 0)
        assert executor.endpoint_stats[PROBE_KEY] == {"limit": 3, "in_use": 0, "peak": 3}
    finally:
        ray.kill(counter)


@pytest.mark.slow  # starts Ray trial workers (seconds each)
def test_ray_resumes_a_local_campaign(
    ray_cluster: Any, toy_registry: Registry, tasks: list[Task], tmp_path: Path
) -> None:
    out = tmp_path / "run"
    asyncio.run(run_campaign(_campaign(toy_registry, tasks, "oracle", out, trials=2), toy_registry))
    bigger = _campaign(toy_registry, tasks, "oracle", out, trials=5, resume=True)
    result = asyncio.run(
        run_campaign(bigger, toy_registry, executor=RayExecutor(RegistrySetup((TOY_REF,))))
    )
    assert (result.planned, result.skipped, result.ran) == (15, 6, 9)
    assert sorted(_outcomes(out)) == sorted(f"{t.id}/oracle/{i}" for t in tasks for i in range(5))


@pytest.mark.slow  # starts Ray trial workers and MCP servers (seconds each)
def test_a_postgres_backend_runs_on_ray_sharing_the_drivers_server(
    ray_cluster: Any, postgres: Any, tmp_path: Path
) -> None:
    import psycopg

    from fixtures.backend_support import BACKEND_FILES, EXAMPLE
    from statebox.agents import OracleFactory
    from statebox.backends import load_backend, open_backend

    def databases() -> set[str]:
        with psycopg.connect(postgres.url) as conn:
            return {r[0] for r in conn.execute("SELECT datname FROM pg_database")}

    before = databases()
    backend = open_backend(load_backend(BACKEND_FILES["postgres"]), postgres_url=postgres.url)
    tasks = load_tasks(EXAMPLE / "tasks" / "refund.yaml")
    campaign = Campaign(
        tasks=tasks,
        agents=[OracleFactory()],
        agent_specs=("oracle",),
        trials=2,
        out=tmp_path / "run",
        environments={backend.name: backend},
    )

    async def go() -> None:
        try:
            await run_campaign(campaign, Registry(), executor=RayExecutor(workers=1))
        finally:
            await backend.aclose()

    asyncio.run(go())
    records = read_results(tmp_path / "run")
    # Records are written in completion order (two trials run at once).
    assert sorted((r.trial, str(r.status)) for r in records) == [(0, "passed"), (1, "passed")]
    assert all(r.verdict and r.verdict.actual_effects for r in records)
    assert databases() == before  # the worker dropped its templates and clones


@pytest.mark.slow  # starts Ray trial workers (seconds each)
def test_cli_executor_ray(ray_cluster: Any, tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["run", "--tasks", str(TOY_TASKS), "--domain", TOY_REF, "--trials", "2"]
    args += ["--agent", "sleepy:latency_s=0.01,max_connections=2", "--out", str(out)]
    result = CliRunner().invoke(app, [*args, "--executor", "ray", "--ray-workers", "2", "--json"])
    assert result.exit_code == 0, result.output
    assert Counter(str(r.status) for r in read_results(out)) == {"passed": 6}
    # The README's test command runs this where Ray can only bind loopback: no notice then.
    announced = "note: the local Ray listens on this machine's network address" in result.output
    assert announced == (os.environ.get("STATEBOX_NETNS") != "loopback")


@pytest.mark.slow  # starts Ray trial workers and ThinkingBox server processes
def test_cli_thinkingbox_on_ray_gives_the_local_verdicts(ray_cluster: Any, tmp_path: Path) -> None:
    """A ThinkingBox dataset with knowledge-base sources (the built-in search service, one
    per node) and fork servers on Ray workers: the same verdicts as the local executor."""
    fixture = TESTS / "fixtures" / "thinkingbox"
    args = ["run", "--thinkingbox", str(fixture / "dataset"), "--tb-servers",
            str(fixture / "servers.yaml"), "--test", "tiny_shop_group1.py:test_clear_note",
            "--test", "tiny_shop_group1.py:test_broken_check",
            "--test", "tiny_shop_group1_rubrics_yesno.py:test_cancel_order",
            "--agent", "oracle", "--agent", "fault:skip_write=1", "--trials", "1",
            "--warm-pool", "1"]  # fmt: skip
    local = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "local")])
    assert local.exit_code == 0, local.output
    on_ray = CliRunner().invoke(
        app, [*args, "--out", str(tmp_path / "ray"), "--executor", "ray", "--ray-workers", "2"]
    )
    assert on_ray.exit_code == 0, on_ray.output
    assert _outcomes(tmp_path / "ray") == _outcomes(tmp_path / "local")
    statuses = Counter(s for s, _ in _outcomes(tmp_path / "ray").values())
    # oracle: 1 passed and the rubric task unjudged (no judge model: fail-closed, not a
    # pass); fault (every write skipped): 2 failed; the broken check: 2 errors.
    assert statuses == {"passed": 1, "failed": 3, "system_error": 2}
    # The broken check's system errors keep their message on Ray too.
    assert {e.type for e in read_errors(tmp_path / "ray")} == {"CheckError"}


@pytest.mark.slow  # starts Ray trial workers (seconds each)
def test_cli_announces_a_local_ray_on_a_network_address(
    ray_cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ray.util

    monkeypatch.setattr(ray.util, "get_node_ip_address", lambda: "192.0.2.44")
    out = tmp_path / "run"
    args = ["run", "--tasks", str(TOY_TASKS), "--domain", TOY_REF, "--trials", "1"]
    args += ["--agent", "oracle", "--out", str(out), "--executor", "ray", "--ray-workers", "1"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    lines = [ln for ln in result.output.splitlines() if "192.0.2.44" in ln]
    assert len(lines) == 1 and "--ray-address" in lines[0]


def _tcp_connections() -> list[tuple[str, str]]:
    """(local, remote) addresses of this namespace's established TCP connections (ss -tn)."""

    def address(field: str) -> str:
        raw = bytes.fromhex(field.split(":")[0])
        # /proc prints each 32-bit word in host (little-endian) order.
        return str(
            ipaddress.ip_address(b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4)))
        )

    found = []
    for name in ("tcp", "tcp6"):
        for line in Path(f"/proc/net/{name}").read_text().splitlines()[1:]:
            local, remote, state = line.split()[1:4]
            if state == "01":  # ESTABLISHED
                found.append((address(local), address(remote)))
    return found


def _is_loopback(text: str) -> bool:
    addr = ipaddress.ip_address(text)
    mapped = getattr(addr, "ipv4_mapped", None)  # ::ffff:127.0.0.1 (3.11 calls it not loopback)
    return (mapped or addr).is_loopback


@pytest.mark.slow  # starts Ray trial workers (seconds each)
def test_ray_talks_over_loopback_only(
    ray_cluster: Any, toy_registry: Registry, tasks: list[Task], tmp_path: Path
) -> None:
    if os.environ.get("STATEBOX_NETNS") != "loopback":
        pytest.skip("outside the README's test command Ray binds the machine's address")
    c = _campaign(toy_registry, tasks, "oracle", tmp_path / "r", trials=4, concurrency=4)
    executor = RayExecutor(RegistrySetup((TOY_REF,)))
    result = asyncio.run(run_campaign(c, toy_registry, executor=executor))
    assert (result.ran, result.system_errors) == (12, 0)
    assert {n["NodeManagerAddress"] for n in ray_cluster.nodes()} == {"127.0.0.1"}
    connections = _tcp_connections()
    assert connections, "Ray's processes talk over TCP; no connection was read"
    beyond = [c for c in connections if not all(_is_loopback(a) for a in c)]
    assert beyond == []


def test_ray_executor_needs_agent_specs(
    toy_registry: Registry, tasks: list[Task], tmp_path: Path
) -> None:
    c = Campaign(tasks=tasks, agents=[toy_registry.agent("oracle")], trials=1, out=tmp_path / "r")
    with pytest.raises(ConfigError, match="agent_specs"):
        asyncio.run(run_campaign(c, toy_registry, executor=RayExecutor()))


def test_cli_rejects_an_unknown_executor(tmp_path: Path) -> None:
    args = ["run", "--tasks", str(TOY_TASKS), "--domain", TOY_REF, "--agent", "oracle"]
    result = CliRunner().invoke(app, [*args, "--executor", "dask", "--out", str(tmp_path / "r")])
    assert result.exit_code == 1
    assert "unknown executor 'dask'" in result.output
