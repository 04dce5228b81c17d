"""The bench/ measuring functions measure what their figures say (structure, not speed).

Speed itself is never asserted: these run the measuring code on tiny inputs and check
what each measurement includes (the record write, the first query, the process's own
memory, the children's CPU, one TLS context for every client).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import subprocess
import sys
import textwrap
import time
import types
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests" / "serve"))

import peers  # noqa: E402
import run as run_bench  # noqa: E402
import suite as suite_bench  # noqa: E402

import report as report_bench  # noqa: E402
from statebox.records import ResultsWriter, TrialRecord  # noqa: E402
from statebox.registry import default_registry  # noqa: E402
from statebox.tasks import WorldCache  # noqa: E402


def test_trial_time_ends_after_the_record_is_written(monkeypatch: pytest.MonkeyPatch) -> None:
    written: list[tuple[str, float]] = []
    stamped: list[tuple[str, float]] = []
    real_write = ResultsWriter.write

    def write(self: ResultsWriter, record: TrialRecord) -> None:
        real_write(self, record)
        written.append((record.trial_id, time.perf_counter()))

    real_done = run_bench.TrialStamps.trial_done

    def trial_done(self: run_bench.TrialStamps, record: TrialRecord) -> None:
        real_done(self, record)
        stamped.append((record.trial_id, self.wall[-1]))

    monkeypatch.setattr(ResultsWriter, "write", write)
    monkeypatch.setattr(run_bench.TrialStamps, "trial_done", trial_done)
    f = run_bench.bench_campaign("retail", 2, 1, limit=2)
    assert f.trials == 4 and len(stamped) == 4
    # Each trial's end stamp comes after its record was written, never before.
    for (wid, wt), (sid, st) in zip(written, stamped, strict=True):
        assert wid == sid and st >= wt
    assert f.per_trial_ms >= f.record_total_ms  # every gap holds its record's whole timing


def test_trial_gaps_hold_each_records_own_timing() -> None:
    stamps = run_bench.TrialStamps()
    stamps.wall = [0.0, 0.004, 0.009]
    assert stamps.gaps() == pytest.approx([0.004, 0.005])


def test_clone_is_timed_to_its_first_query(monkeypatch: pytest.MonkeyPatch) -> None:
    registry = default_registry()
    task = registry.suite("retail@1.0")[0]
    template = WorldCache().template(registry.domain(task.domain), task)
    traced: list[str] = []
    real_clone = type(template).clone

    def clone(self: Any, now: Any) -> Any:
        world = real_clone(self, now)
        world.conn.set_trace_callback(traced.append)
        return world

    monkeypatch.setattr(type(template), "clone", clone)
    assert run_bench.clone_to_first_query(template, task.now) > 0
    first_table = sorted(template.tables)[0]
    assert any(s.startswith("SELECT") and f'"{first_table}"' in s for s in traced), traced


def test_peer_json_load_reads_the_whole_file_each_time(tmp_path: Path) -> None:
    db = tmp_path / "db.json"
    db.write_text(json.dumps({"b": [{"id": 2}], "a": [{"id": 1}]}))
    assert len(peers.json_db_load_s(db, 3)) == 3
    db.write_text("{broken")
    with pytest.raises(json.JSONDecodeError):  # read anew: nothing cached between loads
        peers.json_db_load_s(db, 1)


def test_peer_mcp_start_runs_a_real_server_to_its_first_tool_result() -> None:
    starts = peers.mcp_server_start_s(1)
    assert len(starts) == 1 and starts[0] > 0


def test_report_memory_is_the_process_own_not_its_parents() -> None:
    # A parent holding 300 MiB starts the child; Linux carries ru_maxrss across exec.
    script = textwrap.dedent(
        f"""
        import json, subprocess, sys
        hog = bytearray(300 * 2**20)
        for i in range(0, len(hog), 4096):
            hog[i] = 1
        child = (
            "import sys, json; sys.path.insert(0, {str(ROOT / "bench")!r}); import report; "
            "print(json.dumps([report.peak_rss_mib(), report.inherited_maxrss_mib()]))"
        )
        print(subprocess.run([sys.executable, "-c", child], capture_output=True,
                             text=True, check=True).stdout)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    own, inherited = json.loads(out)
    assert own < 150
    if inherited < 300:
        pytest.skip("this kernel does not carry ru_maxrss across exec")
    assert report_bench.peak_rss_mib() > 0


