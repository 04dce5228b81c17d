"""Campaign files: JSONL append and read, torn lines, schema versions, the manifest."""

from __future__ import annotations

import asyncio
import shutil
import warnings
from datetime import UTC, datetime
from pathlib import Path

import pytest

from fixtures.support import ScriptAgent, call, play
from statebox.domains import Domain
from statebox.episode import TerminationReason
from statebox.errors import ResultsFormatError
from statebox.records import (
    ERRORS_FILE,
    MANIFEST_FILE,
    RESULTS_FILE,
    AgentInfo,
    ErrorRecord,
    Manifest,
    ResultsWriter,
    Timings,
    TornLineWarning,
    TrialRecord,
    TrialStatus,
    read_errors,
    read_manifest,
    read_results,
    trial_id,
    write_manifest,
)
from statebox.tasks import Task

FIXTURES = Path(__file__).parent / "fixtures"
T0 = datetime(2025, 10, 1, 13, 0, tzinfo=UTC)


def make_record(task: Task, i: int, domain: Domain | None = None) -> TrialRecord:
    verdict, transcript, status = None, (), TrialStatus.SYSTEM_ERROR
    termination = TerminationReason.SYSTEM_ERROR
    if domain is not None:
        played = asyncio.run(
            play(domain, task, ScriptAgent([call("transfer", src="A1", dst="A2", amount=12.5)]))
        )
        verdict, transcript, termination = played.verdict, played.transcript, played.termination
        status = TrialStatus.PASSED if verdict.passed else TrialStatus.FAILED
    return TrialRecord(
        trial_id=trial_id(task.id, "script", i),
        campaign_id="c0ffee000001",
        task_id=task.id,
        domain=task.domain,
        family=task.family,
        split=task.split,
        agent_id="script",
        trial=i,
        status=status,
        verdict=verdict,
        termination=termination,
        transcript=transcript,
        timings=Timings(episode_s=0.1, judge_s=0.2, total_s=0.3),
        started_at=T0,
        error=None if domain else "RuntimeError: boom",
    )


def test_trial_id_format() -> None:
    assert trial_id("toy.a.001", "fault-12345678", 7) == "toy.a.001/fault-12345678/7"


def test_write_then_read_round_trip(results_dir: Path, toy_domain: Domain, task: Task) -> None:
    records = [make_record(task, 0, toy_domain), make_record(task, 1)]
    with ResultsWriter(results_dir) as w:
        for r in records:
            w.write(r)
    assert read_results(results_dir) == records
    back = read_results(results_dir)[0]
    assert back.verdict is not None and back.verdict.passed is False
    assert back.verdict.comparison.wrong[0].actual == 87.5
    lines = (results_dir / RESULTS_FILE).read_text().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith('{"schema_version":1,')
    assert read_errors(results_dir) == []  # the writer creates it empty


def test_appends_across_writers(results_dir: Path, task: Task) -> None:
    with ResultsWriter(results_dir) as w:
        w.write(make_record(task, 0))
    with ResultsWriter(results_dir) as w:
        w.write(make_record(task, 1))
    assert [r.trial for r in read_results(results_dir)] == [0, 1]


def test_each_line_is_flushed_at_once(results_dir: Path, task: Task) -> None:
    w = ResultsWriter(results_dir)
    w.write(make_record(task, 0))
    # Not closed yet: a reader (or a kill) sees the whole line.
    assert len(read_results(results_dir)) == 1
    w.close()


def test_errors_round_trip(results_dir: Path) -> None:
    e = ErrorRecord(
        trial_id="toy.a.001/oracle/0",
        task_id="toy.a.001",
        agent_id="oracle",
        trial=0,
        type="RuntimeError",
        message="boom",
        traceback="Traceback (most recent call last):\n...",
        at=T0,
    )
    with ResultsWriter(results_dir) as w:
        w.write_error(e)
    assert read_errors(results_dir) == [e]


def test_missing_files_read_as_empty(tmp_path: Path) -> None:
    assert read_results(tmp_path) == []
    assert read_errors(tmp_path) == []


