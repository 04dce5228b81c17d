"""The lean results reader that reports use: same rows as full records, fewer bytes parsed."""

import json
import re
from pathlib import Path

import pytest
from campaign_factory import make_trial, write_campaign

from statebox.errors import ResultsFormatError
from statebox.judge import CheckResult
from statebox.records import (
    RESULTS_FILE,
    TornLineWarning,
    TrialStatus,
    read_result_dicts,
    read_results,
    read_trial_rows,
    trial_row,
)


def test_rows_equal_the_rows_of_full_records(tmp_path: Path) -> None:
    write_campaign(
        tmp_path,
        {"a": {"t1": ("retail", 4, 1), "t2": ("bank", 4, 4)}, "b": {"t1": ("retail", 4, 0)}},
        cost_per_trial_usd={"a": 0.25},
        system_errors={"b": ["t1"]},
    )
    rows = read_trial_rows(tmp_path)
    assert rows == [trial_row(r) for r in read_results(tmp_path)]
    assert len(rows) == 12
    last = rows[-1]
    assert (last.status, last.signature, last.judged) == (
        TrialStatus.SYSTEM_ERROR,
        "system_error",
        False,
    )
    assert rows[1].missing and rows[1].signature == "no_state_change"
    assert rows[0].cost_usd == 0.25


def test_a_line_in_another_key_order_is_read_whole(tmp_path: Path) -> None:
    record = make_trial("t1", "retail", "a", 0, False, shape=1)
    data = json.loads(record.model_dump_json())
    reordered = {k: data[k] for k in reversed(list(data))}  # transcript before verdict
    (tmp_path / RESULTS_FILE).write_text(json.dumps(reordered) + "\n")
    assert read_trial_rows(tmp_path) == [trial_row(record)]


@pytest.mark.parametrize("column", ["transcript", "signature", "expected_effects", "timings"])
def test_a_nested_key_does_not_fool_the_cuts(tmp_path: Path, column: str) -> None:
    # A table column named like a record key puts that key inside the verdict's effects.
    record = make_trial("t1", "retail", "a", 0, False, shape=1)
    line = record.model_dump_json().replace('"balance":', f'"{column}":')
    (tmp_path / RESULTS_FILE).write_text(line + "\n")
    assert read_trial_rows(tmp_path) == [trial_row(record)]


def test_torn_last_line_warns_and_bad_versions_fail(tmp_path: Path) -> None:
    good = make_trial("t1", "retail", "a", 0, True).model_dump_json()
    (tmp_path / RESULTS_FILE).write_text(good + "\n" + good[:50])
    with pytest.warns(TornLineWarning):
        assert len(read_trial_rows(tmp_path)) == 1
    (tmp_path / RESULTS_FILE).write_text(
        good.replace('"schema_version":1', '"schema_version":9') + "\n"
    )
    with pytest.raises(ResultsFormatError, match="schema_version 9"):
        read_trial_rows(tmp_path)
    (tmp_path / RESULTS_FILE).write_text(
        good.replace('"status":"passed"', '"status":"great"') + "\n"
    )
    with pytest.raises(ResultsFormatError, match=r"results.jsonl:1: invalid record.*great"):
        read_trial_rows(tmp_path)


def test_result_dicts_for_chosen_trials(tmp_path: Path) -> None:
    records = write_campaign(tmp_path, {"a": {"t1": ("retail", 3, 1)}})
    wanted = [records[2].trial_id, "missing/a/0"]
    found = read_result_dicts(tmp_path, wanted)
    assert list(found) == [records[2].trial_id]
    assert found[records[2].trial_id]["transcript"][0]["kind"] == "user_message"


def test_a_skipped_check_is_seen_by_the_lean_reader(tmp_path: Path) -> None:
    record = make_trial("t1", "retail", "a", 0, True)
    assert record.verdict is not None
    skipped = CheckResult(name="rubric[0]", kind="rubric", passed=True, skipped=True)
    verdict = record.verdict.model_copy(update={"checks": (*record.verdict.checks, skipped)})
    record = record.model_copy(update={"verdict": verdict})
    (tmp_path / RESULTS_FILE).write_text(record.model_dump_json() + "\n")
    rows = read_trial_rows(tmp_path)
    assert rows == [trial_row(record)]
    assert rows[0].skipped_checks


def test_a_field_of_the_wrong_type_is_one_line_naming_file_line_and_field(tmp_path: Path) -> None:
    good = make_trial("t1", "retail", "a", 0, True).model_dump_json()
    bad = good.replace('"last_tool_ok":true', '"last_tool_ok":"yes"')
    assert bad != good
    (tmp_path / RESULTS_FILE).write_text(good + "\n" + bad + "\n")
    with pytest.raises(ResultsFormatError) as caught:
        read_trial_rows(tmp_path)
    message = str(caught.value)
    assert re.search(r"results.jsonl:2: invalid record: .*last_tool_ok", message)
    assert "\n" not in message


def test_a_torn_line_before_the_last_is_refused_and_blank_lines_are_skipped(
    tmp_path: Path,
) -> None:
    good = make_trial("t1", "retail", "a", 0, True).model_dump_json()
    (tmp_path / RESULTS_FILE).write_text(good + "\n\n" + good[:900] + "\n" + good + "\n")
    with pytest.raises(ResultsFormatError, match=r"results.jsonl:3: not JSON"):
        read_trial_rows(tmp_path)
    (tmp_path / RESULTS_FILE).write_text(good + "\n  \n" + good + "\n")
    assert len(read_trial_rows(tmp_path)) == 1  # one trial id: the later line wins