def test_cpu_time_counts_live_children() -> None:
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import time, sys\n"
            "while time.process_time() < 0.3: pass\n"
            "print('burnt', flush=True)\n"
            "sys.stdin.read()\n",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "burnt"
        assert suite_bench.cpu_s() - time.process_time() >= 0.25
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(10)


def test_gateway_clients_build_no_tls_context_per_episode(monkeypatch: pytest.MonkeyPatch) -> None:
    import ssl

    import gateway as gateway_bench
    import httpx
    from serving import TOKEN, serving

    built: list[int] = []
    real = ssl.SSLContext.__new__

    def counting(cls: type, *args: Any, **kwargs: Any) -> Any:
        built.append(1)
        return real(cls, *args, **kwargs)

    async def go() -> list[bool]:
        async with serving() as s:
            monkeypatch.setattr(gateway_bench, "TOKEN", TOKEN)
            monkeypatch.setattr(ssl.SSLContext, "__new__", counting)
            async with httpx.AsyncClient(base_url=s.url, timeout=60, verify=gateway_bench.SSL) as c:
                return [await gateway_bench.episode(c, []) for _ in range(3)]

    assert asyncio.run(go()) == [True, True, True]
    assert built == []


def test_lean_gateway_client_plays_whole_episodes_and_counts_a_wrong_answer_as_failed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import gateway as gateway_bench
    from serving import TOKEN, serving

    import statebox.serve._gateway as gateway_module

    want = gateway_bench.expected()
    assert want.passed and want.tools and len(want.outputs) == 2
    real = gateway_module.tool_result_to_mcp
    calls: list[int] = []

    def one_wrong(result: Any) -> Any:
        calls.append(1)
        if len(calls) == 3:  # the first call of the second episode answers another balance
            assert isinstance(result.output, dict)
            result = result.model_copy(update={"output": {**result.output, "balance": -1}})
        return real(result)

    async def go() -> list[dict[str, Any]]:
        async with serving() as s:
            ok = await gateway_bench.lean_level(s.url, TOKEN, 2, 4, want)
            assert len(s.app.store) == 0  # every session deleted
            monkeypatch.setattr(gateway_module, "tool_result_to_mcp", one_wrong)
            errors: list[str] = []
            wrong = await gateway_bench.lean_level(s.url, TOKEN, 1, 3, want, errors=errors)
            assert len(errors) == 1 and "tools/call 0" in errors[0], errors
            monkeypatch.setattr(gateway_module, "tool_result_to_mcp", real)
            # A trajectory that fails its checks: the verdict is not the one expected.
            lost = want.__class__(want.tools, want.outputs, want.passed, [want.calls[0]])
            failed = await gateway_bench.lean_level(s.url, TOKEN, 2, 2, lost)
            assert len(s.app.store) == 0  # failed episodes' sessions are deleted too
            return [ok, wrong, failed]

    ok, wrong, failed = asyncio.run(go())
    assert (ok["passed_share"], ok["failed"], ok["episodes"]) == (1.0, 0, 4)
    assert wrong["failed"] == 1 and wrong["passed_share"] == 2 / 3
    assert failed["failed"] == 2 and failed["passed_share"] == 0.0


def test_transport_in_process_steps_are_tool_results() -> None:
    import transport

    steps = asyncio.run(transport.in_process(2, 3))
    assert len(steps) == 6