def test_torn_last_line_is_tolerated_then_cut(results_dir: Path, task: Task) -> None:
    with ResultsWriter(results_dir) as w:
        w.write(make_record(task, 0))
        w.write(make_record(task, 1))
    path = results_dir / RESULTS_FILE
    whole = path.read_bytes()
    torn = make_record(task, 2).model_dump_json()[:57]
    path.write_bytes(whole + torn.encode())
    with pytest.warns(TornLineWarning, match=r"results.jsonl:3: torn last line skipped"):
        assert [r.trial for r in read_results(results_dir)] == [0, 1]
    # The next writer cuts the torn tail before appending.
    with ResultsWriter(results_dir) as w:
        assert path.read_bytes() == whole
        w.write(make_record(task, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert [r.trial for r in read_results(results_dir)] == [0, 1, 2]


def test_torn_line_in_the_middle_is_an_error(results_dir: Path, task: Task) -> None:
    path = results_dir
    path.mkdir()
    good = make_record(task, 0).model_dump_json()
    (path / RESULTS_FILE).write_text(good + "\n" + good[:40] + "\n" + good + "\n")
    with pytest.raises(ResultsFormatError) as info:
        read_results(path)
    assert info.value.line == 2
    assert info.value.path == str(path / RESULTS_FILE)
    assert str(info.value).startswith(f"{path / RESULTS_FILE}:2: not JSON")


def test_future_schema_version_names_path_and_line(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "future_version.jsonl", tmp_path / RESULTS_FILE)
    with pytest.raises(ResultsFormatError) as info:
        read_results(tmp_path)
    err = info.value
    assert err.path == str(tmp_path / RESULTS_FILE)
    assert err.line == 2
    assert err.version == 99
    assert f"{tmp_path / RESULTS_FILE}:2: schema_version 99 is not 1" in str(err)


def test_record_missing_a_version_or_invalid(results_dir: Path, task: Task) -> None:
    results_dir.mkdir()
    (results_dir / RESULTS_FILE).write_text('{"trial_id": "x"}\n')
    with pytest.raises(ResultsFormatError, match="schema_version None is not 1") as info:
        read_results(results_dir)
    assert info.value.line == 1 and info.value.version is None
    (results_dir / RESULTS_FILE).write_text('{"schema_version": 1, "trial_id": "x"}\n')
    with pytest.raises(ResultsFormatError, match=r":1: invalid record"):
        read_results(results_dir)


def manifest() -> Manifest:
    return Manifest(
        campaign_id="c0ffee000001",
        statebox_version="0.1.0",
        git_revision=None,
        created_at=T0,
        task_source="tests",
        task_bundle_hash="0" * 64,
        task_ids=("toy.a.001",),
        agents=(AgentInfo(agent_id="oracle", name="oracle", config={}),),
        trials=3,
        seed=0,
        settings={"concurrency": 2},
    )


def test_manifest_round_trip_is_atomic(results_dir: Path) -> None:
    write_manifest(results_dir, manifest())
    assert read_manifest(results_dir) == manifest()
    assert sorted(p.name for p in results_dir.iterdir()) == [MANIFEST_FILE]  # no temp left
    write_manifest(results_dir, manifest().model_copy(update={"trials": 5}))
    assert read_manifest(results_dir).trials == 5


def test_manifest_errors(tmp_path: Path) -> None:
    with pytest.raises(ResultsFormatError, match="not a campaign directory"):
        read_manifest(tmp_path)
    (tmp_path / MANIFEST_FILE).write_text("{not json")
    with pytest.raises(ResultsFormatError, match="not JSON"):
        read_manifest(tmp_path)
    (tmp_path / MANIFEST_FILE).write_text('{"schema_version": 2}')
    with pytest.raises(ResultsFormatError, match="schema_version 2 is not 1"):
        read_manifest(tmp_path)


def test_writer_creates_both_files(results_dir: Path) -> None:
    ResultsWriter(results_dir).close()
    assert sorted(p.name for p in results_dir.iterdir()) == [ERRORS_FILE, RESULTS_FILE]


def test_unterminated_but_complete_last_line_is_not_lost(results_dir: Path, task: Task) -> None:
    results_dir.mkdir()
    lines = [make_record(task, i).model_dump_json() for i in range(2)]
    (results_dir / RESULTS_FILE).write_text(lines[0] + "\n" + lines[1])  # no final newline
    seen = [r.trial for r in read_results(results_dir)]
    ResultsWriter(results_dir).close()
    assert [r.trial for r in read_results(results_dir)] == seen


def test_secrets_echoed_by_an_endpoint_never_reach_the_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from statebox.records import ErrorRecord, ResultsWriter, scrub_secrets

    monkeypatch.setenv("MY_PROVIDER_API_KEY", "custom-secret-value-123")
    with ResultsWriter(tmp_path) as w:
        w.write_error(
            ErrorRecord(
                trial_id="t/a/0",
                task_id="t",
                agent_id="a",
                trial=0,
                type="ModelEndpointError",
                message="Incorrect API key provided: sk-SECRETKEY-abc123xyz; "
                "Authorization: Bearer abcdefgh12345 (custom-secret-value-123)",
                traceback="",
                at=datetime.now(UTC),
            )
        )
    text = (tmp_path / "errors.jsonl").read_text()
    for secret in ("sk-SECRETKEY-abc123xyz", "abcdefgh12345", "custom-secret-value-123"):
        assert secret not in text
    assert text.count("[redacted]") == 3
    # Ordinary ids survive: "task-..." is not a key.
    assert scrub_secrets("retail.task-ordinary.001", []) == "retail.task-ordinary.001"
