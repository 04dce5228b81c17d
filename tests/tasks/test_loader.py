"""Task files: the model, the loader, and errors that name file, task id and field."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml

from fixtures.support import TOY_TASKS
from statebox.errors import TaskSpecError
from statebox.tasks import StatePatch, Task, bundle_hash, load_tasks, parse_tasks

FIXTURES = Path(__file__).parent / "fixtures"

BASE = {
    "id": "toy.basic.ok.001",
    "domain": "toy",
    "now": "2025-10-01T13:00:00+00:00",
    "user": {"opening": "hi"},
    "golden": [{"tool": "set_status", "args": {"account_id": "A1", "status": "frozen"}}],
}


def spec_error(path: Path) -> TaskSpecError:
    with pytest.raises(TaskSpecError) as info:
        load_tasks(path)
    return info.value


def test_toy_tasks_load_in_file_order() -> None:
    tasks = load_tasks(TOY_TASKS)
    assert [t.id for t in tasks] == [
        "toy.transfer.basic.001",
        "toy.freeze.note.001",
        "toy.refuse.closed.001",
    ]
    transfer, freeze, refuse = tasks
    assert transfer.family == "transfer"
    assert transfer.now == datetime(2025, 10, 1, 13, 0, tzinfo=UTC)
    assert transfer.split == "test"
    assert transfer.tools is None
    assert transfer.user.facts["account_id"].value == "A1"
    # A plain value is a fact whose ask phrases come from its name.
    assert transfer.user.facts["account_id"].ask == ("account id", "account number", "account ID")
    assert transfer.user.facts["recipient_account"].words() == "Bo's account is A2."
    assert transfer.checks.state == "golden"
    assert transfer.checks.invariants[0].equals == 65
    assert [c.tool for c in transfer.golden] == ["get_account", "transfer"]
    assert freeze.initial_state == StatePatch(
        upsert={"accounts": ({"id": "A2", "status": "active"},)}
    )
    assert refuse.read_only is True


def test_a_single_file_and_several_roots() -> None:
    one = load_tasks(TOY_TASKS / "toy.yaml")
    assert len(one) == 3
    with pytest.raises(TaskSpecError, match="duplicate task id"):
        load_tasks([TOY_TASKS, TOY_TASKS / "toy.yaml"])


def test_empty_file_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "empty.yaml").write_text("# nothing yet\n")
    (tmp_path / "notes.txt").write_text("not a task")
    (tmp_path / "one.yml").write_text(yaml.safe_dump(BASE))
    assert [t.id for t in load_tasks(tmp_path)] == ["toy.basic.ok.001"]


def test_missing_path(tmp_path: Path) -> None:
    err = spec_error(tmp_path / "nope")
    assert err.file == str(tmp_path / "nope")
    assert "no such file or folder" in str(err)


def test_initial_state_delete_shape() -> None:
    t = Task.model_validate(
        {
            **BASE,
            "initial_state": {
                "accounts": [{"id": "A1", "balance": 5}],
                "delete": {"notes": [{"id": "N-001"}]},
            },
        }
    )
    assert t.initial_state.upsert == {"accounts": ({"id": "A1", "balance": 5},)}
    assert t.initial_state.delete == {"notes": ({"id": "N-001"},)}
    only_delete = Task.model_validate(
        {**BASE, "initial_state": {"delete": {"notes": [{"id": "N-001"}]}}}
    )
    assert only_delete.initial_state.upsert == {}
    assert only_delete.initial_state.delete == {"notes": ({"id": "N-001"},)}


def test_bundle_hash_is_order_free_and_content_sensitive() -> None:
    tasks = load_tasks(TOY_TASKS)
    h = bundle_hash(tasks)
    assert len(h) == 64
    assert bundle_hash(list(reversed(tasks))) == h
    changed = tasks[0].model_copy(update={"description": "edited"})
    assert bundle_hash([changed, *tasks[1:]]) != h
    assert bundle_hash(load_tasks(TOY_TASKS)) == h


# --- malformed files -------------------------------------------------------------------


def test_now_without_timezone() -> None:
    err = spec_error(FIXTURES / "bad_now.yaml")
    assert err.file is not None and err.file.endswith("bad_now.yaml")
    assert err.task_id == "toy.clock.naive.001"
    assert err.field == "now"
    assert "timezone" in err.reason
    assert str(err).startswith(f"file {err.file}, task toy.clock.naive.001, field now: ")


def test_unknown_key() -> None:
    err = spec_error(FIXTURES / "unknown_key.yaml")
    assert err.file is not None and err.file.endswith("unknown_key.yaml")
    assert err.task_id == "toy.keys.unknown.001"
    assert err.field == "expected_state"
    assert err.reason == "unknown key 'expected_state'"


def test_missing_user_opening_names_the_second_task() -> None:
    err = spec_error(FIXTURES / "missing_opening.yaml")
    assert err.file is not None and err.file.endswith("missing_opening.yaml")
    assert err.task_id == "toy.user.silent.001"
    assert err.field == "user.opening"
    assert "Field required" in err.reason


def test_golden_tool_outside_allowlist() -> None:
    err = spec_error(FIXTURES / "golden_not_allowed.yaml")
    assert err.file is not None and err.file.endswith("golden_not_allowed.yaml")
    assert err.task_id == "toy.allowlist.narrow.001"
    # A cross-field error still names a field (not the whole task), and the other one.
    assert err.field == "golden"
    assert "allowlist (tools)" in err.reason and "['transfer']" in err.reason


def test_duplicate_ids_across_files_name_both() -> None:
    err = spec_error(FIXTURES / "dup")
    assert err.file is not None and err.file.endswith("b.yaml")
    assert err.task_id == "toy.dup.same.001"
    assert "duplicate task id" in err.reason
    assert str(FIXTURES / "dup" / "a.yaml") in err.reason


def test_invalid_yaml() -> None:
    err = spec_error(FIXTURES / "invalid_yaml.yaml")
    assert err.file is not None and err.file.endswith("invalid_yaml.yaml")
    assert err.task_id is None
    # One line saying where, not PyYAML's lines naming the text "<unicode string>".
    assert re.fullmatch(r"not valid YAML at line \d+, column \d+: .+", err.reason), err.reason
    assert "<unicode string>" not in str(err) and "\n" not in str(err)


@pytest.mark.parametrize(
    ("change", "field", "fragment"),
    [
        ({"id": "Toy transfer"}, "id", "must look like"),
        ({"id": "retail.x.001"}, "domain", "must start with the domain name 'toy'"),
        ({"golden": []}, "golden", "declare read_only"),
        ({"split": "dev"}, "split", "'test' or 'train'"),
        ({"user": {"opening": "hi", "facts": {"a": [1]}}}, "user.facts.a", ""),
        (
            {"golden": [{"tool": "x", "arguments": {}}]},
            "golden[0].arguments",
            "unknown key 'arguments' (did you mean 'args'?)",
        ),
        ({"checks": {"state": "exact"}}, "checks.state", "'golden' or 'none'"),
        (
            {"checks": {"invariants": [{"sql": "select 1"}]}},
            "checks.invariants[0].equals",
            "required",
        ),
    ],
)
def test_parse_errors_name_the_field(change: dict, field: str | None, fragment: str) -> None:
    with pytest.raises(TaskSpecError) as info:
        parse_tasks([{**BASE, **change}], file="inline.yaml")
    err = info.value
    assert err.file == "inline.yaml"
    # A union's member name may trail the path (``user.facts.a.int``); the field leads it.
    assert err.field == field or (field and err.field and err.field.startswith(field + "."))
    assert fragment in err.reason
    assert err.task_id == (change.get("id") or BASE["id"])


def test_entry_that_is_not_a_mapping() -> None:
    with pytest.raises(TaskSpecError, match="entry 1 is not a mapping") as info:
        parse_tasks([BASE, "just text"], file="list.yaml")
    assert info.value.file == "list.yaml"


def test_task_without_readable_id_is_named_by_position() -> None:
    with pytest.raises(TaskSpecError) as info:
        parse_tasks([BASE, {k: v for k, v in BASE.items() if k != "id"}])
    assert info.value.task_id == "#1"
    assert info.value.field == "id"


def test_tasks_are_frozen() -> None:
    t = Task.model_validate(BASE)
    with pytest.raises(ValueError):
        t.id = "toy.other.001"  # type: ignore[misc]


def test_union_member_tags_are_not_reported_as_fields(tmp_path: Path) -> None:
    bad = tmp_path / "t.yaml"
    bad.write_text(
        "id: toy.x.1\ndomain: toy\nnow: '2025-10-01T13:00:00+00:00'\n"
        "user: {opening: hi, facts: {a: [1, 2]}}\ngolden: [{tool: get_account}]\n"
    )
    with pytest.raises(TaskSpecError) as info:
        load_tasks(bad)
    assert info.value.field == "user.facts.a"


# Issue 17, item 7: a misspelt key is an unknown key (with a hint), not a missing field.
@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        ({"golde": BASE["golden"]}, "golde", "unknown key 'golde' (did you mean 'golden'?)"),
        ({"user": {"openning": "hi"}}, "user.openning", "did you mean 'opening'?"),
        ({"checks": {"invarients": []}}, "checks.invarients", "did you mean 'invariants'?"),
        ({"zzz": 1}, "zzz", "unknown key 'zzz'"),
    ],
)
def test_a_misspelt_key_is_reported_as_unknown_with_a_hint(
    change: dict, field: str, reason: str
) -> None:
    item = {**BASE, **change}
    if "golde" in change:
        del item["golden"]
    with pytest.raises(TaskSpecError) as info:
        parse_tasks([item], file="inline.yaml")
    assert info.value.field == field
    assert reason in info.value.reason
    assert "missing" not in info.value.reason.lower()


@pytest.mark.parametrize("now", [12345, 1.5, "12345", "yesterday", True])
def test_now_must_be_an_iso_timestamp(now: object) -> None:
    with pytest.raises(TaskSpecError) as info:
        parse_tasks([{**BASE, "now": now}], file="inline.yaml")
    assert info.value.field == "now" and "ISO 8601" in info.value.reason
    assert not info.value.reason.startswith("Value error")  # pydantic's prefix, not ours


def test_unquoted_yaml_timestamps_still_load(tmp_path: Path) -> None:
    text = yaml.safe_dump(BASE).replace("'2025-10-01T13:00:00+00:00'", "2025-10-01T13:00:00Z")
    (tmp_path / "t.yaml").write_text(text)
    assert load_tasks(tmp_path)[0].now == datetime(2025, 10, 1, 13, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    "content", [b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe", "caf\xe9: 1\n".encode("latin-1")]
)
def test_a_binary_or_non_utf8_task_file_is_a_one_line_error_naming_it(
    tmp_path: Path, content: bytes
) -> None:
    path = tmp_path / "tasks.yaml"
    path.write_bytes(content)
    err = spec_error(path)
    assert err.file == str(path) and "UTF-8" in err.reason
    assert "\n" not in str(err)


def test_an_old_response_contains_check_says_where_its_facts_go(tmp_path: Path) -> None:
    old = tmp_path / "old.yaml"
    old.write_text(
        "id: retail.x.1\ndomain: retail\nnow: '2025-10-01T13:00:00+00:00'\n"
        "user: {opening: hi}\nread_only: true\ngolden: []\n"
        "checks: {response: {contains: ['1002']}}\n"
    )
    with pytest.raises(TaskSpecError) as info:
        load_tasks(old)
    assert (info.value.task_id, info.value.field) == ("retail.x.1", "checks.response")
    assert "checks.reply: {must_contain" in info.value.reason


def test_an_old_turn_indexed_script_is_a_one_line_error_naming_its_values(
    tmp_path: Path,
) -> None:
    old = tmp_path / "old.yaml"
    old.write_text(
        "id: toy.x.1\ndomain: toy\nnow: '2025-10-01T13:00:00+00:00'\n"
        "user:\n  opening: Move 40 to Bo.\n  facts: {account_id: A1}\n"
        "  script: ['My account is A1.', 'Bo is A2, born 1990-04-12.']\n"
        "golden: [{tool: get_account, args: {account_id: A1}}]\n"
    )
    with pytest.raises(TaskSpecError) as info:
        load_tasks(old)
    err = info.value
    assert (err.task_id, err.field) == ("toy.x.1", "user")
    assert "user.script (turn-indexed replies) is no longer supported" in err.reason
    # The values an author must move into facts: those the facts do not already hold.
    assert err.reason.endswith("values only the script holds: 1990-04-12, A2")
    assert "\n" not in str(err)