def _serve_bench() -> Any:
    import importlib

    return importlib.import_module("serve")


def test_serve_bench_times_in_process_resets_from_the_bursts_start() -> None:
    # The WebSocket burst times each reset from the instant all were sent; the in-process
    # baseline must queue the same way, not time each reset alone.
    r = asyncio.run(_serve_bench()._in_process(6))
    assert r["passed"] == 6 and r["actions"] == 6 * 4
    assert r["reset_p50_ms"] > r["reset_alone_p50_ms"]


def test_serve_bench_client_counts_every_session_burst_and_staggered() -> None:
    from serving import serving

    async def go() -> dict[str, Any]:
        async with serving(openenv=True) as s:
            bench = _serve_bench()
            # In this process: the "server CPU" is this process's (structure, not speed).
            return await bench._client(s.url + "/openenv", 5, 30.0, os.getpid(), 0.05)  # type: ignore[no-any-return]

    r = asyncio.run(go())
    assert (r["held"], r["succeeded"], r["staggered_succeeded"]) == (5, 5, 5)
    assert r["actions"] == 5 * 4 and r["errors"] == []
    assert r["staggered_reset_p50_ms"] > 0
    # The next batch: every session reset at once again and played through.
    assert r["next_batch_succeeded"] == 5 and r["next_batch_reset_p50_ms"] > 0
    # /proc counts CPU in clock ticks: a 5-session batch may read 0 (structure, not speed).
    assert r["next_batch_server_cpu_ms_per_action"] >= 0


def test_serve_bench_lean_client_checks_every_reply_and_fails_a_wrong_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from serving import serving

    import statebox.serve._openenv as openenv_module

    bench = _serve_bench()
    want = bench._expected()
    assert want.tools and len(want.outputs) == 2
    real = openenv_module._agent_result

    def off_by_one(result: Any) -> dict[str, Any]:
        out = real(result)
        if result.tool == "transfer":  # every session's second call answers another amount
            out["output"] = {**out["output"], "amount": out["output"]["amount"] + 1}
        return out

    async def go() -> list[dict[str, Any]]:
        async with serving(openenv=True) as s:
            url = s.url + "/openenv"
            ok = await bench._client(url, 4, 30.0, os.getpid(), 0.05, "lean", want)
            monkeypatch.setattr(openenv_module, "_agent_result", off_by_one)
            wrong = await bench._client(url, 3, 30.0, os.getpid(), 0.0, "lean", want)
            monkeypatch.setattr(openenv_module, "_agent_result", real)
            per = await bench.per_message(url, 3, os.getpid(), want)
            return [ok, wrong, per]

    ok, wrong, per = asyncio.run(go())
    assert (ok["client"], ok["held"], ok["succeeded"], ok["staggered_succeeded"]) == (
        "lean",
        4,
        4,
        4,
    )
    assert ok["actions"] == 4 * 4 and ok["errors"] == [] and ok["next_batch_succeeded"] == 4
    assert wrong["next_batch_succeeded"] == 0
    # The server still ends each episode with reward 1.0; the wrong output fails them all.
    assert (wrong["held"], wrong["succeeded"]) == (3, 0)
    assert wrong["errors"] and all(e.startswith('WrongAnswer("step 1:') for e in wrong["errors"])
    assert list(per["server_ms"]) == bench.MESSAGES == list(per["client_ms"])
    assert per["episodes"] == 3 and all(v > 0 for v in per["server_ms"].values())


def test_serve_bench_lean_client_fails_an_episode_whose_verdict_does_not_pass(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from serving import serving

    bench = _serve_bench()
    want = bench._expected()
    # The transfer left out: every reply is as expected, but the verdict fails (reward 0).
    short = want.__class__(want.tools, want.outputs[:1], want.passed, want.calls[:1])
    monkeypatch.setattr(bench, "_STEP_FRAMES", [bench._STEP_FRAMES[0], bench._STEP_FRAMES[-1]])

    async def go() -> dict[str, Any]:
        async with serving(openenv=True) as s:
            return await bench._client(s.url + "/openenv", 2, 30.0, os.getpid(), 0.0, "lean", short)  # type: ignore[no-any-return]

    r = asyncio.run(go())
    assert (r["held"], r["succeeded"], r["errors"], r["actions"]) == (2, 0, [], 2 * 3)
    assert r["next_batch_succeeded"] == 0


def test_serve_floors_answer_the_lean_client_with_the_replies_statebox_gave() -> None:
    # A floor that answered anything else would be measuring another protocol: the lean
    # client checks every reply, and each floor must send back statebox's own texts.
    import serve_floor
    from serving import serving

    from statebox.serve import BackgroundServer

    bench = _serve_bench()
    want = bench._expected()

    async def go() -> tuple[list[str], dict[str, Any]]:
        async with serving(openenv=True) as s:
            ws = s.url.replace("http://", "ws://", 1) + "/openenv/ws"
            replies = await serve_floor.record(ws, *bench._frames())
        out: dict[str, Any] = {}
        for kind, app in (
            ("openenv", serve_floor.openenv_app(replies)),
            ("uvicorn", serve_floor.uvicorn_app(replies)),
        ):
            async with BackgroundServer(app) as floor:
                again = await serve_floor.record(
                    floor.url.replace("http://", "ws://", 1) + "/ws", *bench._frames()
                )
                row = await bench._client(floor.url, 4, 30.0, os.getpid(), 0.05, "lean", want)
            out[kind] = (again, row)
        return replies, out

    replies, out = asyncio.run(go())
    assert len(replies) == 1 + len(bench.STEPS)
    assert json.loads(replies[-1])["data"]["metadata"]["verdict"]["passed"] is True
    for kind, (again, row) in out.items():
        assert [json.loads(r) for r in again] == [json.loads(r) for r in replies], kind
        assert (row["held"], row["succeeded"], row["errors"]) == (4, 4, []), kind
        assert (row["staggered_succeeded"], row["next_batch_succeeded"]) == (4, 4), kind


def test_serve_openenv_floor_refuses_replies_openenv_would_not_send_back() -> None:
    import serve_floor
    from openenv.core.env_server.serialization import serialize_observation

    from statebox.serve import StateboxObservation

    obs = StateboxObservation(kind="start", episode_id="e", task_id="t", reward=1.0)
    reply = {"type": "observation", "data": serialize_observation(obs)}
    serve_floor.openenv_app([json.dumps(reply)])  # what openenv sends: accepted
    reply["data"]["reward"] = "1.0"  # read back as the number, so sent as another text
    with pytest.raises(ValueError, match="openenv would send"):
        serve_floor.openenv_app([json.dumps(reply)])


def test_serve_floor_summary_takes_each_servers_median_over_rounds() -> None:
    bench = _serve_bench()

    def row(server: str, rnd: int, burst: float, nxt: float, inproc: float) -> dict[str, Any]:
        ws = {"client": "lean", "reset_p50_ms": burst, "next_batch_reset_p50_ms": nxt}
        return {
            "sessions": 256,
            "server": server,
            "round": rnd,
            "ws": ws,
            "in_process": {"reset_p50_ms": inproc},
        }

    floor = bench.FLOORS["openenv"]
    rows = [
        row("sb", 0, 70.0, 30.0, 10.0),
        row(floor, 0, 21.0, 25.0, 12.0),
        row("sb", 1, 90.0, 40.0, 14.0),
        row(floor, 1, 19.0, 23.0, 16.0),
        row("sb", 2, 80.0, 35.0, 20.0),
        row(floor, 2, 30.0, 24.0, 18.0),
        # A level without floor rows has nothing to compare: left out.
        {**row("sb", 0, 1.0, 1.0, 1.0), "sessions": 512},
    ]
    (level,) = bench.floor_summary(rows)
    assert (level["sessions"], level["rounds"]) == (256, 3)
    assert level["reset_p50_ms"] == {"sb": (80.0, 35.0), floor: (21.0, 24.0)}
    assert level["in_process"] == 15.0


def test_transport_first_call_holds_the_clients_tools_list_and_steps_do_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import transport
    from serving import TOKEN, serving

    import statebox.serve._gateway as gateway_module
    from statebox.serve._mcp_direct import direct_reply

    seen: list[tuple[str, float]] = []

    async def spy(*args: Any) -> Any:
        at = time.perf_counter()
        reply = await direct_reply(*args)
        if reply is not None:
            seen.append((json.loads(args[3])["method"], at))
        return reply

    monkeypatch.setattr(gateway_module, "direct_reply", spy)
    firsts: list[float] = []
    client: list[float] = []

    async def go() -> list[float]:
        async with serving() as s:
            return await transport.mcp_official(s.url, TOKEN, 1, 3, firsts, None, client)

    steps = asyncio.run(go())
    assert len(steps) == 3 and len(firsts) == 1
    # The client's CPU is read over each timed call only: one reading per step, none
    # for the first call (here the server shares the process, so it is in them too).
    assert len(client) == 3 and all(c > 0 for c in client)
    # One session: its handshake, tools/call, then the client's tools/list, then one
    # request per step.
    handshake = ["initialize", "notifications/initialized"]
    assert [m for m, _ in seen] == handshake + ["tools/call", "tools/list"] + ["tools/call"] * 3
    assert firsts[0] >= seen[3][1] - seen[2][1]  # the first call's time spans both


def test_transport_raw_gateway_row_is_tool_calls_on_one_keep_alive_connection(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import transport
    from serving import TOKEN, serving

    import statebox.serve._gateway as gateway_module
    from statebox.serve._mcp_direct import direct_reply

    seen: list[str] = []
    opened: list[int] = []
    real_open = asyncio.open_connection

    async def spy(*args: Any) -> Any:
        reply = await direct_reply(*args)
        seen.append(json.loads(args[3])["method"] if reply is not None else "sdk")
        return reply

    async def counting_open(*args: Any, **kwargs: Any) -> Any:
        opened.append(1)
        return await real_open(*args, **kwargs)

    monkeypatch.setattr(gateway_module, "direct_reply", spy)

    async def go() -> list[float]:
        async with serving() as s:
            monkeypatch.setattr(asyncio, "open_connection", counting_open)
            steps = await transport.mcp_raw(s.url, TOKEN, 2, 3)
            assert len(s.app.store) == 0  # each row's sessions are deleted
            return steps

    steps = asyncio.run(go())
    assert len(steps) == 6 and all(t > 0 for t in steps)
    assert seen == ["tools/call"] * 6  # each timed request is a tool call, answered
    assert opened == [1]  # one connection for both sessions: keep-alive, no reconnects


def test_transport_server_cpu_counts_only_the_timed_spans() -> None:
    import os

    import transport

    meter = transport.ServerCpu(os.getpid())
    meter.start()
    t0 = time.process_time()
    while time.process_time() - t0 < 0.05:
        pass
    meter.stop()
    t1 = time.process_time()
    while time.process_time() - t1 < 0.05:  # not timed
        pass
    assert 0.04 <= meter.spent <= 0.08


def test_trial_figure_says_how_many_trials_cloned_a_fresh_world() -> None:
    # Two tasks with worlds of their own (2.0 tasks patch the seed), three trials each,
    # task by task: each task's first trial clones (the preflight's worlds are not
    # inherited), its later ones reuse that connection; the baseline pool keeps nothing.
    pooled = run_bench.bench_campaign("retail@2.0", 3, 1, limit=2)
    assert (pooled.trials, pooled.fresh_worlds, pooled.reused_worlds) == (6, 2, 4)
    fresh = run_bench.bench_campaign("retail@2.0", 3, 1, limit=2, reuse_worlds=False)
    assert (fresh.fresh_worlds, fresh.reused_worlds) == (6, 0)


def test_tau2_row_is_skipped_with_a_message_where_tau2_is_not_importable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import tau2_side

    monkeypatch.setitem(sys.modules, "tau2", None)  # any `import tau2...` now fails
    assert tau2_side.tau2_side_by_side(3) is None
    assert "skipped" in suite_bench.TAU2_SKIPPED and "never a" in suite_bench.TAU2_SKIPPED


def _fake_tau2(monkeypatch: pytest.MonkeyPatch, calls: list[tuple[str, Any]]) -> None:
    """A stand-in for tau2-bench's modules that records what a trial calls."""

    class ToolCall:
        def __init__(self, **kw: Any) -> None:
            self.__dict__.update(kw)

    class AssistantMessage:
        @classmethod
        def text(cls, content: str, tool_calls: list[Any]) -> tuple[str, Any]:
            return ("assistant", tool_calls[0].name)

    class Env:
        def set_state(self, **kw: Any) -> None:
            calls.append(("set_state", kw["message_history"]))

        def get_response(self, call: Any) -> tuple[str, Any]:
            calls.append(("tool", call.name))
            return ("tool", call.name)

    def get_environment() -> Env:
        calls.append(("env", None))
        return Env()

    action = types.SimpleNamespace(name="cancel", arguments={"id": 1}, requestor="assistant")
    task = types.SimpleNamespace(
        initial_state=None,
        evaluation_criteria=types.SimpleNamespace(actions=[action, action]),
    )

    class EnvironmentEvaluator:
        @classmethod
        def calculate_reward(cls, environment_constructor: Any, task: Any, full_trajectory: Any):
            calls.append(("evaluate", list(full_trajectory)))
            return types.SimpleNamespace(reward=1.0)

    modules = {
        "tau2": types.ModuleType("tau2"),
        "tau2.data_model": types.ModuleType("tau2.data_model"),
        "tau2.data_model.message": types.SimpleNamespace(
            AssistantMessage=AssistantMessage, ToolCall=ToolCall
        ),
        "tau2.domains": types.ModuleType("tau2.domains"),
        "tau2.domains.retail": types.ModuleType("tau2.domains.retail"),
        "tau2.domains.retail.environment": types.SimpleNamespace(
            get_environment=get_environment, get_tasks=lambda: [task]
        ),
        "tau2.evaluator": types.ModuleType("tau2.evaluator"),
        "tau2.evaluator.evaluator_env": types.SimpleNamespace(
            EnvironmentEvaluator=EnvironmentEvaluator
        ),
    }
    for name, module in modules.items():
        monkeypatch.setitem(sys.modules, name, module)


def test_tau2_trial_is_an_episode_then_tau2s_own_db_check(monkeypatch: pytest.MonkeyPatch) -> None:
    import tau2_side

    calls: list[tuple[str, Any]] = []
    _fake_tau2(monkeypatch, calls)
    out = tau2_side.tau2_side_by_side(2)
    assert out is not None and out["trials"] == 2 and out["passed"] == 2
    # Per trial (a warm-up first): a fresh env in its initial state, each golden action
    # sent as a tool call, then tau2's evaluator given the whole trajectory.
    one = [
        ("env", None),
        ("set_state", []),
        ("tool", "cancel"),
        ("tool", "cancel"),
        ("evaluate", [("assistant", "cancel"), ("tool", "cancel")] * 2),
    ]
    assert calls == one * 3
    row = suite_bench.tau2_row(out, types_namespace(per_trial_ms=2.0, cpu_per_trial_ms=1.5))
    assert "record write" in row.baseline and "no result write" in row.figure


def types_namespace(**kw: float) -> Any:
    import types

    return types.SimpleNamespace(**kw)


def test_pool_and_fresh_arms_are_interleaved_trial_by_trial(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Neither arm may run second on a warmer machine: a task's trials alternate arms and
    # odd tasks start with the fresh arm. Each trial's own connects are counted: a fresh
    # arm's trial opens a world of its own, a pooled one (after its task's first) none.
    import statebox.world._world as world_module

    events: list[str] = []
    real_connect = world_module._connect

    def connect(data: bytes | None = None) -> Any:
        events.append("connect")
        return real_connect(data)

    real_done = run_bench.TrialStamps.trial_done

    def trial_done(self: run_bench.TrialStamps, record: TrialRecord) -> None:
        events.append("done")
        real_done(self, record)

    monkeypatch.setattr(world_module, "_connect", connect)
    monkeypatch.setattr(run_bench.TrialStamps, "trial_done", trial_done)
    c = run_bench.bench_pool_against_fresh("retail@2.0", 2, limit=2)
    assert c.arms == ("pooled", "fresh", "pooled", "fresh", "fresh", "pooled", "fresh", "pooled")
    # Connects per trial (the preflight's come before the first trial's).
    per_trial, n = [], 0
    for e in events:
        if e == "connect":
            n += 1
        else:
            per_trial.append(n)
            n = 0
    assert per_trial[1:] == [1, 0, 1, 1, 1, 1, 0]  # trial 5 is task 1's first pooled one
    assert per_trial[0] >= 1  # the preflight's replays plus the first trial's own clone
    assert (c.pooled.trials, c.pooled.fresh_worlds, c.pooled.reused_worlds) == (4, 2, 2)
    assert (c.fresh.trials, c.fresh.fresh_worlds, c.fresh.reused_worlds) == (4, 4, 0)
    assert c.pooled.per_trial_ms >= c.pooled.record_total_ms
    assert c.fresh.per_trial_ms >= c.fresh.record_total_ms


def test_interleaved_arms_give_each_arm_half_the_tasks_first_trials() -> None:
    arms = [run_bench.interleaved_arm(i, 4) for i in range(4 * 6)]
    firsts = arms[::4]
    assert firsts.count("pooled") == firsts.count("fresh") == 3
    for task in range(6):
        mine = arms[task * 4 : task * 4 + 4]
        assert mine.count("pooled") == mine.count("fresh") == 2
        assert all(a != b for a, b in itertools.pairwise(mine))


def test_versus_runs_each_side_from_its_own_source(tmp_path: Path) -> None:
    import trial_versus

    f = trial_versus.run_side(ROOT / "src", "retail@2.0", 1, limit=2)
    assert f["trials"] == 2 and Path(str(f["src"])).resolve() == (ROOT / "src").resolve()
    # A baseline directory that holds no statebox is refused, not measured as this one.
    with pytest.raises(SystemExit, match="not"):
        trial_versus.run_side(tmp_path, "retail@2.0", 1, limit=1)


def test_gateway_per_request_cpu_charges_each_request_kind_of_the_episode() -> None:
    import gateway as gateway_bench
    from serving import TOKEN, serving

    want = gateway_bench.expected()

    async def go() -> dict[str, Any]:
        async with serving() as s:  # in this process: its CPU is the "server's" here
            row = await gateway_bench.per_request(s.url, TOKEN, 3, want, os.getpid())
            assert len(s.app.store) == 0
            return row

    row = asyncio.run(go())
    kinds = ["create", "initialize", "initialized", "tools/list", "tools/call"]
    assert list(row["ms_per_request"]) == [*kinds, "end+judge", "delete", "GET /health"]
    assert all(v >= 0 for v in row["ms_per_request"].values())
    # The episode's figure is its requests' (two tool calls), the floor's left out.
    per = row["ms_per_request"]
    episode = sum(per.values()) - per["GET /health"] + per["tools/call"]
    assert row["episode_ms"] == pytest.approx(episode)


def test_server_cpu_leaves_out_a_thread_that_ends_while_it_is_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import gateway as gateway_bench

    real = Path.read_text
    reads: list[Path] = []

    def vanishing(self: Path, *args: Any, **kwargs: Any) -> str:
        reads.append(self)
        if self.name == "schedstat" and len(reads) == 1:
            raise FileNotFoundError(self)  # the first thread listed has just ended
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", vanishing)
    assert gateway_bench.server_cpu_s(os.getpid()) >= 0  # no error: the others are summed
    assert len(reads) == len(list(Path(f"/proc/{os.getpid()}/task").iterdir()))


@pytest.mark.parametrize(
    "row", ["openenv_http", "openenv_http_raw", "openenv_ws", "openenv_ws_raw"]
)
def test_transport_openenv_cpu_figures_cover_only_the_timed_steps(row: str) -> None:
    import transport
    from serving import serving

    class Spans(transport.ServerCpu):
        def __init__(self) -> None:
            super().__init__(None)  # no process to read: count the spans instead
            self.opened = self.closed = 0

        def start(self) -> None:
            self.opened += 1

        def stop(self) -> None:
            self.closed += 1

    async def go() -> tuple[list[float], Spans, list[float]]:
        async with serving(openenv=True) as s:
            meter, client = Spans(), []
            steps = await getattr(transport, row)(s.url, 2, 3, meter, client)
            return steps, meter, client

    steps, meter, client = asyncio.run(go())
    # One span per timed step: not the client's import or set-up, not reset or end.
    assert len(steps) == len(client) == meter.opened == meter.closed == 6
    assert all(c >= 0 for c in client)


@pytest.mark.slow
def test_trial_profile_shares_account_for_the_whole_trial() -> None:
    # The README's command, small: the top-level phases and the rest make the whole.
    out = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "trial_profile.py"), "--suite", "retail@1.0"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    rows = [line for line in out.stdout.splitlines() if line.rstrip().endswith("%")]
    top = [r for r in rows if r.startswith("  ") and not r.startswith("    ")]
    assert top[-1].lstrip().startswith("rest of the trial")
    total = sum(float(r.rsplit(None, 1)[1].rstrip("%")) for r in top)
    # Each share is printed rounded to 0.1 (off by 0.05 at most): the rows' sum can be
    # off by that much per row (99.8 from shares summing to 100 in one CI run).
    assert total == pytest.approx(100.0, abs=0.05 * len(top) + 1e-9)


def test_a_servers_stderr_is_drained_so_its_log_never_blocks_it() -> None:
    from gateway import drain

    # A child that writes 1 MiB to stderr (16x a pipe's buffer), then exits: it only
    # finishes if someone reads.
    code = "import sys\nfor _ in range(16384): sys.stderr.write('x' * 63 + '\\n')"
    child = subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE, text=True)
    lines = drain(child.stderr)
    assert child.wait(timeout=60) == 0
    deadline = time.monotonic() + 10
    while lines[0] < 16384 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert lines[0] == 16384


def test_the_cpu_reading_keeps_the_cpu_of_descendants_that_exited(tmp_path: Path) -> None:
    # Found running the suite: the reading summed live descendants only, so a Ray worker
    # exiting mid-window took its CPU with it (a negative CPU per trial in one run).
    import suite as suite_bench

    burn = tmp_path / "burn.py"
    burn.write_text("import time\nwhile time.process_time() < 0.3:\n    pass\n")
    parent = tmp_path / "parent.py"
    parent.write_text(
        "import subprocess, sys\n"
        f"subprocess.run([sys.executable, {str(burn)!r}], check=True)  # reaped here\n"
        "print('reaped', flush=True)\n"
        "sys.stdin.read()\n"
    )
    before = suite_bench.cpu_s() - time.process_time()
    child = subprocess.Popen(
        [sys.executable, str(parent)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "reaped"
        assert suite_bench.cpu_s() - time.process_time() - before >= 0.25
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(10)
